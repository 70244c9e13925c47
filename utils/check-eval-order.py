#!/usr/bin/env python3
"""Finds calls with two or more arguments that each build IR.

C++ leaves the order in which a call's arguments are evaluated unspecified:
`scf::ForOp::create(b, loc, ConstantIndexOp::create(b, loc, 0),
ConstantIndexOp::create(b, loc, n), ...)` inserts the constants in one order
under GCC and in another under clang, so the printed IR (and lit tests)
depend on the compiler (issue 12). Build such operands into variables first.

  check-eval-order.py FILE_OR_DIR...

Prints FILE:LINE: and the call for each finding; exits 1 if there is any.
Comments and string literals are ignored.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accel_cxx import blank as strip  # noqa: E402

# A sub-expression that creates an op or inserts into the IR.
BUILDS = re.compile(r"::create\s*\(|\.create\s*<|\bcreate\w*Op\s*\(|\.clone\s*\(")


def findings(path):
    src = strip(open(path, encoding="utf-8", errors="replace").read())
    # Each '(' starts an argument list; split it at its top-level commas.
    stack = []  # (open index, [argument start indices])
    for i, c in enumerate(src):
        if c == "(":
            stack.append((i, [i + 1]))
        elif c == "," and stack:
            stack[-1][1].append(i + 1)
        elif c == ")" and stack:
            start, args = stack.pop()
            bounds = args + [i + 1]
            building = [
                src[a : b - 1]
                for a, b in zip(bounds, bounds[1:])
                if BUILDS.search(src[a : b - 1])
            ]
            if len(building) >= 2:
                line = src.count("\n", 0, start) + 1
                head = src[max(0, start - 40) : start].split()[-1:] or [""]
                yield line, head[0] + "(" + " ".join(src[start + 1 : i].split())[:160] + ")"


def main(argv):
    files = []
    for p in argv[1:]:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, f) for f in sorted(names)
                          if f.endswith((".cpp", ".h"))]
        else:
            files.append(p)
    bad = 0
    for f in sorted(files):
        for line, call in findings(f):
            print(f"{f}:{line}: two arguments build IR; their order is "
                  f"unspecified: {call}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
