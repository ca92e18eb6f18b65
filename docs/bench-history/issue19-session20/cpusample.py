# every 5 s: CPU (cores) of mariadbd, redis-server :6379 and the benchmark's JVM, with the JVM's JIT and GC threads
import os, sys, time, glob
HZ = os.sysconf('SC_CLK_TCK')
def pids(pattern):
    out = []
    for p in glob.glob('/proc/[0-9]*/cmdline'):
        try:
            c = open(p, 'rb').read().replace(b'\0', b' ').decode()
        except OSError:
            continue
        if pattern in c:
            out.append(int(p.split('/')[2]))
    return out
def ticks(path):
    try:
        f = open(path).read().rsplit(')', 1)[1].split()
        return int(f[11]) + int(f[12])
    except OSError:
        return 0
def comm(path):
    try:
        return open(path).read().strip()
    except OSError:
        return ''
db = pids('/usr/sbin/mariadbd')[:1]
redis = [p for p in pids('redis-server') if ':6379' in open('/proc/%d/cmdline' % p).read().replace('\0', ' ')][:1]
prev = None
print('wall_ms db redis java jit gc', flush=True)
while True:
    java = [p for p in pids(sys.argv[1] if len(sys.argv) > 1 else 'delay-bench.jar') if 'python' not in open('/proc/%d/cmdline' % p).read()]
    now = {'db': sum(ticks('/proc/%d/stat' % p) for p in db), 'redis': sum(ticks('/proc/%d/stat' % p) for p in redis),
           'java': 0, 'jit': 0, 'gc': 0}
    for p in java:
        now['java'] += ticks('/proc/%d/stat' % p)
        for t in glob.glob('/proc/%d/task/*' % p):
            n = comm(t + '/comm')
            if 'Compiler' in n:
                now['jit'] += ticks(t + '/stat')
            elif n.startswith('G1') or n.startswith('GC'):
                now['gc'] += ticks(t + '/stat')
    t = time.time()
    if prev:
        dt = t - prev[0]
        print(int(t * 1000), ' '.join('%.2f' % ((now[k] - prev[1][k]) / HZ / dt) for k in ('db', 'redis', 'java', 'jit', 'gc')), flush=True)
    prev = (t, now)
    time.sleep(5)
