# Compilations over 100 ms by time from the soak's origin (same arguments as jfr-by-10s.py).
import json,datetime,re
exec(open(__file__.replace("jfr-compilations.py", "jfr-by-10s.py")).read().split("B=10")[0])
c=[(t(e),dur(e),e['values']['method']['type']['name']+'.'+e['values']['method']['name'],e['values'].get('compileLevel'),e['values'].get('codeSize')) for e in ev if e['type']=='jdk.Compilation']
c.sort()
for x in c:
    if x[0]<40: print(f"{x[0]:6.1f} {x[1]:7.0f}ms L{x[3]} {x[2]} size={x[4]}")
print(sum(x[1] for x in c if 0<=x[0]<30), 'ms in 0-30s')
