#!/usr/bin/env python3
"""Checks the numbers, hashes, outputs and excerpts that the docs quote
from the tools (issue 36, item 4): each is recomputed by running the tools
of BINDIR and compared with the text of the doc that states it.

    utils/check-doc-claims.py --bindir BUILD/bin [--update] [FILE.md...]

Without files: README.md and docs/*.md. Two kinds of checks:

- markers: HTML comments in the docs that name the command producing the
  text after them (described below, above MARKER); most claims are these;
- named checks, for claims that need more than one command's output
  compared with one place (listed here).

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

Prints "ok NAME" or "DIFFERS NAME: ..." per named check, "DIFFERS
FILE:LINE: ..." per marker that differs and "FILE: N markers, M differ" per
file, and exits 1 if anything differs. --docs points the named checks at
another copy of docs/ (test/Docs/claims.test shows a changed number fails).
"""
import argparse
import difflib
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


# ---------------------------------------------------------------------------
# Markers: a doc says, in an HTML comment on its own line (invisible when the
# Markdown is rendered), which command produces the text that follows.
#
#   <!-- doc-check: CMD -->           the next fenced block is CMD's output,
#                                     line for line
#   <!-- doc-check excerpt: CMD -->   the next fenced block is an excerpt of
#                                     CMD's output: its lines appear in the
#                                     output in order; a line "..." stands
#                                     for any lines, and "..." inside a line
#                                     for any text
#   <!-- doc-check "TEMPLATE": CMD --> the next paragraph (or table) holds
#                                     TEMPLATE with each {} replaced by one
#                                     line of CMD's output, in order ({} a
#                                     value without spaces, {*} any text;
#                                     words match across line breaks; \"
#                                     is a quote)
#   <!-- doc-check run: CMD -->       runs CMD (e.g. a run whose files later
#                                     markers read); its output is not shown
#
# CMD runs under bash (-e -o pipefail) in the source tree, with BINDIR first
# on PATH, $DOC the file being checked (a marker that reads the doc itself
# reads $DOC, so a changed copy is checked as such) and $T a scratch
# directory shared by the markers of one file (so a
# file's first marker can run a program once and the others read its
# files); "$T/" is removed from the output, so `-o $T/out` prints as `out`.
# Several markers may stand one after the other before the same paragraph
# or block. CMD is run as written (a newline in it separates commands).
# With --update, exact blocks and templated values are rewritten from the
# tools' output (excerpts are reported, not rewritten); the exit status is
# then 1 only for what could not be rewritten.
# ---------------------------------------------------------------------------
MARKER = re.compile(r"^<!--\s*doc-check(?:\s+(excerpt|run)|"
                    r"\s+\"((?:[^\"\\]|\\.)*)\")?"
                    r":\s*(.*?)\s*-->[ \t]*$", re.M | re.S)
FENCE = re.compile(r"\n(```[^\n]*)\n(.*?\n?)```[ \t]*(?:\n|$)", re.S)


class Marker:
    def __init__(self, m, text):
        self.kind = m.group(1) or ("value" if m.group(2) is not None
                                   else "block")
        self.template = None if m.group(2) is None else \
            re.sub(r"\\(.)", r"\1", m.group(2))
        self.cmd = m.group(3)
        self.start, self.end = m.span()
        self.line = text.count("\n", 0, self.start) + 1


def run_marker_cmd(a, cmd, scratch, doc):
    env = dict(os.environ)
    env["PATH"] = os.path.abspath(a.bindir) + os.pathsep + env.get("PATH", "")
    env["T"] = scratch
    env["DOC"] = doc
    p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", cmd],
                       cwd=a.src, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("`%s` exited %d: %s" % (
            cmd, p.returncode, p.stderr.strip().splitlines()[-1:] or ""))
    return p.stdout.replace(scratch + "/", "")


def next_paragraph(text, pos):
    """The span of the next paragraph after pos (a run of non-blank lines
    ended by a blank line or the end of the text), after any markers that
    follow the one ending at pos."""
    while True:
        m = re.compile(r"\s*<!--\s*doc-check.*?-->[ \t]*", re.S).match(
            text, pos)
        if not m:
            break
        pos = m.end()
    m = re.compile(r"\n*(?:[^\n]*\S[^\n]*(?:\n|$))+").match(text, pos)
    return (pos, m.end() if m else pos)


def excerpt_matches(block, output):
    """Whether the excerpt's lines appear in output in order (see above)."""
    out = [l.rstrip() for l in output.splitlines()]
    groups, cur = [], []
    for line in block.splitlines():
        if line.strip() in ("...", "\u2026"):
            groups.append(cur)
            cur = []
        else:
            cur.append((line.rstrip(), re.compile(
                ".*".join(re.escape(p) for p in line.rstrip().split("..."))
                + r"\Z")))
    groups.append(cur)
    i = 0
    for n, group in enumerate(groups):
        if not group:
            continue
        # Without a leading "...", the first group is the output's start.
        starts = [0] if n == 0 else range(i, len(out) - len(group) + 1)
        best = (-1, 0)  # (lines matched, start)
        for s in starts:
            k = 0
            while k < len(group) and s + k < len(out) and \
                    group[k][1].match(out[s + k]):
                k += 1
            if k == len(group):
                i = s + k
                break
            best = max(best, (k, s))
        else:
            k, s = best
            if k <= 0 and n > 0:
                return "the output has no line `%s`" % group[0][0]
            return "excerpt line `%s` is `%s` in the output" % (
                group[k][0], out[s + k] if s + k < len(out) else "(the end)")
    return None


def check_markers(a, path, problems):
    """Checks (or, with --update, rewrites) one file's markers; returns the
    number of markers."""
    text = read(path)
    markers = [Marker(m, text) for m in MARKER.finditer(text)]
    edits = []  # (start, end, new text), applied from the end
    rel = os.path.relpath(path, a.src) if path.startswith(a.src) else path
    with tempfile.TemporaryDirectory() as scratch:
        for mk in markers:
            where = "%s:%d" % (rel, mk.line)
            try:
                out = run_marker_cmd(a, mk.cmd, scratch, path)
            except RuntimeError as e:
                problems.append("%s: %s" % (where, e))
                continue
            if mk.kind == "run":
                continue
            if mk.kind == "value":
                check_value(a, mk, text, out, where, problems, edits)
                continue
            fence = FENCE.match(text, mk.end)
            if not fence:
                problems.append("%s: no fenced block after the marker" %
                                where)
                continue
            block = fence.group(2)
            if mk.kind == "excerpt":
                why = excerpt_matches(block, out)
                if why:
                    problems.append("%s: excerpt of `%s`: %s" %
                                    (where, mk.cmd, why))
                continue
            want = "\n".join(l.rstrip() for l in out.rstrip("\n").split("\n"))
            have = "\n".join(l.rstrip() for l in block.rstrip("\n").split("\n"))
            if want != have:
                if a.update:
                    edits.append((fence.start(2), fence.end(2), want + "\n"))
                else:
                    diff = list(difflib.unified_diff(
                        have.split("\n"), want.split("\n"), "doc", "tools",
                        n=0, lineterm=""))[2:]
                    problems.append("%s: output of `%s` differs:\n    %s" % (
                        where, mk.cmd, "\n    ".join(diff[:20])))
    if a.update and edits:
        for s, e, new in sorted(edits, reverse=True):
            text = text[:s] + new + text[e:]
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return len(markers)


def template_pattern(template):
    """The regex of a TEMPLATE: its words match across any whitespace, {} a
    value without spaces, {*} any text up to the template's next words."""
    pieces = re.split(r"(\{\*?\})", template)
    out = []
    for n, piece in enumerate(pieces):
        if piece == "{}":
            out.append(r"([^\s|`*]+)")
        elif piece == "{*}":
            out.append(r"(.+?)" if n + 1 < len(pieces) and pieces[n + 1]
                       else r"([^\n]+)")
        else:
            out.append(r"\s+".join(re.escape(w) for w in piece.split(" ")))
    return re.compile("".join(out), re.S), sum(p in ("{}", "{*}")
                                               for p in pieces)


def check_value(a, mk, text, out, where, problems, edits):
    values = [l.strip() for l in out.splitlines() if l.strip()]
    pattern, slots = template_pattern(mk.template)
    if len(values) != slots:
        problems.append("%s: `%s` printed %d values for %d {} of \"%s\"" % (
            where, mk.cmd, len(values), slots, mk.template))
        return
    lo, hi = next_paragraph(text, mk.end)
    m = pattern.search(text, lo, hi)
    if not m:
        problems.append("%s: the paragraph after the marker has no \"%s\"" %
                        (where, mk.template))
        return
    for k, v in enumerate(values, 1):
        if " ".join(m.group(k).split()) != v:
            if a.update:
                edits.append((m.start(k), m.end(k), v))
            else:
                problems.append("%s: \"%s\": %s vs %s" % (
                    where, mk.template, m.group(k), v))


# The named checks, each with the file whose claims it checks.
NAMED = (("config-sources", "docs/config.md", config_sources),
         ("analyzer-mxu", "docs/analyzer.md", analyzer_mxu),
         ("gen-header", "docs/testing.md", gen_header),
         ("analyze-false", "docs/metrics.md", analyze_false),
         ("suggestions", "docs/metrics.md", suggestions))


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--docs", default=os.path.join(here, "docs"),
                    help="the docs directory the named checks read")
    ap.add_argument("--src", default=here,
                    help="the source tree commands run in")
    ap.add_argument("--update", action="store_true",
                    help="rewrite marked blocks and values from the tools")
    ap.add_argument("--named-only", action="store_true",
                    help="run the named checks of the files, not their "
                    "markers")
    ap.add_argument("files", nargs="*",
                    help="Markdown files (default: README.md and docs/*.md);"
                    " with files, only the named checks of those files run")
    a = ap.parse_args()
    a.src = os.path.abspath(a.src)
    files = a.files or [os.path.join(a.src, "README.md")] + sorted(
        os.path.join(a.docs, f) for f in os.listdir(a.docs)
        if f.endswith(".md"))
    names = {os.path.basename(f) for f in files}
    bad = 0
    for name, doc, check in NAMED:
        if a.files and os.path.basename(doc) not in names:
            continue
        problems = check(a)
        if problems:
            bad += 1
            print("DIFFERS %s: %s" % (name, "; ".join(problems)))
        else:
            print("ok %s" % name)
    for path in [] if a.named_only else files:
        problems = []
        n = check_markers(a, os.path.abspath(path), problems)
        rel = os.path.relpath(path, a.src)
        for p in problems:
            print("DIFFERS " + p)
        bad += bool(problems)
        print("%s: %d markers, %d differ" % (rel, n, len(problems)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
