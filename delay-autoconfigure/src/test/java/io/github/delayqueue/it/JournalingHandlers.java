package io.github.delayqueue.it;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.runtime.DelayQueueRuntime;

import org.springframework.beans.factory.ObjectProvider;

/**
 * What the test applications' handlers share: each start goes to the test's {@link Journal} under the id of the
 * instance that ran it ("producer" in a context without a running engine).
 */
public abstract class JournalingHandlers {

    private final Journal journal;

    private final ObjectProvider<DelayQueueRuntime> engine;

    protected JournalingHandlers(Journal journal, ObjectProvider<DelayQueueRuntime> engine) {
        this.journal = journal;
        this.engine = engine;
    }

    /** The instance id of this context's engine. */
    protected String instance() {
        DelayQueueRuntime runtime = engine.getIfAvailable();
        String id = runtime == null ? null : runtime.status().instanceId();
        return id == null ? "producer" : id;
    }

    /** Records that this instance started {@code context}'s task with {@code payload}. */
    protected Journal.Start record(TaskContext context, Object payload) {
        return journal.record(instance(), context, payload);
    }
}
