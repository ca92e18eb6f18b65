#!/bin/bash
# every 2 s: the sweep's claim (new union form and the pre-c2005e5 IN form) under ANALYZE, rolled back
out=$1; : > $out
cols="id, task_type, task_key, payload, due_at, attempts, max_attempts, claims, created_at, trace_context"
while true; do
  DB=$(mysql -uroot -h127.0.0.1 -N -e "show databases" | grep -v -E '^(test|mysql|information_schema|performance_schema|sys|explain19)$' | head -1)
  [ -z "$DB" ] && { sleep 2; continue; }
  now=$(( $(date +%s%3N) - 5000 ))
  for st in QUEUED SCHEDULED; do
    parts=""
    for t in bench.noop bench.limited bench.bulk bench.warmup; do
      p="(SELECT $cols FROM delay_task FORCE INDEX (delay_task_status_type_due) WHERE status='$st' AND task_type='$t' AND due_at <= $now ORDER BY due_at LIMIT 256 FOR UPDATE SKIP LOCKED)"
      parts="${parts:+$parts UNION ALL }$p"
    done
    new="$parts ORDER BY due_at LIMIT 256"
    old="SELECT $cols FROM delay_task WHERE status='$st' AND due_at <= $now AND task_type IN ('bench.noop','bench.limited','bench.bulk','bench.warmup') ORDER BY due_at LIMIT 256 FOR UPDATE SKIP LOCKED"
    for form in new old; do
      q=${!form}
      r=$(mysql -uroot -h127.0.0.1 -N $DB -e "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED; BEGIN; ANALYZE FORMAT=JSON $q; ROLLBACK;" 2>&1 | tr -d '\n' )
      echo "$(date +%s.%N) $st $form $r" >> $out
    done
  done
  sleep 2
done
