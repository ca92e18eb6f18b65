import json,sys
# soaksum.py FILE.jsonl...: per interval of each soak run: lateness p50/p99/max, purged, rows, claim rounds, longest purge
for f in sys.argv[1:]:
    for l in open(f):
        d=json.loads(l)
        if d.get("workload")!="soak": continue
        print(f"{f} rate {d['rate']} p99 {d['lateness_p99_ms']} p999 {d['lateness_p999_ms']} max {d['lateness_max_ms']} rows {d['rows_start']} -> {d['rows_end_counted']} verdict {d['verdict_table']} busy {d['machine_busy_pct']}")
        print("  min  p50     p99     max   purged      rows rounds round_ms purge_max_ms flushed read_disk")
        for i in d["intervals"]:
            print(f"  {i['interval']:<3} {i['lateness_p50_ms']:6.2f} {i['lateness_p99_ms']:7.1f} {i['lateness_max_ms']:7.1f} {i['purged']:8d} {i['rows']:9d} {i['claim_rounds']:6d} {i['claim_round_mean_ms']:6.2f} {i['purge_max_ms']} {i.get('db_pages_flushed')} {i.get('db_pages_read_from_disk')}")
