#!/usr/bin/env python3
"""Tool speed (issue 34): CPU time, simulated instructions per second and
peak memory of accel-replay, against the issue's targets.

Measures, with the tools of --bindir (default BUILD/bin):
  1. `accel-replay run bench/workloads/layernorm_loop.mlir` (about 1 M
     instructions) with the analyzer and with `--analyze=false`: CPU
     seconds, simulated instructions (metrics.json), M instructions per CPU
     second, peak RSS;
  2. analyzer memory: the same loop with its step count scaled to
     --big-instructions (default 16 M), run with and without the analyzer;
     bytes per instruction = (peak RSS with - peak RSS without) /
     instructions, and analyzer CPU microseconds per instruction;
  3. `accel-replay fdo examples/llama2_mlp.mlir`: CPU seconds, peak RSS;
  4. a trace of the whole scaled loop (`accel-replay record`), replayed
     with the analyzer, with `--analyze=false` (functional: the arithmetic
     and the DMA stall analysis, which replay always runs) and with
     `--analyze=false --timing-only`: M instructions per CPU second;
  5. with --tests: `lit -s BUILD/test` and BUILD/unittests/AccelUnitTests
     (what check-accel runs), wall and CPU seconds, one run each;
  6. with --callgrind: host instructions of (1) with the analyzer under
     `valgrind --tool=callgrind`, per simulated instruction (one run: the
     count is exact and does not depend on the load).

CPU time is user + system time of the tool and the processes it waited for
(os.wait4), and peak RSS is its ru_maxrss: both stay meaningful on a loaded
machine, where wall-clock time does not. Each figure is the best of
--repeat runs by CPU time (peak RSS from that run); with a baseline the
runs of the two sets of tools alternate. The trace recording is timed once.

Prints a Markdown table (figure | value | target | baseline | ratio =
value / baseline) under a line naming the machine, the OS, the date and
the commit. MB are 10^6 bytes. Run from the repository root:

    python3 bench/speed.py                          # build/bin, best of 3
    python3 bench/speed.py --big-instructions 2000000 --repeat 1  # quick
    python3 bench/speed.py --baseline               # also build HEAD~1
    python3 bench/speed.py --baseline-bindir OLD/bin --callgrind --tests
    python3 bench/speed.py --write                  # into bench/RESULTS.md

--baseline builds REV in a git worktree under a temporary directory
(cmake -G Ninja -DCMAKE_BUILD_TYPE=Release, ccache when installed, only
the accel-replay target) and removes the worktree at the end. Without
--write no file of the repository is written; temporary files go to a
directory under $TMPDIR (/tmp) that is deleted at the end (--keep-tmp keeps
it). Exit status 0, or 1 when a tool fails (its stderr is printed).
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import cpu_model  # noqa: E402
LAYERNORM = os.path.join("bench", "workloads", "layernorm_loop.mlir")
MLP = os.path.join("examples", "llama2_mlp.mlir")
RESULTS = os.path.join(REPO, "bench", "RESULTS.md")
BEGIN = "<!-- speed.py begin -->"
END = "<!-- speed.py end -->"
STEPS_RE = re.compile(r"(%steps = arith\.constant )(\d+)( : index)")


class ToolFailed(Exception):
    def __init__(self, cmd, status, stdout, stderr):
        super().__init__(" ".join(cmd))
        self.cmd, self.status = cmd, status
        self.stdout, self.stderr = stdout, stderr


def log(msg):
    print("[speed] " + msg, file=sys.stderr, flush=True)


class Run:
    """One finished process: CPU and wall seconds, peak RSS in bytes, output."""

    def __init__(self, cpu, wall, rss, stdout, stderr):
        self.cpu, self.wall, self.rss = cpu, wall, rss
        self.stdout, self.stderr = stdout, stderr


def run_once(cmd, tmp):
    """Runs `cmd` (cwd: the repository) and returns its Run; raises
    ToolFailed on a non-zero exit status."""
    with tempfile.TemporaryFile(dir=tmp) as out, \
            tempfile.TemporaryFile(dir=tmp) as err:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=REPO, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    if proc.returncode != 0:
        raise ToolFailed(cmd, proc.returncode, stdout, stderr)
    return Run(usage.ru_utime + usage.ru_stime, wall,
               usage.ru_maxrss * 1024,  # KiB on Linux
               stdout, stderr)


# Per measurement with a baseline: (what, the CPU ratios new / baseline of
# its pairs of runs, each pair run back to back).
PAIRED = []


def best_of(what, cmds, repeat, tmp, outdirs=()):
    """Runs each set's command `repeat` times, the sets alternating, and
    returns {set: the Run with the least CPU time}. `cmds` maps a set name
    to its command; `outdirs` maps it to a directory emptied before each
    run. With both a "new" and a "baseline" set, notes in PAIRED the CPU
    ratio of each pair (round i of both): a host whose speed drifts during
    the script moves both runs of a pair, where a best-of-N may take one
    set's lucky minute. The rounds alternate the order of the sets (the
    second run of a pair was measured to run slower on a loaded host)."""
    best = {}
    cpus = {name: [] for name in cmds}
    for i in range(repeat):
        order = list(cmds.items())
        if i % 2:
            order.reverse()
        for name, cmd in order:
            out = dict(outdirs).get(name)
            if out:
                shutil.rmtree(out, ignore_errors=True)
            r = run_once(cmd, tmp)
            log("%s [%s] %d/%d: %.3f s CPU, %.3f s wall, %.0f MB"
                % (what, name, i + 1, repeat, r.cpu, r.wall, r.rss / 1e6))
            cpus[name].append(r.cpu)
            if name not in best or r.cpu < best[name].cpu:
                best[name] = r
    if "new" in cpus and "baseline" in cpus:
        PAIRED.append((what, [n / b for n, b in
                              zip(cpus["new"], cpus["baseline"]) if b > 0]))
    return best


def metrics(outdir):
    with open(os.path.join(outdir, "metrics.json")) as f:
        m = json.load(f)
    if "truncated" in m:
        sys.exit("speed.py: %s: the run stopped at its instruction budget "
                 "(%s)" % (outdir, m["truncated"]))
    return m


def instructions(outdir):
    return int(metrics(outdir)["instructions"])


# --- the measurements -------------------------------------------------------

def measure_run(sets, args, tmp, res):
    """Item 1: run of layernorm_loop with and without the analyzer."""
    for key, flags, what in (("run", [], "run layernorm_loop"),
                             ("run_noan", ["--analyze=false"],
                              "run layernorm_loop --analyze=false")):
        outs = {s: os.path.join(tmp, s, key) for s in sets}
        cmds = {s: [tool(b), "run", LAYERNORM, "-o", outs[s]] + flags
                for s, b in sets.items()}
        best = best_of(what, cmds, args.repeat, tmp, outs.items())
        for s, r in best.items():
            n = instructions(outs[s])
            res[s][key + "_instructions"] = n
            res[s][key + "_cpu"] = r.cpu
            res[s][key + "_mips"] = n / r.cpu / 1e6
            res[s][key + "_rss"] = r.rss / 1e6


def big_program(args, tmp, res, first):
    """Writes layernorm_loop.mlir with its step count scaled so that it
    runs about --big-instructions instructions, from the instruction count
    of item 1 (instructions = per step * steps + fixed)."""
    with open(os.path.join(REPO, LAYERNORM)) as f:
        text = f.read()
    m = STEPS_RE.search(text)
    if not m:
        sys.exit("speed.py: no '%%steps = arith.constant N : index' in %s"
                 % LAYERNORM)
    steps = int(m.group(2))
    n = res[first]["run_noan_instructions"]
    per_step, fixed = n // steps, n % steps
    big_steps = max(1, (args.big_instructions - fixed) // per_step)
    path = os.path.join(tmp, "layernorm_big.mlir")
    with open(path, "w") as f:
        f.write(STEPS_RE.sub(lambda g: g.group(1) + str(big_steps) +
                             g.group(3), text, count=1))
    log("%s: %d steps of %d instructions (+%d), about %d instructions"
        % (path, big_steps, per_step, fixed, big_steps * per_step + fixed))
    return path, big_steps * per_step + fixed


def budget(expected):
    """An explicit --max-instructions above the scaled program's length:
    the default budget comes from the memory the analyzer is assumed to
    need, and could stop a large run early."""
    return "--max-instructions=%d" % max(2 * expected, expected + 1000000)


def measure_analyzer_memory(sets, args, tmp, res, big, expected):
    """Item 2: peak RSS of the scaled loop with and without the analyzer."""
    runs = {}
    for key, flags, what in (("big", [], "run big loop"),
                             ("big_noan", ["--analyze=false"],
                              "run big loop --analyze=false")):
        outs = {s: os.path.join(tmp, s, key) for s in sets}
        cmds = {s: [tool(b), "run", big, "-o", outs[s], budget(expected)]
                + flags for s, b in sets.items()}
        runs[key] = best_of(what, cmds, args.repeat, tmp, outs.items())
        for s in sets:
            res[s][key + "_instructions"] = instructions(outs[s])
    for s in sets:
        n = res[s]["big_instructions"]
        on, off = runs["big"][s], runs["big_noan"][s]
        res[s]["big_cpu"] = on.cpu
        res[s]["big_noan_cpu"] = off.cpu
        res[s]["big_rss"] = on.rss / 1e6
        res[s]["big_noan_rss"] = off.rss / 1e6
        res[s]["analyzer_bytes"] = (on.rss - off.rss) / n
        res[s]["analyzer_us"] = (on.cpu - off.cpu) / n * 1e6


def measure_fdo(sets, args, tmp, res):
    """Item 3: the FDO loop on the Llama-2 MLP block."""
    outs = {s: os.path.join(tmp, s, "fdo") for s in sets}
    cmds = {s: [tool(b), "fdo", MLP, "-o", outs[s]] for s, b in sets.items()}
    for s, r in best_of("fdo llama2_mlp", cmds, args.repeat, tmp,
                        outs.items()).items():
        res[s]["fdo_cpu"] = r.cpu
        res[s]["fdo_rss"] = r.rss / 1e6


def measure_replay(sets, args, tmp, res, big, expected):
    """Item 4: record the scaled loop once per set, replay it three ways."""
    traces = {}
    for s, b in sets.items():
        traces[s] = os.path.join(tmp, s, "big.trace")
        r = run_once([tool(b), "record", big, "--count=%d" % (2 * expected),
                      budget(expected), "-o", traces[s]], tmp)
        log("record big loop [%s]: %.3f s CPU" % (s, r.cpu))
        res[s]["record_cpu"] = r.cpu
    for key, flags, what in (
            ("replay", [], "replay (analyzer)"),
            ("replay_func", ["--analyze=false"], "replay --analyze=false"),
            ("replay_timing", ["--analyze=false", "--timing-only"],
             "replay --analyze=false --timing-only")):
        outs = {s: os.path.join(tmp, s, key) for s in sets}
        cmds = {s: [tool(b), "replay", traces[s], "-o", outs[s]] + flags
                for s, b in sets.items()}
        for s, r in best_of(what, cmds, args.repeat, tmp,
                            outs.items()).items():
            n = instructions(outs[s])
            res[s]["trace_instructions"] = n
            res[s][key + "_mips"] = n / r.cpu / 1e6
    for s in sets:
        res[s]["record_mips"] = (res[s]["trace_instructions"] /
                                 res[s]["record_cpu"] / 1e6)


def measure_callgrind(sets, args, tmp, res):
    """Item 6: host instructions of item 1 with the analyzer."""
    if not shutil.which("valgrind"):
        sys.exit("speed.py: --callgrind needs valgrind (apt-get install "
                 "valgrind)")
    for s, b in sets.items():
        out = os.path.join(tmp, s, "callgrind")
        shutil.rmtree(out, ignore_errors=True)
        r = run_once(["valgrind", "--tool=callgrind",
                      "--callgrind-out-file=/dev/null",
                      tool(b), "run", LAYERNORM, "-o", out], tmp)
        m = (re.search(r"Collected : (\d+)", r.stderr) or
             re.search(r"I\s+refs:\s+([\d,]+)", r.stderr))
        if not m:
            raise ToolFailed(["valgrind"], 0, "", "no callgrind total in:\n"
                             + r.stderr[-2000:])
        host = int(m.group(1).replace(",", ""))
        n = instructions(out)
        log("callgrind run layernorm_loop [%s]: %d host instructions" % (s, host))
        res[s]["callgrind_host"] = host / 1e6
        res[s]["callgrind_per_instr"] = host / n


def measure_tests(args, tmp, res):
    """Item 5: the lit suite and the GoogleTest binary, once each."""
    build = os.path.abspath(args.build)
    lit = run_once([args.lit, "-s", os.path.join(build, "test")], tmp)
    m = re.search(r"Total Discovered Tests: (\d+)", lit.stdout + lit.stderr)
    log("lit: %.1f s wall, %.1f s CPU" % (lit.wall, lit.cpu))
    gtest = run_once([os.path.join(build, "unittests", "AccelUnitTests")], tmp)
    g = re.search(r"\[  PASSED  \] (\d+) test", gtest.stdout)
    log("AccelUnitTests: %.1f s wall, %.1f s CPU" % (gtest.wall, gtest.cpu))
    res["lit_tests"] = int(m.group(1)) if m else None
    res["lit_wall"], res["lit_cpu"] = lit.wall, lit.cpu
    res["gtest_tests"] = int(g.group(1)) if g else None
    res["gtest_wall"], res["gtest_cpu"] = gtest.wall, gtest.cpu
    res["tests_wall"] = lit.wall + gtest.wall


# --- the table --------------------------------------------------------------

# (key, figure, format, target text, check of the value against the target)
ROWS = [
    ("run_instructions", "`run` layernorm_loop: simulated instructions",
     "%d", None, None),
    ("run_cpu", "`run` layernorm_loop with the analyzer: CPU s", "%.3f",
     "<= 0.25 on issue 34's machine", None),
    ("run_mips", "`run` layernorm_loop with the analyzer: M instructions/s",
     "%.2f", ">= 5", lambda v: v >= 5),
    ("run_rss", "`run` layernorm_loop with the analyzer: peak RSS MB",
     "%.0f", None, None),
    ("run_noan_cpu", "`run --analyze=false` layernorm_loop: CPU s", "%.3f",
     None, None),
    ("run_noan_mips",
     "`run --analyze=false` layernorm_loop: M instructions/s", "%.2f",
     None, None),
    ("run_noan_rss", "`run --analyze=false` layernorm_loop: peak RSS MB",
     "%.0f", None, None),
    ("big_instructions", "scaled loop: simulated instructions", "%d", None,
     None),
    ("big_cpu", "scaled loop, `run` with the analyzer: CPU s", "%.2f", None,
     None),
    ("big_noan_cpu", "scaled loop, `run --analyze=false`: CPU s", "%.2f",
     None, None),
    ("analyzer_us", "analyzer CPU per instruction, us", "%.3f", None, None),
    ("big_rss", "scaled loop, `run` with the analyzer: peak RSS MB", "%.0f",
     None, None),
    ("big_noan_rss", "scaled loop, `run --analyze=false`: peak RSS MB",
     "%.0f", None, None),
    ("analyzer_bytes", "analyzer memory, bytes per instruction", "%.1f",
     "<= 60 at 16 M instructions", lambda v: v <= 60),
    ("fdo_cpu", "`fdo` llama2_mlp: CPU s", "%.2f", "<= 3", lambda v: v <= 3),
    ("fdo_rss", "`fdo` llama2_mlp: peak RSS MB", "%.0f", "<= 600",
     lambda v: v <= 600),
    ("trace_instructions", "trace of the scaled loop: instructions", "%d",
     None, None),
    ("record_mips", "`record`: M instructions/s (one run)", "%.2f", None,
     None),
    ("replay_mips", "`replay` with the analyzer: M instructions/s", "%.2f",
     ">= 5", lambda v: v >= 5),
    ("replay_func_mips",
     "`replay --analyze=false` (functional): M instructions/s", "%.2f", None,
     None),
    ("replay_timing_mips",
     "`replay --analyze=false --timing-only`: M instructions/s", "%.2f",
     ">= 20", lambda v: v >= 20),
    ("callgrind_host",
     "callgrind: `run` layernorm_loop with the analyzer, M host instructions",
     "%.1f", None, None),
    ("callgrind_per_instr",
     "callgrind: host instructions per simulated instruction", "%.0f", None,
     None),
]
TEST_ROWS = [
    ("lit_tests", "lit: tests discovered", "%d", None, None),
    ("lit_wall", "`lit -s BUILD/test`: wall s", "%.1f", None, None),
    ("lit_cpu", "`lit -s BUILD/test`: CPU s (all processes)", "%.1f", None,
     None),
    ("gtest_tests", "AccelUnitTests: tests", "%d", None, None),
    ("gtest_wall", "AccelUnitTests: wall s", "%.1f", None, None),
    ("gtest_cpu", "AccelUnitTests: CPU s", "%.1f", None, None),
    ("tests_wall", "lit + AccelUnitTests: wall s", "%.1f", "<= 60",
     lambda v: v <= 60),
]


def table(res, base, tests, big_note):
    """The figures as (key, figure, value, target, baseline, ratio) cells
    and as a list of dicts for --json."""
    cells, figures = [], []
    for key, label, fmt, target, check in ROWS + TEST_ROWS:
        src = tests if key in tests else res
        if src.get(key) is None:
            continue
        v = src[key]
        b = base.get(key) if base is not None and src is res else None
        met = check(v) if check else None
        tcell = "-"
        if target:
            tcell = target
            if key == "analyzer_bytes" and big_note:
                tcell += " (" + big_note + ")"
                met = None if big_note else met
            if met is not None:
                tcell += ": " + ("met" if met else "**not met**")
        ratio = v / b if b else None
        cells.append((label, fmt % v, tcell,
                      fmt % b if b is not None else "-",
                      "%.2f" % ratio if ratio is not None else "-"))
        figures.append({"key": key, "figure": label, "value": v,
                        "target": target, "met": met, "baseline": b,
                        "ratio": ratio})
    return cells, figures


def machine():
    model, mem = cpu_model(), ""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = "%.1f GiB" % (int(line.split()[1]) / 2**20)
                    break
    except OSError:
        pass
    osname = platform.system()
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    osname = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return "%s, %d CPUs, %s" % (model, os.cpu_count() or 0, mem), osname


def git(*argv):
    p = subprocess.run(["git", "-C", REPO] + list(argv), capture_output=True,
                       text=True)
    return p.stdout.strip() if p.returncode == 0 else None


def commit():
    rev = git("rev-parse", "--short", "HEAD") or "unknown"
    if git("status", "--porcelain", "--untracked-files=no"):
        rev += " + uncommitted changes"
    return rev


# --- the baseline -----------------------------------------------------------

def build_baseline(rev, tmp, worktrees):
    """Builds accel-replay of `rev` in a git worktree under `tmp`; returns
    its bin directory and the revision's short hash."""
    short = git("rev-parse", "--short", rev + "^{commit}")
    if not short:
        sys.exit("speed.py: --baseline: unknown revision %r" % rev)
    w = os.path.join(tmp, "baseline-" + short)
    logfile = os.path.join(tmp, "baseline-build.log")
    log("building %s (%s) in %s; log: %s" % (rev, short, w, logfile))
    configure = ["cmake", "-S", w, "-B", os.path.join(w, "build"), "-G",
                 "Ninja", "-DCMAKE_BUILD_TYPE=Release"]
    if shutil.which("ccache"):
        configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    steps = [("git worktree add",
              ["git", "-C", REPO, "worktree", "add", "--detach", w, short]),
             ("cmake (configure)", configure),
             ("ninja accel-replay",
              ["ninja", "-C", os.path.join(w, "build"), "accel-replay"])]
    with open(logfile, "w") as logf:
        for i, (what, cmd) in enumerate(steps):
            logf.write("$ %s\n" % " ".join(cmd))
            logf.flush()
            start = time.monotonic()
            p = subprocess.run(cmd, cwd=REPO, stdin=subprocess.DEVNULL,
                               stdout=logf, stderr=subprocess.STDOUT)
            if i == 0 and p.returncode == 0:
                worktrees.append(w)
            if p.returncode != 0:
                with open(logfile) as f:
                    text = f.read()
                raise ToolFailed(cmd, p.returncode, "", text[-8000:])
            log("%s: %.0f s" % (what, time.monotonic() - start))
    return os.path.join(w, "build", "bin"), short


def tool(bindir):
    return os.path.join(bindir, "accel-replay")


# --- main -------------------------------------------------------------------

def parse_args():
    ap = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build",
                    help="build directory (default: build): its bin/ is the "
                    "default --bindir; --tests runs its test/ and unittests/")
    ap.add_argument("--bindir", help="directory of the accel-replay to "
                    "measure (default: BUILD/bin)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each measurement (default: 3); the one with "
                    "the least CPU time counts")
    ap.add_argument("--big-instructions", type=int, default=16_000_000,
                    metavar="N",
                    help="simulated instructions of the scaled layernorm loop "
                    "of the analyzer-memory and replay figures (default: "
                    "16000000, where the target is stated;"
                    " with the analyzer that takes about 20 s of CPU and 3 GB"
                    " per run on issue 34's machine; e.g. 2000000 for a quick"
                    " run)")
    base = ap.add_mutually_exclusive_group()
    base.add_argument("--baseline", nargs="?", const="HEAD~1", metavar="REV",
                      help="also build REV (default HEAD~1 when given "
                      "without a value) in a temporary git worktree and "
                      "measure it as the baseline (a Release build of the "
                      "accel-replay target: minutes without a warm ccache)")
    base.add_argument("--baseline-bindir", metavar="DIR",
                      help="measure the accel-replay in DIR as the baseline")
    ap.add_argument("--callgrind", action="store_true",
                    help="also count host instructions under valgrind's "
                    "callgrind (slow: about a minute per set of tools)")
    ap.add_argument("--tests", action="store_true",
                    help="also time `lit -s BUILD/test` and "
                    "BUILD/unittests/AccelUnitTests (minutes; not compared "
                    "with the baseline)")
    ap.add_argument("--lit", default="/usr/lib/llvm-22/bin/lit",
                    help="lit executable for --tests (default: %(default)s)")
    ap.add_argument("--write", action="store_true",
                    help="put the output in bench/RESULTS.md between the "
                    "lines '%s' and '%s' (appended when absent)"
                    % (BEGIN, END))
    ap.add_argument("--json", metavar="FILE",
                    help="also write the figures as JSON to FILE")
    ap.add_argument("--keep-tmp", action="store_true",
                    help="keep the temporary directory (outputs, traces, a "
                    "--baseline worktree: remove it with `git worktree "
                    "remove`)")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    if args.big_instructions < 10000:
        ap.error("--big-instructions must be at least 10000")
    args.bindir = os.path.abspath(args.bindir or
                                  os.path.join(args.build, "bin"))
    for d in (args.bindir, args.baseline_bindir):
        if d and not os.access(tool(d), os.X_OK):
            ap.error("no executable %s" % tool(d))
    if args.baseline_bindir:
        args.baseline_bindir = os.path.abspath(args.baseline_bindir)
    if args.json:
        args.json = os.path.abspath(args.json)
    return args


def write_results(text):
    with open(RESULTS) as f:
        lines = f.read().split("\n")
    section = [BEGIN] + text.rstrip("\n").split("\n") + [END]
    if BEGIN in lines and END in lines[lines.index(BEGIN):]:
        i = lines.index(BEGIN)
        j = lines.index(END, i)
        lines[i:j + 1] = section
    else:
        while lines and lines[-1] == "":
            lines.pop()
        lines += [""] + section + [""]
    with open(RESULTS, "w") as f:
        f.write("\n".join(lines))
    log("wrote %s" % RESULTS)


def main():
    args = parse_args()
    start = time.monotonic()
    load = os.getloadavg()[0]
    tmp = tempfile.mkdtemp(prefix="accel-speed-")
    worktrees = []
    try:
        sets = {"new": args.bindir}
        base_name = None
        if args.baseline:
            bindir, short = build_baseline(args.baseline, tmp, worktrees)
            sets["baseline"] = bindir
            base_name = "%s (%s, built in a worktree)" % (args.baseline, short)
        elif args.baseline_bindir:
            sets["baseline"] = args.baseline_bindir
            base_name = args.baseline_bindir
        for s in sets:
            os.makedirs(os.path.join(tmp, s))
        res = {s: {} for s in sets}
        tests = {}
        measure_run(sets, args, tmp, res)
        big, expected = big_program(args, tmp, res, "new")
        measure_analyzer_memory(sets, args, tmp, res, big, expected)
        measure_fdo(sets, args, tmp, res)
        measure_replay(sets, args, tmp, res, big, expected)
        if args.callgrind:
            measure_callgrind(sets, args, tmp, res)
        if args.tests:
            measure_tests(args, tmp, tests)
    except ToolFailed as e:
        print("speed.py: failed (exit status %d): %s"
              % (e.status, " ".join(e.cmd)), file=sys.stderr)
        sys.stderr.write(e.stderr if e.stderr.strip() else
                         "\n".join(e.stdout.splitlines()[-60:]) + "\n")
        return 1
    finally:
        if not args.keep_tmp:
            for w in worktrees:
                subprocess.run(["git", "-C", REPO, "worktree", "remove",
                                "--force", w], capture_output=True)
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            log("kept %s" % tmp)

    n = res["new"]["big_instructions"]
    big_note = ("measured at {:,}".format(n)
                if abs(n - 16e6) > 0.05 * 16e6 else "")
    cells, figures = table(res["new"], res.get("baseline"), tests, big_note)
    hw, osname = machine()
    date = datetime.datetime.now(datetime.timezone.utc)
    rev = commit()
    elapsed = time.monotonic() - start
    out = ["## Tool speed (`bench/speed.py`, issue 34)", ""]
    out.append("%s; %s; %s; commit %s; tools %s%s." % (
        hw, osname, date.strftime("%Y-%m-%d %H:%M UTC"), rev, args.bindir,
        "; baseline " + base_name if base_name else ""))
    out.append("")
    out.append("CPU time = user + system of the tool (wait4), best of %d "
               "run%s, peak RSS of that run; MB = 10^6 bytes; load average "
               "%.2f at the start; the script took %.0f s; ratio = value / "
               "baseline. Command: `python3 bench/speed.py%s`."
               % (args.repeat, "s" if args.repeat > 1 else "", load, elapsed,
                  "".join(" " + a for a in sys.argv[1:])))
    out.append("")
    out.append("| figure | value | target | baseline | ratio |")
    out.append("|---|---|---|---|---|")
    out += ["| %s |" % " | ".join(c) for c in cells]
    if PAIRED:
        out.append("")
        out.append("Paired CPU ratios, new / baseline, the two runs of each "
                   "pair back to back, the sets' order alternating between "
                   "pairs (median, and min-max over the pairs), "
                   "which the host's drift during the script moves less than "
                   "the best-of ratios above: " + "; ".join(
                       "%s %.2f (%.2f-%.2f)" % (what, statistics.median(r),
                                                min(r), max(r))
                       for what, r in PAIRED if r) + ".")
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": hw, "os": osname,
                       "date": date.strftime("%Y-%m-%dT%H:%M:%SZ"),
                       "commit": rev, "bindir": args.bindir,
                       "baseline": base_name, "repeat": args.repeat,
                       "load_average": load, "seconds": elapsed,
                       "figures": figures,
                       "paired_cpu_ratios": {what: r for what, r in PAIRED},
                       "raw": {"new": res["new"],
                               "baseline": res.get("baseline"),
                               "tests": tests or None}}, f, indent=1)
            f.write("\n")
    if args.write:
        write_results(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
