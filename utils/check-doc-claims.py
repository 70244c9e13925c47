#!/usr/bin/env python3
"""Checks numbers and excerpts that the docs quote from the tools (issue 36,
item 4): each claim is recomputed by running the tools of BINDIR and
compared with the text of the doc that states it.

    utils/check-doc-claims.py --bindir BUILD/bin [--docs DIR] [--src DIR]

Claims checked:
  config-sources   docs/config.md's "Sources" table: one row per key of the
                   default config's "sources", with its text verbatim.
  analyzer-mxu     docs/analyzer.md: the prefetch example's MXU busy
                   fraction (metrics.json utilization.units.mxu).
  gen-header       docs/testing.md: the header `accel-gen --seed 7 --size 2`
                   prints (its first five lines).
  analyze-false    docs/metrics.md: which commands take --analyze=false
                   (accel-replay's own --help).
  suggestions      docs/metrics.md: every suggestion quoted from a run
                   ("Excerpt from `PROGRAM` (N of its M suggestions: H
                   hoists, P parallelizes)" or "A pin, from `PROGRAM`",
                   then a ```json block): each quoted object is one of the
                   run's suggestions, field for field, and the counts match
                   (the program is run from the source tree, so its "loc"
                   reads as quoted).

Prints one line per claim, "ok CLAIM" or "DIFFERS CLAIM: what the doc says
vs what the tools say", and exits 1 if any differs. --docs points at
another copy of docs/ (the lit test shows a changed number fails).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, **kw).stdout


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def config_sources(a):
    sources = json.loads(run([os.path.join(a.bindir, "accel-replay"),
                              "config", "--print-default"]))["sources"]
    doc = read(os.path.join(a.docs, "config.md"))
    section = doc.split("## Sources", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| `([^`]+)` \| (.*) \|$", section, re.M))
    problems = []
    for key, text in sources.items():
        if key not in rows:
            problems.append("no row for `%s`" % key)
        elif rows[key] != text:
            problems.append("`%s`: %r vs %r" % (key, rows[key], text))
    for key in rows:
        if key not in sources:
            problems.append("row `%s` is not a source of the default" % key)
    return problems


def analyzer_mxu(a):
    with tempfile.TemporaryDirectory() as d:
        run([os.path.join(a.bindir, "accel-replay"), "run",
             os.path.join(a.src, "examples", "prefetch.mlir"), "-o",
             os.path.join(d, "out")])
        with open(os.path.join(d, "out", "metrics.json")) as f:
            u = json.load(f)["utilization"]["units"]["mxu"]["utilization"]
    want = "%.2f%%" % (100 * u)
    doc = read(os.path.join(a.docs, "analyzer.md"))
    m = re.search(r"In the prefetch example the MXU is busy ([0-9.]+%)",
                  " ".join(doc.split()))
    if not m:
        return ["no 'In the prefetch example the MXU is busy N%'"]
    return [] if m.group(1) == want else ["%s vs %s" % (m.group(1), want)]


def gen_header(a):
    out = run([os.path.join(a.bindir, "accel-gen"), "--seed", "7", "--size",
               "2"]).splitlines()[:5]
    doc = read(os.path.join(a.docs, "testing.md"))
    m = re.search(r"^// accel-gen --seed 7 --size 2\n((?://.*\n){4})", doc,
                  re.M)
    if not m:
        return ["no header block starting '// accel-gen --seed 7 --size 2'"]
    have = ["// accel-gen --seed 7 --size 2"] + m.group(1).splitlines()
    return [] if have == out else ["%r vs %r" % (have, out)]


def analyze_false(a):
    # The subcommands whose --help lists --analyze.
    takes = []
    for sub in ("run", "fdo", "replay", "sweep", "record"):
        text = run([os.path.join(a.bindir, "accel-replay"), sub, "--help"])
        if "--analyze" in text:
            takes.append(sub)
    doc = " ".join(read(os.path.join(a.docs, "metrics.md")).split())
    m = re.search(r"`--analyze=false` \(([^)]*)\)", doc)
    if not m:
        return ["no '`--analyze=false` (...)' in metrics.md"]
    # "(`run`, `replay`; `fdo` always analyzes, ...)": the list before ';'.
    said = re.findall(r"`(\w+)`", m.group(1).split(";")[0])
    # fdo lists --analyze only to refuse --analyze=false.
    want = [s for s in takes if s != "fdo"]
    return [] if said == want else ["%s vs %s" % (said, want)]


def suggestions(a):
    doc = read(os.path.join(a.docs, "metrics.md"))
    section = doc.split("### `suggestions`", 1)[1].split("\n### ", 1)[0]
    blocks = re.findall(r"(Excerpt from|A pin, from) `([^`]+)`(.*?)"
                        r"```json\n(.*?)\n```", section, re.S)
    if not blocks:
        return ["no quoted suggestions in metrics.md's suggestions section"]
    problems = []
    for _, program, between, text in blocks:
        with tempfile.TemporaryDirectory() as d:
            run([os.path.join(a.bindir, "accel-replay"), "run", program,
                 "-o", os.path.join(d, "out")], cwd=a.src)
            with open(os.path.join(d, "out", "metrics.json")) as f:
                have = json.load(f)["suggestions"]
        quoted = json.loads(text if text.lstrip().startswith(("{", "["))
                            else "{" + text + "}")
        if isinstance(quoted, dict):
            quoted = quoted.get("suggestions", [quoted])
        for q in quoted:
            if q not in have:
                near = [h for h in have if h.get("kind") == q.get("kind") and
                        h.get("op_id") == q.get("op_id")]
                problems.append("%s: the quoted %s of op %s is %s" % (
                    program, q.get("kind"), q.get("op_id"),
                    "not among the run's suggestions" if not near else
                    "now " + json.dumps(near[0], sort_keys=True)))
        m = re.search(r"of its (\d+) suggestions: (\d+) hoists, (\d+) "
                      r"parallelizes", " ".join(between.split()))
        if m:
            counts = (len(have), sum(h["kind"] == "hoist" for h in have),
                      sum(h["kind"] == "parallelize" for h in have))
            said = tuple(int(x) for x in m.groups())
            if said != counts:
                problems.append("%s: %d suggestions, %d hoists, %d "
                                "parallelizes vs %d, %d, %d" %
                                ((program,) + said + counts))
    return problems


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--docs", default=os.path.join(here, "docs"))
    ap.add_argument("--src", default=here)
    a = ap.parse_args()
    bad = 0
    for name, check in (("config-sources", config_sources),
                        ("analyzer-mxu", analyzer_mxu),
                        ("gen-header", gen_header),
                        ("analyze-false", analyze_false),
                        ("suggestions", suggestions)):
        problems = check(a)
        if problems:
            bad += 1
            print("DIFFERS %s: %s" % (name, "; ".join(problems)))
        else:
            print("ok %s" % name)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
