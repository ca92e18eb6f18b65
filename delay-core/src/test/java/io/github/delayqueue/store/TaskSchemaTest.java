package io.github.delayqueue.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TaskSchemaTest {

    @Test
    void theSchemaLockNameFitsMySqlsLimitForAnyDatabaseAndHistoryTable() {
        String longest = TaskSchema.lockName("d".repeat(64), "h".repeat(64));
        assertThat(longest).startsWith("delay_schema:").hasSizeLessThanOrEqualTo(64);
        assertThat(TaskSchema.lockName("shop", "delay_task_schema_history"))
            .isNotEqualTo(TaskSchema.lockName("billing", "delay_task_schema_history"))
            .isNotEqualTo(TaskSchema.lockName("shop", "orders_tasks_schema_history"))
            .isEqualTo(TaskSchema.lockName("shop", "delay_task_schema_history"));
    }
}
