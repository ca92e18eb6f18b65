-- The trace a task was scheduled in, and the errors of its failed attempts. ${table} is delay.jdbc.table-name.
-- trace_context: the propagation headers of the trace that scheduled the task (W3C traceparent and what the tracer
--         adds), one "name=value" a line; NULL without a tracer or outside a trace. The run continues that trace.
-- error_history: the errors of the task's latest failed attempts (at most 10, TaskTable.MAX_ERROR_HISTORY), oldest
--         first, one JSON object a line ({"attempt":..,"failedAt":..,"error":..}); written by the same UPDATE that
--         writes last_error, NULL until the first failure. Deleted with the row by the purge.
-- Both are nullable and last: MySQL 8 and MariaDB add them in place (instantly), without copying the table.
ALTER TABLE `${table}`
    ADD COLUMN trace_context VARCHAR(1024) NULL,
    ADD COLUMN error_history MEDIUMTEXT NULL;
