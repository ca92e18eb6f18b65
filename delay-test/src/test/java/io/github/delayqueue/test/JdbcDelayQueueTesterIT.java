package io.github.delayqueue.test;

import java.time.Duration;
import javax.sql.DataSource;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static io.github.delayqueue.test.DelayQueueAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test kit on the real task table of a fresh MariaDB/MySQL database, in jdbc mode: the same scenarios as on the
 * in-memory store, and a handler that completes in its transaction, whose work and completion commit together.
 */
class JdbcDelayQueueTesterIT extends DelayQueueTesterScenarios {

    private DataSource dataSource;

    @Override
    DelayQueueTester create(Object handlers) {
        dataSource = TestServices.newDatabase().dataSource();
        new JdbcTemplate(dataSource).execute("CREATE TABLE ledger (id BIGINT PRIMARY KEY, note VARCHAR(40))");
        return DelayQueueTester.build(DelayQueueRuntime.builder(dataSource).initializeSchema(true)
            .handlers(handlers, new Ledger(new JdbcTemplate(dataSource))));
    }

    @Override
    TaskStatus nearStatus() {
        return TaskStatus.SCHEDULED;
    }

    @Test
    void aHandlerThatCompletesInItsTransactionCommitsItsWorkWithTheTaskOrNeither() {
        long failing = queue.schedule(Ledger.WRITE, new Entry(1, "fails"), Duration.ofMinutes(1));
        long succeeding = queue.schedule(Ledger.WRITE, new Entry(2, "commits"), Duration.ofMinutes(1));

        TaskRuns runs = tester.advance(Duration.ofMinutes(1));

        assertThat(runs).hasSize(2);
        assertThat(runs.list().get(0)).satisfies(run -> {
            assertThat(run.id()).isEqualTo(failing);
            assertThat(run.error()).isInstanceOf(IllegalStateException.class);
        });
        assertThat(runs.list().get(1).succeeded()).isTrue();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        assertThat(jdbc.queryForList("SELECT id FROM ledger", Long.class)).as("the failed attempt's row rolled back")
            .containsExactly(201L);
        assertThat(queue.find(succeeding)).map(TaskView::status).hasValue(TaskStatus.SUCCEEDED);
        assertThat(tester.pending()).hasTask(Ledger.WRITE, null).dueIn(Duration.ofSeconds(1)).hasAttempts(1);
    }

    record Entry(long id, String note) {
    }

    /** Writes a row in the transaction its task completes in; an entry noted "fails" throws after its write. */
    static final class Ledger {

        static final String WRITE = "ledger.write";

        private final JdbcTemplate jdbc;

        Ledger(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @DelayedHandler(type = WRITE, transactional = true, maxAttempts = 3, backoff = "1s")
        void write(Entry entry, TaskContext task) {
            jdbc.update("INSERT INTO ledger (id, note) VALUES (?, ?)", entry.id() * 100 + task.attempt(),
                    entry.note());
            if (entry.note().equals("fails")) {
                throw new IllegalStateException("after the write");
            }
        }
    }
}
