-- Cluster-wide limits of task types (@DelayedHandler clusterConcurrency, clusterStartsPerSecond). ${table} is
-- delay.jdbc.table-name. One row per limited type, written by the first claim of it: a claim of a limited type locks
-- its row (SELECT ... FOR UPDATE) before it counts the type's running tasks in the task table, so two instances never
-- both see room for the same last slot. The limits themselves are the handlers' (each instance claims by its own);
-- the row holds only the lock and the current second's count of starts for clusterStartsPerSecond.
-- window_start:  the second (epoch milliseconds, a multiple of 1000) that window_starts counts.
-- window_starts: how many tasks of the type claims took in that second.
CREATE TABLE `${table}_type_limits` (
    task_type     VARCHAR(128) NOT NULL,
    window_start  BIGINT       NOT NULL,
    window_starts INT          NOT NULL,
    PRIMARY KEY (task_type)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
