package io.github.delayqueue.engine;

import java.time.Instant;
import java.util.function.BooleanSupplier;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import org.jspecify.annotations.Nullable;

/**
 * Runs one claimed task on the calling worker thread and decides how it ended: success, a retry at the next
 * backoff in the tier its new due time belongs to, or the dead letter (out of attempts, payload that does not bind,
 * or no handler for the type). Nothing a handler throws, {@link Error}s included, escapes to the worker thread.
 */
public final class TaskRunner {

    private final HandlerRegistry registry;

    private final PayloadCodec codec;

    private final RetryPolicy retryPolicy;

    private final Tiers tiers;

    private final QueueClock clock;

    private final TaskEvents events;

    private final String instanceId;

    private final HandlerInvoker invoker;

    public TaskRunner(HandlerRegistry registry, PayloadCodec codec, RetryPolicy retryPolicy, Tiers tiers,
            QueueClock clock, TaskEvents events, String instanceId, HandlerInvoker invoker) {
        this.registry = registry;
        this.codec = codec;
        this.retryPolicy = retryPolicy;
        this.tiers = tiers;
        this.clock = clock;
        this.events = events;
        this.instanceId = instanceId;
        this.invoker = invoker;
    }

    /**
     * Runs the task; {@code leaseLost} tells, after a failure, whether the pool interrupted the handler because the
     * task's lease could not be renewed. Such a failure is the instance's, not the handler's: the task goes back,
     * due now, without being dead-lettered on its last attempt.
     */
    public Completion run(ClaimedTask task, BooleanSupplier leaseLost) {
        TaskHandler handler = registry.find(task.type());
        if (handler == null) {
            events.finished(task, TaskEvents.Outcome.FAILED, 0);
            return new Completion.Failed(task.id(), "No @DelayedHandler for task type '" + task.type()
                    + "' on instance " + instanceId + "; deploy a handler for it and re-run the task");
        }
        Object payload;
        try {
            payload = bind(task, handler);
        }
        catch (PayloadBindingException ex) {
            events.finished(task, TaskEvents.Outcome.FAILED, 0);
            return new Completion.Failed(task.id(), "Payload of task " + task.id() + " (type '" + task.type()
                    + "') does not fit " + handler.description() + ": " + ex.getMessage()
                    + "; fix the payload or the handler's parameter type and re-run the task");
        }
        TaskContext context = new TaskContext(task.id(), task.type(), task.key(), task.attempt(),
                Instant.ofEpochMilli(task.dueAt()), Instant.ofEpochMilli(task.createdAt()));
        events.started(task, clock.now() - task.dueAt());
        long started = System.nanoTime();
        Throwable failure = null;
        try {
            invoker.invoke(handler, payload, context);
        }
        catch (Throwable ex) { // an Error in one handler must not cost the pool a thread
            failure = ex;
        }
        finally {
            Thread.interrupted(); // a handler that interrupted itself leaves the worker thread clean
        }
        long duration = System.nanoTime() - started;
        if (failure == null) {
            events.finished(task, TaskEvents.Outcome.SUCCESS, duration);
            return new Completion.Succeeded(task.id());
        }
        if (leaseLost.getAsBoolean()) {
            long now = clock.now();
            events.finished(task, TaskEvents.Outcome.RETRY, duration);
            return new Completion.Retry(task.id(), tiers.statusFor(now, now), now, "Attempt " + task.attempt()
                    + " was interrupted because instance " + instanceId + " could not renew its lease: "
                    + describe(failure));
        }
        return failed(task, handler, failure, duration);
    }

    private @Nullable Object bind(ClaimedTask task, TaskHandler handler) {
        return handler.payloadType() == null ? null : codec.decode(task.payload(), handler.payloadType());
    }

    private Completion failed(ClaimedTask task, TaskHandler handler, Throwable failure, long duration) {
        String error = describe(failure);
        int maxAttempts = retryPolicy.maxAttempts(task.maxAttempts(), handler.settings());
        if (task.attempt() >= maxAttempts) {
            events.finished(task, TaskEvents.Outcome.FAILED, duration);
            return new Completion.Failed(task.id(), "Failed on attempt " + task.attempt() + " of " + maxAttempts
                    + ": " + error);
        }
        long now = clock.now();
        long dueAt = now + retryPolicy.backoffMillis(task.attempt(), handler.settings());
        events.finished(task, TaskEvents.Outcome.RETRY, duration);
        return new Completion.Retry(task.id(), tiers.statusFor(dueAt, now), dueAt,
                "Attempt " + task.attempt() + " of " + maxAttempts + " failed: " + error);
    }

    static String describe(Throwable failure) {
        return failure.getClass().getName() + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
    }
}
