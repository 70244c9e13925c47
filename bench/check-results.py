#!/usr/bin/env python3
"""Re-runs the generators of the tables in bench/*/RESULTS.md (and
bench/fdo/PIN_GAP.md, bench/collectives/collectives_table.md) and fails
when a table drifted (issue 36, item 4).

    bench/check-results.py [NAME...] [--build BUILD] [--quick] [--stamp]
    bench/check-results.py --list

Each entry below names a RESULTS file, the heading the table sits under, and
the script that produced it. The script is run again (writing to a scratch
directory, never to the repository) and every row of its table is compared,
cell for cell, with the row of the RESULTS table that has the same key (the
first cell; with several rows per key, in order). Columns that measure the
host (wall time, speed-up) are not compared. A full run also requires the
same set of rows; --quick runs a small subset of some entries (what CI runs)
and compares only those rows.

Every checked table carries a stamp line just above it (above the fenced
block it sits in):

    _Reproduced at commit 1a2b3c4 on 2026-11-30 by `bench/check-results.py fdo`._

--stamp writes it (with HEAD's commit, "-dirty" when the tree has changes
other than docs and the benchmarks' outputs)
for every entry that a full run found unchanged. A table without a stamp
is reported as a failure, as is a stamp naming another entry.

Prints one line per entry ("ok NAME: ...", "DRIFT NAME: ...",
"FAILED NAME: ...") and exits 1 if any entry is not ok. Simulated cycles
do not depend on the host, so any difference is a change of the tools.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# bench/models and check_tp_mlp need NumPy, which Debian installs for
# /usr/bin/python3.
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") \
    else sys.executable

class Entry:
    """One checked table: the RESULTS file, the heading it sits under, the
    command that prints it (or writes it to `fresh`, a file under {tmp}),
    how many leading columns identify a row, the columns not compared, and
    the extra arguments that make --quick's subset (None: not run by
    --quick)."""

    def __init__(self, results, heading, cmd, fresh="stdout", key=1,
                 ignore=(), quick=None):
        self.results, self.heading, self.cmd = results, heading, cmd
        self.fresh, self.key, self.ignore, self.quick = (fresh, key, ignore,
                                                         quick)


ENTRIES = {
    "fdo": Entry("bench/fdo/RESULTS.md", "# FDO benchmark suite",
                 [PY, "bench/fdo/run_suite.py", "--build", "{build}"],
                 quick=["--only", "prefetch (SnR §5.3.1)",
                        "serialized setup DMAs (parallel issue)",
                        "STREAM triad (issue 10, 3)"]),
    "pin-gap": Entry("bench/fdo/PIN_GAP.md", "# Optimality gap",
                     [PY, "bench/fdo/pin_gap.py", "--build", "{build}"]),
    "models": Entry("bench/models/RESULTS.md",
                    "# Models as frontends emit them",
                    [PY, "bench/models/run.py", "--build", "{build}"],
                    quick=["--only", "transposed_matmul",
                           "log_softmax_xent"]),
    "peer": Entry("bench/peer/RESULTS.md", "# accel's FDO against upstream",
                  [PY, "bench/peer/run.py", "--bindir", "{build}/bin",
                   "--output", "{tmp}/RESULTS.md"],
                  fresh="{tmp}/RESULTS.md",
                  quick=["--only", "dma-vpu-loop.mlir"]),
    "sweep": Entry("bench/sweep/RESULTS.md", "# Config sweep",
                   [PY, "bench/sweep/run.py", "--build", "{build}", "--out",
                    "{tmp}"],
                   fresh="{tmp}/RESULTS.md"),
    "network": Entry("bench/collectives/RESULTS.md", "## 1. The ICI network",
                     [PY, "bench/collectives/check_network.py", "--build",
                      "{build}", "-j", "1"],
                     key=5, quick=["--max-chips", "8"]),
    "algorithms": Entry("bench/collectives/collectives_table.md", None,
                        [PY, "bench/collectives/run_collectives.py",
                         "--build", "{build}", "-j", "1"], key=5,
                        quick=["--max-chips", "2"]),
    "all-gather": Entry("bench/collectives/RESULTS.md", "### Table 1",
                        [PY, "bench/collectives/run_scaling.py", "--build",
                         "{build}", "--out", "{tmp}"]),
    "all-gather-tight": Entry(
        "bench/collectives/RESULTS.md", "### Table 2",
        [PY, "bench/collectives/run_scaling.py", "--build", "{build}",
         "--out", "{tmp}", "--record-words", "64", "--config",
         "bench/collectives/vmem_tight.json"]),
}

STAMP = re.compile(r"^_Reproduced at commit (\S+) on (\S+) by "
                   r"`bench/check-results.py ([^`]+)`_\.?[ \t]*$", re.M)


def tables(text):
    """The tables of a Markdown text: for each, (line index of its header,
    header cells, rows of cells). A sweep's fixed-width table inside a
    fenced block (its header starts with "point") counts as a table."""
    out, lines, i = [], text.split("\n"), 0
    cells = lambda l: [c.strip() for c in l.strip().strip("|").split("|")]
    while i < len(lines):
        line = lines[i]
        if line.startswith("|") and i + 1 < len(lines) and \
                re.match(r"^\|[-:| ]+\|\s*$", lines[i + 1]):
            rows, j = [], i + 2
            while j < len(lines) and lines[j].startswith("|"):
                rows.append(cells(lines[j]))
                j += 1
            out.append((i, cells(line), rows))
            i = j
        elif re.match(r"^point\s+\S", line):
            rows, j = [], i + 1
            while j < len(lines) and lines[j].strip() and \
                    not lines[j].startswith("```"):
                rows.append(lines[j].split())
                j += 1
            out.append((i, line.split(), rows))
            i = j
        else:
            i += 1
    return out


def find_table(text, heading, header):
    """The first table under `heading` (a line starting with it; None: the
    file's start) whose header is `header`; None if there is none."""
    at = 0 if heading is None else next(
        (m.start() for m in re.finditer(r"^" + re.escape(heading), text,
                                        re.M)), None)
    if at is None:
        return None
    base = text.count("\n", 0, at)
    for line, head, rows in tables(text[at:]):
        if head == header:
            return base + line, rows
    return None


def compare(e, have, want, header, full):
    """Problems between the doc's rows `have` and the fresh rows `want` of
    entry `e` (rows matched by their first e.key cells)."""
    keep = [k for k, h in enumerate(header) if h not in e.ignore]
    key = lambda r: " | ".join(r[:e.key])
    by_key = {}
    for r in have:
        by_key.setdefault(key(r), []).append(r)
    problems, seen = [], {}
    for r in want:
        n = seen.get(key(r), 0)
        seen[key(r)] = n + 1
        doc = by_key.get(key(r), [])
        if n >= len(doc):
            problems.append("row `%s` is new" % key(r))
            continue
        for k in keep:
            a = doc[n][k] if k < len(doc[n]) else ""
            b = r[k] if k < len(r) else ""
            if a != b:
                problems.append("`%s` %s: %s vs %s" % (key(r), header[k], a,
                                                       b))
    if full:
        for key, rows in by_key.items():
            if seen.get(key, 0) < len(rows):
                problems.append("row `%s` is no longer produced" % key)
    return problems


def commit():
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    # Changes to docs and to the benchmarks' own outputs do not change what
    # the tools compute.
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain",
                            "--untracked-files=no", "--", ".", ":!*.md",
                            ":!bench/sweep/sweep.*"],
                           capture_output=True, text=True).stdout.strip()
    return (head or "unknown") + ("-dirty" if dirty else "")


def check(name, a):
    """Runs one entry; returns (status, message, stamp edit or None)."""
    e = ENTRIES[name]
    path = e.results
    with open(os.path.join(a.results_root, path), encoding="utf-8") as f:
        text = f.read()
    with tempfile.TemporaryDirectory(prefix="accel-results-") as tmp:
        sub = lambda s: s.format(build=a.build, tmp=tmp)
        argv = [sub(c) for c in e.cmd] + (e.quick if a.quick else [])
        p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            return ("FAILED", "`%s` exited %d: %s" % (
                " ".join(argv), p.returncode,
                " ".join(p.stderr.strip().splitlines()[-2:])), None)
        if e.fresh == "stdout":
            new = p.stdout
        else:
            with open(sub(e.fresh), encoding="utf-8") as f:
                new = f.read()
    got = tables(new)
    if not got:
        return ("FAILED", "the script printed no table", None)
    _, header, rows = got[0]
    doc = find_table(text, e.heading, header)
    if doc is None:
        return ("DRIFT", "%s has no table with the header `%s` under `%s`"
                % (path, " | ".join(header), e.heading), None)
    line, have = doc
    if not rows:
        # A script that lost its programs (a reference it can no longer
        # ask for its names, say) prints an empty table, which matches
        # every doc.
        return ("DRIFT", "the script's table has no rows", None)
    problems = compare(e, have, rows, header, not a.quick)
    stamps = [m for m in STAMP.finditer(text) if m.group(3) == name]
    if problems:
        return ("DRIFT", "; ".join(problems[:12]) +
                ("; ... %d more" % (len(problems) - 12)
                 if len(problems) > 12 else ""), None)
    what = "%d rows%s" % (len(rows), " (quick)" if a.quick else "")
    if a.stamp and not a.quick:
        return ("ok", what + ", stamped now", (path, line, stamps))
    if not stamps:
        return ("DRIFT", what + " unchanged, but %s has no stamp line for "
                "`%s` (run with --stamp)" % (path, name), None)
    return ("ok", "%s, as stamped at commit %s on %s" % (
        what, stamps[0].group(1), stamps[0].group(2)), None)


def write_stamp(root, path, line, stamps, name, rev):
    """Writes (or rewrites) an entry's stamp line above its table."""
    full = os.path.join(root, path)
    with open(full, encoding="utf-8") as f:
        lines = f.read().split("\n")
    text = "_Reproduced at commit %s on %s by `bench/check-results.py %s`_." \
        % (rev, datetime.date.today().isoformat(), name)
    if stamps:
        at = "\n".join(lines).count("\n", 0, stamps[0].start())
        lines[at] = text
    else:
        # Above the fenced block a table sits in (a sweep's), else above it.
        fences = [i for i in range(line) if lines[i].startswith("```")]
        if len(fences) % 2:
            line = fences[-1]
        lines[line:line] = [text, ""]
    with open(full, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="entries (default: all; with "
                    "--quick: those with a quick subset)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--quick", action="store_true",
                    help="run each entry's small subset (what CI runs)")
    ap.add_argument("--stamp", action="store_true",
                    help="stamp every table a full run found unchanged")
    ap.add_argument("--results-root", default=ROOT, metavar="DIR",
                    help="read (and stamp) the RESULTS files of this copy of "
                    "the tree (the scripts still run from this one)")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    if a.list:
        for name, e in ENTRIES.items():
            print("%-17s %s, %s%s" % (
                name, e.results, "at its start" if e.heading is None else
                "under \"%s\"" % e.heading,
                "" if e.quick is None else " (has --quick)"))
        return 0
    names = a.names or [n for n in ENTRIES
                        if not a.quick or ENTRIES[n].quick is not None]
    unknown = [n for n in names if n not in ENTRIES]
    if unknown:
        ap.error("no entry %s (see --list)" % ", ".join(unknown))
    rev, bad = commit(), 0
    for name in names:
        if a.quick and ENTRIES[name].quick is None:
            print("skipped %s: no quick subset" % name, flush=True)
            continue
        status, msg, edit = check(name, a)
        if edit:
            write_stamp(a.results_root, *edit, name, rev)
        bad += status != "ok"
        print("%s %s: %s" % (status, name, msg), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
