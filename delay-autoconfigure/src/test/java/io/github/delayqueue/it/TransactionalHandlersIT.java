package io.github.delayqueue.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.sql.DataSource;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Handlers that complete in their transaction ({@code @DelayedHandler(transactional = true)} or Spring's
 * {@code @Transactional}), on MariaDB or MySQL and Redis, two instances, in both modes, under the application's
 * {@code JdbcTransactionManager} and under a transaction manager that binds its connection the way JPA's does: the
 * handler's business row and the task's completion commit together or not at all. The crash between the two is
 * {@code EffectivelyOnceReliabilityIT}'s.
 */
class TransactionalHandlersIT {

    private static final int TASKS = 200;

    private static final int CALLERS = 8;

    private final Journal journal = new Journal();

    private Instances instances;

    @AfterEach
    void close() {
        if (instances != null) {
            instances.close();
        }
    }

    /**
     * 200 tasks of a {@code @Transactional} handler, scheduled from 8 threads (half of them inside a transaction of
     * their own) and run by two instances: each task wrote its business row exactly once, in the commit that marked
     * it {@code SUCCEEDED}.
     */
    @ParameterizedTest
    @ValueSource(strings = { "hybrid/jdbc-manager", "jdbc/jpa-style-manager" })
    void eachTaskCommitsItsWorkAndItsCompletionOnce(String setup) throws Exception {
        List<ConfigurableApplicationContext> contexts = start(setup);
        DelayQueue queue = contexts.get(0).getBean(DelayQueue.class);
        TransactionTemplate tx = new TransactionTemplate(contexts.get(0).getBean(PlatformTransactionManager.class));
        ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
        List<Future<Long>> scheduled = new ArrayList<>();
        try {
            for (int i = 0; i < TASKS; i++) {
                boolean inTransaction = i % 2 == 0;
                String payload = "p" + i;
                scheduled.add(callers.submit(() -> inTransaction
                        ? tx.execute(status -> queue.schedule("tx.ok", payload, Duration.ofMillis(200)))
                        : queue.schedule("tx.ok", payload, Duration.ofMillis(200))));
            }
            List<Long> ids = new ArrayList<>();
            for (Future<Long> id : scheduled) {
                ids.add(id.get(60, TimeUnit.SECONDS));
            }
            JdbcTemplate jdbc = jdbc();
            await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> assertThat(jdbc.queryForObject(
                    "SELECT COUNT(*) FROM delay_task WHERE task_type = 'tx.ok' AND status = 'SUCCEEDED'",
                    Integer.class)).isEqualTo(TASKS));
            Map<Long, Long> effects = effectsByTask(jdbc);
            assertThat(effects).as("business rows per task").hasSize(TASKS).containsOnlyKeys(ids)
                .allSatisfy((id, rows) -> assertThat(rows).as("rows of task " + id).isOne());
            assertThat(journal.all()).as("runs").hasSize(TASKS);
            assertThat(journal.all().stream().map(Journal.Start::instance).distinct()).as("instances that ran them")
                .hasSize(2);
        }
        finally {
            callers.shutdownNow();
        }
    }

    /**
     * A handler that writes its row and schedules a chained task, then throws a checked exception on its first
     * attempt: the attempt leaves neither (a plain {@code @Transactional} commits on a checked exception), and the
     * retry commits both once.
     */
    @ParameterizedTest
    @ValueSource(strings = { "hybrid/jdbc-manager" })
    void aFailedAttemptLeavesNeitherItsWorkNorTheTasksItScheduled(String setup) throws Exception {
        DelayQueue queue = start(setup).get(0).getBean(DelayQueue.class);
        long id = queue.schedule("tx.fail-once", "x", Duration.ZERO);
        JdbcTemplate jdbc = jdbc();
        await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
            assertThat(queue.find(id)).map(TaskView::status).contains(TaskStatus.SUCCEEDED);
            assertThat(journal.all()).as("runs of the chained task")
                .filteredOn(start -> start.payload().equals(id)).hasSize(1);
        });
        assertThat(queue.find(id).orElseThrow().attempts()).isEqualTo(2);
        assertThat(jdbc.queryForList("SELECT attempt FROM tx_effect WHERE task_id = ?", Integer.class, id))
            .as("attempts whose work committed").containsExactly(2);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE task_type = 'tx.chained'",
                Integer.class)).as("chained tasks created").isOne();
    }

    /**
     * The first run's claim is taken over before its commit, as when a lease runs out and another instance claims
     * the task: that run's work is rolled back, and the run that holds the claim commits its own.
     */
    @ParameterizedTest
    @ValueSource(strings = { "jdbc/jpa-style-manager" })
    void anAttemptThatLostItsClaimCommitsNothing(String setup) throws Exception {
        DelayQueue queue = start(setup).get(0).getBean(DelayQueue.class);
        long id = queue.schedule("tx.claim-lost", "x", Duration.ZERO);
        JdbcTemplate jdbc = jdbc();
        // the taken-over claim is recovered once its lease (2 s) ends
        await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(queue.find(id)).map(TaskView::status)
            .contains(TaskStatus.SUCCEEDED));
        assertThat(journal.startsOf(id)).as("runs").hasSize(2);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM tx_effect WHERE task_id = ?", Integer.class, id))
            .as("runs whose work committed: the second only").isOne();
    }

    /** Two instances (or one) of the given "mode/manager", and the business table. */
    private List<ConfigurableApplicationContext> start(String setup) {
        String[] parts = setup.split("/");
        instances = new Instances(TransactionalApp.class, journal, "delay.mode=" + parts[0],
                "delay.worker.lease=2s", "delay.worker.recovery-interval=500ms");
        jdbc().execute("CREATE TABLE tx_effect (task_id BIGINT NOT NULL, attempt INT NOT NULL, "
                + "instance VARCHAR(100) NOT NULL)");
        boolean jpaStyle = parts[1].equals("jpa-style-manager");
        List<ConfigurableApplicationContext> contexts = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            contexts.add(instances.start(ctx -> {
                if (jpaStyle) {
                    ((GenericApplicationContext) ctx).registerBean("transactionManager",
                            PlatformTransactionManager.class,
                            () -> new JpaStyleTransactionManager(ctx.getBean(DataSource.class)));
                }
            }));
        }
        return contexts;
    }

    private JdbcTemplate jdbc() {
        return new JdbcTemplate(instances.database().dataSource());
    }

    private static Map<Long, Long> effectsByTask(JdbcTemplate jdbc) {
        return jdbc.queryForList("SELECT task_id FROM tx_effect", Long.class).stream()
            .collect(Collectors.groupingBy(id -> id, Collectors.counting()));
    }
}
