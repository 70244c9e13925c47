#!/usr/bin/env python3
"""Differential tester of the FDO loop on random programs (docs/testing.md).

For every seed in FIRST..LAST (inclusive) it runs

    accel-gen --seed N --size S -o prog.mlir --config-out cfg.json
    accel-replay fdo prog.mlir --config cfg.json -o DIR [--iterations N]

and classifies the seed:

    ok                the loop succeeded and kept a program no slower than
                      iteration 0
    verify            the IR failed the verifier after a pass (the pass is
                      named when it can be found), or a pass failed
    fault             an optimized program faulted in the simulator
    mismatch          an optimized program's final HBM differs from
                      iteration 0's
    lower             an optimized program failed to lower
    slower            the kept program is slower than iteration 0
    bound             a program ran in fewer cycles than one of its own
                      lower bounds (metrics.json roofline: the roofline or
                      the latency-aware bound), so that bound is wrong
    crash             accel-replay died on a signal (or printed a stack dump)
    timeout           accel-replay ran longer than --timeout
    baseline-invalid  iteration 0 itself failed, or accel-gen failed: a
                      generator (or lowering) bug

It prints the count of each class and the geometric mean of
summary.best_over_latency_bound (best cycles / latency-aware bound) over the
seeds whose fdo.json has it. For each failure it writes a reproducer
directory (program.mlir, config.json, repro.sh, error.txt), reduced with
accel-gen --drop: statements of the plan are left out one at a time while
the same failure class still reproduces, within --reduce-seconds.

The accel-replay contract it codes against: exit 0 when all is well, 1 on
bad input or when iteration 0 fails, 2 when an optimized iteration failed
(fdo.json iterations[i].failure = {kind, pass, message}); today's
accel-replay exits 1 on every failure with the message on stderr, which is
classified from the message (and, for verifier failures, the pass is found
by re-running the pipeline's prefixes with accel-opt).

Python 3 standard library only.
"""

import argparse
import concurrent.futures
import json
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time

CLASSES = ["ok", "verify", "fault", "mismatch", "lower", "slower", "bound",
           "crash",
           "timeout", "baseline-invalid"]
FAILURES = [c for c in CLASSES if c != "ok"]


class Fuzzer:
    """Runs, classifies and reduces seeds; one instance per invocation."""

    def __init__(self, args):
        self.args = args
        self.bindir = os.path.abspath(args.bindir)
        self.gen = os.path.join(self.bindir, "accel-gen")
        self.replay = os.path.join(self.bindir, "accel-replay")
        self.opt = os.path.join(self.bindir, "accel-opt")
        self.out = os.path.abspath(args.out)
        self.print_lock = threading.Lock()
        # Set when the run is interrupted: the seeds still running were
        # killed with it, so their results mean nothing.
        self.stopping = threading.Event()

    def log(self, text):
        with self.print_lock:
            print(text, flush=True)

    # -- one run --------------------------------------------------------

    def gen_command(self, seed, drop, prog, cfg):
        cmd = [self.gen, "--seed", str(seed), "--size", str(self.args.size),
               "-o", prog, "--config-out", cfg]
        cmd += self.args.gen_arg
        if drop:
            cmd.append("--drop=" + ",".join(str(d) for d in sorted(drop)))
        return cmd

    def fdo_command(self, prog, cfg, outdir):
        cmd = [self.replay, "fdo", prog, "--config", cfg, "-o", outdir]
        if self.args.iterations is not None:
            cmd += ["--iterations", str(self.args.iterations)]
        return cmd

    def run_once(self, seed, drop, workdir):
        """Generates and runs one program; returns a result dict."""
        if os.path.isdir(workdir):
            shutil.rmtree(workdir)
        os.makedirs(workdir)
        prog = os.path.join(workdir, "program.mlir")
        cfg = os.path.join(workdir, "config.json")
        res = {"seed": seed, "drop": sorted(drop), "workdir": workdir,
               "pass": None, "message": "", "ratio": None}
        g = subprocess.run(self.gen_command(seed, drop, prog, cfg),
                           capture_output=True, text=True)
        if g.returncode != 0:
            res["class"] = "baseline-invalid"
            res["message"] = first_error(g.stderr) or "accel-gen failed"
            return res
        res["statements"] = kept_statements(prog)
        fdo_dir = os.path.join(workdir, "fdo")
        try:
            p = subprocess.run(self.fdo_command(prog, cfg, fdo_dir),
                               capture_output=True, text=True,
                               timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            res["class"] = "timeout"
            res["message"] = "accel-replay fdo ran longer than %ss" % \
                self.args.timeout
            return res
        res["rc"] = p.returncode
        self.classify(res, p, prog, cfg, fdo_dir)
        return res

    def classify(self, res, p, prog, cfg, fdo_dir):
        stderr = p.stderr
        fdo = read_json(os.path.join(fdo_dir, "fdo.json"))
        if fdo:
            ratio = fdo.get("summary", {}).get("best_over_latency_bound")
            if isinstance(ratio, (int, float)) and ratio > 0:
                res["ratio"] = ratio
        if p.returncode < 0 or "Stack dump" in stderr or \
                "PLEASE submit a bug report" in stderr:
            res["class"] = "crash"
            sig = -p.returncode if p.returncode < 0 else None
            res["message"] = (("signal %d" % sig) if sig else "crash") + \
                (" in " + crash_frame(stderr) if crash_frame(stderr) else "")
            if os.path.isdir(os.path.join(fdo_dir, "iter0")):
                res["pass"] = self.find_failing_pass(cfg, fdo_dir)
            return
        # The contract: iterations[i].failure.
        if fdo:
            for i, it in enumerate(fdo.get("iterations", [])):
                f = it.get("failure")
                if not f:
                    continue
                kind = f.get("kind")
                res["pass"] = f.get("pass")
                res["message"] = f.get("message", "")
                if i == 0:
                    res["class"] = "baseline-invalid"
                else:
                    res["class"] = {"verify": "verify", "pass": "verify",
                                    "fault": "fault", "mismatch": "mismatch",
                                    "lower": "lower"}.get(kind, "verify")
                return
        if p.returncode != 0:
            msg = first_error(stderr) or last_line(stderr) or \
                "exit code %d" % p.returncode
            res["message"] = msg
            m = re.search(r"error: iteration (\d+): (.*)", stderr)
            if m:
                it = int(m.group(1))
                if it == 0:
                    res["class"] = "baseline-invalid"
                elif "fault at pc" in m.group(2):
                    res["message"] = m.group(0)
                    res["class"] = "fault"
                else:
                    res["class"] = "lower"
                return
            if "differs from iteration 0" in msg or \
                    (fdo and not fdo.get("summary", {}).get("results_match",
                                                            True)):
                res["class"] = "mismatch"
                return
            if not os.path.isdir(os.path.join(fdo_dir, "iter0")):
                res["class"] = "baseline-invalid"
                return
            # A diagnostic while the passes ran: the verifier after a pass
            # (or a pass that failed). Name the pass by re-running.
            res["class"] = "verify"
            if p.returncode == 1:
                res["pass"] = self.find_failing_pass(cfg, fdo_dir)
            return
        # Exit 0: results equal; was the kept program slower?
        if fdo:
            its = fdo.get("iterations", [])
            best = fdo.get("summary", {}).get("best_iteration", 0)
            if its and 0 <= best < len(its):
                base = its[0].get("total_cycles")
                kept = its[best].get("total_cycles")
                if base is not None and kept is not None and kept > base:
                    res["class"] = "slower"
                    res["message"] = "kept iteration %d: %d cycles > " \
                        "iteration 0: %d cycles" % (best, kept, base)
                    return
            if any(it.get("results_match") is False for it in its):
                res["class"] = "mismatch"
                res["message"] = "results_match is false"
                return
            # Each program's lower bounds (its own metrics.json) must be
            # below the cycles it ran: a bound above them is wrong.
            for it in its:
                rel = it.get("metrics")
                m = read_json(os.path.join(fdo_dir, rel)) if rel else None
                if not m:
                    continue
                cycles = m.get("total_cycles")
                roof = m.get("roofline", {})
                for key in ("latency_lower_bound_cycles",
                            "lower_bound_cycles"):
                    bound = roof.get(key)
                    if isinstance(bound, int) and isinstance(cycles, int) \
                            and bound > cycles:
                        res["class"] = "bound"
                        res["message"] = "iteration %s ran %d cycles, below " \
                            "its %s of %d (by %s)" % (
                                it.get("iteration"), cycles, key, bound,
                                roof.get("latency_bound_by"
                                         if key.startswith("latency")
                                         else "bound_by"))
                        return
        res["class"] = "ok"

    def find_failing_pass(self, cfg, fdo_dir):
        """Today's accel-replay does not name the pass: re-run the default
        pipeline's prefixes with accel-opt on the last program that ran."""
        iters = sorted(int(d[4:]) for d in os.listdir(fdo_dir)
                       if re.fullmatch(r"iter\d+", d))
        if not iters:
            return None
        last = os.path.join(fdo_dir, "iter%d" % iters[-1])
        prog = os.path.join(last, "program.mlir")
        metrics = os.path.join(last, "metrics.json")
        if not (os.path.exists(prog) and os.path.exists(metrics)):
            return None
        vmem = (read_json(cfg) or {}).get("vmem", {}).get("bytes", 33554432)
        passes = ["accel-pin-vmem{vmem-capacity=%d}" % vmem,
                  "accel-parallelize-dma",
                  "accel-hoist-dma{vmem-capacity=%d}" % vmem,
                  "accel-sink-dma-wait",
                  "accel-pipeline-dma{vmem-capacity=%d}" % vmem, "cse"]
        for n in range(1, len(passes) + 1):
            pipeline = "builtin.module(accel-attach-metrics{metrics=%s},%s)" \
                % (metrics, ",".join(passes[:n]))
            try:
                r = subprocess.run([self.opt, prog,
                                    "--pass-pipeline=" + pipeline,
                                    "-o", os.devnull],
                                   capture_output=True, text=True, timeout=60)
            except subprocess.TimeoutExpired:
                return None
            if r.returncode != 0:
                return passes[n - 1].split("{")[0]
        return None

    # -- reduction and reproducers -------------------------------------

    def same_failure(self, a, b):
        return a["class"] == b["class"] and \
            (a["class"] != "verify" or a.get("pass") == b.get("pass"))

    def reduce(self, res):
        """Greedy: leave out one statement at a time while the failure
        reproduces, within --reduce-seconds."""
        seed = res["seed"]
        drop = set(res["drop"])
        deadline = time.time() + self.args.reduce_seconds
        best = res
        scratch = os.path.join(self.out, "work", "reduce-%d" % seed)
        changed = True
        while changed and time.time() < deadline:
            changed = False
            for s in list(best.get("statements", [])):
                if time.time() >= deadline:
                    break
                if len(best.get("statements", [])) <= 1:
                    break
                trial = self.run_once(seed, drop | {s}, scratch)
                if self.same_failure(trial, res) and \
                        trial.get("statements"):
                    drop |= {s}
                    best = trial
                    changed = True
        if best is not res:
            # Later trials overwrote the scratch directory: regenerate the
            # smallest program that failed (and check it still does).
            final = self.run_once(seed, drop, scratch)
            if self.same_failure(final, res):
                return final
            return self.run_once(seed, set(res["drop"]), scratch)
        return best

    def write_repro(self, res):
        d = os.path.join(self.out, "repro", "seed-%d-%s" % (res["seed"],
                                                            res["class"]))
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
        src = res["workdir"]
        for f in ("program.mlir", "config.json"):
            if os.path.exists(os.path.join(src, f)):
                shutil.copy(os.path.join(src, f), os.path.join(d, f))
        gen = self.gen_command(res["seed"], res["drop"], "program.mlir",
                               "config.json")
        fdo = self.fdo_command("program.mlir", "config.json", "out")
        with open(os.path.join(d, "repro.sh"), "w") as f:
            f.write("#!/bin/sh\n")
            f.write("# %s%s: %s\n" % (
                res["class"], " (%s)" % res["pass"] if res.get("pass") else "",
                res["message"]))
            f.write("# Regenerate with:\n#   %s\n" % " ".join(
                shlex.quote(c) for c in gen))
            f.write('cd "$(dirname "$0")"\n')
            f.write(" ".join(shlex.quote(c) for c in fdo) + "\n")
        os.chmod(os.path.join(d, "repro.sh"), 0o755)
        with open(os.path.join(d, "error.txt"), "w") as f:
            f.write(res["message"] + "\n")
        return d

    def seed_job(self, seed):
        work = os.path.join(self.out, "work", "seed-%d" % seed)
        res = self.run_once(seed, set(), work)
        if self.stopping.is_set():
            shutil.rmtree(work, ignore_errors=True)
            return None
        if res["class"] != "ok":
            if self.args.reduce_seconds > 0 and \
                    res["class"] not in ("timeout", "baseline-invalid") and \
                    res.get("statements"):
                reduced = self.reduce(res)
                res["reduced_drop"] = reduced["drop"]
                res["repro"] = self.write_repro(reduced)
            else:
                res["repro"] = self.write_repro(res)
        if not self.args.keep_work:
            shutil.rmtree(work, ignore_errors=True)
            shutil.rmtree(os.path.join(self.out, "work",
                                       "reduce-%d" % seed),
                          ignore_errors=True)
        extra = " (%.3fx of the latency-aware bound)" % res["ratio"] \
            if res["class"] == "ok" and res.get("ratio") else ""
        if res["class"] != "ok":
            extra = " %s%s: %s" % (
                "[%s] " % res["pass"] if res.get("pass") else "",
                res["message"][:160], os.path.relpath(res["repro"]))
        self.log("seed %d: %s%s" % (seed, res["class"], extra))
        return res


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def first_error(text):
    for line in text.splitlines():
        if "error:" in line:
            return line.strip()
    return ""


def crash_frame(text):
    """The innermost stack frame with a symbol below the signal handler."""
    for line in text.splitlines():
        m = re.match(r"\s*#\d+ 0x[0-9a-f]+ (.+?) \(", line)
        if m and "llvm::sys::" not in m.group(1):
            return m.group(1)
    return ""


def last_line(text):
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1].strip() if lines else ""


def kept_statements(prog):
    """The statement indices accel-gen emitted (its header comments)."""
    kept = []
    with open(prog) as f:
        for line in f:
            m = re.match(r"// statement (\d+):", line)
            if m:
                kept.append(int(m.group(1)))
            elif not line.startswith("//"):
                break
    return kept


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("first", type=int, help="first seed")
    ap.add_argument("last", type=int, help="last seed (inclusive)")
    ap.add_argument("-j", "--jobs", type=int, default=2,
                    help="seeds run in parallel (default 2)")
    ap.add_argument("--size", type=int, default=2, help="accel-gen --size")
    ap.add_argument("--iterations", type=int, default=None,
                    help="accel-replay fdo --iterations (default: fdo's own, "
                    "which iterates until an iteration is not faster)")
    ap.add_argument("--bindir", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin"),
        help="directory of accel-gen, accel-replay, accel-opt")
    ap.add_argument("-o", "--out", default="fuzz-out",
                    help="output directory (reproducers in OUT/repro)")
    ap.add_argument("--timeout", type=float, default=300,
                    help="seconds per accel-replay run (default 300)")
    ap.add_argument("--reduce-seconds", type=float, default=60,
                    help="time budget of each failure's reduction; 0 turns "
                         "reduction off (default 60)")
    ap.add_argument("--gen-arg", action="append", default=[],
                    help="extra accel-gen argument (repeatable), e.g. "
                         "--gen-arg=--alloc-in-loops=false")
    ap.add_argument("--keep-work", action="store_true",
                    help="keep OUT/work (every seed's fdo directory)")
    ap.add_argument("--json", help="write the per-seed results here")
    ap.add_argument("--fail-on-failure", action="store_true",
                    help="exit 1 unless every seed is ok")
    args = ap.parse_args()

    fuzzer = Fuzzer(args)
    os.makedirs(fuzzer.out, exist_ok=True)
    for tool in (fuzzer.gen, fuzzer.replay):
        if not os.access(tool, os.X_OK):
            sys.exit("fuzz_fdo.py: %s is not an executable" % tool)
    seeds = list(range(args.first, args.last + 1))
    start = time.time()
    # Interrupted (Ctrl-C or SIGTERM), the seeds that finished are still
    # summarized; the ones running are abandoned.
    def interrupt(*_):
        fuzzer.stopping.set()  # before the killed seeds report back
        raise KeyboardInterrupt()
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
    results = []
    pool = concurrent.futures.ThreadPoolExecutor(max(1, args.jobs))
    futures = [pool.submit(fuzzer.seed_job, s) for s in seeds]
    try:
        for fut in futures:
            results.append(fut.result())
    except KeyboardInterrupt:
        fuzzer.stopping.set()
        for fut in futures:
            fut.cancel()
        done = [f.result() for f in futures
                if f.done() and not f.cancelled() and not f.exception() and
                f.result() is not None]
        results = sorted(done, key=lambda r: r["seed"])
        print("\ninterrupted: %d seeds finished" % len(results))
        if results:
            args.first = results[0]["seed"]
            args.last = results[-1]["seed"]
        seeds = [r["seed"] for r in results]
    pool.shutdown(wait=False, cancel_futures=True)

    counts = {c: 0 for c in CLASSES}
    for r in results:
        counts[r["class"]] += 1
    ratios = [r["ratio"] for r in results if r["ratio"]]
    geomean = math.exp(sum(math.log(x) for x in ratios) / len(ratios)) \
        if ratios else None
    print("\n%d seeds (%d..%d) in %.0f s" % (len(seeds), args.first,
                                             args.last, time.time() - start))
    for c in CLASSES:
        line = "  %-17s %d" % (c, counts[c])
        if c == "verify" and counts[c]:
            passes = {}
            for r in results:
                if r["class"] == "verify":
                    key = r.get("pass") or "unknown pass"
                    passes[key] = passes.get(key, 0) + 1
            line += "  (" + ", ".join("%s: %d" % kv for kv in
                                      sorted(passes.items())) + ")"
        print(line)
    if geomean is not None:
        print("geomean best / latency-aware bound: %.3f over %d seeds" %
              (geomean, len(ratios)))
    failed = [r for r in results if r["class"] != "ok"]
    if failed:
        print("reproducers: %s" % os.path.join(args.out, "repro"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"counts": counts, "geomean_best_over_latency_bound":
                       geomean, "seeds": results}, f, indent=2)
    if args.fail_on_failure and failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
