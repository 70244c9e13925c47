"""Checks that a timeline.json has the structure Perfetto and
chrome://tracing read (Chrome Trace Event format): a traceEvents array;
every event has ph, pid; "X" slices have numeric ts >= 0 and dur >= 0 and
nest properly per (pid, tid); "C" counters have non-empty numeric args;
"b"/"e" async events pair up per (cat, id) in order; "s"/"f" flows pair up
per id with "f" binding to an enclosing slice ("bp": "e"), and each flow
event binds to an "X" slice of its own category, pid and tid that starts at
its ts (Chrome DevTools binds a flow event to the slice with equal cat, pid,
tid and ts; Perfetto to the slice enclosing it on its track); "M" metadata
name the process and threads. Prints counts per phase, or the first
violation and exits 1."""
import collections
import json
import sys

doc = json.load(open(sys.argv[1]))
events = doc["traceEvents"]
counts = collections.Counter()
slices = collections.defaultdict(list)
open_async = collections.defaultdict(list)
flows = {}
flow_events = []


def bad(msg, e):
    print("BAD: %s: %s" % (msg, json.dumps(e)[:300]))
    sys.exit(1)


for e in events:
    ph = e.get("ph")
    counts[ph] += 1
    if "pid" not in e:
        bad("no pid", e)
    if ph == "M":
        if e["name"] not in ("process_name", "thread_name") or "name" not in e["args"]:
            bad("bad metadata", e)
        continue
    ts = e.get("ts")
    if not isinstance(ts, (int, float)) or ts < 0:
        bad("bad ts", e)
    if ph == "X":
        if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0 or "tid" not in e:
            bad("bad slice", e)
        slices[(e["pid"], e["tid"])].append((ts, ts + e["dur"], e))
    elif ph == "C":
        args = e.get("args")
        if not args or not all(isinstance(v, (int, float)) for v in args.values()):
            bad("counter without numeric args", e)
    elif ph in ("b", "e"):
        key = (e.get("cat"), e.get("id"))
        if key[1] is None:
            bad("async event without id", e)
        if ph == "b":
            open_async[key].append((e["name"], ts))
        else:
            if not open_async[key] or open_async[key][-1][0] != e["name"]:
                bad("unmatched async end", e)
            name, start = open_async[key].pop()
            if ts < start:
                bad("async end before begin", e)
    elif ph in ("s", "f"):
        flow_events.append(e)
        if ph == "s":
            flows[e["id"]] = e
        else:
            if e["id"] not in flows or e.get("bp") != "e":
                bad("unmatched flow end", e)
    else:
        bad("unknown phase", e)

for key, items in open_async.items():
    if items:
        bad("unclosed async slice", {"key": str(key), "open": items})
eps = 1e-9
for track, items in slices.items():
    items.sort(key=lambda x: (x[0], -x[1]))
    stack = []
    for start, end, e in items:
        while stack and stack[-1] <= start + eps:
            stack.pop()
        if stack and end > stack[-1] + eps:
            bad("slices overlap without nesting on track %s" % (track,), e)
        stack.append(end)

starts = collections.defaultdict(list)  # (pid, tid, cat) -> X slice starts
for (pid, tid), items in slices.items():
    for start, end, e in items:
        starts[(pid, tid, e.get("cat"))].append((start, end))
for e in flow_events:
    if not any(abs(start - e["ts"]) <= eps
               for start, end in starts[(e["pid"], e.get("tid"), e.get("cat"))]):
        bad("flow event binds to no X slice of its cat %r, pid and tid "
            "starting at its ts" % e.get("cat"), e)

print("timeline ok: " + ", ".join("%s=%d" % (k, counts[k]) for k in sorted(counts)))
