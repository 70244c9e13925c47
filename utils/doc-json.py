#!/usr/bin/env python3
"""Prints an excerpt of a JSON output the way the docs quote it, for the
docs' self-checks (utils/check-doc-claims.py markers).

    utils/doc-json.py FILE EXPR [-each | -inner | -lines]

EXPR is a Python expression over `m` (FILE's document) that builds the
excerpt; two helpers are in scope: `pick(d, *keys)`, the entries of dict d
with those keys, and `E`, an elision: printed as "..." (as a dict key, the
entry prints as "..." alone). Unlike jq, numbers keep their literal form
(1024.0 stays 1024.0).

Layout: a value that fits on its line (78 columns) is printed on one line
(`{ "a": 1, "b": [ 2, 3 ] }`); otherwise its entries go on the following
lines, indented by two spaces, packed several to a line while they fit.
-each prints each element of the excerpt (a list) that way; -inner prints
the excerpt's entries without its outer braces; -lines prints each element
with str().
"""
import functools
import json
import sys

WIDTH = 78
E = ...


def one(x):
    """x on one line."""
    if x is E:
        return "..."
    if isinstance(x, dict):
        if not x:
            return "{}"
        return "{ " + ", ".join(("" if k is E else json.dumps(k) + ": ") +
                                one(v) for k, v in x.items()) + " }"
    if isinstance(x, list):
        return "[ " + ", ".join(map(one, x)) + " ]" if x else "[]"
    return json.dumps(x)


def entries(x, indent):
    """The printed entries of a dict or list, each with its comma."""
    pairs = [("" if k is E else json.dumps(k) + ": ", v)
             for k, v in x.items()] if isinstance(x, dict) else \
        [("", v) for v in x]
    out = []
    for n, (prefix, v) in enumerate(pairs):
        last = n == len(pairs) - 1
        out.append(prefix + layout(v, indent, len(indent) + len(prefix),
                                   last) + ("" if last else ","))
    return out


def pack(items, indent):
    """Lines of `items`: several one-line items to a line while they fit."""
    def add(lines, s):
        if lines and "\n" not in s and "\n" not in lines[-1] and \
                len(lines[-1]) + 1 + len(s) <= WIDTH:
            return lines[:-1] + [lines[-1] + " " + s]
        return lines + [indent + s]
    return functools.reduce(add, items, [])


def layout(x, indent, column, last=True):
    """x starting at `column` of a line indented by `indent`."""
    if not isinstance(x, (dict, list)) or not x or \
            column + len(one(x)) + (0 if last else 1) <= WIDTH:
        return one(x)
    inner = indent + "  "
    open_, close = ("{", "}") if isinstance(x, dict) else ("[", "]")
    return open_ + "\n" + "\n".join(pack(entries(x, inner), inner)) + \
        "\n" + indent + close


def pick(d, *keys):
    return {k: v for k, v in d.items() if k in keys}


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.split("\n\n")[1])
    with open(sys.argv[1]) as f:
        m = json.load(f)
    x = eval(sys.argv[2], {"m": m, "E": E, "pick": pick})
    mode = sys.argv[3] if len(sys.argv) > 3 else ""
    if mode == "-lines":
        print("\n".join(map(str, x)))
    elif mode == "-inner":
        print("\n".join(pack(entries(x, ""), "")))
    elif mode == "-each":
        print("\n".join(layout(e, "", 0) for e in x))
    else:
        print(layout(x, "", 0))


if __name__ == "__main__":
    main()
