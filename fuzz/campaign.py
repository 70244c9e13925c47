#!/usr/bin/env python3
"""A bad-input campaign over every surface of accel's tools (issue 31).

Generates bad (and a few good, control) inputs for every surface a user can
reach -- programs, linalg/affine frontend programs, machine configs,
multi-chip configs, calibration CSVs, .npy inputs, traces, binary images,
metrics.json for accel-attach-metrics, sweep grids and options, every
numeric option, and the output paths (-o, --output-dir, symbolic links,
file-size limits, signals) -- runs the tools on each under a memory and a
time limit, in a directory of its own beside a tree of files that must not
change, and sorts every outcome into one class:

  ok               a bad input refused with exit 1 or 2 and an error on
                   stderr, or a control that succeeded
  crash            killed by a signal, exit >= 128, or a crash report on
                   stderr (a stack dump, "LLVM ERROR", a Python traceback,
                   a sanitizer report, an assertion)
  hang             still running at the time limit
  exit0-garbage    a bad input accepted with exit 0
  touched-outside  a file or directory outside the output path changed,
                   vanished or appeared where it must not (a symlink
                   followed into other data, a half-written file)
  leftover         a temporary (*.accel-tmp-*, *.tmp.png, symbolizer files
                   in TMPDIR) left behind
  partial          the command failed but its output path changed
  unclear          a non-zero exit with nothing on stderr
  control-failed   a good input (a control) did not succeed

Every class but `ok` is a failure: the script exits 1 if any case lands in
one, 0 otherwise, 2 on a usage error.

  fuzz/campaign.py --build build [--sample N] [--seed S] [-j J]
                   [--timeout SEC] [--mem-mb MB] [--json FILE] [--list]
                   [--surface NAME ...]

--sample N runs N cases drawn at random (with --seed) from the whole
campaign, spread over every surface; CI runs a sample. --mem-mb 0 sets no
memory limit (needed for a sanitizer build, whose shadow memory needs a
huge address space).
"""

import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CRASH_MARKERS = ("Stack dump", "LLVM ERROR", "PLEASE submit a bug report",
                 "Traceback (most recent call last)", "AddressSanitizer",
                 "UndefinedBehaviorSanitizer", "runtime error:",
                 "LeakSanitizer", "terminate called", "Assertion `",
                 "Segmentation fault", "Aborted")

FAILURE_CLASSES = ("crash", "hang", "exit0-garbage", "touched-outside",
                   "leftover", "partial", "unclear", "control-failed")


@dataclass
class Case:
    """One run of one tool on one input.

    argv: the command; "{bin}" is the tools' directory, "{repo}" the
      repository; relative paths are relative to the case's directory.
    files: what to create in the case's directory first: bytes (a file),
      ("fifo-yes",) a FIFO fed without end, ("symlink", TARGET), ("dir",).
    expect: "error" (a bad input), "ok" (a control) or "any" (a mutation
      that may or may not be valid: only crashes, hangs and damage count).
    outs: the paths the command may replace (with everything under them;
      a symlink's target counts as the path).
    shell: a shell prefix (e.g. "ulimit -f 1;") run before the command.
    interrupt: send this signal after `interrupt_after` seconds.
    vanish: paths that must be gone afterwards (stale temporaries).
    """
    surface: str
    name: str
    argv: list
    files: dict = field(default_factory=dict)
    expect: str = "error"
    outs: tuple = ("out",)
    shell: str = ""
    interrupt: int = 0
    interrupt_after: float = 0.0
    stdin: bytes = b""
    vanish: tuple = ()


# ---------------------------------------------------------------------------
# Seed inputs

TINY_PROGRAM = b"""\
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%a: memref<8x128xf32, #hbm>,
                %b: memref<8x128xf32, #hbm> {accel.init = "zero"}) {
  %v = accel.alloc : memref<8x128xf32, #vmem>
  %t0 = accel.dma_start %a, %v : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t0
  accel.vexp %v, %v : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t1 = accel.dma_start %v, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %t1
  return
}
"""

LINALG_PROGRAM = b"""\
func.func @main(%a: memref<16x128xf32>, %b: memref<128x128xf32>,
                %c: memref<16x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<16x128xf32>)
  linalg.matmul ins(%a, %b : memref<16x128xf32>, memref<128x128xf32>)
                outs(%c : memref<16x128xf32>)
  return
}
"""

# Frontend programs in other styles: each is valid MLIR that the frontend
# may refuse; refusals must be clean.
FRONTEND_PROGRAMS = {
    "softmax-i32": b"""\
func.func @main(%a: tensor<8x128xi32>) -> tensor<8x128xi32> {
  %e = tensor.empty() : tensor<8x128xi32>
  %r = linalg.softmax dimension(1) ins(%a : tensor<8x128xi32>) outs(%e : tensor<8x128xi32>) -> tensor<8x128xi32>
  return %r : tensor<8x128xi32>
}
""",
    "softmax-index": b"""\
func.func @main(%a: tensor<8x128xindex>) -> tensor<8x128xindex> {
  %e = tensor.empty() : tensor<8x128xindex>
  %r = linalg.softmax dimension(1) ins(%a : tensor<8x128xindex>) outs(%e : tensor<8x128xindex>) -> tensor<8x128xindex>
  return %r : tensor<8x128xindex>
}
""",
    "softmax-f64": b"""\
func.func @main(%a: tensor<8x128xf64>) -> tensor<8x128xf64> {
  %e = tensor.empty() : tensor<8x128xf64>
  %r = linalg.softmax dimension(1) ins(%a : tensor<8x128xf64>) outs(%e : tensor<8x128xf64>) -> tensor<8x128xf64>
  return %r : tensor<8x128xf64>
}
""",
    "matmul-i8": b"""\
func.func @main(%a: tensor<16x64xi8>, %b: tensor<64x32xi8>) -> tensor<16x32xi32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<16x32xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<16x32xi32>) -> tensor<16x32xi32>
  %r = linalg.matmul ins(%a, %b : tensor<16x64xi8>, tensor<64x32xi8>) outs(%f : tensor<16x32xi32>) -> tensor<16x32xi32>
  return %r : tensor<16x32xi32>
}
""",
    "rank0": b"""\
func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%a : tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
""",
    "rank5": b"""\
func.func @main(%a: tensor<2x2x2x2x128xf32>) -> tensor<2x2x2x2x128xf32> {
  %e = tensor.empty() : tensor<2x2x2x2x128xf32>
  %r = linalg.exp ins(%a : tensor<2x2x2x2x128xf32>) outs(%e : tensor<2x2x2x2x128xf32>) -> tensor<2x2x2x2x128xf32>
  return %r : tensor<2x2x2x2x128xf32>
}
""",
    "dynamic": b"""\
func.func @main(%a: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?x128xf32>
  %e = tensor.empty(%d) : tensor<?x128xf32>
  %r = linalg.exp ins(%a : tensor<?x128xf32>) outs(%e : tensor<?x128xf32>) -> tensor<?x128xf32>
  return %r : tensor<?x128xf32>
}
""",
    "huge-shape": b"""\
func.func @main(%a: memref<4294967296x4294967296xf32>, %b: memref<4294967296x4294967296xf32>) {
  linalg.copy ins(%a : memref<4294967296x4294967296xf32>) outs(%b : memref<4294967296x4294967296xf32>)
  return
}
""",
    "conv-i32": b"""\
func.func @main(%i: tensor<1x8x8x4xi32>, %f: tensor<3x3x4x8xi32>) -> tensor<1x6x6x8xi32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x6x6x8xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x6x6x8xi32>) -> tensor<1x6x6x8xi32>
  %r = linalg.conv_2d_nhwc_hwcf ins(%i, %f : tensor<1x8x8x4xi32>, tensor<3x3x4x8xi32>) outs(%z : tensor<1x6x6x8xi32>) -> tensor<1x6x6x8xi32>
  return %r : tensor<1x6x6x8xi32>
}
""",
    "pool-max": b"""\
func.func @main(%i: tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = tensor.empty() : tensor<2x2xf32>
  %c = arith.constant -3.4e38 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%i, %w : tensor<1x8x8x4xf32>, tensor<2x2xf32>) outs(%z : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}
""",
    "transpose-bf16": b"""\
func.func @main(%a: tensor<8x128xbf16>) -> tensor<128x8xbf16> {
  %e = tensor.empty() : tensor<128x8xbf16>
  %r = linalg.transpose ins(%a : tensor<8x128xbf16>) outs(%e : tensor<128x8xbf16>) permutation = [1, 0]
  return %r : tensor<128x8xbf16>
}
""",
    "complex": b"""\
func.func @main(%a: tensor<8x128xcomplex<f32>>) -> tensor<8x128xcomplex<f32>> {
  return %a : tensor<8x128xcomplex<f32>>
}
""",
    "affine-oob": b"""\
func.func @main(%a: memref<8x128xf32>, %b: memref<8x128xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 128 {
      %v = affine.load %a[%i, %j] : memref<8x128xf32>
      affine.store %v, %b[%i, %j] : memref<8x128xf32>
    }
  }
  return
}
""",
    "affine-zero-trip": b"""\
func.func @main(%a: memref<8x128xf32>, %b: memref<8x128xf32>) {
  affine.for %i = 0 to 0 {
    %v = affine.load %a[%i, 0] : memref<8x128xf32>
    affine.store %v, %b[%i, 0] : memref<8x128xf32>
  }
  return
}
""",
    "no-func": b"module {}\n",
    "two-funcs-no-main": b"""\
func.func @f(%a: memref<8x128xf32>) { return }
func.func @g(%a: memref<8x128xf32>) { return }
""",
    "recursive-call": b"""\
func.func @main(%a: memref<8x128xf32>) {
  func.call @main(%a) : (memref<8x128xf32>) -> ()
  return
}
""",
}


def npy_bytes(shape, dtype="<f4", data=None, version=1, header=None,
              fortran=False):
    """A .npy file (NumPy format 1.0/2.0) built by hand."""
    if header is None:
        shp = "(" + "".join(f"{d}, " if len(shape) == 1 else f"{d}, "
                            for d in shape).rstrip(", ")
        shp += ",)" if len(shape) == 1 else ")"
        header = ("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }"
                  % (dtype, "True" if fortran else "False", shp))
    hb = header.encode("latin1")
    pre = 10 if version == 1 else 12
    pad = (64 - (pre + len(hb) + 1) % 64) % 64
    hb = hb + b" " * pad + b"\n"
    if version == 1:
        head = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hb))
    else:
        head = b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", len(hb))
    if data is None:
        n = 1
        for d in shape:
            n *= d
        data = b"\x00\x00\x80\x3f" * n
    return head + hb + data


# ---------------------------------------------------------------------------
# Mutations


def mutate_bytes(rng, data):
    """One random byte-level mutation of `data`."""
    if not data:
        return b"\x00"
    kind = rng.randrange(8)
    pos = rng.randrange(len(data))
    if kind == 0:  # truncate
        return data[:pos]
    if kind == 1:  # flip a byte
        return data[:pos] + bytes([data[pos] ^ (1 << rng.randrange(8))]) + \
            data[pos + 1:]
    if kind == 2:  # a NUL byte
        return data[:pos] + b"\x00" + data[pos:]
    if kind == 3:  # delete a span
        return data[:pos] + data[pos + rng.randrange(1, 64):]
    if kind == 4:  # duplicate a span
        end = min(len(data), pos + rng.randrange(1, 256))
        return data[:end] + data[pos:end] + data[end:]
    if kind == 5:  # a big number
        num = rng.choice([b"4294967296", b"18446744073709551616", b"-1",
                          b"0", b"1e309", b"9223372036854775807", b"nan"])
        return data[:pos] + num + data[pos:]
    if kind == 6:  # random bytes
        return data[:pos] + bytes(rng.randrange(256) for _ in range(8)) + \
            data[pos:]
    return data + b"garbage"  # trailing garbage


def json_paths(value, prefix=()):
    """Every path to a leaf or container in a JSON value."""
    yield prefix, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from json_paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from json_paths(v, prefix + (i,))


def json_set(value, path, new):
    if not path:
        return new
    value = json.loads(json.dumps(value))
    node = value
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = new
    return value


def wrong_types(v):
    """Values of a JSON type other than v's (and so invalid for its field)."""
    if isinstance(v, bool):
        return ["true", 1, None]
    if isinstance(v, (int, float)):
        return ["1", None, [], {}, True]
    if isinstance(v, str):
        return [1, None, [], {}]
    if isinstance(v, list):
        return [1, "x", None, {}]
    if isinstance(v, dict):
        return [1, "x", None, []]
    return [1]


# ---------------------------------------------------------------------------
# The surfaces


class Seeds:
    """Valid inputs made once by the tools themselves."""

    def __init__(self, build, work):
        self.bin = os.path.join(build, "bin")
        self.dir = os.path.join(work, "seeds")
        os.makedirs(self.dir, exist_ok=True)
        rp = os.path.join(self.bin, "accel-replay")
        tiny = self.put("tiny.mlir", TINY_PROGRAM)
        self.config = json.loads(subprocess.run(
            [rp, "config", "--print-default"], check=True,
            capture_output=True).stdout)
        subprocess.run([rp, "record", tiny, "--count", "20", "-o",
                        os.path.join(self.dir, "tiny.trace")], check=True,
                       capture_output=True)
        subprocess.run([rp, "record", tiny, "--count", "20", "--compress=false",
                        "-o", os.path.join(self.dir, "plain.trace")],
                       check=True, capture_output=True)
        subprocess.run([rp, "run", tiny, "-o", os.path.join(self.dir, "run")],
                       check=True, capture_output=True)
        subprocess.run([os.path.join(self.bin, "accel-translate"),
                        "--mlir-to-accel-image", tiny, "-o",
                        os.path.join(self.dir, "tiny.img")], check=True,
                       capture_output=True)

    def put(self, name, data):
        p = os.path.join(self.dir, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def read(self, name):
        with open(os.path.join(self.dir, name), "rb") as f:
            return f.read()


RP = "{bin}/accel-replay"
OPT = "{bin}/accel-opt"
TR = "{bin}/accel-translate"

DEVICES = ["/dev/zero", "/dev/urandom"]


def special_inputs():
    """Paths that are not regular files: (name, argument, files)."""
    out = [(os.path.basename(d), d, {}) for d in DEVICES]
    out.append(("fifo", "in/fifo", {"in/fifo": ("fifo-yes",)}))
    out.append(("directory", "in/dir", {"in/dir": ("dir",)}))
    out.append(("missing", "in/missing", {}))
    out.append(("empty", "in/empty", {"in/empty": b""}))
    return out


def surface_program(rng, seeds, n):
    cases = []
    for name, arg, files in special_inputs():
        for tool, argv in (("run", [RP, "run", arg, "-o", "out"]),
                           ("fdo", [RP, "fdo", arg, "-o", "out"]),
                           ("record", [RP, "record", arg, "-o", "out"]),
                           ("opt", [OPT, arg, "-o", "out"]),
                           ("translate", [TR, "--mlir-to-accel-asm", arg,
                                          "-o", "out"])):
            # An empty file is an empty module to accel-opt and
            # accel-translate (mlir-opt's convention).
            empty_ok = name == "empty" and tool in ("opt", "translate")
            cases.append(Case("program", f"{tool}-{name}", argv, dict(files),
                              expect="any" if empty_ok else "error"))
    bases = [TINY_PROGRAM, LINALG_PROGRAM,
             open(os.path.join(REPO, "examples/prefetch.mlir"), "rb").read()]
    for i in range(n):
        data = rng.choice(bases)
        for _ in range(rng.randrange(1, 4)):
            data = mutate_bytes(rng, data)
        tool = rng.choice(["run", "opt", "translate"])
        argv = {"run": [RP, "run", "in/p.mlir", "-o", "out",
                        "--max-instructions=100000"],
                "opt": [OPT, "in/p.mlir", "--accel-from-linalg", "-o", "out"],
                "translate": [TR, "--mlir-to-accel-asm", "in/p.mlir", "-o",
                              "out"]}[tool]
        cases.append(Case("program", f"mutant-{i}-{tool}", argv,
                          {"in/p.mlir": data}, expect="any"))
    # NUL and deep nesting.
    cases.append(Case("program", "nul-in-text", [RP, "run", "in/p.mlir", "-o",
                                                 "out"],
                      {"in/p.mlir": TINY_PROGRAM[:40] + b"\x00" +
                       TINY_PROGRAM[40:]}))
    cases.append(Case("program", "deep-nesting", [OPT, "in/p.mlir"],
                      {"in/p.mlir": b"func.func @f() {" +
                       b"scf.execute_region {" * 100000 + b"\n"}))
    cases.append(Case("program", "control-run", [RP, "run", "in/p.mlir", "-o",
                                                 "out"],
                      {"in/p.mlir": TINY_PROGRAM}, expect="ok"))
    return cases


def surface_frontend(rng, seeds, n):
    cases = []
    for name, prog in FRONTEND_PROGRAMS.items():
        for tool, argv in (
                ("run", [RP, "run", "in/p.mlir", "-o", "out",
                         "--max-instructions=200000"]),
                ("fdo", [RP, "fdo", "in/p.mlir", "-o", "out",
                         "--iterations=1", "--max-instructions=200000"]),
                ("opt", [OPT, "in/p.mlir", "--accel-from-linalg", "-o", "out"]),
                ("translate", [TR, "--mlir-to-accel", "in/p.mlir", "-o",
                               "out"])):
            cases.append(Case("frontend", f"{name}-{tool}", argv,
                              {"in/p.mlir": prog}, expect="any"))
    for i in range(n):
        prog = rng.choice(list(FRONTEND_PROGRAMS.values()) + [LINALG_PROGRAM])
        for _ in range(rng.randrange(1, 3)):
            prog = mutate_bytes(rng, prog)
        cases.append(Case("frontend", f"mutant-{i}",
                          [TR, "--mlir-to-accel", "in/p.mlir", "-o", "out"],
                          {"in/p.mlir": prog}, expect="any"))
    cases.append(Case("frontend", "control-linalg",
                      [RP, "run", "in/p.mlir", "-o", "out"],
                      {"in/p.mlir": LINALG_PROGRAM}, expect="ok"))
    return cases


def config_cases(surface, seeds, rng, n, base, prefix_files=None):
    """Type errors on every field of `base`, then random mutations."""
    cases = []
    files = dict(prefix_files or {})
    files["in/p.mlir"] = TINY_PROGRAM
    run = [RP, "run", "in/p.mlir", "--config", "in/c.json", "-o", "out"]
    paths = [p for p, _ in json_paths(base) if p and p[0] != "sources"]
    for p, v in [(p, v) for p, v in json_paths(base) if p]:
        if p[0] == "sources" and len(p) > 1:
            continue
        for w in wrong_types(v):
            if p == ("sources",) and w is None:
                continue  # a merge patch's null deletes: allowed for sources
            c = json_set(base, p, w)
            cases.append(Case(surface, "type-" + ".".join(map(str, p)) +
                              "=" + json.dumps(w), run,
                              dict(files, **{"in/c.json":
                                             json.dumps(c).encode()})))
    for i in range(n):
        p = rng.choice(paths)
        v = rng.choice([0, -1, 2**31, 2**32, 2**63, 2**64, 1e308, 0.5, -0.0,
                        "", "x" * 1000, [1, 2], {"a": 1}])
        c = json_set(base, p, v)
        cases.append(Case(surface, f"value-{i}-" + ".".join(map(str, p)), run,
                          dict(files, **{"in/c.json": json.dumps(c).encode()}),
                          expect="any"))
    text = json.dumps(base).encode()
    for i in range(n // 2):
        d = text
        for _ in range(rng.randrange(1, 3)):
            d = mutate_bytes(rng, d)
        cases.append(Case(surface, f"bytes-{i}", run,
                          dict(files, **{"in/c.json": d}), expect="any"))
    cases.append(Case(surface, "nul-after-value", run,
                      dict(files, **{"in/c.json": text + b"\x00{\"chips\": 9}"})))
    cases.append(Case(surface, "nul-inside", run,
                      dict(files, **{"in/c.json": text[:20] + b"\x00" +
                                     text[20:]})))
    cases.append(Case(surface, "trailing-garbage", run,
                      dict(files, **{"in/c.json": text + b" ]"})))
    cases.append(Case(surface, "two-values", run,
                      dict(files, **{"in/c.json": text + text})))
    cases.append(Case(surface, "control", run,
                      dict(files, **{"in/c.json": text}), expect="ok"))
    return cases


def surface_config(rng, seeds, n):
    cases = config_cases("config", seeds, rng, n, seeds.config)
    for name, arg, files in special_inputs():
        if name == "empty":
            continue
        cases.append(Case("config", "path-" + name,
                          [RP, "run", "in/p.mlir", "--config", arg, "-o",
                           "out"], dict(files, **{"in/p.mlir": TINY_PROGRAM})))
        cases.append(Case("config", "print-" + name,
                          [RP, "config", "--config", arg, "-o", "out"],
                          dict(files)))
    base = {"sources": {"chips": "x"}}
    for w in (1, "x", [1], {"chips": 5}, True):
        cases.append(Case("config", f"sources-{json.dumps(w)}",
                          [RP, "run", "in/p.mlir", "--config", "in/c.json",
                           "-o", "out"],
                          {"in/p.mlir": TINY_PROGRAM,
                           "in/c.json": json.dumps({"sources": w}).encode()}))
    del base
    cases.append(Case("config", "calibration-null",
                      [RP, "run", "in/p.mlir", "--config", "in/c.json", "-o",
                       "out"],
                      {"in/p.mlir": TINY_PROGRAM,
                       "in/c.json": b'{"calibration": null}'}))
    return cases


def surface_chips(rng, seeds, n):
    cases = []
    allg = open(os.path.join(REPO, "examples/all_gather.mlir"), "rb").read()
    run = [RP, "run", "in/p.mlir", "--config", "in/c.json", "-o", "out",
           "--max-instructions=200000"]
    chips_values = [0, -1, 1025, 1024, 2**31, 2**40, 1.5, "8", None]
    for c in chips_values:
        cases.append(Case("chips", f"chips={json.dumps(c)}", run,
                          {"in/p.mlir": allg,
                           "in/c.json": json.dumps({"chips": c}).encode()},
                          expect="any" if c == 1024 else "error"))
    for vm in (2**32, 2**31, 2**30):
        cases.append(Case("chips", f"chips=1024-vmem={vm}", run,
                          {"in/p.mlir": allg,
                           "in/c.json": json.dumps({
                               "chips": 1024,
                               "vmem": {"bytes": vm, "blocks": vm // 262144,
                                        "pages_per_block": 256,
                                        "page_bytes": 1024}}).encode()},
                          shell="ulimit -v 4000000;", expect="any"))
    topo = [("torus2d", [2, 2], 8), ("torus2d", [], 8), ("torus2d", [3, 3], 8),
            ("torus2d", [0, 8], 8), ("torus2d", [8], 8), ("ring", [2, 4], 8),
            ("mesh", [], 8), ("full", [], 1), ("torus2d", [2**31, 2], 8),
            ("torus2d", [-2, -4], 8)]
    for t, dims, chips in topo:
        cases.append(Case("chips", f"topology-{t}-{dims}-{chips}", run,
                          {"in/p.mlir": allg,
                           "in/c.json": json.dumps({
                               "chips": chips,
                               "ici": {"topology": t, "dims": dims}}).encode()},
                          expect="any"))
    base = json_set(seeds.config, ("chips",), 8)
    cases += config_cases("chips", seeds, rng, n // 2, base,
                          {"in/p.mlir": allg})
    # A program for 8 chips on 2.
    cases.append(Case("chips", "program-chips-mismatch", run,
                      {"in/p.mlir": allg,
                       "in/c.json": json.dumps({"chips": 2}).encode()},
                      expect="any"))
    return cases


def surface_calibration(rng, seeds, n):
    cases = []
    good = (b"# m, n in elements\nm, n, time_ns\n16, 128, 200\n"
            b"80, 128, 1000\n16, 256, 400\n80, 256, 2000\n")
    cfg = {"calibration": [{"instruction": "mxu.matmul", "file": "t.csv",
                            "keys": ["m", "n"], "time": "time_ns",
                            "unit": "ns"}]}
    run = [RP, "run", "in/p.mlir", "--config", "in/c.json", "-o", "out"]
    prog = LINALG_PROGRAM
    bad_tables = {
        "empty": b"", "header-only": b"m, n, time_ns\n",
        "no-time-column": b"m, n, t\n16, 128, 200\n",
        "nul-in-field": b"m, n, time_ns\n16, 128, 2\x0000\n",
        "nul-after": good + b"\x00junk\n",
        "negative": b"m, n, time_ns\n16, 128, -5\n",
        "nan": b"m, n, time_ns\n16, 128, nan\n",
        "inf": b"m, n, time_ns\n16, 128, inf\n",
        "huge": b"m, n, time_ns\n16, 128, 1e300\n",
        "text": b"m, n, time_ns\n16, 128, fast\n",
        "missing-field": b"m, n, time_ns\n16, 128\n",
        "extra-field": b"m, n, time_ns\n16, 128, 200, 7\n",
        "duplicate-key": b"m, n, time_ns\n16, 128, 200\n16, 128, 300\n",
        "unterminated-quote": b"m, n, time_ns\n\"16, 128, 200\n",
        "key-overflow": b"m, n, time_ns\n18446744073709551617, 128, 200\n",
        "binary": bytes(range(256)),
        "long-line": b"m, n, time_ns\n" + b"1" * 10_000_000 + b", 1, 1\n",
        "crlf": b"m, n, time_ns\r\n16, 128, 200\r\n",
    }
    for name, table in bad_tables.items():
        cases.append(Case("calibration", name, run,
                          {"in/p.mlir": prog, "in/t.csv": table,
                           "in/c.json": json.dumps(cfg).encode()},
                          expect="any" if name in ("crlf", "duplicate-key")
                          else "error"))
    for name, arg, files in special_inputs():
        c = json_set(cfg, ("calibration", 0, "file"), os.path.basename(arg)
                     if arg.startswith("in/") else arg)
        cases.append(Case("calibration", "path-" + name, run,
                          dict(files, **{"in/p.mlir": prog,
                                         "in/c.json": json.dumps(c).encode()}),
                          expect="any" if name == "empty" else "error"))
    for p, v in [(p, v) for p, v in json_paths(cfg) if len(p) > 2]:
        for w in wrong_types(v):
            c = json_set(cfg, p, w)
            cases.append(Case("calibration", "type-" + ".".join(map(str, p)),
                              run, {"in/p.mlir": prog, "in/t.csv": good,
                                    "in/c.json": json.dumps(c).encode()}))
    for i in range(n):
        t = good
        for _ in range(rng.randrange(1, 3)):
            t = mutate_bytes(rng, t)
        cases.append(Case("calibration", f"mutant-{i}", run,
                          {"in/p.mlir": prog, "in/t.csv": t,
                           "in/c.json": json.dumps(cfg).encode()},
                          expect="any"))
    cases.append(Case("calibration", "control", run,
                      {"in/p.mlir": prog, "in/t.csv": good,
                       "in/c.json": json.dumps(cfg).encode()}, expect="ok"))
    return cases


def surface_npy(rng, seeds, n):
    cases = []
    run = [RP, "run", "in/p.mlir", "--input", "0=in/a.npy", "-o", "out"]
    good = npy_bytes((8, 128))
    bad = {
        "shape-2^40": npy_bytes((2**40,), data=b"\0" * 4000),
        "v2-header-len-max": b"\x93NUMPY\x02\x00\xff\xff\xff\xff" + b" " * 4000,
        "float-shape": npy_bytes((8, 128), header="{'descr': '<f4', "
                                 "'fortran_order': False, 'shape': (8.0, 128), }"),
        "negative-shape": npy_bytes((8, 128), header="{'descr': '<f4', "
                                    "'fortran_order': False, 'shape': (-8, -128), }"),
        "wrong-shape": npy_bytes((128, 8)),
        "overflow-shape": npy_bytes((2**32, 2**32), data=b""),
        "truncated-data": good[:-100],
        "extra-data": good + b"\0" * 64,
        "bad-magic": b"\x93NUMPX" + good[6:],
        "version-9": good[:6] + b"\x09\x00" + good[8:],
        "f8": npy_bytes((8, 128), dtype="<f8", data=b"\0" * 8192),
        "big-endian": npy_bytes((8, 128), dtype=">f4"),
        "object": npy_bytes((8, 128), dtype="|O"),
        "fortran": npy_bytes((8, 128), fortran=True),
        "nul-header": good[:20] + b"\x00" + good[21:],
        "header-not-dict": npy_bytes((8, 128), header="[1, 2, 3]"),
        "header-len-past-end": b"\x93NUMPY\x01\x00\xff\xff" + b"{",
        "empty": b"",
        "only-magic": b"\x93NUMPY",
        "rank0": npy_bytes((), header="{'descr': '<f4', 'fortran_order': "
                           "False, 'shape': (), }", data=b"\0\0\0\0"),
        "huge-number-shape": npy_bytes((8, 128), header="{'descr': '<f4', "
                                       "'fortran_order': False, 'shape': "
                                       "(99999999999999999999999, 128), }"),
    }
    for name, data in bad.items():
        cases.append(Case("npy", name, run, {"in/p.mlir": TINY_PROGRAM,
                                             "in/a.npy": data}))
    for name, arg, files in special_inputs():
        cases.append(Case("npy", "path-" + name,
                          [RP, "run", "in/p.mlir", "--input", "0=" + arg, "-o",
                           "out"], dict(files, **{"in/p.mlir": TINY_PROGRAM})))
    for argname in ("9", "arg9", "%argx", "", "=", "-1", "4294967296"):
        cases.append(Case("npy", "name-" + argname,
                          [RP, "run", "in/p.mlir", "--input",
                           argname + "=in/a.npy", "-o", "out"],
                          {"in/p.mlir": TINY_PROGRAM, "in/a.npy": good}))
    cases.append(Case("npy", "twice",
                      [RP, "run", "in/p.mlir", "--input", "0=in/a.npy",
                       "--input", "arg0=in/a.npy", "-o", "out"],
                      {"in/p.mlir": TINY_PROGRAM, "in/a.npy": good}))
    for i in range(n):
        d = good
        for _ in range(rng.randrange(1, 3)):
            d = mutate_bytes(rng, d[:256]) + d[256:]
        cases.append(Case("npy", f"mutant-{i}", run,
                          {"in/p.mlir": TINY_PROGRAM, "in/a.npy": d},
                          expect="any"))
    cases.append(Case("npy", "control", run, {"in/p.mlir": TINY_PROGRAM,
                                              "in/a.npy": good}, expect="ok"))
    return cases


def surface_trace(rng, seeds, n):
    cases = []
    for kind in ("tiny.trace", "plain.trace"):
        t = seeds.read(kind)
        for i in range(n // 2):
            d = t
            for _ in range(rng.randrange(1, 3)):
                d = mutate_bytes(rng, d)
            cmd = rng.choice([[RP, "replay", "in/t.trace", "-o", "out"],
                              [RP, "trace-info", "in/t.trace"]])
            cases.append(Case("trace", f"{kind}-mutant-{i}", cmd,
                              {"in/t.trace": d}, expect="any"))
    for name, arg, files in special_inputs():
        cases.append(Case("trace", "replay-" + name,
                          [RP, "replay", arg, "-o", "out"], dict(files)))
        cases.append(Case("trace", "info-" + name, [RP, "trace-info", arg],
                          dict(files)))
    cfg2 = json.dumps({"chips": 2}).encode()
    cases.append(Case("trace", "replay-config-chips2",
                      [RP, "replay", "in/t.trace", "--config", "in/c.json",
                       "-o", "out"], {"in/t.trace": seeds.read("tiny.trace"),
                                      "in/c.json": cfg2}))
    for name, arg, files in special_inputs():
        if name == "empty":
            continue
        cases.append(Case("trace", "replay-config-" + name,
                          [RP, "replay", "in/t.trace", "--config", arg, "-o",
                           "out"], dict(files, **{"in/t.trace":
                                                  seeds.read("tiny.trace")})))
    cases.append(Case("trace", "control", [RP, "replay", "in/t.trace", "-o",
                                           "out"],
                      {"in/t.trace": seeds.read("tiny.trace")}, expect="ok"))
    return cases


def surface_image(rng, seeds, n):
    cases = []
    img = seeds.read("tiny.img")
    for i in range(n):
        d = img
        for _ in range(rng.randrange(1, 3)):
            d = mutate_bytes(rng, d)
        cases.append(Case("image", f"mutant-{i}",
                          [TR, "--accel-image-to-asm", "in/a.img", "-o", "out"],
                          {"in/a.img": d}, expect="any"))
    for name, arg, files in special_inputs():
        cases.append(Case("image", name, [TR, "--accel-image-to-asm", arg,
                                          "-o", "out"], dict(files),
                          expect="any" if name == "empty" else "error"))
    return cases


def surface_metrics(rng, seeds, n):
    cases = []
    m = seeds.read("run/metrics.json")
    prog = seeds.read("run/program.mlir")
    cmd = [OPT, "in/p.mlir", "--accel-attach-metrics=in/m.json", "-o", "out"]
    for i in range(n):
        d = m
        for _ in range(rng.randrange(1, 3)):
            d = mutate_bytes(rng, d)
        cases.append(Case("metrics", f"mutant-{i}", cmd,
                          {"in/p.mlir": prog, "in/m.json": d}, expect="any"))
    cases.append(Case("metrics", "nul", cmd,
                      {"in/p.mlir": prog, "in/m.json": m + b"\x00junk"}))
    cases.append(Case("metrics", "trailing", cmd,
                      {"in/p.mlir": prog, "in/m.json": m + b"}"}))
    for name, arg, files in special_inputs():
        cases.append(Case("metrics", name,
                          [OPT, "in/p.mlir", "--accel-attach-metrics=" + arg,
                           "-o", "out"], dict(files, **{"in/p.mlir": prog})))
    cases.append(Case("metrics", "control", cmd,
                      {"in/p.mlir": prog, "in/m.json": m}, expect="ok"))
    return cases


def surface_sweep(rng, seeds, n):
    cases = []
    base = [RP, "sweep", "in/p.mlir", "-o", "out", "--plot=false",
            "--iterations=1"]
    files = {"in/p.mlir": TINY_PROGRAM}
    bad_sets = ["", "=", "vmem.bytes", "vmem.bytes=", "vmem.bytes=,",
                "nosuch.field=1", "vmem.bytes=8Qi", "vmem.bytes=-1",
                "vmem.bytes=18446744073709551616", "chips=0",
                "dma.links[99].bytes_per_cycle=1", "dma.links[-1].x=1",
                "mxu.rows=1e400", "vmem.bytes=" + ",".join(["1Mi"] * 5000),
                "sources=1", "calibration=1"]
    for s in bad_sets:
        cases.append(Case("sweep", "set-" + s[:40], base + ["--set", s],
                          dict(files)))
    for j in ("2147483648", "-1", "4294967297", "x", "99999999999999999999"):
        cases.append(Case("sweep", "j-" + j, base + ["--set", "mxu.rows=64,128",
                                                     "-j", j], dict(files)))
    for sh in ("1/0", "2/2", "-1/2", "x", "1/", "0/4294967296", "0/1/2"):
        cases.append(Case("sweep", "shard-" + sh,
                          base + ["--set", "mxu.rows=64,128", "--shard", sh],
                          dict(files)))
    cases.append(Case("sweep", "unparsable-program",
                      base + ["--set", "mxu.rows=64,128"],
                      {"in/p.mlir": b"func.func @main( {"}))
    cases.append(Case("sweep", "bad-passes",
                      base + ["--set", "mxu.rows=64,128", "--passes=nosuch"],
                      dict(files)))
    cases.append(Case("sweep", "empty-passes",
                      base + ["--set", "mxu.rows=64,128", "--passes=,"],
                      dict(files)))
    cases.append(Case("sweep", "bad-entry",
                      base + ["--set", "mxu.rows=64,128", "--entry=nosuch"],
                      dict(files)))
    cases.append(Case("sweep", "bad-option-value",
                      base + ["--set", "mxu.rows=64,128",
                              "--passes=accel-pin-vmem{solver=bogus}"],
                      dict(files)))
    for name, arg, fl in special_inputs():
        cases.append(Case("sweep", "program-" + name,
                          [RP, "sweep", arg, "-o", "out", "--plot=false",
                           "--set", "mxu.rows=64,128"], dict(fl)))
        if name != "empty":
            cases.append(Case("sweep", "config-" + name,
                              base + ["--set", "mxu.rows=64,128", "--config",
                                      arg], dict(fl, **files)))
    for i in range(n):
        path = rng.choice(["vmem.bytes", "mxu.rows", "mxu.cols", "chips",
                           "dma.burst_bytes", "hbm.bytes_per_cycle",
                           "dma.links[0].base_latency", "vpu.lanes",
                           "ici.topology", "clock_ghz"])
        vals = ",".join(rng.choice(["0", "-1", "1", "4Gi", "1.5", "x", "",
                                    "1e9", "65537", "ring", "8Ki", "0x10"])
                        for _ in range(rng.randrange(1, 4)))
        cases.append(Case("sweep", f"random-{i}",
                          base + ["--fdo=false", "--set", f"{path}={vals}"],
                          dict(files), expect="any"))
    cases.append(Case("sweep", "control",
                      base + ["--fdo=false", "--set", "mxu.rows=64,128"],
                      dict(files), expect="ok"))
    return cases


def surface_options(rng, seeds, n):
    """Numeric and enum options of every tool, out of range."""
    cases = []
    files = {"in/p.mlir": TINY_PROGRAM}
    numeric = [
        ([RP, "run", "in/p.mlir", "-o", "out"], "--max-instructions"),
        ([RP, "run", "in/p.mlir", "-o", "out"], "--bucket-cycles"),
        ([RP, "fdo", "in/p.mlir", "-o", "out"], "--iterations"),
        ([RP, "record", "in/p.mlir", "-o", "out"], "--count"),
        ([RP, "record", "in/p.mlir", "-o", "out"], "--hit"),
        (["{bin}/accel-gen"], "--seed"),
        (["{bin}/accel-gen"], "--size"),
    ]
    for cmd, opt in numeric:
        for v in ("-1", "18446744073709551616", "x", "", "1e3", "4294967296"):
            cases.append(Case("options", f"{os.path.basename(cmd[0])}"
                              f"-{cmd[1] if len(cmd) > 1 else ''}{opt}={v}",
                              cmd + [f"{opt}={v}"], dict(files),
                              expect="any" if v == "4294967296" else "error"))
    for bp in ("pc:-1", "pc:99999999999", "op:x", "loc:", "loc:nosuch:1",
               "bogus", "pc:", "loc:in/p.mlir:0"):
        cases.append(Case("options", "break-at-" + bp,
                          [RP, "record", "in/p.mlir", "--break-at", bp, "-o",
                           "out"], dict(files)))
    passes = ["accel-pin-vmem{solver=bogus}", ",", "accel-hoist-dma,,cse",
              "accel-pipeline-dma{max-distance=-1}", "nosuch-pass",
              "accel-pipeline-dma{max-distance=99999999999999999999}",
              "builtin.module(", "accel-pin-vmem{vmem-bytes=x}"]
    for p in passes:
        cases.append(Case("options", "fdo-passes-" + p,
                          [RP, "fdo", "in/p.mlir", "-o", "out",
                           "--passes=" + p], dict(files)))
        cases.append(Case("options", "opt-passes-" + p,
                          [OPT, "in/p.mlir",
                           "--pass-pipeline=builtin.module(func.func(" + p +
                           "))"], dict(files)))
    for t in ("0", "-1", "4294967296", "x"):
        cases.append(Case("options", "frontend-tile-" + t,
                          [OPT, "in/p.mlir",
                           f"--accel-from-linalg=tile-rows={t}"],
                          {"in/p.mlir": LINALG_PROGRAM}, expect="any"))
    cases.append(Case("options", "entry-missing",
                      [RP, "run", "in/p.mlir", "--entry=nosuch", "-o", "out"],
                      dict(files)))
    cases.append(Case("options", "translate-none", [TR, "in/p.mlir"],
                      dict(files)))
    return cases


def surface_output(rng, seeds, n):
    """Output paths: symlinks, files, foreign directories, limits, signals."""
    cases = []
    prog = {"in/p.mlir": TINY_PROGRAM}
    monday = {"runs/monday/metrics.json": b"{}",
              "runs/monday/notes.txt": b"keep me\n",
              "runs/monday/sub/deep.txt": b"deep\n"}
    run = [RP, "run", "in/p.mlir"]
    cases.append(Case("output", "symlink-to-output-dir",
                      run + ["-o", "latest"],
                      dict(prog, **monday, latest=("symlink", "runs/monday")),
                      expect="ok", outs=("latest",)))
    cases.append(Case("output", "symlink-to-foreign-dir",
                      run + ["-o", "latest"],
                      dict(prog, **{"keep/a.txt": b"a"},
                           latest=("symlink", "keep")),
                      outs=("latest",)))
    cases.append(Case("output", "dangling-symlink", run + ["-o", "latest"],
                      dict(prog, latest=("symlink", "nowhere/x")),
                      expect="any", outs=("latest",)))
    cases.append(Case("output", "foreign-dir", run + ["-o", "keep"],
                      dict(prog, **{"keep/a.txt": b"a"}), outs=("keep",)))
    cases.append(Case("output", "dot", run + ["-o", "."], dict(prog),
                      outs=()))
    cases.append(Case("output", "under-a-file", run + ["-o", "f/out"],
                      dict(prog, f=b"x"), outs=()))
    cases.append(Case("output", "bad-output-dir",
                      run + ["-o", "out", "--output-dir", "f/npy"],
                      dict(prog, **{"out/metrics.json": b"{}", "f": b"x"}),
                      outs=("out",)))
    cases.append(Case("output", "relative-with-dir",
                      run + ["-o", "d/x"], dict(prog), expect="ok",
                      outs=("d",)))
    for lim in (1, 8, 64):
        cases.append(Case("output", f"ulimit-f-{lim}", run + ["-o", "out"],
                          dict(prog), shell=f"ulimit -f {lim};"))
        cases.append(Case("output", f"ulimit-f-{lim}-fdo",
                          [RP, "fdo", "in/p.mlir", "-o", "out"], dict(prog),
                          shell=f"ulimit -f {lim};"))
        cases.append(Case("output", f"ulimit-f-{lim}-opt",
                          [OPT, "{repo}/examples/llama2_mlp.mlir", "-o",
                           "out"], {}, shell=f"ulimit -f {lim};",
                          expect="any"))
    stale = "other.accel-tmp-99999999-abcdef"
    cases.append(Case("output", "stale-temporary-of-a-dead-process",
                      run + ["-o", "out"],
                      dict(prog, **{stale + "/metrics.json": b"{}"}),
                      expect="ok", outs=("out", stale), vanish=(stale,)))
    cases.append(Case("output", "record-to-dir", [RP, "record", "in/p.mlir",
                                                  "-o", "d"],
                      dict(prog, **{"d/a": b"a"}), outs=("d",)))
    cases.append(Case("output", "record-to-symlink",
                      [RP, "record", "in/p.mlir", "-o", "t.trace"],
                      dict(prog, **{"keep/t.trace": b"old"},
                           **{"t.trace": ("symlink", "keep/t.trace")}),
                      expect="ok", outs=("t.trace",)))
    # Root writes anywhere: a directory where a PNG must go makes the
    # picture unwritable.
    cases.append(Case("output", "plot-unwritable",
                      [RP, "plot", "r"],
                      {"r/metrics.json": seeds.read("run/metrics.json"),
                       "r/timeline.json": seeds.read("run/timeline.json"),
                       "r/dma_timeline.png/x": b"x",
                       "r/utilization.png/x": b"x"}, outs=()))
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        for delay in (0.3, 1.0, 2.0):
            cases.append(Case(
                "output", f"signal-{sig.name}-{delay}-fdo",
                [RP, "fdo", "{repo}/examples/llama2_mlp.mlir", "-o", "out"],
                {}, interrupt=int(sig), interrupt_after=delay, expect="any"))
            cases.append(Case(
                "output", f"signal-{sig.name}-{delay}-sweep",
                [RP, "sweep", "{repo}/examples/prefetch.mlir", "-o", "out",
                 "--plot=false", "--set", "mxu.rows=32,64,128,256"],
                {}, interrupt=int(sig), interrupt_after=delay, expect="any"))
    return cases


def accel_prog(body, args="%a: memref<8x128xf32, #hbm>, "
               "%b: memref<8x128xf32, #hbm>"):
    """A program of the accel dialect around `body`."""
    return ("#hbm = #accel.space<hbm>\n#vmem = #accel.space<vmem>\n"
            "func.func @main(" + args + ") {\n"
            "  %c0 = arith.constant 0 : index\n"
            "  %c1 = arith.constant 1 : index\n" + body +
            "  return\n}\n").encode()


V = "memref<8x128xf32, #vmem>"
H = "memref<8x128xf32, #hbm>"
FRESH_PROGRAMS = {
    # Runtime semantics the verifier cannot see.
    "loop-step-zero": ("any", "  scf.for %i = %c0 to %c1 step %c0 {\n  }\n"),
    "loop-huge-trip": ("any",
                       "  %n = arith.constant 9223372036854775807 : index\n"
                       "  scf.for %i = %c0 to %n step %c1 {\n  }\n"),
    "loop-negative-bounds": ("any",
                             "  %m = arith.constant -5 : index\n"
                             "  scf.for %i = %m to %c1 step %c1 {\n  }\n"),
    "wait-twice": ("any",
                   f"  %v = accel.alloc : {V}\n"
                   f"  %t = accel.dma_start %a, %v : {H}, {V}\n"
                   "  accel.dma_wait %t\n  accel.dma_wait %t\n"),
    "never-waited": ("any",
                     f"  %v = accel.alloc : {V}\n"
                     f"  %t = accel.dma_start %a, %v : {H}, {V}\n"),
    "sem-wait-forever": ("any", "  %n = arith.constant 5 : index\n"
                         "  accel.sem_wait 0, %n\n"),
    "remote-to-chip-99": ("any",
                          f"  %v = accel.alloc : {V}\n"
                          "  %p = arith.constant 99 : index\n"
                          f"  %t = accel.dma_start %v, %v dst_chip %p signal 0"
                          f" : {V}, {V}\n  accel.dma_wait %t\n"),
    "remote-to-self": ("any",
                       f"  %v = accel.alloc : {V}\n"
                       "  %p = accel.chip_id\n"
                       f"  %t = accel.dma_start %v, %v dst_chip %p signal 0"
                       f" : {V}, {V}\n  accel.dma_wait %t\n"),
    "read-before-dma": ("any",
                        f"  %v = accel.alloc : {V}\n"
                        f"  accel.vexp %v, %v : {V}, {V}\n"),
    "race-on-buffer": ("any",
                       f"  %v = accel.alloc : {V}\n"
                       f"  %t = accel.dma_start %a, %v : {H}, {V}\n"
                       f"  accel.vexp %v, %v : {V}, {V}\n"
                       "  accel.dma_wait %t\n"),
    "dma-shape-mismatch": ("error",
                           "  %v = accel.alloc : memref<4x128xf32, #vmem>\n"
                           f"  %t = accel.dma_start %a, %v : {H}, "
                           "memref<4x128xf32, #vmem>\n"),
    "dma-hbm-to-hbm": ("any", f"  %t = accel.dma_start %a, %b : {H}, {H}\n"
                       "  accel.dma_wait %t\n"),
    "matmul-shape-mismatch": ("error",
                              "  %x = accel.alloc : memref<8x64xf32, #vmem>\n"
                              "  %w = accel.alloc : memref<128x128xf32, #vmem>\n"
                              "  %y = accel.alloc : memref<8x128xf32, #vmem>\n"
                              "  accel.matmul %x, %w, %y : memref<8x64xf32, "
                              "#vmem>, memref<128x128xf32, #vmem>, "
                              "memref<8x128xf32, #vmem>\n"),
    "vpu-on-hbm": ("error", f"  accel.vexp %a, %b : {H}, {H}\n"),
    "alloc-zero": ("any", "  %v = accel.alloc : memref<0x128xf32, #vmem>\n"),
    "alloc-over-vmem": ("error",
                        "  %v = accel.alloc : memref<8192x8192xf32, #vmem>\n"),
    "many-allocs": ("any", "".join(
        f"  %v{i} = accel.alloc : memref<1024x1024xf32, #vmem>\n"
        for i in range(12))),
    "subview-out-of-bounds": ("any",
                              f"  %v = accel.alloc : {V}\n"
                              "  %s = memref.subview %v[4, 0] [8, 128] [1, 1]"
                              f" : {V} to memref<8x128xf32, strided<[128, 1],"
                              " offset: 512>, #vmem>\n"),
    "load-out-of-bounds": ("any",
                           "  %v = accel.alloc : memref<8x128xi32, #vmem>\n"
                           "  %k = arith.constant 100000 : index\n"
                           "  %x = accel.load %v[%k, %c0] : "
                           "memref<8x128xi32, #vmem>\n"),
    "divide-by-zero": ("any", "  %z = arith.divui %c1, %c0 : index\n"
                       "  scf.for %i = %c0 to %z step %c1 {\n  }\n"),
    "while-forever": ("any",
                      "  %true = arith.constant true\n"
                      "  scf.while : () -> () {\n"
                      "    scf.condition(%true)\n  } do {\n    scf.yield\n  }\n"),
    "unregistered-op": ("error", '  "foo.bar"() : () -> ()\n'),
    "generic-form-alloc": ("any",
                           '  %v = "accel.alloc"() : () -> ' + V + "\n"),
    "crlf": ("any", "  %v = accel.alloc : " + V + "\r\n"),
    "unicode-name": ("any", "  %\u00e9t\u00e9 = accel.alloc : " + V + "\n"),
    "index-arg": ("any", ""),
}


def surface_fresh(rng, seeds, n):
    """50 inputs on surfaces issue 31 did not change: the dialect's runtime
    semantics, plot, config, accel-gen, record's window, the plugin."""
    cases = []
    for name, (expect, body) in FRESH_PROGRAMS.items():
        args = ("%a: memref<8x128xf32, #hbm>, %b: memref<8x128xf32, #hbm>"
                if name != "index-arg" else "%a: index, %b: i1")
        cases.append(Case("fresh", name,
                          [RP, "run", "in/p.mlir", "-o", "out",
                           "--max-instructions=2000000"],
                          {"in/p.mlir": accel_prog(body, args)},
                          expect=expect))
    prog = {"in/p.mlir": TINY_PROGRAM}
    run_dir = {"r/" + f: seeds.read("run/" + f)
               for f in ("metrics.json", "timeline.json", "report.txt")}
    plot = [RP, "plot", "r"]
    for extra, exp in ((["--chip=99"], "error"), (["--dmas=5:2"], "error"),
                       (["--dmas=x"], "error"), (["--dmas=0:0"], "any"),
                       (["--dmas=0:18446744073709551615"], "any")):
        cases.append(Case("fresh", "plot" + extra[0], plot + extra,
                          dict(run_dir), expect=exp, outs=("r",)))
    cases.append(Case("fresh", "plot-not-an-output", [RP, "plot", "r"],
                      {"r/x": b"x"}, outs=("r",)))
    cases.append(Case("fresh", "plot-missing", [RP, "plot", "nosuch"], {},
                      outs=()))
    cases.append(Case("fresh", "plot-metrics-garbage", [RP, "plot", "r"],
                      {"r/metrics.json": b"{\"dma\": 5}",
                       "r/timeline.json": b"[]"}, outs=("r",)))
    cases.append(Case("fresh", "config-print-and-file",
                      [RP, "config", "--print-default", "--config", "in/c.json"],
                      {"in/c.json": b"{}"}, expect="any"))
    cases.append(Case("fresh", "config-to-dir", [RP, "config", "-o", "d"],
                      {"d/x": b"x"}, outs=("d",)))
    for extra in (["--seed=1", "--size=0"], ["--seed=1", "--size=1000"],
                  ["--nosuch"], ["--seed=1", "-o", "f/x"]):
        cases.append(Case("fresh", "gen" + "".join(extra),
                          ["{bin}/accel-gen"] + extra, {"f": b"x"},
                          expect="any" if "--size=1000" in extra else "error",
                          outs=()))
    for bp in ("op:999999", "loc:in/p.mlir:999", "pc:0"):
        cases.append(Case("fresh", "record-break-" + bp,
                          [RP, "record", "in/p.mlir", "--break-at", bp,
                           "--count=5", "-o", "out"], dict(prog),
                          expect="ok" if bp == "pc:0" else "error"))
    cases.append(Case("fresh", "record-to-stdout",
                      [RP, "record", "in/p.mlir", "--count=5", "-o", "-"],
                      dict(prog), expect="any"))
    cases.append(Case("fresh", "translate-split-empty",
                      [TR, "--mlir-to-accel-asm", "--split-input-file",
                       "in/p.mlir"], {"in/p.mlir": b"// -----\n// -----\n"},
                      expect="any"))
    cases.append(Case("fresh", "translate-asm-of-garbage",
                      [TR, "--accel-image-to-asm", "in/p.mlir"],
                      dict(prog)))
    plugin = "{build}/lib/AccelPlugin.so"
    cases.append(Case("fresh", "plugin-bad-program",
                      ["/usr/lib/llvm-22/bin/mlir-opt",
                       "--load-dialect-plugin=" + plugin, "in/p.mlir"],
                      {"in/p.mlir": b"accel.nosuch\n"}))
    cases.append(Case("fresh", "replay-plain-output-of-run",
                      [RP, "replay", "{seeds}/run/metrics.json", "-o", "out"],
                      {}))
    cases.append(Case("fresh", "run-two-programs",
                      [RP, "run", "in/p.mlir", "in/p.mlir", "-o", "out"],
                      dict(prog)))
    cases.append(Case("fresh", "run-no-program", [RP, "run", "-o", "out"], {}))
    cases.append(Case("fresh", "unknown-subcommand", [RP, "nosuch"], {}))
    return cases


SURFACES = {
    "program": surface_program, "frontend": surface_frontend,
    "config": surface_config, "chips": surface_chips,
    "calibration": surface_calibration, "npy": surface_npy,
    "trace": surface_trace, "image": surface_image,
    "metrics": surface_metrics, "sweep": surface_sweep,
    "options": surface_options, "output": surface_output,
    "fresh": surface_fresh,
}


# ---------------------------------------------------------------------------
# Running and classifying


def snapshot(root):
    """path -> (kind, digest) for everything under root, links not followed."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, root)
            try:
                st = os.lstat(p)
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(st.st_mode):
                snap[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                snap[rel] = ("dir", "")
            elif stat.S_ISREG(st.st_mode):
                h = hashlib.sha1()
                with open(p, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
                snap[rel] = ("file", h.hexdigest())
            else:
                snap[rel] = ("other", "")
    return snap


def under(rel, prefixes):
    return any(rel == p or rel.startswith(p + os.sep) for p in prefixes)


def make_files(root, files):
    feeders = []
    for rel, content in files.items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if isinstance(content, bytes):
            with open(p, "wb") as f:
                f.write(content)
        elif content[0] == "dir":
            os.makedirs(p, exist_ok=True)
        elif content[0] == "symlink":
            os.symlink(content[1], p)
        elif content[0] == "fifo-yes":
            os.mkfifo(p)
            # `yes` blocks in open() until the tool opens the FIFO (or is
            # killed after the run).
            feeders.append(subprocess.Popen(
                ["sh", "-c", 'exec yes "garbage" > "$0"', p],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True))
    return feeders


def sentinel(root):
    """A tree of data that no command may touch."""
    files = {"precious/data.bin": os.urandom(4096),
             "precious/notes.txt": b"do not delete\n",
             "runs/tuesday/metrics.json": b"{\"keep\": true}",
             "runs/tuesday/report.txt": b"tuesday\n"}
    make_files(root, files)


def resolve_outs(root, outs):
    """The out paths and, for a symlink, what it points to (relative)."""
    res = set()
    for o in outs:
        res.add(o)
        p = os.path.join(root, o)
        if os.path.islink(p):
            t = os.path.normpath(os.path.join(os.path.dirname(p),
                                              os.readlink(p)))
            rel = os.path.relpath(t, root)
            if not rel.startswith(".."):
                res.add(rel)
    return sorted(res)


def run_case(case, args, seeds_dir, index):
    root = tempfile.mkdtemp(prefix=f"c{index:05d}-", dir=args.work)
    tmp = os.path.join(root, "tmp")
    os.makedirs(tmp)
    sentinel(root)
    feeders = make_files(root, case.files)
    outs = resolve_outs(root, case.outs)
    before = snapshot(root)
    subst = {"bin": args.bin, "repo": REPO, "seeds": seeds_dir,
             "build": os.path.dirname(args.bin)}
    argv = list(case.argv)
    for k, v in subst.items():
        argv = [a.replace("{" + k + "}", v) for a in argv]
    if case.shell:
        cmd = ["sh", "-c", case.shell + ' exec "$@"', "sh"] + argv
    else:
        cmd = argv
    env = dict(os.environ, TMPDIR=tmp)
    env.pop("ACCEL_PROGRESS", None)

    def limits():
        import resource
        os.setsid()
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if args.mem_mb:
            b = args.mem_mb << 20
            resource.setrlimit(resource.RLIMIT_AS, (b, b))

    start = time.monotonic()
    for attempt in range(10):
        try:
            proc = subprocess.Popen(cmd, cwd=root, env=env,
                                    stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, preexec_fn=limits)
            break
        except OSError:  # a binary being relinked by a concurrent build
            if attempt == 9:
                raise
            time.sleep(2)
    if case.interrupt:
        def send():
            time.sleep(case.interrupt_after)
            try:
                os.kill(proc.pid, case.interrupt)
            except ProcessLookupError:
                pass
        threading.Thread(target=send, daemon=True).start()
    hang = False
    try:
        out, err = proc.communicate(case.stdin, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        hang = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
    elapsed = time.monotonic() - start
    for f in feeders:
        try:
            os.killpg(f.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        f.wait()
    rc = proc.returncode
    err_text = err.decode("utf-8", "replace")
    after = snapshot(root)
    outcome = classify(case, rc, hang, err_text, before, after, outs)
    if outcome == "ok" and not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return {"surface": case.surface, "name": case.name, "outcome": outcome,
            "rc": rc, "seconds": round(elapsed, 3), "dir": root,
            "argv": argv, "stderr": err_text[-2000:]}


def classify(case, rc, hang, err, before, after, outs):
    if hang:
        return "hang"
    interrupted = case.interrupt and rc in (-case.interrupt,
                                            128 + case.interrupt)
    if not interrupted and (rc < 0 or rc >= 128 or
                            any(m in err for m in CRASH_MARKERS)):
        return "crash"
    # Outside the output paths: nothing changed or vanished.
    for rel, v in before.items():
        if under(rel, outs) or rel.startswith("tmp" + os.sep):
            continue
        if after.get(rel) != v:
            return "touched-outside"
    for rel in after:
        if rel in before or under(rel, outs):
            continue
        if ".accel-tmp-" in rel or rel.endswith(".tmp.png") or \
                rel.startswith("tmp" + os.sep):
            return "leftover"
        return "touched-outside"
    # A symbolic link given as an output stays that link.
    for o in case.outs:
        if before.get(o, ("",))[0] == "link" and after.get(o) != before[o]:
            return "touched-outside"
    for v in case.vanish:
        if v in after:
            return "leftover"
    failed = rc != 0
    if failed or case.interrupt:
        for rel in set(before) | set(after):
            if under(rel, outs) and before.get(rel) != after.get(rel) and \
                    not (case.interrupt and rc == 0):
                return "partial"
    if case.expect == "ok":
        return "ok" if rc == 0 else "control-failed"
    if case.expect == "error" and rc == 0:
        return "exit0-garbage"
    if failed and not interrupted and not err.strip():
        return "unclear"
    return "ok"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--sample", type=int, default=0,
                    help="run this many cases drawn at random (0: all)")
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--mutants", type=int, default=60,
                    help="random mutants per surface")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--mem-mb", type=int, default=4096)
    ap.add_argument("--json", help="write every outcome to this file")
    ap.add_argument("--list", action="store_true",
                    help="list the cases and exit")
    ap.add_argument("--keep", action="store_true",
                    help="keep the directories of passing cases too")
    ap.add_argument("--surface", action="append", choices=sorted(SURFACES))
    args = ap.parse_args()
    args.bin = os.path.join(os.path.abspath(args.build), "bin")
    if not os.path.exists(os.path.join(args.bin, "accel-replay")):
        print(f"campaign: {args.bin}/accel-replay not found (build first)",
              file=sys.stderr)
        return 2
    args.work = tempfile.mkdtemp(prefix="accel-campaign-")
    seeds = Seeds(os.path.abspath(args.build), args.work)
    rng = random.Random(args.seed)
    cases = []
    for name in sorted(args.surface or SURFACES):
        cases += SURFACES[name](random.Random(f"{args.seed}-{name}"), seeds,
                                args.mutants)
    if args.sample and args.sample < len(cases):
        # Every surface's hand-made cases first, then random ones.
        by = defaultdict(list)
        for c in cases:
            by[c.surface].append(c)
        per = max(1, args.sample // len(by))
        picked = []
        for s, cs in sorted(by.items()):
            picked += rng.sample(cs, min(per, len(cs)))
        cases = picked
    if args.list:
        for c in cases:
            print(f"{c.surface:12} {c.expect:6} {c.name}")
        return 0
    print(f"campaign: {len(cases)} cases, {args.jobs} at once, "
          f"{args.timeout:g} s and {args.mem_mb or 'no'} MiB each; "
          f"work in {args.work}", file=sys.stderr)
    results = []
    done = 0
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_case, c, args, seeds.dir, i)
                   for i, c in enumerate(cases)]
        for f in futures:
            r = f.result()
            results.append(r)
            done += 1
            if r["outcome"] != "ok":
                print(f"  {r['outcome']}: {r['surface']}/{r['name']} "
                      f"(exit {r['rc']}; {r['dir']})", file=sys.stderr)
            if done % 100 == 0:
                print(f"campaign: {done}/{len(cases)}", file=sys.stderr)
    table = defaultdict(Counter)
    for r in results:
        table[r["surface"]][r["outcome"]] += 1
    cols = ("ok",) + FAILURE_CLASSES
    print("| surface | cases | " + " | ".join(cols) + " |")
    print("|---|---:|" + "---:|" * len(cols))
    total = Counter()
    for s in sorted(table):
        n = sum(table[s].values())
        total.update(table[s])
        print(f"| {s} | {n} | " +
              " | ".join(str(table[s][c]) for c in cols) + " |")
    print(f"| **all** | {sum(total.values())} | " +
          " | ".join(str(total[c]) for c in cols) + " |")
    bad = sum(total[c] for c in FAILURE_CLASSES)
    print(f"campaign: {sum(total.values())} cases, {bad} failures")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    if bad == 0 and not args.keep:
        shutil.rmtree(args.work, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
