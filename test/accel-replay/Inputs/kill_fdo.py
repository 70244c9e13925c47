"""Kill test of `accel-replay fdo -o DIR` (issue 12).

Usage: kill_fdo.py ACCEL_REPLAY PROGRAM WORKDIR [FRACTIONS]

DIR first holds a complete earlier run (OLD: --iterations=2). Runs of
another command (NEW: --iterations=1, whose output differs) are killed with
SIGKILL at several points of their run time; after each, DIR must be exactly
OLD (killed before the end) or exactly NEW (finished first), never a part or
a mix. A final run must leave no temporary (*.accel-tmp-*) beside DIR.
"""
import hashlib
import os
import signal
import subprocess
import sys
import time

accel, program, work = sys.argv[1:4]
out = os.path.join(work, "out")
old_cmd = [accel, "fdo", program, "-o", out, "--iterations=2"]
new_cmd = [accel, "fdo", program, "-o", out, "--iterations=1"]


def snapshot(d):
    files = {}
    for root, _, names in os.walk(d):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                files[os.path.relpath(p, d)] = hashlib.sha256(f.read()).hexdigest()
    return files


def run(cmd):
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def temporaries():
    return sorted(n for n in os.listdir(work) if ".accel-tmp-" in n)


duration = run(new_cmd)
NEW = snapshot(out)
run(old_cmd)
OLD = snapshot(out)
assert OLD != NEW, "the two commands must write different outputs"

mid_run = 0
left_by_kill = False
# Optional fourth argument: the kill points as fractions of a run, e.g.
# "0.15,0.45,0.75".
fractions = ([float(f) for f in sys.argv[4].split(",")] if len(sys.argv) > 4
             else (0.05, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9))
for frac in fractions:
    p = subprocess.Popen(new_cmd, stdout=subprocess.DEVNULL)
    time.sleep(frac * duration)
    p.send_signal(signal.SIGKILL)
    p.wait()
    now = snapshot(out)
    if now == OLD:
        state = "old"
        mid_run += p.returncode == -signal.SIGKILL
        left_by_kill |= bool(temporaries())
    elif now == NEW:
        state = "new"
        run(old_cmd)  # restore OLD for the next kill
    else:
        missing = sorted(set(OLD) - set(now))
        extra = sorted(set(now) - set(OLD))
        print(f"kill at {frac:.0%}: MIXED output: missing {missing[:5]}, "
              f"extra {extra[:5]}")
        sys.exit(1)
    print(f"kill at {frac:.0%}: {state} output intact")

run(old_cmd)
print(f"mid-run kills: {'some' if mid_run else 'none'}; temporaries left by "
      f"them: {'some' if left_by_kill else 'none'}; after the next run: "
      f"{len(temporaries())}")
