package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.store.ClaimId;
import io.github.delayqueue.store.Completion;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.task.ThreadPoolTaskSchedulerCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.support.TaskUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An instance's life around the engine, on the in-memory store with the starter's real threads: a context stopped
 * and started again (Spring's checkpoint/restore, {@code pause}/{@code resume}) works like a fresh one; the lease
 * guard runs until the last handler has ended; jobs and loops survive an {@link Error} whatever the scheduler's error
 * handler; an executor that rejects a hand-off strands no task.
 */
class DelayQueueLifecycleTests {

    private final ApplicationContextRunner runner = QueueContexts.bare()
        .withConfiguration(AutoConfigurations.of(TaskSchedulingAutoConfiguration.class,
                TaskExecutionAutoConfiguration.class))
        .withBean(javax.sql.DataSource.class, RefusingDataSource::new)
        .withUserConfiguration(QueueContexts.InMemoryStore.class)
        .withPropertyValues("delay.worker.enabled=true", "delay.worker.threads=2");

    @Test
    void aContextStoppedAndStartedAgainRunsTasksAsAfterItsFirstStart() {
        runner.withUserConfiguration(Storage.class, Handlers.class).run(context -> {
            DelayQueue queue = context.getBean(DelayQueue.class);
            Handlers handlers = context.getBean(Handlers.class);
            InMemoryTaskStore store = context.getBean(InMemoryTaskStore.class);
            queue.schedule("life.probe", "before", Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(() -> handlers.ran.contains("before"));

            for (int restart = 1; restart <= 3; restart++) {
                context.stop();
                context.start();
                String payload = "after restart " + restart;
                long id = queue.schedule("life.probe", payload, Duration.ZERO);
                await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(handlers.ran).as("ran after restart, row %s", view(store, id))
                        .contains(payload));
                await().atMost(Duration.ofSeconds(5)).untilAsserted(
                        () -> assertThat(view(store, id).status()).isEqualTo(TaskStatus.SUCCEEDED));
                assertThat(view(store, id).attempts()).isEqualTo(1);
            }
            assertThat(handlers.ran).hasSize(4).doesNotHaveDuplicates();
        });
    }

    /**
     * The database stops renewing leases while a handler drains at shutdown: the guard interrupts it before its lease
     * can end (a third of a lease before), as it does while the engine runs, instead of letting it run on while
     * another instance's recovery may run the task too.
     */
    @Test
    void theLeaseGuardInterruptsADrainingHandlerWhoseLeaseCannotBeRenewed() throws Exception {
        runner.withUserConfiguration(FailingRenewals.class, Handlers.class)
            .withPropertyValues("delay.worker.lease=3s", "delay.worker.shutdown-timeout=10s")
            .run(context -> {
                Handlers handlers = context.getBean(Handlers.class);
                FailingRenewalsStore store = context.getBean(FailingRenewalsStore.class);
                context.getBean(DelayQueue.class).schedule("life.slow", "drain", Duration.ZERO);
                await().atMost(Duration.ofSeconds(10)).until(() -> handlers.slowStarted.get() != 0);

                Thread stopper = new Thread(context::stop, "stopper");
                stopper.start();
                Thread.sleep(200);
                long failFrom = System.nanoTime();
                store.renewalsFail.set(true);
                stopper.join(15_000);

                assertThat(handlers.slowInterrupted).as("the draining handler was interrupted").isTrue();
                long endedAfterMillis = (handlers.slowEnded.get() - failFrom) / 1_000_000;
                // its last renewal was at most a third of a lease (1 s) before failFrom: the lease ends by +3 s
                assertThat(endedAfterMillis).as("handler ended after renewals failed, ms").isLessThan(3_000);
            });
    }

    /**
     * The scheduler's error handler rethrows (a customizer may set one; Boot applies customizers to the queue's
     * scheduler): an {@link Error} in lease renewal must not end it for good.
     */
    @Test
    void leaseRenewalSurvivesAnErrorWhateverTheSchedulersErrorHandler() {
        runner.withUserConfiguration(ErrorOnce.class, Handlers.class, PropagatingErrors.class)
            .withPropertyValues("delay.worker.lease=3s")
            .run(context -> {
                Handlers handlers = context.getBean(Handlers.class);
                ErrorOnceStore store = context.getBean(ErrorOnceStore.class);
                long slow = context.getBean(DelayQueue.class).schedule("life.slow", "renewed", Duration.ZERO);
                await().atMost(Duration.ofSeconds(10)).until(() -> handlers.slowStarted.get() != 0);
                await().atMost(Duration.ofSeconds(10)).until(() -> store.renewalErrors.get() == 1);
                int renewalsAtError = store.renewals.get();
                await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(store.renewals.get()).as("renewals after the Error")
                        .isGreaterThan(renewalsAtError + 1));
                assertThat(handlers.slowInterrupted).as("the guard had no reason to interrupt").isFalse();
                handlers.releaseSlow();
                await().atMost(Duration.ofSeconds(10)).untilAsserted(
                        () -> assertThat(view(store, slow).status()).isEqualTo(TaskStatus.SUCCEEDED));
            });
    }

    /** An {@link Error} while writing results must not end the result writer: later results are written. */
    @Test
    void theResultWriterSurvivesAnError() {
        runner.withUserConfiguration(ErrorOnce.class, Handlers.class, PropagatingErrors.class).run(context -> {
            ErrorOnceStore store = context.getBean(ErrorOnceStore.class);
            DelayQueue queue = context.getBean(DelayQueue.class);
            long first = queue.schedule("life.probe", "hits the Error", Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(() -> store.finishErrors.get() == 1);
            long second = queue.schedule("life.probe", "written after it", Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(view(store, first).status()).isEqualTo(TaskStatus.SUCCEEDED);
                assertThat(view(store, second).status()).isEqualTo(TaskStatus.SUCCEEDED);
            });
        });
    }

    /**
     * A handler executor that rejects a hand-off (a bounded queue, a customizer's smaller pool): the task is handed
     * over again shortly, not left held and renewed until another task happens to arrive.
     */
    @Test
    void aTaskTheHandlerExecutorRejectedRunsAllTheSame() {
        runner.withUserConfiguration(Storage.class, Handlers.class, RejectingExecutor.class).run(context -> {
            InMemoryTaskStore store = context.getBean(InMemoryTaskStore.class);
            long id = context.getBean(DelayQueue.class).schedule("life.probe", "rejected", Duration.ZERO);
            await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(view(store, id).status()).isEqualTo(TaskStatus.SUCCEEDED));
            assertThat(context.getBean(RejectingExecutor.class).rejected).hasValue(3);
        });
    }

    private static TaskView view(InMemoryTaskStore store, long id) {
        return store.find(id).orElseThrow();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class Storage {

        @Bean
        InMemoryTaskStore store() {
            return new InMemoryTaskStore();
        }
    }

    static class Handlers {

        final List<String> ran = new CopyOnWriteArrayList<>();

        final AtomicLong slowStarted = new AtomicLong();

        final AtomicLong slowEnded = new AtomicLong();

        volatile boolean slowInterrupted;

        private final Object gate = new Object();

        private boolean released;

        @DelayedHandler(type = "life.probe")
        void probe(String payload) {
            ran.add(payload);
        }

        @DelayedHandler(type = "life.slow")
        void slow(String payload) {
            slowStarted.set(System.nanoTime());
            try {
                synchronized (gate) {
                    long until = System.currentTimeMillis() + 8_000;
                    while (!released && System.currentTimeMillis() < until) {
                        gate.wait(Math.max(1, until - System.currentTimeMillis()));
                    }
                }
            }
            catch (InterruptedException ex) {
                slowInterrupted = true;
            }
            finally {
                slowEnded.set(System.nanoTime());
            }
        }

        void releaseSlow() {
            synchronized (gate) {
                released = true;
                gate.notifyAll();
            }
        }
    }

    /** Renewals fail once {@link #renewalsFail} is set, as with a database that stopped answering. */
    static class FailingRenewalsStore extends InMemoryTaskStore {

        final AtomicBoolean renewalsFail = new AtomicBoolean();

        @Override
        public Set<ClaimId> extendLeases(Collection<ClaimId> held, long leaseUntil) {
            if (renewalsFail.get()) {
                throw new DataAccessResourceFailureException("the database does not answer");
            }
            return super.extendLeases(held, leaseUntil);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class FailingRenewals {

        @Bean
        FailingRenewalsStore store() {
            return new FailingRenewalsStore();
        }
    }

    /** The first renewal with a claim to renew, and the first write of a result, throw an {@link Error}. */
    static class ErrorOnceStore extends InMemoryTaskStore {

        final AtomicInteger renewals = new AtomicInteger();

        final AtomicInteger renewalErrors = new AtomicInteger();

        final AtomicInteger finishErrors = new AtomicInteger();

        @Override
        public Set<ClaimId> extendLeases(Collection<ClaimId> held, long leaseUntil) {
            renewals.incrementAndGet();
            if (renewalErrors.compareAndSet(0, 1)) {
                throw new LinkageError("an Error in lease renewal");
            }
            return super.extendLeases(held, leaseUntil);
        }

        @Override
        public void finish(List<Completion> completions, long now) {
            boolean quick = completions.stream().anyMatch(c -> find(c.id()).map(TaskView::type)
                .filter("life.probe"::equals).isPresent());
            if (quick && finishErrors.compareAndSet(0, 1)) {
                throw new LinkageError("an Error writing results");
            }
            super.finish(completions, now);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class ErrorOnce {

        @Bean
        ErrorOnceStore store() {
            return new ErrorOnceStore();
        }
    }

    /** What an application's customizer may do to every scheduler, the queue's included. */
    @Configuration(proxyBeanMethods = false)
    static class PropagatingErrors implements ThreadPoolTaskSchedulerCustomizer {

        @Override
        public void customize(org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler scheduler) {
            scheduler.setErrorHandler(TaskUtils.LOG_AND_PROPAGATE_ERROR_HANDLER);
        }
    }

    /** The handler executor, replaced by the application: it rejects its first three hand-offs. */
    @Configuration(proxyBeanMethods = false)
    static class RejectingExecutor {

        final AtomicInteger rejected = new AtomicInteger();

        @Bean(name = DelayQueueThreadsConfiguration.HANDLER_EXECUTOR, defaultCandidate = false)
        Executor delayQueueHandlerExecutor() {
            ThreadPoolTaskExecutor pool = new ThreadPoolTaskExecutor();
            pool.setCorePoolSize(2);
            pool.setDaemon(true);
            pool.initialize();
            return task -> {
                if (rejected.get() < 3) {
                    rejected.incrementAndGet();
                    throw new RejectedExecutionException("full");
                }
                pool.execute(task);
            };
        }
    }
}
