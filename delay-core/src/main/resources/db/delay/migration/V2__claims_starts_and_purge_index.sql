-- Claims, starts and the purge. ${table} is delay.jdbc.table-name.
-- claims: how often the task was claimed. A claim's number fences it: renewals, completions and hand-backs match it,
--         so a process only ever changes its own claim, and a handler may guard its own writes with it.
-- started_at: when the handler of the current claim started (NULL: claimed but not started). An attempt is counted
--         when its handler starts, so a task that was claimed but never started goes back uncounted.
-- status_updated: the purge deletes finished tasks by when they finished, oldest first, and stops where retention
--         does, instead of walking every finished row. updated_at changes with the status only.
ALTER TABLE `${table}`
    ADD COLUMN claims     BIGINT NOT NULL DEFAULT 0 AFTER max_attempts,
    ADD COLUMN started_at BIGINT NULL AFTER lease_until,
    ADD KEY `${table}_status_updated` (status, updated_at);
