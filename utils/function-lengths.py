#!/usr/bin/env python3
"""Reports the functions of accel's sources longer than a limit (issue 36).

    utils/function-lengths.py [--limit 80] [--check] [DIR ...]

Scans the C++ sources (.cpp, .h) under DIR (default: lib tools include) for
function definitions, namespace-scope or in a class body, and prints each
one longer than --limit lines (from the line of its name to its closing
brace), longest first, with the one-line reason at its top when it has one:
a comment starting `// Long:` on the first line of its body, e.g.

    void Lowerer::lowerOp(Operation *op) {
      // Long: one case per accel op, each a few lines; see docs/isa.md.

Ends with a summary line. With --check it exits 1 when a function over the
limit has no reason (the rule of issue 36); without, it always exits 0 (CI
prints the report).

The scan is lexical: comments, string and character literals are blanked,
then every brace block is classified by the text before it. A block after
`namespace`, `class`, `struct`, `union` or `extern "C"` is searched for
definitions; one after a parameter list (`)`, optionally followed by
`const`, `override`, `noexcept`, a trailing return type or a constructor's
initializer list) is a function, whose body (lambdas included) is one
piece; any other block (an initializer, `enum`) is skipped.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accel_cxx import blank  # noqa: E402

SCOPE = re.compile(r'\b(namespace|class|struct|union)\b[^()]*$|extern\s*$')
AFTER_PARAMS = re.compile(
    r'\)\s*(const\b|override\b|final\b|noexcept\b|mutable\b|&|\s)*'
    r'(->\s*[\w:<>,\s*&\[\]]+)?\s*$')
CALL = re.compile(r'([~\w:]+(?:<[^<>()]*>)?|operator\s*[^\s(]+)\s*\($')


def match_brace(s, i):
    """The index of the brace closing the one at i."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == "{":
            depth += 1
        elif s[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(s) - 1


def header_before(s, i, lo):
    """The text of the declaration before the brace at i: back to the
    previous ';', '{' or '}' (not before lo), an initializer list's
    parenthesized and braced arguments included."""
    j = i - 1
    depth = 0
    while j >= lo:
        c = s[j]
        if c in ")]":
            depth += 1
        elif c in "([":
            depth -= 1
        elif depth == 0 and c in ";{}":
            # A braced initializer in a constructor's initializer list:
            # "x_{0}, y_{1} {" -- keep going past "}" of a member init.
            if c == "}" and re.search(r"[\w>]\s*$", s[lo:j]) and \
                    re.search(r",\s*$|:\s*$", s[lo:match_open(s, j)]):
                j = match_open(s, j) - 1
                continue
            break
        j -= 1
    return s[j + 1:i]


def match_open(s, j):
    """The index of the brace opening the one closing at j."""
    depth = 0
    for k in range(j, -1, -1):
        if s[k] == "}":
            depth += 1
        elif s[k] == "{":
            depth -= 1
            if depth == 0:
                return k
    return 0


def function_name(header):
    """The function's name from its header, or None if it is not one."""
    h = header.strip()
    if not h or h.startswith("#"):
        return None
    # A constructor's initializer list: cut it at the ':' after the ')'.
    depth = 0
    cut = len(h)
    for k, c in enumerate(h):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == ":" and depth == 0 and k > 0 and h[k - 1] == ")" or (
                c == ":" and depth == 0 and re.match(r"\)\s*$", h[:k])
                and (k + 1 >= len(h) or h[k + 1] != ":")):
            cut = k
            break
    h = h[:cut].rstrip()
    if not AFTER_PARAMS.search(h):
        return None
    # The parameter list: from the ')' back to its '('.
    end = h.rfind(")")
    depth = 0
    for k in range(end, -1, -1):
        if h[k] == ")":
            depth += 1
        elif h[k] == "(":
            depth -= 1
            if depth == 0:
                m = CALL.search(h[:k + 1])
                if not m:
                    return None
                name = m.group(1)
                if name.split("::")[-1] in ("if", "for", "while", "switch",
                                            "catch", "return", "sizeof",
                                            "defined"):
                    return None
                # A lambda or a macro call at namespace scope is not a
                # definition of a named function.
                if re.search(r"\]\s*$", h[:k]) or h[:k].rstrip().endswith("="):
                    return None
                return name
    return None


def scan(path):
    """(name, first line, lines, reason) of each function defined in path."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    s = blank(text)
    lines = text.split("\n")
    found = []

    def walk(lo, hi):
        i = lo
        while i < hi:
            if s[i] != "{":
                i += 1
                continue
            close = match_brace(s, i)
            header = header_before(s, i, lo)
            if SCOPE.search(header.strip()) or header.strip().endswith(
                    "extern"):
                walk(i + 1, close)
            else:
                name = function_name(header)
                if name:
                    hstart = i - len(header) + (len(header) -
                                                len(header.lstrip()))
                    first = s.count("\n", 0, hstart) + 1
                    last = s.count("\n", 0, close) + 1
                    body = s.count("\n", 0, i) + 1
                    reason = None
                    for ln in lines[body:body + 2]:
                        m = re.match(r"\s*//\s*Long:\s*(.+)", ln)
                        if m:
                            reason = m.group(1).strip()
                            break
                    found.append((name, first, last - first + 1, reason))
            i = close + 1

    walk(0, len(s))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", default=["lib", "tools", "include"])
    ap.add_argument("--limit", type=int, default=80)
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if a function over the limit has no reason")
    a = ap.parse_args()
    rows = []
    for d in a.dirs:
        for root, _, names in os.walk(d):
            for n in sorted(names):
                if n.endswith((".cpp", ".h")):
                    p = os.path.join(root, n)
                    for name, first, count, reason in scan(p):
                        if count > a.limit:
                            rows.append((count, p, first, name, reason))
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    for count, p, first, name, reason in rows:
        print("%5d  %s:%d  %s%s" % (count, p, first, name,
                                     "  -- " + reason if reason else ""))
    without = [r for r in rows if not r[4]]
    print("function lengths: %d functions over %d lines (%d with a reason, "
          "%d without), %d over 150" % (
              len(rows), a.limit, len(rows) - len(without), len(without),
              sum(1 for r in rows if r[0] > 150)))
    sys.exit(1 if a.check and without else 0)


if __name__ == "__main__":
    main()
