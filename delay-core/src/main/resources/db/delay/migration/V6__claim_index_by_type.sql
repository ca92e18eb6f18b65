-- The claim's index by type. ${table} is delay.jdbc.table-name.
-- status_type_due: an instance claims only the types it can start now (it has their handler, they are not paused,
--         they are below their concurrency), so every claim of the engine names its types. On (status, due_at) the
--         type is a filter on the rows the index walks: overdue tasks of types the instance skips (a paused type's
--         backlog, a type at its limit, another application's types on the same table) were read and passed over at
--         every claim (a claim of 500 read 200,499 index entries behind 200,000 such tasks on MariaDB 10.11, and took
--         862 ms instead of 4). On this index the claim reads one range per claimable type, in due order, and stops
--         at that type's cap: 999 entries for the same claim. The next due time of the claimable types reads one
--         entry per type the same way.
-- (status, due_at) stays: the statements without types (the hybrid migration, the claim without types, the next due
--         time of a status, the inspector's overdue counts) read it in due order across types, which this index cannot
--         give. (status, updated_at) stays for the purge.
-- The claims name this index (FORCE INDEX): apply this script before running a version that has it. The cost is one
-- more index entry to write on every insert and status change. MySQL 8 and MariaDB add an index in place, with
-- writes going on; it reads the whole table once.
ALTER TABLE `${table}`
    ADD KEY `${table}_status_type_due` (status, task_type, due_at);
