#!/usr/bin/env python3
"""Check that two builds of accel-replay produce byte-for-byte the same outputs.

Performance work on accel-replay must not change a single output byte. This
script runs the tools of a baseline bindir and of a new bindir with the same
arguments on many inputs of this source tree (each run a "case") and
compares what they produce:

    python3 bench/same_outputs.py --bindir NEW_BIN --baseline-bindir OLD_BIN \\
        [-j 2] [--keep DIR] [--filter REGEX] [--quick] [--list]

Cases (paths relative to the source tree, the parent of this script's
directory; an INPUT.mlir with a sibling INPUT.json, as bench/fdo/kernels has,
gets `--config INPUT.json` in run, fdo and record):

  run:PATH            `accel-replay run PATH -o out` for every *.mlir under
                      examples/ (recursive), bench/workloads/,
                      bench/fdo/kernels/ (recursive), and every *.mlir under
                      test/ (recursive, Inputs/ included) whose text contains
                      `accel.kernel` or `func.func`. Many test inputs are
                      rejected with an error: then the exit code and the
                      diagnostics are what is compared.
  fdo:PATH            `accel-replay fdo PATH -o out` for every *.mlir at the
                      top of examples/ and under bench/fdo/kernels/
                      (recursive). --quick skips examples/llama2_mlp*.mlir
                      (about 20 s or more each).
  record-replay:PATH  `accel-replay record PATH -o trace`, then
                      `accel-replay replay trace -o replay` and
                      `accel-replay replay trace --analyze=false
                      --timing-only -o replay-timing`, for the *.mlir at the
                      top of examples/ and bench/workloads/. Each tool set
                      records its own trace; the traces are compared
                      byte-for-byte too. The steps stop at the first one
                      that fails (on that side).

Every command also gets `--progress=always`, so that the one-line progress
summary that accel-replay prints on stderr (when stderr is not a terminal)
is always there instead of only when the command happened to take over a
second (--progress=auto), and its text (counts of iterations, runs and
instructions) is compared too.

Each side of a case runs in its own empty directory (the working directory
of the commands, which write their outputs under relative names), the
baseline's then the new one's. Compared, for each step: the exit code,
stdout and stderr; then every file the case wrote (the same set of relative
file names, identical bytes; *.png files are skipped).

Normalized before comparing (and nothing else):
  * the absolute path of the side's working directory (as given and
    resolved) -> <TMP>, in stdout, stderr and output files;
  * the bindir's path (as given and resolved) -> <BINDIR>, in the same
    places (e.g. argv[0] in diagnostics);
  * in stdout and stderr, the elapsed wall time at the end of the progress
    summary line, `accel-replay SUBCOMMAND: ... in 12.3 s` ->
    `... in <SECONDS> s` (tools/accel-replay/Progress.cpp, " in %.1f s").
    Nothing else the tools print is wall-clock dependent: e.g. the report's
    "it took N" counts simulated cycles and is compared as is.

Known environment dependence not normalized: the default --max-instructions
is derived from the memory available to the process (MemAvailable, ulimit
-v, cgroup limit), so a program near that budget could be truncated on one
side only on a machine short of memory. A case where one side crashed
(exit -11, a stack trace on stderr) and the other did not may be a
nondeterministic crash rather than a change: rerun it with --filter.

For every differing case the report (stdout, at the end) gives the first
differing step stream or file, the first differing line (text) or byte
offset (binary) and a few lines of context from both sides. Progress
(`[k/N] CASE ... ok/DIFF`) goes to stderr.

Cases run in parallel in a thread pool of -j workers (default 2), each
worker running one command at a time. Each side of a case has 600 s
(--timeout); a timeout is a difference unless both sides time out.
--keep DIR keeps the directories and logs of differing cases under DIR.

Exit status: 0 if all cases are equal, 1 if any differ, 2 on usage errors.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = "accel-replay"
SIDES = ("old", "new")  # Same length: paths of the two sides align.
CONTEXT_LINES = 3
PROGRESS_TIME_RE = re.compile(
    rb"^(accel-replay [\w-]+: .*) in \d+(?:\.\d+)? s$", re.M)


# --------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------

class Case:
    """A named sequence of steps; a step is (argv after the tool, label)."""

    def __init__(self, name, steps):
        self.name = name
        self.steps = steps


def _mlir_files(rel_dir, recursive):
    root = os.path.join(SRC, rel_dir)
    found = []
    if not os.path.isdir(root):
        return found
    if recursive:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for f in filenames:
                if f.endswith(".mlir"):
                    found.append(os.path.join(dirpath, f))
    else:
        for f in os.listdir(root):
            p = os.path.join(root, f)
            if f.endswith(".mlir") and os.path.isfile(p):
                found.append(p)
    return sorted(os.path.relpath(p, SRC) for p in found)


def _config_args(rel):
    """--config for an input with a machine config of the same stem."""
    json_path = os.path.join(SRC, rel[:-len(".mlir")] + ".json")
    return ["--config", json_path] if os.path.isfile(json_path) else []


def _is_program(rel):
    try:
        with open(os.path.join(SRC, rel), encoding="utf-8",
                  errors="replace") as f:
            text = f.read()
    except OSError:
        return False
    return "accel.kernel" in text or "func.func" in text


def _unique(seq):
    seen = set()
    return [x for x in seq if not (x in seen or seen.add(x))]


def discover_cases(quick):
    progress = ["--progress=always"]
    cases = []

    run_inputs = _unique(
        _mlir_files("examples", True) + _mlir_files("bench/workloads", False)
        + _mlir_files("bench/fdo/kernels", True)
        + [p for p in _mlir_files("test", True) if _is_program(p)])
    for rel in run_inputs:
        src = os.path.join(SRC, rel)
        cases.append(Case("run:" + rel, [
            (["run"] + _config_args(rel) + progress + [src, "-o", "out"],
             "run")]))

    fdo_inputs = _unique(_mlir_files("examples", False)
                         + _mlir_files("bench/fdo/kernels", True))
    for rel in fdo_inputs:
        if quick and re.fullmatch(r"examples/llama2_mlp[^/]*\.mlir", rel):
            continue
        src = os.path.join(SRC, rel)
        cases.append(Case("fdo:" + rel, [
            (["fdo"] + _config_args(rel) + progress + [src, "-o", "out"],
             "fdo")]))

    rr_inputs = _unique(_mlir_files("examples", False)
                        + _mlir_files("bench/workloads", False))
    for rel in rr_inputs:
        src = os.path.join(SRC, rel)
        cases.append(Case("record-replay:" + rel, [
            (["record"] + _config_args(rel) + progress
             + [src, "-o", "trace"], "record"),
            (["replay"] + progress + ["trace", "-o", "replay"], "replay"),
            (["replay", "--analyze=false", "--timing-only"] + progress
             + ["trace", "-o", "replay-timing"], "replay-timing-only"),
        ]))
    return cases


# --------------------------------------------------------------------------
# Running one side
# --------------------------------------------------------------------------

class StepResult:
    def __init__(self, label, argv, rc, stdout, stderr, timed_out, seconds):
        self.label = label
        self.argv = argv
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.timed_out = timed_out
        self.seconds = seconds


def _run_step(argv, cwd, timeout):
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=max(timeout, 0.01))
        timed_out = False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        timed_out = True
    return proc.returncode, out, err, timed_out, time.monotonic() - start


def run_side(case, bindir, workdir, timeout):
    """Runs the case's steps in workdir; stops after a failing step."""
    os.makedirs(workdir)
    exe = os.path.join(bindir, TOOL)
    deadline = time.monotonic() + timeout
    results = []
    for args, label in case.steps:
        argv = [exe] + args
        rc, out, err, timed_out, secs = _run_step(
            argv, workdir, deadline - time.monotonic())
        results.append(StepResult(label, argv, rc, out, err, timed_out, secs))
        if timed_out or rc != 0:
            break
    return results


# --------------------------------------------------------------------------
# Normalizing and comparing
# --------------------------------------------------------------------------

def _path_variants(path):
    variants = {os.path.abspath(path), os.path.realpath(path)}
    return sorted((v for v in variants if v and v != "/"), key=len,
                  reverse=True)


class Normalizer:
    def __init__(self, workdir, bindir):
        repl = [(v, "<TMP>") for v in _path_variants(workdir)]
        repl += [(v, "<BINDIR>") for v in _path_variants(bindir)]
        repl.sort(key=lambda r: len(r[0]), reverse=True)
        self.repl = [(a.encode(), b.encode()) for a, b in repl]

    def paths(self, data):
        for a, b in self.repl:
            if a in data:
                data = data.replace(a, b)
        return data

    def stream(self, data):
        return PROGRESS_TIME_RE.sub(rb"\1 in <SECONDS> s", self.paths(data))


def _list_files(root):
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for f in filenames:
            if f.lower().endswith(".png"):
                continue
            files.append(os.path.relpath(os.path.join(dirpath, f), root))
    return sorted(files)


def _is_text(data):
    if b"\0" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _clip(line, limit=300):
    return line if len(line) <= limit else line[:limit] + " ...[clipped]"


def describe_difference(what, a, b):
    """Text of the first difference between byte strings a and b."""
    out = []
    if _is_text(a) and _is_text(b):
        la = a.decode("utf-8").split("\n")
        lb = b.decode("utf-8").split("\n")
        i = 0
        while i < len(la) and i < len(lb) and la[i] == lb[i]:
            i += 1
        out.append("  %s: first difference at line %d (old %d lines, "
                   "new %d lines)" % (what, i + 1, len(la), len(lb)))
        lo = max(0, i - CONTEXT_LINES)
        for side, lines in (("old", la), ("new", lb)):
            out.append("    --- %s:" % side)
            hi = min(len(lines), i + CONTEXT_LINES + 1)
            if lo >= hi:
                out.append("      (ends before line %d)" % (i + 1))
            for k in range(lo, hi):
                mark = ">" if k == i else " "
                out.append("    %s%5d| %s" % (mark, k + 1, _clip(lines[k])))
            if i >= len(lines):
                out.append("    >      (end of %s)" % what)
    else:
        n = min(len(a), len(b))
        i = 0
        while i < n and a[i] == b[i]:
            i += 1
        out.append("  %s: binary, first difference at byte offset %d "
                   "(old %d bytes, new %d bytes)" % (what, i, len(a), len(b)))
        lo = max(0, i - 16)
        for side, data in (("old", a), ("new", b)):
            out.append("    --- %s [%d:%d]: %s" % (
                side, lo, i + 16, data[lo:i + 16].hex(" ")))
    return "\n".join(out)


def compare_sides(case, res, dirs, norms):
    """Returns (equal, note, details): the steps' exit codes and streams up
    to the first step that differs, then the files the case wrote."""
    old, new = res["old"], res["new"]
    if old and new and old[-1].timed_out and new[-1].timed_out \
            and len(old) == len(new):
        return True, "both timed out", ""
    details = []
    notes = []
    for k in range(max(len(old), len(new))):
        if k >= len(old) or k >= len(new):
            ran = old if k < len(old) else new
            details.append("  step %s ran only on the %s side (the other "
                           "stopped before it)" % (
                               ran[k].label, "old" if ran is old else "new"))
            notes.append("steps")
            break
        so, sn = old[k], new[k]
        label = so.label
        if so.timed_out or sn.timed_out:
            details.append("  step %s: timed out on the %s side" % (
                label, "old" if so.timed_out else "new"))
            return False, "timeout", "\n".join(details)
        if so.rc != sn.rc:
            details.append("  step %s: exit code old %s, new %s" % (
                label, so.rc, sn.rc))
        for stream in ("stdout", "stderr"):
            a = norms["old"].stream(getattr(so, stream))
            b = norms["new"].stream(getattr(sn, stream))
            if a != b:
                details.append(describe_difference(
                    "step %s %s" % (label, stream), a, b))
        if details:
            notes.append("step " + label)
            break

    ndetails = len(details)
    fo, fn = _list_files(dirs["old"]), _list_files(dirs["new"])
    if fo != fn:
        only_old = sorted(set(fo) - set(fn))
        only_new = sorted(set(fn) - set(fo))
        if only_old:
            details.append("  files only in old: " + ", ".join(only_old[:20]))
        if only_new:
            details.append("  files only in new: " + ", ".join(only_new[:20]))
    ndiff = 0
    first = None
    for rel in sorted(set(fo) & set(fn)):
        with open(os.path.join(dirs["old"], rel), "rb") as f:
            a = f.read()
        with open(os.path.join(dirs["new"], rel), "rb") as f:
            b = f.read()
        if a == b:
            continue
        a, b = norms["old"].paths(a), norms["new"].paths(b)
        if a == b:
            continue
        ndiff += 1
        if first is None:
            first = describe_difference("file " + rel, a, b)
    if ndiff:
        details.append("  %d differing file(s); the first:" % ndiff)
        details.append(first)
    if len(details) > ndetails:
        notes.append("files")
    if details:
        return False, ", ".join(notes), "\n".join(details)
    return True, "", ""


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------

def _safe_name(name):
    return re.sub(r"[^\w.-]+", "_", name)


def process_case(index, case, args, tmp_root):
    case_dir = os.path.join(tmp_root, "%04d" % index)
    bindirs = {"old": args.baseline_bindir, "new": args.bindir}
    dirs = {s: os.path.join(case_dir, s) for s in SIDES}
    start = time.monotonic()
    res = {s: run_side(case, bindirs[s], dirs[s], args.timeout)
           for s in SIDES}
    norms = {s: Normalizer(dirs[s], bindirs[s]) for s in SIDES}
    equal, note, details = compare_sides(case, res, dirs, norms)
    if not equal and args.keep:
        dest = os.path.join(args.keep, _safe_name(case.name))
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(case_dir, dest, symlinks=True)
        for s in SIDES:
            for k, r in enumerate(res[s]):
                base = os.path.join(dest, "%s.%d.%s" % (s, k, r.label))
                with open(base + ".cmd", "w") as f:
                    f.write(" ".join(r.argv) + "\nexit %s%s\n" % (
                        r.rc, " (timed out)" if r.timed_out else ""))
                with open(base + ".stdout", "wb") as f:
                    f.write(r.stdout)
                with open(base + ".stderr", "wb") as f:
                    f.write(r.stderr)
        with open(os.path.join(dest, "difference.txt"), "w") as f:
            f.write(details + "\n")
    shutil.rmtree(case_dir, ignore_errors=True)
    rcs = "/".join(str(r.rc) for r in res["new"])
    return equal, note, details, time.monotonic() - start, rcs


def _submission_order(cases):
    """Likely long cases first (fdo, then record-replay, then run; larger
    inputs first), so that a long case does not start last."""
    kind_rank = {"fdo": 0, "record-replay": 1, "run": 2}

    def key(i):
        kind, _, rel = cases[i].name.partition(":")
        try:
            size = os.path.getsize(os.path.join(SRC, rel))
        except OSError:
            size = 0
        return (kind_rank.get(kind, 3), -size, i)
    return sorted(range(len(cases)), key=key)


def _usage_error(parser, message):
    parser.print_usage(sys.stderr)
    print("%s: error: %s" % (parser.prog, message), file=sys.stderr)
    sys.exit(2)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bindir", help="bindir of the new tools "
                        "(holds accel-replay)")
    parser.add_argument("--baseline-bindir",
                        help="bindir of the baseline tools")
    parser.add_argument("-j", "--jobs", type=int, default=2,
                        help="cases run in parallel (default 2)")
    parser.add_argument("--keep", metavar="DIR",
                        help="keep the directories, commands and logs of "
                             "differing cases under DIR")
    parser.add_argument("--filter", metavar="REGEX",
                        help="only the cases whose name matches REGEX "
                             "(re.search), e.g. 'run:examples/prefetch.mlir'")
    parser.add_argument("--quick", action="store_true",
                        help="skip the slow fdo cases of "
                             "examples/llama2_mlp*.mlir")
    parser.add_argument("--list", action="store_true",
                        help="print the case names and exit")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds per side of a case (default 600)")
    args = parser.parse_args()

    if args.jobs < 1:
        _usage_error(parser, "-j must be at least 1")
    cases = discover_cases(args.quick)
    if args.filter:
        try:
            pattern = re.compile(args.filter)
        except re.error as e:
            _usage_error(parser, "bad --filter regex: %s" % e)
        cases = [c for c in cases if pattern.search(c.name)]

    if args.list:
        for c in cases:
            print(c.name)
        return 0

    for opt, value in (("--bindir", args.bindir),
                       ("--baseline-bindir", args.baseline_bindir)):
        if not value:
            _usage_error(parser, "%s is required" % opt)
        exe = os.path.join(value, TOOL)
        if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
            _usage_error(parser, "%s: no executable %s in %s" % (
                opt, TOOL, value))
    args.bindir = os.path.abspath(args.bindir)
    args.baseline_bindir = os.path.abspath(args.baseline_bindir)
    if args.keep:
        args.keep = os.path.abspath(args.keep)
        os.makedirs(args.keep, exist_ok=True)
    if not cases:
        _usage_error(parser, "no case matches --filter %r" % args.filter)

    total = len(cases)
    print("%d cases, %d jobs: %s (baseline) vs %s (new)" % (
        total, args.jobs, args.baseline_bindir, args.bindir), file=sys.stderr)
    start = time.monotonic()
    tmp_root = tempfile.mkdtemp(prefix="same_outputs.")
    lock = threading.Lock()
    done = [0]
    differing = []
    equal_count = 0
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {pool.submit(process_case, i, cases[i], args,
                                   tmp_root): cases[i]
                       for i in _submission_order(cases)}
            for fut in concurrent.futures.as_completed(futures):
                case = futures[fut]
                try:
                    equal, note, details, secs, rcs = fut.result()
                except Exception as e:  # A bug here, not in the tools.
                    equal, note, secs, rcs = False, "error", 0.0, "?"
                    details = "  harness error: %s: %s" % (
                        type(e).__name__, e)
                with lock:
                    done[0] += 1
                    status = "ok" if equal else "DIFF"
                    if note:
                        status += " (%s)" % note
                    print("[%d/%d] %s ... %s [exit %s, %.1f s]" % (
                        done[0], total, case.name, status, rcs, secs),
                        file=sys.stderr, flush=True)
                    if equal:
                        equal_count += 1
                    else:
                        differing.append((case.name, details))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        shutil.rmtree(tmp_root, ignore_errors=True)
        return 1
    shutil.rmtree(tmp_root, ignore_errors=True)
    wall = time.monotonic() - start

    differing.sort()
    for name, details in differing:
        print("DIFF %s\n%s\n" % (name, details))
    print("summary: %d cases, %d equal, %d differing, wall time %.1f s" % (
        total, equal_count, len(differing), wall))
    if differing and args.keep:
        print("kept the differing cases under %s" % args.keep)
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
