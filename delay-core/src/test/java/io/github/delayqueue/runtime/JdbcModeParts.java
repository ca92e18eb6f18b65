package io.github.delayqueue.runtime;

/** The index parts of jdbc mode, for tests that build the engine's parts by hand. */
final class JdbcModeParts {

    private JdbcModeParts() {
    }

    static Indexer indexer() {
        return new Indexer(new NoTimeIndex(), TaskEvents.NONE);
    }

    static IndexWrites indexWrites() {
        return new IndexWrites(indexer(), TestScheduler.SHARED);
    }
}
