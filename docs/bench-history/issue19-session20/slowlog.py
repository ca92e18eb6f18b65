# slow statements per 20-s step from the soak's origin: count and max by kind
import re, sys, json, collections
log, jsonl = sys.argv[1], sys.argv[2]
origin = json.loads(open(jsonl).readline())['probes_at_start']['at_wall_ms'] / 1000.0
stmts = []
cur = {}
for line in open(log, errors='replace'):
    m = re.match(r'# Query_time: ([\d.]+)\s+Lock_time: ([\d.]+)', line)
    if m:
        cur = {'q': float(m.group(1)), 'l': float(m.group(2))}
        continue
    m = re.match(r'SET timestamp=(\d+)', line)
    if m and cur:
        cur['t'] = int(m.group(1)); continue
    if cur and 't' in cur and not line.startswith('#') and not line.startswith('use '):
        s = line.strip().upper()
        kind = 'claim-update' if s.startswith('UPDATE') and 'RUNNING' in s else \
               'update' if s.startswith('UPDATE') else 'insert' if s.startswith('INSERT') else \
               'delete' if s.startswith('DELETE') else 'select' if s.startswith('SELECT') or s.startswith('(SELECT') else 'other'
        cur['k'] = kind; stmts.append(cur); cur = {}
steps = collections.defaultdict(lambda: collections.defaultdict(list))
for s in stmts:
    step = int((s['t'] - origin) // 20)
    if step >= 0:
        steps[step][s['k']].append(s['q'])
for step in sorted(steps):
    print(step + 1, ', '.join('%s %d (max %.0f ms)' % (k, len(v), 1000 * max(v)) for k, v in sorted(steps[step].items())))
