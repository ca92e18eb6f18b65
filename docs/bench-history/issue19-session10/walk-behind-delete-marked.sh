#!/bin/bash
# delete-marked index entries of one type, held by an open read view; what a claim of another (empty) type reads
M="mysql -uroot -h127.0.0.1 probe20"
$M -e "TRUNCATE delay_task"
$M -e "INSERT INTO delay_task (task_type, payload, due_at, status, created_at, updated_at)
  SELECT 'b.noop', 'x', seq, 'QUEUED', 0, 0 FROM seq_1000_to_200999;
  INSERT INTO delay_task (task_type, payload, due_at, status, created_at, updated_at) VALUES ('b.noop','x',999999999,'QUEUED',0,0);"
$M -e "START TRANSACTION WITH CONSISTENT SNAPSHOT; SELECT COUNT(*) FROM delay_task; SELECT SLEEP(40);" > /dev/null &
sleep 1
$M -e "UPDATE delay_task SET status='SUCCEEDED' WHERE due_at < 999999999"
cols="id, task_type, task_key, payload, due_at, attempts, max_attempts, claims, created_at, trace_context"
for lock in "FOR UPDATE SKIP LOCKED" ""; do
 for ty in a.bulk b.noop; do
  q="SELECT $cols FROM delay_task FORCE INDEX (delay_task_status_type_due) WHERE status='QUEUED' AND task_type='$ty' AND due_at <= 100000 ORDER BY due_at LIMIT 64 $lock"
  r=$($M -N -e "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED; BEGIN; ANALYZE FORMAT=JSON $q; ROLLBACK;" | tr -d '\n' | sed 's/\\n/ /g' | grep -oE '"r_table_time_ms": [0-9.]+|"pages_accessed": [0-9]+|"old_rows_read": [0-9]+' | tr '\n' ' ')
  echo "type $ty lock '${lock}': $r"
 done
 q="SELECT $cols FROM delay_task WHERE status='QUEUED' AND due_at <= 100000 AND task_type IN ('a.bulk','b.noop') ORDER BY due_at LIMIT 64 $lock"
 r=$($M -N -e "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED; BEGIN; ANALYZE FORMAT=JSON $q; ROLLBACK;" | tr -d '\n' | sed 's/\\n/ /g' | grep -oE '"r_table_time_ms": [0-9.]+|"pages_accessed": [0-9]+|"old_rows_read": [0-9]+' | tr '\n' ' ')
 echo "IN form lock '${lock}': $r"
done
wait
