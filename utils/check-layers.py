#!/usr/bin/env python3
"""Checks accel's layering (issue 36): no include cycle between libraries,
and no chip that reaches into the system or a sibling chip.

    utils/check-layers.py [--print] [ROOT]

ROOT (default: the source tree) holds include/accel/<Lib>/ and lib/<Lib>/.
Each library is a directory name under lib/ (Support, Sim, Profile, ...;
lib/Conversion and lib/Target as one each). A file of library A that
includes "accel/B/..." makes A depend on B. Exits 1, naming the files,
when:
  - the dependencies have a cycle (A -> B -> ... -> A);
  - a chip's code names the System or another chip: the simulator's
    headers and sources (Simulator, DmaEngine, Units, Memory) must not
    include "accel/Sim/System.h" nor hold a `System *`/`System &` or a
    `Simulator *`/`Simulator &` (a chip reaches the rest of its system only
    through the ChipPeers interface, include/accel/Sim/ChipPeers.h).
With --print, also prints each library's dependencies, one line each.
"""
import argparse
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accel_cxx import blank  # noqa: E402

INCLUDE = re.compile(r'#include\s+"accel/([A-Za-z]+)/')
CHIP_FILES = re.compile(r'(Simulator|SimulatorChips|SimulatorDetail|DmaEngine|'
                        r'Units|UnitTiming|Memory)\.(h|cpp)$')
REACH = re.compile(r'\b(System|Simulator)\s*[*&]')


def sources(root):
    """(library, path) of every C++ file under include/accel and lib."""
    for base in ("include/accel", "lib"):
        top = os.path.join(root, base)
        for path in sorted(glob.glob(top + "/**/*.*", recursive=True)):
            if path.endswith((".h", ".cpp")):
                rel = os.path.relpath(path, top).split(os.sep)
                if len(rel) > 1:
                    yield rel[0], path


def find_cycle(edges):
    """One cycle of the graph `edges` (a list of nodes), or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", nargs="?",
                    default=os.path.dirname(os.path.dirname(
                        os.path.abspath(__file__))))
    ap.add_argument("--print", action="store_true")
    args = ap.parse_args()
    libs = {lib for lib, _ in sources(args.root)}
    edges, why, problems = {}, {}, []
    for lib, path in sources(args.root):
        text = open(path, encoding="utf-8", errors="replace").read()
        for m in INCLUDE.finditer(text):
            dep = m.group(1)
            if dep != lib and dep in libs:
                edges.setdefault(lib, set()).add(dep)
                why.setdefault((lib, dep), os.path.relpath(path, args.root))
        if os.path.basename(os.path.dirname(path)) == "Sim" and \
                CHIP_FILES.search(path):
            code = blank(text)
            rel = os.path.relpath(path, args.root)
            if '"accel/Sim/System.h"' in text:
                problems.append(rel + ": a chip includes accel/Sim/System.h")
            for m in REACH.finditer(code):
                line = code.count("\n", 0, m.start()) + 1
                problems.append("%s:%d: a chip holds a %s" %
                                (rel, line, m.group(0).replace(" ", "")))
    if args.print:
        for lib in sorted(libs):
            print("%s -> %s" % (lib, " ".join(sorted(edges.get(lib, ())))))
    cycle = find_cycle(edges)
    if cycle:
        problems.append("include cycle: " + " -> ".join(
            "%s (%s)" % (a, why[(a, b)]) for a, b in zip(cycle, cycle[1:])) +
            " -> " + cycle[-1])
    for p in problems:
        print("error: " + p)
    print("layers: %d libraries, %d dependencies, %s" %
          (len(libs), sum(len(v) for v in edges.values()),
           "%d problems" % len(problems) if problems else "no cycle, no chip "
           "reaching into the system"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
