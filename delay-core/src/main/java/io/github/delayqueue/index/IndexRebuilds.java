package io.github.delayqueue.index;

import java.time.Duration;

/**
 * The record, shared by every instance, of full rebuilds of the time index from the database, so that one rebuild
 * serves all the instances that saw the index come back instead of each doing its own. Rebuilds are numbered in the
 * order they {@link #begin() begin}. An instance that sees the index back reads how many have begun; it is covered
 * once a rebuild with a higher number has completed, because that one began after it looked and so read every row the
 * instance had committed while it could not reach the index. No clock is compared, so clock skew between instances
 * cannot open a gap. The lock only saves duplicate work: a rebuild that lost it still counts.
 */
public interface IndexRebuilds {

    /** Every instance rebuilds for itself: for an index that keeps no shared record. */
    IndexRebuilds SOLO = new IndexRebuilds() {

        @Override
        public Record record() {
            return new Record(0, 0);
        }

        @Override
        public boolean tryLock(String token, Duration ttl) {
            return true;
        }

        @Override
        public boolean extendLock(String token, Duration ttl) {
            return true;
        }

        @Override
        public void unlock(String token) {
        }

        @Override
        public long begin() {
            return 1;
        }

        @Override
        public boolean completed(long number) {
            return true;
        }
    };

    /** How many rebuilds began, and the highest number of one that completed. */
    record Record(long started, long completed) {
    }

    /** The record as it is now, read from the primary. */
    Record record();

    /** Takes the rebuild lock for {@code ttl} unless another instance holds it. */
    boolean tryLock(String token, Duration ttl);

    /** Extends the lock held by {@code token}; {@code false} when it expired and may be someone else's. */
    boolean extendLock(String token, Duration ttl);

    /** Releases the lock if {@code token} still holds it. */
    void unlock(String token);

    /** Numbers a rebuild that begins now, before it reads its first page. */
    long begin();

    /** Records that rebuild {@code number} read every page; {@code false} when the record was lost meanwhile. */
    boolean completed(long number);
}
