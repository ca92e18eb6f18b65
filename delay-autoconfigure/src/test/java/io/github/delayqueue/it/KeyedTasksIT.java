package io.github.delayqueue.it;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayQueueException;
import io.github.delayqueue.api.Scheduled;
import io.github.delayqueue.api.Scheduled.Outcome;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.index.IndexAccess;
import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.testservices.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Keyed requests on MariaDB or MySQL and Redis, through two instances: debounce and run-once-more under concurrency,
 * inside and outside the callers' transactions, in both modes; and a finished task's key free at once.
 */
class KeyedTasksIT {

    private static final int CALLERS = 16;

    private final Journal journal = new Journal();

    private Instances instances;

    private LettuceConnectionFactory redisFactory;

    @AfterEach
    void close() {
        TestApp.Handlers.gate.countDown();
        if (instances != null) {
            instances.close();
        }
        if (redisFactory != null) {
            redisFactory.destroy();
        }
    }

    /**
     * 16 threads on two instances, half of them inside a transaction of their own, debounce one key at once: one
     * task, created once, due at the latest due time any of them asked for, in the database and (hybrid) in Redis,
     * and it runs once, not before that time.
     */
    @ParameterizedTest
    @ValueSource(strings = { "hybrid", "jdbc" })
    void concurrentDebouncesOfOneKeyLeaveOneTaskDueAtTheLatestTimeAndItRunsOnce(String mode) throws Exception {
        instances = new Instances(journal, "delay.mode=" + mode, "delay.hybrid.threshold=1m");
        List<ConfigurableApplicationContext> contexts = List.of(instances.start(), instances.start());
        Instant base = Instant.now().plusSeconds(3);
        ExecutorService pool = Executors.newFixedThreadPool(CALLERS);
        List<Scheduled> answers = new ArrayList<>();
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Scheduled>> results = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                ConfigurableApplicationContext context = contexts.get(i % 2);
                DelayQueue queue = context.getBean(DelayQueue.class);
                TransactionTemplate tx = i % 4 < 2 ? null
                        : new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
                TaskRequest request = TaskRequest.of("test.ok", "edit " + i).key("cart-1")
                    .dueAt(base.plusMillis(i * 10L)).debounce().build();
                results.add(pool.submit(() -> {
                    go.await();
                    return tx == null ? queue.submit(request) : inTransaction(tx, queue, request);
                }));
            }
            go.countDown();
            for (Future<Scheduled> result : results) {
                answers.add(result.get(60, TimeUnit.SECONDS));
            }
        }
        finally {
            pool.shutdownNow();
        }

        DelayQueue queue = contexts.get(0).getBean(DelayQueue.class);
        TaskView task = queue.find("test.ok", "cart-1").orElseThrow();
        assertThat(answers).extracting(Scheduled::id).containsOnly(task.id());
        assertThat(answers).extracting(Scheduled::outcome).containsOnly(Outcome.CREATED, Outcome.EXTENDED);
        assertThat(answers).filteredOn(a -> a.outcome() == Outcome.CREATED).hasSize(1);
        Instant latest = base.plusMillis((CALLERS - 1) * 10L);
        // never earlier than the latest asked for; later by at most the clock alignment's window (its round trip to
        // the database, which a loaded machine stretches), well under a second
        assertThat(task.dueAt()).as("the latest asked for, on the queue clock").isBetween(latest,
                latest.plusSeconds(1));
        assertThat(task.status()).isEqualTo(mode.equals("hybrid") ? TaskStatus.QUEUED : TaskStatus.SCHEDULED);
        assertThat(rowsOfKey("cart-1")).isEqualTo(1);
        if (mode.equals("hybrid")) {
            // indexed after each commit, off the callers' threads
            await().atMost(Duration.ofSeconds(5)).until(() -> score(contexts.get(0), task.id()) != null);
            Double score = score(contexts.get(0), task.id());
            assertThat(score).as("indexed, never later than the row").isNotNull();
            assertThat(score.longValue()).isLessThanOrEqualTo(task.dueAt().toEpochMilli());
        }

        journal.awaitStarted(task.id(), 15);
        Lateness.assertOnceAndOnTime(journal, List.of(task.id()), 5_000);
        assertThat(journal.startsOf(task.id()).get(0).startedAt()).isGreaterThanOrEqualTo(task.dueAt().toEpochMilli());
        assertThat(journal.startsOf(task.id()).get(0).payload()).as("one of the edits' payloads")
            .isIn(payloadsOf(CALLERS).toArray());
    }

    /**
     * While the key's task runs, 16 threads on two instances ask to run it once more: one follow-up for all of them,
     * which waits for the running task to end (never two at once) and then runs once.
     */
    @ParameterizedTest
    @ValueSource(strings = { "hybrid", "jdbc" })
    void runOnceMoreGivesARunningTaskExactlyOneFollowUpThatRunsAfterIt(String mode) throws Exception {
        instances = new Instances(journal, "delay.mode=" + mode);
        List<ConfigurableApplicationContext> contexts = List.of(instances.start(), instances.start());
        TestApp.Handlers.gate = new CountDownLatch(1);
        TestApp.Handlers.blockingStarted.set(0);
        DelayQueue queue = contexts.get(0).getBean(DelayQueue.class);
        Scheduled first = queue.submit(TaskRequest.of("test.blocking", "first").key("report-7").runOnceMore().build());
        assertThat(first.outcome()).isEqualTo(Outcome.CREATED);
        journal.awaitStarted(first.id(), 15);

        List<Scheduled> answers = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(CALLERS);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Scheduled>> results = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                DelayQueue from = contexts.get(i % 2).getBean(DelayQueue.class);
                TaskRequest request = TaskRequest.of("test.blocking", "again " + i).key("report-7").runOnceMore()
                    .build();
                results.add(pool.submit(() -> {
                    go.await();
                    return from.submit(request);
                }));
            }
            go.countDown();
            for (Future<Scheduled> result : results) {
                answers.add(result.get(60, TimeUnit.SECONDS));
            }
        }
        finally {
            pool.shutdownNow();
        }
        long followUp = answers.get(0).id();
        assertThat(followUp).isNotEqualTo(first.id());
        assertThat(answers).extracting(Scheduled::id).containsOnly(followUp);
        assertThat(answers).extracting(Scheduled::outcome).containsOnly(Outcome.QUEUED_AFTER_RUNNING);
        assertThat(queue.find(followUp).orElseThrow().status()).isEqualTo(TaskStatus.WAITING);

        // the follow-up is due now, but its key's task runs: it waits (two release rounds of each instance)
        AbstractQueueIT.sleep(2_500);
        assertThat(journal.startsOf(followUp)).as("never two at once").isEmpty();
        long openedAt = System.currentTimeMillis();
        TestApp.Handlers.gate.countDown();

        journal.awaitStarted(followUp, 15);
        assertThat(journal.startsOf(followUp)).hasSize(1);
        assertThat(journal.startsOf(followUp).get(0).startedAt()).isGreaterThanOrEqualTo(openedAt);
        assertThat(journal.startsOf(first.id())).hasSize(1);
        await().atMost(10, TimeUnit.SECONDS).until(() -> queue.find(followUp).orElseThrow().status()
                == TaskStatus.SUCCEEDED);
        assertThat(rowsOfKey("report-7")).isEqualTo(2);
    }

    /** Once a keyed task has run, scheduling its key creates a new task at once; the old one stays as it was. */
    @Test
    void aFinishedTasksKeyIsFreeAtOnce() {
        instances = new Instances(journal);
        DelayQueue queue = instances.start().getBean(DelayQueue.class);
        long first = queue.schedule(TaskRequest.of("test.ok", "one").key("k").build());
        journal.awaitStarted(first, 15);
        await().atMost(10, TimeUnit.SECONDS).until(() -> queue.find(first).orElseThrow().status()
                == TaskStatus.SUCCEEDED);

        Scheduled second = queue.submit(TaskRequest.of("test.ok", "two").key("k").delay(Duration.ofMillis(200))
            .build());

        assertThat(second.outcome()).isEqualTo(Outcome.CREATED);
        assertThat(second.id()).isNotEqualTo(first);
        journal.awaitStarted(second.id(), 15);
        assertThat(queue.find(first).orElseThrow().status()).isEqualTo(TaskStatus.SUCCEEDED);
        assertThat(queue.find("test.ok", "k").orElseThrow().id()).isEqualTo(second.id());
    }

    /** A dead letter whose key a newer task holds is not re-run: two live tasks would share the key. */
    @Test
    void aDeadLetterWhoseKeyANewTaskHoldsIsNotReRun() {
        instances = new Instances(journal);
        ConfigurableApplicationContext context = instances.start();
        DelayQueue queue = context.getBean(DelayQueue.class);
        long failed = queue.schedule(TaskRequest.of("test.fail", "x").key("k").maxAttempts(1).build());
        await().atMost(15, TimeUnit.SECONDS).until(() -> queue.find(failed).orElseThrow().status()
                == TaskStatus.FAILED);
        long holder = queue.schedule(TaskRequest.of("test.fail", "y").key("k").delay(Duration.ofHours(1)).build());

        assertThatIllegalStateException()
            .isThrownBy(() -> context.getBean(DelayQueueRuntime.class).rerun(failed))
            .withMessageContaining("another task of its type now holds its key");

        assertThat(queue.find(failed).orElseThrow().status()).isEqualTo(TaskStatus.FAILED);
        assertThat(queue.cancel(holder)).isTrue();
        assertThat(context.getBean(DelayQueueRuntime.class).rerun(failed)).as("free again").isTrue();
    }

    /**
     * A caller's transaction may be chosen as a deadlock victim when several create the same key at once (their
     * inserts wait on one another's row): the database rolls it back, and the caller retries it, as with any
     * deadlock. Outside a transaction the queue retries by itself.
     */
    private static Scheduled inTransaction(TransactionTemplate tx, DelayQueue queue, TaskRequest request) {
        for (int attempt = 1;; attempt++) {
            try {
                return tx.execute(status -> queue.submit(request));
            }
            catch (DelayQueueException ex) {
                if (!(ex.getCause() instanceof PessimisticLockingFailureException) || attempt == 5) {
                    throw ex;
                }
            }
        }
    }

    private static List<String> payloadsOf(int callers) {
        List<String> payloads = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            payloads.add("edit " + i);
        }
        return payloads;
    }

    private int rowsOfKey(String key) {
        return new JdbcTemplate(instances.database().dataSource())
            .queryForObject("SELECT COUNT(*) FROM delay_task WHERE task_key = ?", Integer.class, key);
    }

    private Double score(ConfigurableApplicationContext context, long id) {
        RedisTimeIndex index = (RedisTimeIndex) context.getBean(TimeIndex.class);
        redisFactory = TestRedis.single();
        StringRedisTemplate redis = new StringRedisTemplate(redisFactory);
        for (int shard = 0; shard < index.shards(); shard++) {
            Double score = redis.opsForZSet().score(IndexAccess.key(index, shard), Long.toString(id));
            if (score != null) {
                return score;
            }
        }
        return null;
    }
}
