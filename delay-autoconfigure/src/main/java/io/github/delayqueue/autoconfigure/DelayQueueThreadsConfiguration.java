package io.github.delayqueue.autoconfigure;

import java.util.concurrent.Executor;

import io.github.delayqueue.runtime.DelayQueueRuntimeBuilder;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.task.SimpleAsyncTaskExecutorBuilder;
import org.springframework.boot.task.ThreadPoolTaskExecutorBuilder;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Where the queue's work runs: one {@link ThreadPoolTaskScheduler} of a few threads for the engine's loops, its
 * periodic jobs and its timers, which all run in short rounds, and one executor for handlers, both built with Boot's
 * builders, so Boot's {@code spring.task.*} settings, customizers and task decorators apply, and
 * {@code spring.threads.virtual.enabled=true} gives handlers virtual threads on Java 21+. Neither is a default
 * candidate: an application's own {@code @Scheduled} jobs, {@code @Async} methods and Boot's {@code taskScheduler} and
 * {@code applicationTaskExecutor} never see them, and they never wait behind an application's jobs. Replace either by
 * defining a bean of the same name.
 * <p>
 * Both stay up until the engine has drained: they accept tasks after the context starts closing, and they pause only
 * after the engine's last stop step, so leases are renewed while running handlers finish.
 */
@Configuration(proxyBeanMethods = false)
class DelayQueueThreadsConfiguration {

    /** The bean name of the queue's task scheduler. */
    static final String SCHEDULER = "delayQueueTaskScheduler";

    /** The bean name of the executor handlers run on. */
    static final String HANDLER_EXECUTOR = "delayQueueHandlerExecutor";

    /** Pause after {@link DelayQueueLifecycle#DRAIN_PHASE}: the engine's last step still needs its scheduler. */
    private static final int PHASE = DelayQueueLifecycle.DRAIN_PHASE - 1;

    @Bean(name = SCHEDULER, defaultCandidate = false)
    @ConditionalOnMissingBean(name = SCHEDULER)
    ThreadPoolTaskScheduler delayQueueTaskScheduler(ObjectProvider<ThreadPoolTaskSchedulerBuilder> builder) {
        ThreadPoolTaskScheduler scheduler = builder.getIfAvailable(ThreadPoolTaskSchedulerBuilder::new)
            .poolSize(DelayQueueRuntimeBuilder.SCHEDULER_THREADS)
            .threadNamePrefix("delay-scheduler-")
            .build();
        scheduler.setDaemon(true); // the engine's keep-alive thread decides how long the JVM stays up
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setAcceptTasksAfterContextClose(true);
        scheduler.setPhase(PHASE);
        return scheduler;
    }

    /**
     * Platform threads from Boot's pool builder, {@code delay.worker.threads} of them; or, when Boot runs on virtual
     * threads, a virtual thread per handler. The engine never runs more than {@code delay.worker.threads} handlers at
     * once either way, so {@code concurrency} and the claim size mean the same on both.
     */
    @Bean(name = HANDLER_EXECUTOR, defaultCandidate = false)
    @ConditionalOnMissingBean(name = HANDLER_EXECUTOR)
    @ConditionalOnBooleanProperty(name = "delay.worker.enabled", matchIfMissing = true)
    Executor delayQueueHandlerExecutor(DelayQueueProperties properties, Environment environment,
            ObjectProvider<ThreadPoolTaskExecutorBuilder> pooled,
            ObjectProvider<SimpleAsyncTaskExecutorBuilder> simple) {
        if (Threading.VIRTUAL.isActive(environment)) {
            SimpleAsyncTaskExecutor executor = simple.getIfAvailable(SimpleAsyncTaskExecutorBuilder::new)
                .virtualThreads(true)
                .threadNamePrefix("delay-worker-")
                .build();
            // the engine bounds handlers itself; a limit meant for the application's tasks must not block its timer
            executor.setConcurrencyLimit(SimpleAsyncTaskExecutor.UNBOUNDED_CONCURRENCY);
            return executor;
        }
        int threads = properties.getWorker().getThreads();
        ThreadPoolTaskExecutor executor = pooled.getIfAvailable(ThreadPoolTaskExecutorBuilder::new)
            .corePoolSize(threads)
            .maxPoolSize(threads)
            .queueCapacity(Integer.MAX_VALUE)
            .threadNamePrefix("delay-worker-")
            .acceptTasksAfterContextClose(true)
            .build();
        executor.setDaemon(true);
        executor.setPhase(PHASE);
        return executor;
    }
}
