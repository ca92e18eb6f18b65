#!/usr/bin/env bash
# What a failed keyed INSERT inside an open transaction holds, and whom it holds up (issue 19, session 11).
# A scratch table shaped like delay_task's key columns (V3: live_key, unique with task_type); transaction A inserts a
# key that a live task holds, fails on the unique key and stays open; meanwhile other sessions make the engine's
# writes of that task. Each waits at most 2 s (innodb_lock_wait_timeout). Needs the mysql client and a MariaDB or
# MySQL server: MYSQL="mysql -uroot -h127.0.0.1 test" by default.
set -u
MYSQL=${MYSQL:-"mysql -uroot -h127.0.0.1 test"}
$MYSQL -e "DROP TABLE IF EXISTS dup_lock_probe;
  CREATE TABLE dup_lock_probe (id BIGINT AUTO_INCREMENT PRIMARY KEY, task_type VARCHAR(50), task_key VARCHAR(50),
    status VARCHAR(20), due BIGINT, lease BIGINT,
    live_key VARCHAR(255) GENERATED ALWAYS AS (CASE WHEN status IN ('SCHEDULED','QUEUED','RUNNING') THEN task_key END) STORED,
    KEY by_status (status, task_type, due), UNIQUE KEY by_live_key (task_type, live_key));
  INSERT INTO dup_lock_probe (id, task_type, task_key, status, due) VALUES (1,'t','k1','QUEUED',1),(2,'t','k2','QUEUED',2),(3,'t','k3','QUEUED',3);"
probe() { # what the caller's transaction does after BEGIN
  $MYSQL -e "DELETE FROM dup_lock_probe; INSERT INTO dup_lock_probe (id, task_type, task_key, status, due) VALUES
    (1,'t','k1','QUEUED',1),(2,'t','k2','QUEUED',2),(3,'t','k3','QUEUED',3);"
  echo "== the caller's open transaction: $1"
  ( (echo "BEGIN;"; printf '%s\n' "$2"; sleep 13; echo "ROLLBACK;") | $MYSQL -f 2>&1 | grep -i error | sed 's/^/caller: /' ) &
  sleep 1.5
  try "claim (QUEUED -> RUNNING, key unchanged)" "UPDATE dup_lock_probe SET status='RUNNING', lease=9 WHERE id=2"
  try "lease renewal" "UPDATE dup_lock_probe SET lease=10 WHERE id=2"
  try "retry (RUNNING -> QUEUED, key unchanged)" "UPDATE dup_lock_probe SET status='QUEUED', due=due+1 WHERE id=2"
  try "completion (-> SUCCEEDED, key released)" "UPDATE dup_lock_probe SET status='SUCCEEDED' WHERE id=2"
  try "cancel (-> CANCELLED, key released)" "UPDATE dup_lock_probe SET status='CANCELLED' WHERE id=2"
  wait
}
try() { # label, statement
  if out=$($MYSQL -e "SET innodb_lock_wait_timeout=2; $2" 2>&1); then echo "$1: done at once"; else echo "$1: ${out##*ERROR}"; fi
}
INSERT_TAKEN="INSERT INTO dup_lock_probe (task_type, task_key, status, due) VALUES ('t','k2','QUEUED',5);"
probe "an insert of the taken key k2, failed" "$INSERT_TAKEN"
probe "the failed insert, then the key read with LOCK IN SHARE MODE (what InsertBatch reads after a failure)" \
  "$INSERT_TAKEN
SELECT id, task_type, task_key, status, due FROM dup_lock_probe WHERE task_type = 't' AND live_key = 'k2' LOCK IN SHARE MODE;"
$MYSQL -e "DROP TABLE dup_lock_probe"
