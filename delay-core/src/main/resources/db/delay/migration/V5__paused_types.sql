-- Task types paused on every instance that shares the task table (DelayQueueRuntime.pause, the actuator endpoint's
-- "pause"): no instance claims a task of a type listed here; its tasks stay pending until the type is resumed (the
-- row deleted). ${table} is delay.jdbc.table-name. A table of its own, not a column of the task table: a pause is one
-- row whatever the type's backlog, and the instances read the whole (tiny) table every second.
CREATE TABLE `${table}_paused_types` (
    task_type  VARCHAR(128) NOT NULL,
    paused_at  BIGINT       NOT NULL,
    PRIMARY KEY (task_type)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
