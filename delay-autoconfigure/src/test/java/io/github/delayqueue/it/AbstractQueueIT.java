package io.github.delayqueue.it;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.runtime.EngineAccess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The life of a task end to end on real services, in the mode a subclass chooses. Several Spring contexts in one JVM
 * stand in for instances; every handler start is written to a {@link Journal} outside the queue.
 */
abstract class AbstractQueueIT {

    protected final Journal journal = new Journal();

    protected Instances instances;

    /** Properties that select the mode under test. */
    protected abstract String[] modeProperties();

    @BeforeEach
    void startInstances() {
        List<String> properties = new ArrayList<>(List.of(modeProperties()));
        properties.add("delay.worker.lease=3s");
        properties.add("delay.worker.recovery-interval=500ms");
        instances = new Instances(journal, properties.toArray(String[]::new));
    }

    @AfterEach
    void closeInstances() {
        TestApp.Handlers.gate.countDown();
        instances.close();
    }

    protected static DelayQueue queue(ConfigurableApplicationContext context) {
        return context.getBean(DelayQueue.class);
    }

    protected TaskView awaitStatus(DelayQueue queue, long id, TaskStatus status, long seconds) {
        await().atMost(seconds, TimeUnit.SECONDS).pollInterval(20, TimeUnit.MILLISECONDS)
            .until(() -> queue.find(id).map(TaskView::status).orElse(null) == status);
        return queue.find(id).orElseThrow();
    }

    @Test
    void aTaskRunsOnceWhenDueWithItsPayloadBound() {
        DelayQueue queue = queue(instances.start());
        long before = System.currentTimeMillis();
        long id = queue.schedule("test.order", new TestApp.Order(42, "Ada"), Duration.ofMillis(300));

        journal.awaitStarted(id, 10);
        Journal.Start start = journal.startsOf(id).get(0);
        assertThat(start.payload()).isEqualTo(new TestApp.Order(42, "Ada"));
        assertThat(start.startedAt()).isGreaterThanOrEqualTo(before + 300);
        assertThat(start.attempt()).isEqualTo(1);
        TaskView done = awaitStatus(queue, id, TaskStatus.SUCCEEDED, 10);
        assertThat(done.attempts()).isEqualTo(1);
        assertThat(journal.startsOf(id)).hasSize(1);
    }

    @Test
    void schedulingAtAnInstantAndInThePastBothRun() {
        DelayQueue queue = queue(instances.start());
        long later = queue.schedule("test.ok", "at", Instant.now().plusMillis(200));
        long past = queue.schedule("test.ok", "past", Instant.now().minus(Duration.ofDays(3)));

        journal.awaitStarted(later, 10);
        journal.awaitStarted(past, 10);
        TaskView view = queue.find(past).orElseThrow();
        assertThat(view.dueAt()).isAfter(Instant.now().minus(Duration.ofMinutes(1)));
    }

    @Test
    void aKeyMakesSchedulingIdempotent() {
        DelayQueue queue = queue(instances.start("delay.worker.enabled=false"));
        long first = queue.schedule(TaskRequest.of("test.ok", "one").key("order-7").delay(Duration.ofHours(2)).build());
        long again = queue.schedule(TaskRequest.of("test.ok", "two").key("order-7").delay(Duration.ofMinutes(1))
            .build());
        List<Long> batch = queue.scheduleAll(List.of(TaskRequest.of("test.ok", "x").key("order-7").build(),
                TaskRequest.of("test.ok", "y").key("order-8").build(),
                TaskRequest.of("test.ok", "z").key("order-8").build(), TaskRequest.of("test.ok", "w").build()));

        assertThat(again).isEqualTo(first);
        assertThat(batch.get(0)).isEqualTo(first);
        assertThat(batch.get(1)).isEqualTo(batch.get(2)).isNotEqualTo(first);
        assertThat(new HashSet<>(batch)).hasSize(3);
        TaskView view = queue.find("test.ok", "order-7").orElseThrow();
        assertThat(view.id()).isEqualTo(first);
        assertThat(view.dueAt()).isAfter(Instant.now().plus(Duration.ofMinutes(90)));
        assertThat(new JdbcTemplate(instances.database().dataSource())
            .queryForObject("SELECT payload FROM delay_task WHERE id = ?", String.class, first)).isEqualTo("\"one\"");
    }

    @Test
    void scheduleAllReturnsIdsInOrderAndEveryTaskRuns() {
        DelayQueue queue = queue(instances.start());
        List<TaskRequest> requests = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            requests.add(TaskRequest.of("test.ok", "p" + i).delay(Duration.ofMillis(i % 3 * 100)).build());
        }
        List<Long> ids = queue.scheduleAll(requests);

        assertThat(ids).hasSize(300).doesNotHaveDuplicates();
        journal.awaitDistinct(300, 30);
        for (int i = 0; i < ids.size(); i++) {
            assertThat(journal.startsOf(ids.get(i))).singleElement()
                .satisfies(start -> assertThat(start.payload()).isNotNull());
        }
        assertThat(journal.startsOf(ids.get(7)).get(0).payload()).isEqualTo("p7");
    }

    /**
     * Concurrent calls outside a transaction share multi-row statements: each caller must still get its own task's
     * id, a key repeated by several callers must give them all the one task, and every task must run.
     */
    @Test
    void concurrentSchedulesEachGetTheirOwnTaskAndEveryTaskRuns() throws Exception {
        DelayQueue queue = queue(instances.start());
        int threads = 8;
        int perThread = 150;
        List<Map<Long, String>> idsByThread = new ArrayList<>();
        List<Long> shared = new java.util.concurrent.CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Map<Long, String>>> calls = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                calls.add(pool.submit(() -> {
                    Map<Long, String> mine = new HashMap<>();
                    for (int i = 0; i < perThread; i++) {
                        String payload = "t" + thread + "-" + i;
                        mine.put(queue.schedule("test.ok", payload, Duration.ofMillis(i % 5 * 50)), payload);
                        if (i % 50 == 0) {
                            // due well after every thread has scheduled it: a key names one live task, and once
                            // that task has run the key is free, so a late caller would create a second one
                            shared.add(queue.schedule(TaskRequest.of("test.ok", "shared").key("shared-" + i)
                                .delay(Duration.ofSeconds(5)).build()));
                        }
                    }
                    return mine;
                }));
            }
            for (Future<Map<Long, String>> call : calls) {
                idsByThread.add(call.get(60, TimeUnit.SECONDS));
            }
        }
        finally {
            pool.shutdownNow();
        }

        Map<Long, String> all = new HashMap<>();
        idsByThread.forEach(all::putAll);
        assertThat(all).as("one distinct task per call").hasSize(threads * perThread);
        assertThat(new HashSet<>(shared)).as("one task per shared key, whoever scheduled it").hasSize(3)
            .doesNotContainAnyElementsOf(all.keySet());
        journal.awaitDistinct(all.size() + 3, 60);
        all.forEach((id, payload) -> assertThat(journal.startsOf(id)).as("starts of %d", id).singleElement()
            .satisfies(start -> assertThat(start.payload()).isEqualTo(payload)));
        new HashSet<>(shared).forEach(id -> assertThat(journal.startsOf(id)).hasSize(1));
    }

    @Test
    void cancelAndRescheduleOnlyTouchPendingTasks() {
        DelayQueue queue = queue(instances.start());
        long byId = queue.schedule("test.ok", "a", Duration.ofSeconds(2));
        long byKey = queue.schedule(TaskRequest.of("test.ok", "b").key("k1").delay(Duration.ofSeconds(2)).build());
        long moved = queue.schedule("test.ok", "c", Duration.ofHours(3));

        assertThat(queue.cancel(byId)).isTrue();
        assertThat(queue.cancel(byId)).isFalse();
        assertThat(queue.cancel("test.ok", "k1")).isTrue();
        assertThat(queue.cancel("test.ok", "no-such-key")).isFalse();
        assertThat(queue.cancel(123456789L)).isFalse();
        assertThat(queue.reschedule(moved, Instant.now().plusMillis(200))).isTrue();
        assertThat(queue.reschedule(byId, Instant.now())).isFalse();

        journal.awaitStarted(moved, 10);
        awaitStatus(queue, moved, TaskStatus.SUCCEEDED, 10);
        assertThat(queue.reschedule(moved, Instant.now())).isFalse();
        assertThat(queue.cancel(moved)).isFalse();
        assertThat(queue.find(byId).orElseThrow().status()).isEqualTo(TaskStatus.CANCELLED);
        assertThat(queue.find(byKey).orElseThrow().status()).isEqualTo(TaskStatus.CANCELLED);
        sleep(2500);
        assertThat(journal.startsOf(byId)).isEmpty();
        assertThat(journal.startsOf(byKey)).isEmpty();
    }

    @Test
    void aTaskScheduledInARolledBackTransactionNeverExistsAndACommittedOneRuns() {
        ConfigurableApplicationContext context = instances.start();
        DelayQueue queue = queue(context);
        TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        jdbc.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY)");

        long[] rolledBack = new long[1];
        tx.executeWithoutResult(status -> {
            jdbc.update("INSERT INTO orders VALUES (1)");
            rolledBack[0] = queue.schedule("test.ok", "rolled back", Duration.ofMillis(100));
            status.setRollbackOnly();
        });
        long committed = tx.execute(status -> {
            jdbc.update("INSERT INTO orders VALUES (2)");
            return queue.schedule("test.ok", "committed", Duration.ofMillis(100));
        });

        journal.awaitStarted(committed, 10);
        assertThat(queue.find(rolledBack[0])).isEmpty();
        assertThat(jdbc.queryForList("SELECT id FROM orders", Long.class)).containsExactly(2L);
        sleep(500);
        assertThat(journal.startsOf(rolledBack[0])).isEmpty();
    }

    @Test
    void threeInstancesRunTenThousandTasksExactlyOnce() {
        List<DelayQueue> queues = List.of(queue(instances.start()), queue(instances.start()),
                queue(instances.start()));
        int total = 10_000;
        Set<Long> ids = new HashSet<>();
        for (int batch = 0; batch < total / 500; batch++) {
            List<TaskRequest> requests = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                requests.add(TaskRequest.of("test.ok", "t").delay(Duration.ofMillis((batch * 500L + i) % 1500))
                    .build());
            }
            ids.addAll(queues.get(batch % 3).scheduleAll(requests));
        }
        assertThat(ids).hasSize(total);

        journal.awaitDistinct(total, 120);
        for (long id : ids) {
            assertThat(journal.startsOf(id)).as("starts of task %d", id).hasSize(1);
        }
        assertThat(journal.totalStarts()).isEqualTo(total);
        Set<String> runners = new HashSet<>();
        journal.all().forEach(start -> runners.add(start.instance()));
        assertThat(runners).as("instances that ran tasks").hasSizeGreaterThan(1);
        await().atMost(30, TimeUnit.SECONDS).until(() -> new JdbcTemplate(instances.database().dataSource())
            .queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'SUCCEEDED'", Integer.class) == total);
    }

    @Test
    void failuresAreRetriedWithBackoffThenDeadLettered() {
        DelayQueue queue = queue(instances.start());
        long flaky = queue.schedule("test.flaky", "f", Duration.ZERO);
        TestApp.Handlers.failuresWanted.put(flaky, 2);
        long failing = queue.schedule("test.fail", "x", Duration.ZERO);

        TaskView done = awaitStatus(queue, flaky, TaskStatus.SUCCEEDED, 15);
        assertThat(done.attempts()).isEqualTo(3);
        assertThat(journal.startsOf(flaky)).extracting(Journal.Start::attempt).containsExactly(1, 2, 3);

        TaskView dead = awaitStatus(queue, failing, TaskStatus.FAILED, 15);
        assertThat(dead.attempts()).isEqualTo(3);
        assertThat(dead.lastError()).contains("java.lang.IllegalStateException: boom x").contains("3 of 3");
        assertThat(dead.errors()).as("every attempt's error").extracting(TaskView.FailedAttempt::attempt)
            .containsExactly(1, 2, 3);
        assertThat(dead.errors().get(0).error()).contains("Attempt 1 of 3 failed").contains("boom x");
        assertThat(dead.errors().get(2).error()).isEqualTo(dead.lastError());
        assertThat(done.errors()).as("a success adds nothing").hasSize(2);
        List<Journal.Start> starts = journal.startsOf(failing);
        assertThat(starts).hasSize(3);
        // backoff 200ms, multiplier 2: the second attempt waits >= 200ms, the third >= 400ms
        assertThat(starts.get(1).startedAt() - starts.get(0).startedAt()).isGreaterThanOrEqualTo(200);
        assertThat(starts.get(2).startedAt() - starts.get(1).startedAt()).isGreaterThanOrEqualTo(400);
    }

    @Test
    void aTasksOwnMaxAttemptsWinsOverItsHandlers() {
        DelayQueue queue = queue(instances.start());
        long id = queue.schedule(TaskRequest.of("test.fail", "once").maxAttempts(1).build());

        TaskView dead = awaitStatus(queue, id, TaskStatus.FAILED, 10);
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.maxAttempts()).isEqualTo(1);
    }

    @Test
    void anUnbindablePayloadIsParkedAndAnUnknownTypeWaitsPending() {
        DelayQueue queue = queue(instances.start());
        long unknown = queue.schedule("nobody.handles.this", "x", Duration.ZERO);
        long unbindable = queue.schedule("test.order", "not an order", Duration.ZERO);

        TaskView badPayload = awaitStatus(queue, unbindable, TaskStatus.PARKED, 10);
        assertThat(badPayload.attempts()).isEqualTo(1);
        assertThat(badPayload.lastError()).contains("Payload of task " + unbindable)
            .contains(TestApp.Order.class.getSimpleName());
        assertThat(journal.startsOf(unbindable)).isEmpty();
        TaskView noHandler = queue.find(unknown).orElseThrow();
        assertThat(noHandler.status().isPending()).as("%s waits for an instance with its handler", noHandler)
            .isTrue();
        assertThat(noHandler.attempts()).isZero();
    }

    @Test
    void tasksOfACrashedInstanceRunElsewhereAfterTheLease() {
        TestApp.Handlers.gate = new CountDownLatch(1);
        TestApp.Handlers.blockingStarted.set(0);
        ConfigurableApplicationContext doomed = instances.start();
        DelayQueue queue = queue(doomed);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add(queue.schedule("test.blocking", "b" + i, Duration.ZERO));
        }
        // concurrency = 4: four run (blocked), two wait claimed
        await().atMost(10, TimeUnit.SECONDS).until(() -> TestApp.Handlers.blockingStarted.get() == 4);
        await().atMost(5, TimeUnit.SECONDS).until(() -> new JdbcTemplate(instances.database().dataSource())
            .queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'RUNNING'", Integer.class) == 6);
        String doomedId = doomed.getBean(DelayQueueRuntime.class).status().instanceId();
        EngineAccess.crash(doomed.getBean(DelayQueueRuntime.class));
        TestApp.Handlers.gate.countDown(); // the crashed threads are gone; survivors must not block

        long crashedAt = System.currentTimeMillis();
        ConfigurableApplicationContext survivor = instances.start();
        String survivorId = survivor.getBean(DelayQueueRuntime.class).status().instanceId();
        for (long id : ids) {
            awaitStatus(queue(survivor), id, TaskStatus.SUCCEEDED, 20);
        }
        for (long id : ids) {
            List<Journal.Start> starts = journal.startsOf(id);
            Journal.Start last = starts.get(starts.size() - 1);
            assertThat(last.instance()).isEqualTo(survivorId);
            assertThat(starts).allSatisfy(s -> assertThat(s.instance()).isIn(doomedId, survivorId));
        }
        // nobody took them before the 3s lease ran out
        assertThat(journal.all()).filteredOn(s -> s.instance().equals(survivorId))
            .allSatisfy(s -> assertThat(s.startedAt()).isGreaterThanOrEqualTo(crashedAt + 1500));
    }

    @Test
    void stoppingHandsBackClaimedTasksThatNeverStarted() {
        TestApp.Handlers.gate = new CountDownLatch(1);
        TestApp.Handlers.blockingStarted.set(0);
        ConfigurableApplicationContext first = instances.start("delay.worker.shutdown-timeout=10s");
        DelayQueue queue = queue(first);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ids.add(queue.schedule("test.blocking", "s" + i, Duration.ZERO));
        }
        await().atMost(10, TimeUnit.SECONDS).until(() -> TestApp.Handlers.blockingStarted.get() == 4);
        JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
        await().atMost(5, TimeUnit.SECONDS).until(() -> jdbc
            .queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'RUNNING'", Integer.class) == 8);

        Thread release = new Thread(() -> {
            sleep(1000);
            TestApp.Handlers.gate.countDown();
        });
        release.start();
        first.close(); // waits for the four running handlers, which the gate frees after a second

        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'RUNNING'", Integer.class))
            .isZero();
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'SUCCEEDED'", Integer.class))
            .isEqualTo(4);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status IN ('SCHEDULED', 'QUEUED') "
                + "AND attempts = 0 AND owner IS NULL", Integer.class)).isEqualTo(4);

        ConfigurableApplicationContext second = instances.start();
        for (long id : ids) {
            awaitStatus(queue(second), id, TaskStatus.SUCCEEDED, 10);
        }
    }

    @Test
    void aHandlerRunningLongerThanTheLeaseKeepsItsTask() {
        TestApp.Handlers.gate = new CountDownLatch(1);
        TestApp.Handlers.blockingStarted.set(0);
        // a 6 s lease, not the 3 s of the other tests: renewed every 2 s, a handler is interrupted once 4 s pass
        // without a renewal, so a loaded CI machine's stall of 2 s (seen with 3 s) is not read as a lost lease
        DelayQueue queue = queue(instances.start("delay.worker.lease=6s"));
        instances.start("delay.worker.lease=6s");
        long id = queue.schedule("test.blocking", "long", Duration.ZERO);
        journal.awaitStarted(id, 10);
        sleep(13_000); // more than twice the lease; the other instance's recovery runs every 500ms
        TestApp.Handlers.gate.countDown();

        awaitStatus(queue, id, TaskStatus.SUCCEEDED, 10);
        assertThat(journal.startsOf(id)).hasSize(1);
    }

    @Test
    void finishedTasksArePurgedAfterTheirRetention() {
        DelayQueue queue = queue(instances.start("delay.retention.succeeded=1s", "delay.retention.cancelled=1s",
                "delay.retention.interval=300ms"));
        long done = queue.schedule("test.ok", "purge me", Duration.ZERO);
        long cancelled = queue.schedule("test.ok", "cancel me", Duration.ofHours(2));
        long failed = queue.schedule(TaskRequest.of("test.fail", "keep me").maxAttempts(1).build());
        queue.cancel(cancelled);
        awaitStatus(queue, failed, TaskStatus.FAILED, 10);

        await().atMost(10, TimeUnit.SECONDS).until(() -> queue.find(done).isEmpty() && queue.find(cancelled).isEmpty());
        assertThat(queue.find(failed)).isPresent(); // dead letters are kept by default
    }

    @Test
    void aTaskWhoseRowIsLockedWhenItFallsDueRunsOnceTheLockIsGone() throws Exception {
        // a sweep grace far beyond the test: only the claim's own retry can run the task in time
        DelayQueue queue = queue(instances.start("delay.hybrid.sweep-grace=60s"));
        long id = queue.schedule("test.ok", "locked", Duration.ofMillis(400));
        long released;
        try (Connection connection = instances.database().dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            statement.executeQuery("SELECT id FROM delay_task WHERE id = " + id + " FOR UPDATE").close();
            sleep(1500); // it falls due while an open transaction holds its row
            assertThat(journal.startsOf(id)).isEmpty();
            connection.rollback();
            released = System.currentTimeMillis();
        }
        journal.awaitStarted(id, 10);
        assertThat(journal.startsOf(id)).hasSize(1);
        assertThat(journal.startsOf(id).get(0).startedAt() - released).isLessThan(2_000);
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
