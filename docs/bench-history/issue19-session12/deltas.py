import sys, collections
# deltas.py FILE: per-second deltas of the counters sample.sh wrote (gauges printed as is)
gauges = {'Innodb_buffer_pool_pages_dirty', 'Innodb_history_list_length', 'Innodb_checkpoint_age', 'Innodb_data_pending_fsyncs'}
rows = collections.OrderedDict()
for line in open(sys.argv[1]):
    t, k, v = line.split()
    rows.setdefault(t, {})[k] = int(v)
keys = ['Questions', 'Com_commit', 'Innodb_data_fsyncs', 'Innodb_pages_written', 'Innodb_log_waits', 'Innodb_buffer_pool_pages_dirty', 'Innodb_history_list_length', 'Innodb_checkpoint_age']
short = ['q', 'commit', 'dfsync', 'pgw', 'logwait', 'dirty', 'hist', 'ckpt_age_mb']
print('t ' + ' '.join(short))
prev = None
t0 = None
for t, r in rows.items():
    if prev is not None:
        dt = float(t) - float(prev[0])
        out = []
        for k in keys:
            if k in gauges:
                v = r.get(k, 0)
                out.append(str(v // 1048576 if k == 'Innodb_checkpoint_age' else v))
            else:
                out.append(str(int((r.get(k, 0) - prev[1].get(k, 0)) / dt)))
        print('%.0f ' % (float(t) - t0) + ' '.join(out))
    else:
        t0 = float(t)
    prev = (t, r)
