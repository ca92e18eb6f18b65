package io.github.delayqueue.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** Table names that the database would refuse, or that derived names would push over its limit, fail at startup. */
class PropertiesValidatorTest {

    @Test
    void aTaskTableNameLeavesRoomForTheNamesDerivedFromIt() {
        validate(jdbc("t".repeat(48), null));
        validate(jdbc("order", null)); // a reserved word: quoted wherever it is used
        assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
            .isThrownBy(() -> validate(jdbc("t".repeat(49), null)))
            .withMessageContaining("delay.jdbc.table-name")
            .withMessageContaining("at most 48 characters")
            .withMessageContaining("adds up to 16");
        assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
            .isThrownBy(() -> validate(jdbc("9lives", null)))
            .withMessageContaining("delay.jdbc.table-name")
            .withMessageContaining("not starting with a digit");
        assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
            .isThrownBy(() -> validate(jdbc("tasks`; DROP TABLE x", null)))
            .withMessageContaining("delay.jdbc.table-name");
    }

    @Test
    void aSchemaHistoryTableNameIsAnIdentifierOfItsOwn() {
        validate(jdbc("delay_task", "h".repeat(64)));
        assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
            .isThrownBy(() -> validate(jdbc("delay_task", "h".repeat(65))))
            .withMessageContaining("delay.jdbc.schema-history-table")
            .withMessageContaining("at most 64 characters");
        assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
            .isThrownBy(() -> validate(jdbc("delay_task", "history-table")))
            .withMessageContaining("delay.jdbc.schema-history-table");
        assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
            .isThrownBy(() -> validate(jdbc("delay_task", "DELAY_TASK")))
            .withMessageContaining("delay.jdbc.schema-history-table")
            .withMessageContaining("must not be the task table");
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

    private static void validate(DelayQueueProperties properties) {
        PropertiesValidator.validate(properties);
    }
}
