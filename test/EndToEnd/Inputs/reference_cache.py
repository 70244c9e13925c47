"""The cache of reference.py (stdlib only, so that a cached call does not
import NumPy, about 0.3 s of a start on the CI machine).

ACCEL_REFERENCE_CACHE (test/lit.cfg.py sets it) names a directory; under
it, inputs-KEY (KEY from reference.py's bytes) holds, for each program,

  PROGRAM/argN.npy        its inputs, as `reference.py inputs` writes them
  PROGRAM.want/argN.npy   the reference outputs computed from them (f64)
  PROGRAM.want/meta.json  {"args": [N, ...] in reference order, "rtol": R,
                           "elementwise": B}

reference.py writes it (fill_cache) the first time a call finds it
missing. `inputs` copies the files; `check` compares outputs with the
cached reference outputs when the given inputs are byte for byte the
cached ones, printing what reference.py's NumPy check prints for outputs
within the tolerance. Anything else (other inputs, a missing or
differently shaped output, a special value, a mismatch) goes to the NumPy
check, which prints the details.
"""
import array
import ast
import hashlib
import json
import math
import os
import shutil
import struct


def cache_dir(script):
    """The cache of `script`'s inputs, or None without
    ACCEL_REFERENCE_CACHE."""
    root = os.environ.get("ACCEL_REFERENCE_CACHE")
    if not root:
        return None
    with open(script, "rb") as f:
        key = hashlib.sha256(f.read()).hexdigest()[:16]
    return os.path.join(root, "inputs-" + key)


def split_groups(argv):
    """PROGRAM DIR... [+ PROGRAM DIR...]... as lists."""
    groups = [[]]
    for a in argv:
        if a == "+":
            groups.append([])
        else:
            groups[-1].append(a)
    return groups


def copy_inputs(cache, argv):
    """`inputs PROGRAM DIR [+ PROGRAM DIR]...` served from `cache`; False
    (nothing copied) when a program is not there."""
    groups = split_groups(argv)
    if any(len(g) != 2 or not os.path.isdir(os.path.join(cache, g[0]))
           for g in groups):
        return False
    for program, out in groups:
        os.makedirs(out, exist_ok=True)
        src = os.path.join(cache, program)
        for name in sorted(os.listdir(src)):
            shutil.copyfile(os.path.join(src, name), os.path.join(out, name))
    return True


def read_npy(path):
    """(shape, values as floats) of a little-endian f4 or f8 .npy in C
    order; None for anything else."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY" or len(data) < 10:
        return None
    if data[6] == 1:
        (n,), start = struct.unpack_from("<H", data, 8), 10
    else:
        (n,), start = struct.unpack_from("<I", data, 8), 12
    try:
        header = ast.literal_eval(data[start:start + n].decode("latin1"))
    except (ValueError, SyntaxError):
        return None
    code = {"<f4": "f", "<f8": "d"}.get(header.get("descr"))
    if not code or header.get("fortran_order") is not False:
        return None
    shape = tuple(header.get("shape", ()))
    values = array.array(code)
    values.frombytes(data[start + n:])
    if len(values) != math.prod(shape):
        return None
    return shape, code, values


def compare(program, index, want, got, rtol, elementwise):
    """reference.py's check_outputs line for one argument within the
    tolerance, or None (let NumPy say what is wrong). The same arithmetic
    in f64 as that check's NumPy arrays, element by element."""
    if (want is None or got is None or got[0] != want[0] or got[1] != "f"
            or not want[2]):
        return None
    # IEEE special values of the reference must be matched exactly (a NaN
    # by a NaN); they then count as 0 against 0.
    w, g = list(want[2]), list(got[2])
    for k, x in enumerate(w):
        if not math.isfinite(x):
            y = g[k]
            if not ((math.isnan(x) and math.isnan(y)) or x == y):
                return None
            w[k] = g[k] = 0.0
    largest = 0.0 if elementwise else max(abs(x) for x in w)
    err_max, worst = 0.0, 0.0
    for x, y in zip(w, g):
        err = abs(y - x)
        if math.isnan(err):
            return None
        bound = rtol * (abs(x) + largest)
        err_max = max(err_max, err)
        worst = max(worst, err / (bound if bound > 1e-30 else 1e-30))
    if not worst <= 1.0:
        return None
    return (f"{program}: arg{index}: max abs error {err_max:.3g}, "
            f"{worst:.3g} of the tolerance: ok")


def check(cache, argv):
    """`check PROGRAM INDIR OUTDIR... [+ ...]` from the cache: the exit
    status (0, everything within the tolerance), or None to run the NumPy
    check instead. Prints only when it returns 0."""
    lines = []
    for group in split_groups(argv):
        if len(group) < 3:
            return None
        program, indir, outdirs = group[0], group[1], group[2:]
        src = os.path.join(cache, program)
        try:
            with open(os.path.join(src + ".want", "meta.json")) as f:
                meta = json.load(f)
            for name in os.listdir(src):
                with open(os.path.join(src, name), "rb") as a, \
                        open(os.path.join(indir, name), "rb") as b:
                    if a.read() != b.read():
                        return None
            want = {i: read_npy(os.path.join(src + ".want", f"arg{i}.npy"))
                    for i in meta["args"]}
            # Element by element in Python is slower than NumPy's import
            # past a few hundred thousand elements.
            if sum(len(w[2]) for w in want.values() if w) * len(outdirs) \
                    > 200000:
                return None
            for outdir in outdirs:
                for i in meta["args"]:
                    got = read_npy(os.path.join(outdir, f"arg{i}.npy"))
                    line = compare(program, i, want[i], got, meta["rtol"],
                                   meta["elementwise"])
                    if line is None:
                        return None
                    lines.append(line)
        except (OSError, ValueError, KeyError):
            return None
    print("\n".join(lines))
    return 0
