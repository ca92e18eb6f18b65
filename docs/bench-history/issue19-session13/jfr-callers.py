import json, re, sys, collections
# jfr-callers.py DIR: from DIR/es.json (jdk.ExecutionSample) and DIR/load.json (jdk.CPULoad) of a fresh enqueue run:
# the window of the measured calls (the bench-schedule threads' samples), the machine's CPU load in it, the samples by
# thread, and the callers' samples by frame, inclusive (a frame counts once per sample however deep).
d = sys.argv[1]
es = json.load(open(d + "/es.json"))["recording"]["events"]
load = json.load(open(d + "/load.json"))["recording"]["events"]
def thread(e): return re.sub(r'\d+', 'N', e["values"]["sampledThread"]["javaName"] or "?")
calls = [e for e in es if thread(e).startswith("bench-schedule")]
lo = min(e["values"]["startTime"] for e in calls)
hi = max(e["values"]["startTime"] for e in calls)
print("calls from", lo, "to", hi)
print("== CPU load a second apart (jvm user, jvm system, machine), fractions of both cores")
for e in load:
    v = e["values"]
    if lo[:19] <= v["startTime"][:19] <= hi[:19]:
        print(v["startTime"][11:19], "%.2f %.2f %.2f" % (v["jvmUser"], v["jvmSystem"], v["machineTotal"]))
window = [e for e in es if lo <= e["values"]["startTime"] <= hi]
print("== samples in the window by thread:", len(window))
for k, v in collections.Counter(thread(e) for e in window).most_common(10):
    print(f"{v:5d} {k}")
inclusive = collections.Counter()
for e in calls:
    names = set(f["method"]["type"]["name"].split("/")[-1] + "." + f["method"]["name"]
                for f in e["values"]["stackTrace"]["frames"])
    inclusive.update(names)
print("== the callers' samples by frame, inclusive:", len(calls))
for k, v in inclusive.most_common(80):
    print(f"{100 * v / len(calls):5.1f}% {k}")
