# Per 10 s from the soak's origin: the JVM's socket reads (3306: the database; 6379: Redis), collections, compilations
# over 100 ms, deoptimizations and CPU. Usage: python3 jfr-by-10s.py EVENTS.json ORIGIN_WALL_MS, where EVENTS.json is
# `jfr print --json --events jdk.SocketRead,jdk.GarbageCollection,jdk.Compilation,jdk.CPULoad,jdk.Deoptimization,
# jdk.SafepointBegin X.jfr` and ORIGIN_WALL_MS the run's probes_at_start.at_wall_ms in its .jsonl.
import sys
import json,datetime,collections,re
d=json.load(open(sys.argv[1]))
ev=d['recording']['events']
origin=float(sys.argv[2])/1000
def t(e):
    s=e['values']['startTime']
    s=re.sub(r'(\.\d{6})\d*Z','\\1+00:00',s)
    return datetime.datetime.fromisoformat(s).timestamp()-origin
def dur(e):
    v=e['values']['duration']  # ISO like PT0.0123S
    m=re.match(r'PT(?:(\d+)M)?([\d.]+)S',v)
    return (int(m.group(1) or 0)*60+float(m.group(2)))*1000 if m else 0
B=10
agg=collections.defaultdict(lambda: collections.defaultdict(list))
for e in ev:
    ty=e['type']; b=int(t(e)//B)*B
    if ty=='jdk.SocketRead':
        port=e['values'].get('port')
        agg[b]['sock%s'%port].append(dur(e))
    elif ty=='jdk.GarbageCollection':
        agg[b]['gc'].append(dur(e))
    elif ty=='jdk.Compilation':
        agg[b]['comp'].append(dur(e))
    elif ty=='jdk.Deoptimization':
        agg[b]['deopt'].append(1)
    elif ty=='jdk.SafepointBegin':
        agg[b]['sp'].append(dur(e))
    elif ty=='jdk.CPULoad':
        v=e['values']; agg[b]['jvm'].append(v['jvmUser']+v['jvmSystem']); agg[b]['mach'].append(v['machineTotal'])
for b in sorted(agg):
    a=agg[b]
    def s(k,f): 
        x=a.get(k,[]); return f(x) if x else 0
    print(f"{b:5d} sock3306 n={len(a['sock3306']):4d} max={s('sock3306',max):7.1f} >20ms={sum(1 for x in a['sock3306'] if x>20):3d} sum={s('sock3306',sum):8.0f} | sock6379 n={len(a['sock6379']):4d} max={s('sock6379',max):6.1f} | gc n={len(a['gc'])} sum={s('gc',sum):6.1f} max={s('gc',max):5.1f} | comp n={len(a['comp'])} sum={s('comp',sum):6.0f} | deopt {len(a['deopt'])} | jvm {s('jvm',lambda x:sum(x)/len(x)):.2f} mach {s('mach',lambda x:sum(x)/len(x)):.2f}")
