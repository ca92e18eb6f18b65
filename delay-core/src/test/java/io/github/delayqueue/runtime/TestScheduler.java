package io.github.delayqueue.runtime;

import java.util.concurrent.Executor;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/** The starter's scheduler as the auto-configuration builds it, for tests that run engine parts on their own. */
public final class TestScheduler {

    /** One for every test in the JVM: engine parts cancel what they scheduled and never shut it down. */
    public static final ThreadPoolTaskScheduler SHARED = create();

    private TestScheduler() {
    }

    /** A thread per handler: the pool must keep to its thread count on any executor. */
    public static Executor handlerThreads() {
        SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("delay-test-worker-");
        executor.setDaemon(true);
        return executor;
    }

    public static ThreadPoolTaskScheduler create() {
        return create(4);
    }

    public static ThreadPoolTaskScheduler create(int threads) {
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.setPoolSize(threads);
        scheduler.setThreadNamePrefix("delay-test-scheduler-");
        scheduler.setDaemon(true);
        scheduler.initialize();
        return scheduler;
    }
}
