"""Interrupt test of the output rule (issue 31, docs/output.md).

Usage: interrupt_outputs.py ACCEL_REPLAY WORKDIR SIGNAL SECONDS CMD...

WORKDIR/out holds an earlier complete output (the caller writes it). CMD,
with "OUT" standing for WORKDIR/out, is started with the default signal
dispositions, sent SIGNAL after SECONDS and waited for. Whether the signal
came early (during the run), after the command committed its output (it
dies of the signal with its new output whole in place), or late (the
command had already finished), the test prints one line:

  SIGNAL: died of the signal | finished first; output: old | new;
  temporaries: N

and exits 1 on anything else: another exit status, an output that is
neither OLD nor complete (a new output without its summary file, fdo.json,
sweep.json or metrics.json, after a death by the signal), or a temporary
(*.accel-tmp-*) anywhere in WORKDIR.
"""
import hashlib
import os
import signal
import subprocess
import sys
import time

accel, work, signame, seconds = sys.argv[1:5]
cmd = [accel] + [os.path.join(work, "out") if a == "OUT" else a
                 for a in sys.argv[5:]]
sig = getattr(signal, signame)
out = os.path.join(work, "out")


def snapshot(d):
    files = {}
    for root, _, names in os.walk(d):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                files[os.path.relpath(p, d)] = hashlib.sha256(
                    f.read()).hexdigest()
    return files


def temporaries():
    found = []
    for root, dirs, names in os.walk(work):
        found += [os.path.join(root, n) for n in dirs + names
                  if ".accel-tmp-" in n]
    return found


OLD = snapshot(out)
# Default dispositions in the child (as from a terminal), whatever lit's.
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                     preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL)
                                         for s in (signal.SIGINT,
                                                   signal.SIGTERM,
                                                   signal.SIGHUP,
                                                   signal.SIGPIPE)])
time.sleep(float(seconds))
p.send_signal(sig)
_, err = p.communicate()
if p.returncode == -sig:
    how = "died of the signal"
elif p.returncode in (0, 2):  # fdo's 2: a rejected iteration, still written
    how = "finished first"
else:
    print("%s: exit status %d: %s" % (signame, p.returncode,
                                       err.decode(errors="replace")))
    sys.exit(1)
now = snapshot(out)
# A signal that arrives after the commit (the staging directory swapped in
# whole, the process finishing) finds the new output in place: complete, as
# its summary file shows (docs/output.md, "Signals, errors and exit").
SUMMARIES = ("fdo.json", "sweep.json", "metrics.json")
if now == OLD:
    state = "old"
elif now and (p.returncode in (0, 2) or any(s in now for s in SUMMARIES)):
    state = "new"
else:
    print("%s: the output changed without a complete run: %s" % (
        signame, " ".join(sorted(now))))
    sys.exit(1)
if b"Stack dump" in err or b"LLVM ERROR" in err or b"Traceback" in err:
    print("%s: a crash report on stderr: %s" % (signame, err.decode()))
    sys.exit(1)
left = temporaries()
print("%s: %s; output: %s; temporaries: %d%s" % (
    signame, how, state, len(left), (" " + " ".join(left)) if left else ""))
sys.exit(1 if left else 0)
