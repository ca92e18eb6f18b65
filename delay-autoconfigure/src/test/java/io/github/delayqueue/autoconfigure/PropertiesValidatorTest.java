package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.validation.BeanPropertyBindingResult;
import org.springframework.validation.Errors;
import org.springframework.validation.FieldError;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules {@link DelayQueueProperties} applies as a {@link org.springframework.validation.Validator}: table names
 * that the database would refuse, or that derived names would push over its limit, and the rules that relate two
 * properties, each rejected on the property at fault with a message that names it.
 */
class PropertiesValidatorTest {

    @Test
    void theDefaultsAreValid() {
        assertThat(errorsOf(new DelayQueueProperties())).isEmpty();
        DelayQueueMetricsProperties metrics = new DelayQueueMetricsProperties();
        Errors errors = new BeanPropertyBindingResult(metrics, "delay.metrics");
        metrics.validate(metrics, errors);
        assertThat(errors.hasErrors()).isFalse();
    }

    @Test
    void aTaskTableNameLeavesRoomForTheNamesDerivedFromIt() {
        assertThat(errorsOf(jdbc("t".repeat(48), null))).isEmpty();
        assertThat(errorsOf(jdbc("order", null))).isEmpty(); // a reserved word: quoted wherever it is used
        assertThat(onlyError(jdbc("t".repeat(49), null), "jdbc.tableName")).contains("delay.jdbc.table-name")
            .contains("at most 48 characters")
            .contains("adds up to 16");
        assertThat(onlyError(jdbc("9lives", null), "jdbc.tableName")).contains("not starting with a digit");
        assertThat(onlyError(jdbc("tasks`; DROP TABLE x", null), "jdbc.tableName")).contains("delay.jdbc.table-name");
    }

    @Test
    void aSchemaHistoryTableNameIsAnIdentifierOfItsOwn() {
        assertThat(errorsOf(jdbc("delay_task", "h".repeat(64)))).isEmpty();
        assertThat(onlyError(jdbc("delay_task", "h".repeat(65)), "jdbc.schemaHistoryTable"))
            .contains("delay.jdbc.schema-history-table")
            .contains("at most 64 characters");
        assertThat(onlyError(jdbc("delay_task", "history-table"), "jdbc.schemaHistoryTable"))
            .contains("delay.jdbc.schema-history-table");
        assertThat(onlyError(jdbc("delay_task", "DELAY_TASK"), "jdbc.schemaHistoryTable"))
            .contains("delay.jdbc.schema-history-table")
            .contains("must not be the task table");
    }

    @Test
    void aRuleBetweenTwoPropertiesIsRejectedOnTheOneAtFaultNamingTheOther() {
        DelayQueueProperties properties = new DelayQueueProperties();
        properties.getHybrid().setThreshold(Duration.ofSeconds(10));
        assertThat(onlyError(properties, "hybrid.migrationInterval"))
            .isEqualTo("delay.hybrid.migration-interval must be shorter than delay.hybrid.threshold (PT10S), or "
                    + "tasks could fall due before they are moved into Redis");
    }

    /** Boot validates a bound group by itself first, so the rejection has the origin of the value at fault. */
    @Test
    void aGroupIsValidatedByItselfWithTheSameRulesAndNames() {
        DelayQueueProperties properties = new DelayQueueProperties();
        assertThat(properties.supports(DelayQueueProperties.Worker.class)).isTrue();
        assertThat(properties.supports(String.class)).isFalse();
        DelayQueueProperties.Worker worker = properties.getWorker();
        worker.setClaimAhead(Duration.ofSeconds(2));
        Errors errors = new BeanPropertyBindingResult(worker, "delay.worker");
        properties.validate(worker, errors);
        assertThat(errors.getFieldErrors()).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("claimAhead");
            assertThat(error.getDefaultMessage()).startsWith("delay.worker.claim-ahead must be at most 1s");
        });
    }

    @Test
    void everyBadValueIsReportedAtOnce() {
        DelayQueueProperties properties = new DelayQueueProperties();
        properties.getWorker().setThreads(0);
        properties.getWorker().setClaimAhead(Duration.ofSeconds(2));
        properties.getRetry().setMultiplier(0.5);
        properties.getRetention().setInterval(null);
        assertThat(errorsOf(properties)).extracting(FieldError::getField)
            .containsExactlyInAnyOrder("worker.threads", "worker.claimAhead", "retry.multiplier",
                    "retention.interval");
        assertThat(errorsOf(properties)).extracting(FieldError::getDefaultMessage)
            .contains("delay.worker.threads must be at least 1",
                    "delay.worker.claim-ahead must be at most 1s: a claim made earlier holds tasks other instances "
                            + "could run");
    }

    @Test
    void aHandlerTimeoutIsUnsetByDefaultOrAPositiveDuration() {
        DelayQueueProperties properties = new DelayQueueProperties();
        assertThat(properties.getWorker().getHandlerTimeout()).as("none: today's behaviour").isNull();
        properties.getWorker().setHandlerTimeout(Duration.ofSeconds(30));
        assertThat(errorsOf(properties)).isEmpty();
        for (Duration bad : List.of(Duration.ZERO, Duration.ofSeconds(-1))) {
            properties.getWorker().setHandlerTimeout(bad);
            assertThat(errorsOf(properties)).singleElement().satisfies(error -> {
                assertThat(error.getField()).isEqualTo("worker.handlerTimeout");
                assertThat(error.getDefaultMessage())
                    .isEqualTo("delay.worker.handler-timeout must be a positive duration");
            });
        }
    }

    @Test
    void propertyNamesAreTheKebabCaseOfTheFieldPaths() {
        assertThat(PropertiesValidator.propertyName("delay", "worker.claimAhead"))
            .isEqualTo("delay.worker.claim-ahead");
        assertThat(PropertiesValidator.propertyName("delay.metrics", "refreshInterval"))
            .isEqualTo("delay.metrics.refresh-interval");
    }

    @Test
    void theSchemaHistoryTableFollowsTheTaskTableUnlessSet() {
        assertThat(new DelayQueueProperties().getJdbc().resolvedSchemaHistoryTable())
            .isEqualTo("delay_task_schema_history");
        assertThat(jdbc("orders_tasks", null).getJdbc().resolvedSchemaHistoryTable())
            .isEqualTo("orders_tasks_schema_history");
        assertThat(jdbc("orders_tasks", "mine").getJdbc().resolvedSchemaHistoryTable()).isEqualTo("mine");
        String longest = "t".repeat(48);
        assertThat(jdbc(longest, null).getJdbc().resolvedSchemaHistoryTable()).hasSizeLessThanOrEqualTo(64);
    }

    private static DelayQueueProperties jdbc(String table, String history) {
        DelayQueueProperties properties = new DelayQueueProperties();
        properties.getJdbc().setTableName(table);
        properties.getJdbc().setSchemaHistoryTable(history);
        return properties;
    }

    private static List<FieldError> errorsOf(DelayQueueProperties properties) {
        Errors errors = new BeanPropertyBindingResult(properties, "delay");
        assertThat(properties.supports(DelayQueueProperties.class)).isTrue();
        properties.validate(properties, errors);
        return errors.getFieldErrors();
    }

    /** The message of the one error, which must be on {@code field}. */
    private static String onlyError(DelayQueueProperties properties, String field) {
        List<FieldError> errors = errorsOf(properties);
        assertThat(errors).extracting(FieldError::getField).containsExactly(field);
        return errors.get(0).getDefaultMessage();
    }
}
