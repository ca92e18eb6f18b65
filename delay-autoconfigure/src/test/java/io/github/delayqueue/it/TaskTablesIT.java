package io.github.delayqueue.it;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.store.TableNames;
import io.github.delayqueue.store.TaskInspector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * Task tables under names other than the default, end to end: two applications with tables of their own in one
 * database, a reserved word, and the longest name allowed.
 */
class TaskTablesIT {

    private final Journal journal = new Journal();

    private Instances instances;

    @AfterEach
    void close() {
        if (instances != null) {
            instances.close();
        }
    }

    @Test
    void twoApplicationsWithTaskTablesOfTheirOwnInOneDatabaseEachGetTheirTable() {
        instances = new Instances(journal, "delay.mode=jdbc");
        DelayQueue orders = queue(instances.start("delay.jdbc.table-name=orders_tasks"));
        DelayQueue billing = queue(instances.start("delay.jdbc.table-name=billing_tasks"));

        long order = orders.schedule("test.ok", "order", Duration.ofMillis(100));
        long bill = billing.schedule("test.ok", "bill", Duration.ofMillis(100));
        awaitStatus(orders, order, TaskStatus.SUCCEEDED);
        awaitStatus(billing, bill, TaskStatus.SUCCEEDED);

        JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
        assertThat(tables(jdbc)).contains("orders_tasks", "orders_tasks_schema_history", "billing_tasks",
                "billing_tasks_schema_history");
        assertThat(jdbc.queryForObject("SELECT payload FROM billing_tasks", String.class)).isEqualTo("\"bill\"");
    }

    @Test
    void aHistoryTableSharedByTwoTaskTablesFailsTheSecondStartupNamingBoth() {
        instances = new Instances(journal, "delay.mode=jdbc", "delay.jdbc.schema-history-table=shared_history");
        instances.start("delay.jdbc.table-name=orders_tasks");

        assertThatException().isThrownBy(() -> instances.start("delay.jdbc.table-name=billing_tasks"))
            .havingRootCause()
            .withMessageContaining("'billing_tasks'")
            .withMessageContaining("'shared_history'")
            .withMessageContaining("delay.jdbc.schema-history-table");
    }

    @Test
    void aReservedWordWorksAsTheTableNameInHybridMode() {
        instances = new Instances(journal, "delay.jdbc.table-name=order", "delay.hybrid.threshold=2s",
                "delay.hybrid.migration-interval=500ms");
        ConfigurableApplicationContext context = instances.start();
        exerciseEveryPath(context, "order");
    }

    @Test
    void theLongestAllowedTableNameWorksInJdbcMode() {
        String name = "t".repeat(TableNames.MAX_TASK_TABLE_LENGTH);
        instances = new Instances(journal, "delay.mode=jdbc", "delay.jdbc.table-name=" + name);
        ConfigurableApplicationContext context = instances.start();
        exerciseEveryPath(context, name);

        JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
        assertThat(jdbc.queryForList("SELECT index_name FROM information_schema.statistics WHERE table_schema = "
                + "DATABASE() AND table_name = ?", String.class, name))
            .contains(name + "_type_key", name + "_live_key", name + "_status_due");
        assertThat(tables(jdbc)).contains(name + "_schema_history");
    }

    /** Schedules near and far, keyed and not, finds, reschedules, cancels and reads the table as the actuator does. */
    private void exerciseEveryPath(ConfigurableApplicationContext context, String table) {
        DelayQueue queue = queue(context);
        long near = queue.schedule("test.ok", "near", Duration.ofMillis(100));
        long far = queue.schedule(TaskRequest.of("test.ok", "far").key("far-1").delay(Duration.ofSeconds(3)).build());
        List<Long> batch = queue.scheduleAll(List.of(TaskRequest.of("test.ok", "b1").build(),
                TaskRequest.of("test.ok", "b2").key("b-2").build()));
        long moved = queue.schedule("test.ok", "moved", Duration.ofHours(2));
        long cancelled = queue.schedule(TaskRequest.of("test.ok", "gone").key("gone").delay(Duration.ofHours(2))
            .build());

        assertThat(queue.reschedule(moved, Instant.now().plusMillis(300))).isTrue();
        assertThat(queue.cancel("test.ok", "gone")).isTrue();
        assertThat(queue.find("test.ok", "far-1").orElseThrow().id()).isEqualTo(far);
        for (long id : List.of(near, far, batch.get(0), batch.get(1), moved)) {
            awaitStatus(queue, id, TaskStatus.SUCCEEDED);
        }
        assertThat(queue.find(cancelled).orElseThrow().status()).isEqualTo(TaskStatus.CANCELLED);

        TaskInspector inspector = TaskInspector.jdbc(context.getBean(DataSource.class), table);
        assertThat(inspector.countByStatus(EnumSet.of(TaskStatus.SUCCEEDED, TaskStatus.CANCELLED)))
            .containsEntry(TaskStatus.SUCCEEDED, TaskInspector.Count.exact(5))
            .containsEntry(TaskStatus.CANCELLED, TaskInspector.Count.exact(1));
        assertThat(inspector.countByTypeAndStatus(EnumSet.allOf(TaskStatus.class), 100)).isNotEmpty();
        assertThat(inspector.overdue(System.currentTimeMillis()).count().value()).isZero();
    }

    private static DelayQueue queue(ConfigurableApplicationContext context) {
        return context.getBean(DelayQueue.class);
    }

    private static void awaitStatus(DelayQueue queue, long id, TaskStatus status) {
        await().atMost(15, TimeUnit.SECONDS).pollInterval(50, TimeUnit.MILLISECONDS)
            .until(() -> queue.find(id).map(TaskView::status).orElse(null) == status);
    }

    private static List<String> tables(JdbcTemplate jdbc) {
        return jdbc.queryForList("SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()",
                String.class);
    }
}
