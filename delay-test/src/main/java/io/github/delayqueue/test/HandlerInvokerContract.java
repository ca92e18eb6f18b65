package io.github.delayqueue.test;

import java.io.IOException;
import java.lang.reflect.Type;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.handler.HandlerSettings;
import io.github.delayqueue.handler.TaskHandler;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every {@link HandlerInvoker} must do: call the handler once, on the calling thread, with what it was given,
 * and change nothing of how the run ends. The engine's worker calls the invoker once per attempt and builds everything
 * on what comes back: a normal return is a success; the exception the handler threw, that very instance, decides
 * between a retry and the dead letter and is written as the task's {@code last_error} (class and message), logged and
 * counted by its class; and the pool's lease guard interrupts the worker's thread when the task's lease cannot be
 * renewed, so the handler, on that thread, must see the interrupt and stop before another instance runs the task. An
 * invoker may do what it likes around the call (an observation or a span, a log line, the MDC) as long as it keeps to
 * these. Extend this class to hold an invoker of your own to them and give it in {@link #createInvoker()};
 * {@code DirectHandlerInvokerTest} in delay-core runs these on {@link HandlerInvoker#DIRECT},
 * {@code ObservedHandlerInvokerContractTest} in delay-autoconfigure on the invoker that observes each run.
 * <p>
 * The engine clears the worker thread's interrupt status itself once the run has ended, so what the handler leaves
 * there is for the invoker's caller, not for the invoker, to clear.
 */
public abstract class HandlerInvokerContract {

    private static final long WAIT_SECONDS = 10;

    private HandlerInvoker invoker;

    /** The invoker under test; called once before each test. */
    protected abstract HandlerInvoker createInvoker();

    @BeforeEach
    void createTheInvoker() {
        invoker = createInvoker();
    }

    @AfterEach
    void leaveTheThreadClean() {
        Thread.interrupted();
    }

    @Test
    void theHandlerRunsOnceWithThePayloadAndTheContextGiven() throws Exception {
        Recording handler = new Recording(null);
        Order payload = new Order(42, "Ada");
        TaskContext context = context(7);

        invoker.invoke(handler, payload, context);

        assertThat(handler.calls.get()).isEqualTo(1);
        assertThat(handler.payload).isSameAs(payload);
        assertThat(handler.context).isSameAs(context);
    }

    /** A handler without a payload parameter is given {@code null}, and so is a task whose payload is JSON null. */
    @Test
    void aNullPayloadReachesTheHandlerAsNull() throws Exception {
        Recording handler = new Recording(null);
        handler.payload = "not called";
        TaskContext context = context(8);

        invoker.invoke(handler, null, context);

        assertThat(handler.calls.get()).isEqualTo(1);
        assertThat(handler.payload).isNull();
        assertThat(handler.context).isSameAs(context);
    }

    /**
     * The lease guard interrupts the thread that called the invoker, and the engine takes the run as over, writes its
     * result and frees the task's slot, once {@code invoke} returns: the handler runs on the calling thread, and has
     * ended by then.
     */
    @Test
    void theHandlerRunsOnTheCallingThreadAndHasEndedWhenInvokeReturns() throws Exception {
        Thread caller = Thread.currentThread();
        List<Thread> ranOn = new ArrayList<>();
        AtomicInteger ended = new AtomicInteger();
        TaskHandler handler = new Recording(null) {
            @Override
            public void handle(@Nullable Object payload, TaskContext context) throws Exception {
                ranOn.add(Thread.currentThread());
                Thread.sleep(50);
                ended.incrementAndGet();
            }
        };

        invoker.invoke(handler, null, context(9));

        assertThat(ranOn).containsExactly(caller);
        assertThat(ended.get()).as("handler ended before invoke returned").isEqualTo(1);
    }

    // --- what the handler throws ------------------------------------------------------------------------------

    /** The engine retries or dead-letters on the exception's class and message; a wrapper would change both. */
    @Test
    void aRuntimeExceptionReachesTheCallerUnchangedAfterOneCall() {
        assertPassedOnUnchanged(new IllegalStateException("order 42 is locked"));
        assertPassedOnUnchanged(new IllegalArgumentException((String) null));
        assertPassedOnUnchanged(new RuntimeException("with a cause", new IOException("connection reset")));
    }

    @Test
    void aCheckedExceptionReachesTheCallerUnchangedAfterOneCall() {
        assertPassedOnUnchanged(new IOException("connection reset"));
        assertPassedOnUnchanged(new Exception("a plain checked exception"));
        assertPassedOnUnchanged(new InterruptedException("stopped"));
    }

    /** An {@link Error} in a handler is a failed attempt like any other; the worker thread survives it. */
    @Test
    void anErrorReachesTheCallerUnchangedAfterOneCall() {
        assertPassedOnUnchanged(new AssertionError("expected 1 row"));
        assertPassedOnUnchanged(new StackOverflowError());
        assertPassedOnUnchanged(new NoClassDefFoundError("com/example/Missing"));
        assertPassedOnUnchanged(new OutOfMemoryError("Java heap space"));
    }

    // --- interrupts -------------------------------------------------------------------------------------------

    /** An interrupt that came before the handler started (the lease guard does not wait for it) reaches it. */
    @Test
    void anInterruptOfTheCallingThreadBeforeTheCallReachesTheHandler() throws Exception {
        List<Boolean> sawInterrupt = new ArrayList<>();
        TaskHandler handler = new Recording(null) {
            @Override
            public void handle(@Nullable Object payload, TaskContext context) {
                sawInterrupt.add(Thread.currentThread().isInterrupted());
            }
        };

        Thread.currentThread().interrupt();
        invoker.invoke(handler, null, context(10));

        assertThat(sawInterrupt).containsExactly(true);
        assertThat(Thread.interrupted()).as("interrupt status after invoke").isTrue();
    }

    /**
     * What the lease guard does: another thread interrupts the calling thread while the handler waits. The wait ends
     * at once, and the handler's {@link InterruptedException} reaches the caller unchanged, so the engine can tell
     * the run was cut off.
     */
    @Test
    void anInterruptWhileTheHandlerWaitsEndsTheWaitAndItsExceptionReachesTheCaller() throws Exception {
        Thread caller = Thread.currentThread();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        List<InterruptedException> thrown = new ArrayList<>();
        TaskHandler handler = new Recording(null) {
            @Override
            public void handle(@Nullable Object payload, TaskContext context) throws Exception {
                started.countDown();
                try {
                    never.await(WAIT_SECONDS, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    thrown.add(ex);
                    throw ex;
                }
            }
        };
        Thread guard = new Thread(() -> {
            try {
                if (started.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                    caller.interrupt();
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }, "lease-guard");
        guard.start();

        Throwable failure = catchThrowable(() -> invoker.invoke(handler, null, context(11)));
        Thread.interrupted(); // whatever the handler left, so that the join waits
        guard.join();

        assertThat(thrown).as("the handler's wait was interrupted").hasSize(1);
        assertThat(failure).isSameAs(thrown.get(0));
    }

    /**
     * A handler that restores the interrupt (or interrupts itself) and returns still succeeded: {@code invoke}
     * returns normally, and the thread is still interrupted when it does.
     */
    @Test
    void theInterruptStatusTheHandlerLeavesIsLeftForTheCaller() throws Exception {
        TaskHandler interrupting = new Recording(null) {
            @Override
            public void handle(@Nullable Object payload, TaskContext context) {
                Thread.currentThread().interrupt();
            }
        };

        assertThatCode(() -> invoker.invoke(interrupting, null, context(12))).doesNotThrowAnyException();
        assertThat(Thread.interrupted()).as("interrupt status after a handler that returned").isTrue();

        IllegalStateException failure = new IllegalStateException("gave up on interrupt");
        TaskHandler interruptedAndFailing = new Recording(failure) {
            @Override
            public void handle(@Nullable Object payload, TaskContext context) throws Exception {
                Thread.currentThread().interrupt();
                super.handle(payload, context);
            }
        };

        assertThatThrownBy(() -> invoker.invoke(interruptedAndFailing, null, context(13))).isSameAs(failure);
        assertThat(Thread.interrupted()).as("interrupt status after a handler that threw").isTrue();
    }

    // --- many workers -----------------------------------------------------------------------------------------

    /** One invoker serves every worker thread: each call runs its own handler, with its own payload and outcome. */
    @Test
    void callsFromManyWorkerThreadsAtOnceEachRunTheirOwnHandler() throws Exception {
        int threads = 8;
        int runs = 200;
        ExecutorService workers = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Callable<List<String>>> calls = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int worker = t;
                calls.add(() -> {
                    go.await();
                    List<String> wrong = new ArrayList<>();
                    for (int i = 0; i < runs; i++) {
                        long id = worker * 1_000_000L + i;
                        checkOneRun(id, i % 3 == 0, wrong);
                    }
                    return wrong;
                });
            }
            List<Future<List<String>>> results = new ArrayList<>();
            for (Callable<List<String>> call : calls) {
                results.add(workers.submit(call));
            }
            go.countDown();
            List<String> wrong = new ArrayList<>();
            for (Future<List<String>> result : results) {
                wrong.addAll(result.get(60, TimeUnit.SECONDS));
            }
            assertThat(wrong).isEmpty();
        }
        finally {
            workers.shutdownNow();
        }
    }

    private void checkOneRun(long id, boolean fails, List<String> wrong) {
        RuntimeException failure = fails ? new IllegalStateException("task " + id) : null;
        Recording handler = new Recording(failure);
        Order payload = new Order(id, "customer " + id);
        TaskContext context = context(id);
        Throwable thrown = catchThrowable(() -> invoker.invoke(handler, payload, context));
        if (handler.calls.get() != 1 || handler.payload != payload || handler.context != context
                || handler.thread != Thread.currentThread()) {
            wrong.add("task " + id + ": handler called " + handler.calls.get() + " time(s), with payload "
                    + handler.payload + ", context " + handler.context + ", on " + handler.thread);
        }
        if (thrown != failure) {
            wrong.add("task " + id + ": expected " + failure + " from invoke, got " + thrown);
        }
    }

    private void assertPassedOnUnchanged(Throwable failure) {
        Recording handler = new Recording(failure);

        Throwable thrown = catchThrowable(() -> invoker.invoke(handler, new Order(1, "Ada"), context(1)));

        assertThat(thrown).as("what invoke threw for a handler that threw %s", failure).isSameAs(failure);
        assertThat(handler.calls.get()).as("calls of a handler that threw %s", failure).isEqualTo(1);
    }

    private static @Nullable Throwable catchThrowable(Invocation invocation) {
        try {
            invocation.invoke();
            return null;
        }
        catch (Throwable ex) {
            return ex;
        }
    }

    private static TaskContext context(long id) {
        return new TaskContext(id, "order.cancel", "order-" + id, 2, Instant.ofEpochMilli(1_750_000_000_000L),
                Instant.ofEpochMilli(1_749_999_000_000L), 3);
    }

    /** A payload, as the codec would have bound it. */
    public record Order(long id, String customer) {
    }

    @FunctionalInterface
    private interface Invocation {

        void invoke() throws Throwable;
    }

    /** A handler that records its calls, then throws {@code failure} if it has one. */
    private static class Recording implements TaskHandler {

        final AtomicInteger calls = new AtomicInteger();

        @Nullable Object payload;

        @Nullable TaskContext context;

        @Nullable Thread thread;

        private final @Nullable Throwable failure;

        Recording(@Nullable Throwable failure) {
            this.failure = failure;
        }

        @Override
        public String type() {
            return "order.cancel";
        }

        @Override
        public HandlerSettings settings() {
            return new HandlerSettings(null, null, 0);
        }

        @Override
        public @Nullable Type payloadType() {
            return Order.class;
        }

        @Override
        public void handle(@Nullable Object payload, TaskContext context) throws Exception {
            calls.incrementAndGet();
            this.payload = payload;
            this.context = context;
            this.thread = Thread.currentThread();
            if (failure instanceof Exception exception) {
                throw exception;
            }
            if (failure instanceof Error error) {
                throw error;
            }
        }

        @Override
        public String description() {
            return "HandlerInvokerContract.Recording.handle(Order, TaskContext)";
        }
    }
}
