#!/usr/bin/env bash
# sample.sh OUT: once a second, selected server counters (deltas computed later) and vmstat
out=$1
vmstat -n 1 > "$out.vmstat" &
vm=$!
trap "kill $vm" EXIT
while true; do
  t=$(date +%s.%N)
  mysql --protocol=tcp -h127.0.0.1 -uroot -N -B -e "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_data_fsyncs','Innodb_os_log_fsyncs','Innodb_data_written','Innodb_pages_written','Innodb_buffer_pool_pages_dirty','Innodb_history_list_length','Com_commit','Questions','Innodb_buffer_pool_read_requests','Innodb_data_pending_fsyncs','Innodb_log_waits','Innodb_checkpoint_age','Innodb_buffer_pool_pages_flushed')" | awk -v t="$t" '{printf "%s %s %s\n", t, $1, $2}' >> "$out"
  sleep 1
done
