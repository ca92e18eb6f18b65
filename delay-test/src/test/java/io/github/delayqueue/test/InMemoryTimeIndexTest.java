package io.github.delayqueue.test;

import java.util.List;

import io.github.delayqueue.index.IndexEntry;
import io.github.delayqueue.index.IndexUnavailableException;
import io.github.delayqueue.index.TimeIndex;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** {@link TimeIndexContract} on {@link InMemoryTimeIndex}: the fake the fast tests run on keeps Redis's rules. */
class InMemoryTimeIndexTest extends TimeIndexContract {

    @Override
    protected TimeIndex createIndex(int shards) {
        return new InMemoryTimeIndex(shards);
    }

    @Override
    protected TimeIndex anotherInstance(TimeIndex index) {
        return ((InMemoryTimeIndex) index).anotherInstance();
    }

    @Override
    protected TimeIndex unreachableIndex() {
        InMemoryTimeIndex index = new InMemoryTimeIndex(2);
        index.reachable(false);
        return index;
    }

    @Test
    void aFlushLosesTheEntriesAndTheRecordAsARestartedRedisDoes() {
        InMemoryTimeIndex index = new InMemoryTimeIndex(1);
        index.add(List.of(new IndexEntry(1, T0)));
        index.rebuilds().begin();

        index.flush();

        assertThat(index.size(0)).isZero();
        assertThat(index.rebuilds().completed(1)).isFalse();
    }

    @Test
    void aCutOffIndexAnswersAgainOnceReachable() {
        InMemoryTimeIndex index = new InMemoryTimeIndex(1);
        index.add(List.of(new IndexEntry(1, T0)));
        index.reachable(false);
        assertThatExceptionOfType(IndexUnavailableException.class).isThrownBy(() -> index.size(0));

        index.reachable(true);

        assertThat(index.size(0)).isEqualTo(1);
    }
}
