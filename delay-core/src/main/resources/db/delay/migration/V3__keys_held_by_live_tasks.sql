-- Keys held by live tasks only. ${table} is delay.jdbc.table-name.
-- live_key: the task's key while it is pending or running, NULL once it has finished (SUCCEEDED, FAILED, CANCELLED).
--         The unique index moves from (task_type, task_key) to (task_type, live_key): a key names one live task at a
--         time, and a finished task never blocks its key, so scheduling it again creates a new task at once instead
--         of returning the finished one until the purge deletes it.
-- waiting_key: the key of a follow-up (status WAITING, runOnceMore()) that waits for its key's running task to end;
--         unique too: one follow-up per key.
-- (task_type, task_key) stays indexed, no longer unique: find by key, and a key's history.
-- STORED generated columns, which MySQL 8 and MariaDB 10.6+ both index and both write themselves on every change of
-- status; statements never name them in an INSERT or UPDATE. Adding stored columns copies the table on both servers:
-- on a large table, run it while the queue is quiet (or purge first).
ALTER TABLE `${table}`
    ADD COLUMN live_key VARCHAR(255) GENERATED ALWAYS AS
        (CASE WHEN status IN ('SCHEDULED', 'QUEUED', 'RUNNING') THEN task_key END) STORED AFTER task_key,
    ADD COLUMN waiting_key VARCHAR(255) GENERATED ALWAYS AS
        (CASE WHEN status = 'WAITING' THEN task_key END) STORED AFTER live_key,
    DROP KEY `${table}_type_key`,
    ADD KEY `${table}_type_key` (task_type, task_key),
    ADD UNIQUE KEY `${table}_live_key` (task_type, live_key),
    ADD UNIQUE KEY `${table}_waiting_key` (task_type, waiting_key);
