package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.runtime.DelayQueueRuntimeBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.task.ThreadPoolTaskSchedulerCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Where the queue's work runs ({@link DelayQueueThreadsConfiguration}): a scheduler and a handler executor from Boot's
 * builders, out of the way of the application's own scheduling, and replaceable by one as small as a single thread.
 */
class DelayQueueThreadsTests {

    private final ApplicationContextRunner runner = QueueContexts.queue()
        .withConfiguration(AutoConfigurations.of(TaskSchedulingAutoConfiguration.class,
                TaskExecutionAutoConfiguration.class))
        .withPropertyValues("delay.worker.enabled=true", "delay.worker.threads=3",
                "delay.worker.shutdown-timeout=2s");

    @Test
    void theSchedulerAndTheHandlerThreadsComeFromBootsBuildersWithTheirCustomizers() {
        runner.withUserConfiguration(WithHandler.class, SchedulerCustomizer.class).run(context -> {
            assertThat(context).hasNotFailed();
            ThreadPoolTaskScheduler scheduler = context.getBean(DelayQueueThreadsConfiguration.SCHEDULER,
                    ThreadPoolTaskScheduler.class);
            assertThat(scheduler.getScheduledThreadPoolExecutor().getCorePoolSize())
                .isEqualTo(DelayQueueRuntimeBuilder.SCHEDULER_THREADS);
            assertThat(scheduler.getThreadNamePrefix()).isEqualTo("delay-scheduler-");
            assertThat(context.getBean(SchedulerCustomizer.class).customized).contains(scheduler);
            ThreadPoolTaskExecutor executor = context.getBean(DelayQueueThreadsConfiguration.HANDLER_EXECUTOR,
                    ThreadPoolTaskExecutor.class);
            assertThat(executor.getCorePoolSize()).isEqualTo(3);
            assertThat(executor.getMaxPoolSize()).isEqualTo(3);

            context.getBean(DelayQueue.class).schedule("threads.probe", "1", Duration.ZERO);
            await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(context.getBean(Probe.class).threads).hasSize(1));
            assertThat(context.getBean(Probe.class).threads.get(0)).startsWith("delay-worker-");
        });
    }

    @Test
    void theApplicationsScheduledJobsAndExecutorStayBootsOwn() {
        runner.withUserConfiguration(WithHandler.class, ScheduledJob.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasBean("taskScheduler").hasBean("applicationTaskExecutor");
            assertThat(context.getBean(TaskScheduler.class)).isSameAs(context.getBean("taskScheduler"));
            await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(context.getBean(ScheduledJob.class).threads).isNotEmpty());
            assertThat(context.getBean(ScheduledJob.class).threads).noneMatch(name -> name.startsWith("delay-"));
        });
    }

    /**
     * Every loop and job runs in short rounds, so no thread is held for good: an application's scheduler of one
     * thread, or two, runs the engine, tasks due now and tasks due a moment later alike.
     */
    @ParameterizedTest
    @ValueSource(ints = { 1, 2 })
    void aSchedulerOfTheApplicationsWithOneOrTwoThreadsRunsTheEngine(int threads) {
        runner.withUserConfiguration(WithHandler.class)
            .withBean(DelayQueueThreadsConfiguration.SCHEDULER, ThreadPoolTaskScheduler.class, () -> {
                ThreadPoolTaskScheduler own = new ThreadPoolTaskScheduler();
                own.setPoolSize(threads);
                own.setThreadNamePrefix("own-");
                return own;
            })
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(DelayQueueThreadsConfiguration.SCHEDULER, ThreadPoolTaskScheduler.class)
                    .getThreadNamePrefix()).isEqualTo("own-");
                DelayQueue queue = context.getBean(DelayQueue.class);
                for (int task = 0; task < 20; task++) {
                    queue.schedule("threads.probe", Integer.toString(task), Duration.ofMillis(task % 2 * 300));
                }
                await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(context.getBean(Probe.class).threads).hasSize(20));
            });
    }

    /** Boot gives virtual threads only on Java 21+; below, the property changes nothing. */
    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void withBootOnVirtualThreadsEachHandlerRunsOnAVirtualThread() {
        runner.withUserConfiguration(WithHandler.class)
            .withPropertyValues("spring.threads.virtual.enabled=true")
            .run(context -> {
                assertThat(context.getBean(DelayQueueThreadsConfiguration.HANDLER_EXECUTOR))
                    .isInstanceOf(SimpleAsyncTaskExecutor.class);
                context.getBean(DelayQueue.class).schedule("threads.probe", "1", Duration.ZERO);
                await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(context.getBean(Probe.class).virtual).containsExactly(true));
            });
    }

    @Test
    @EnabledForJreRange(max = JRE.JAVA_20)
    void belowJava21TheVirtualThreadsPropertyKeepsThePool() {
        runner.withUserConfiguration(WithHandler.class)
            .withPropertyValues("spring.threads.virtual.enabled=true")
            .run(context -> assertThat(context.getBean(DelayQueueThreadsConfiguration.HANDLER_EXECUTOR))
                .isInstanceOf(ThreadPoolTaskExecutor.class));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class WithHandler {

        @Bean
        Probe probe() {
            return new Probe();
        }
    }

    static class Probe {

        final List<String> threads = new CopyOnWriteArrayList<>();

        final List<Boolean> virtual = new CopyOnWriteArrayList<>();

        @DelayedHandler(type = "threads.probe")
        void handle(String payload) {
            threads.add(Thread.currentThread().getName());
            virtual.add(isVirtual(Thread.currentThread()));
        }

        /** {@code Thread.isVirtual()} is Java 21; the library is built for 17. */
        private static boolean isVirtual(Thread thread) {
            try {
                return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
            }
            catch (ReflectiveOperationException ex) {
                return false;
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SchedulerCustomizer implements ThreadPoolTaskSchedulerCustomizer {

        final List<ThreadPoolTaskScheduler> customized = new CopyOnWriteArrayList<>();

        @Override
        public void customize(ThreadPoolTaskScheduler scheduler) {
            customized.add(scheduler);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class ScheduledJob {

        final List<String> threads = new CopyOnWriteArrayList<>();

        @Scheduled(fixedDelay = 50)
        void tick() {
            threads.add(Thread.currentThread().getName());
        }
    }
}
