#!/usr/bin/env python3
"""Writes the seeds of fuzz-npy and fuzz-csv (fuzz/README.md) into
fuzz/corpus/fuzz-npy and fuzz/corpus/fuzz-csv: small valid inputs of every
kind the readers accept, and a few invalid ones of the kinds issue 31
fixed. fuzz/make-seeds.sh runs it; it needs no build.

A fuzz-npy input is a prefix choosing the argument (byte 0: element type,
0 f32, 1 i32, 2 bf16; byte 1: rank; a little-endian u16 per dimension),
then the .npy file. A fuzz-csv input is the CSV text.
"""
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def npy(version, text, data, length=None):
    """A .npy file: magic, version, header length, the header dict padded
    with spaces and a newline as NumPy pads it, the data."""
    lb = 2 if version == 1 else 4
    h = text.encode()
    pad = (64 - (6 + 2 + lb + len(h) + 1) % 64) % 64
    h += b" " * pad + b"\n"
    n = len(h) if length is None else length
    return (b"\x93NUMPY" + bytes([version, 0]) +
            struct.pack("<H" if lb == 2 else "<I", n) + h + data)


def prefix(elem, dims):
    return bytes([elem, len(dims)]) + b"".join(struct.pack("<H", d) for d in dims)


def f32(n):
    return b"".join(struct.pack("<f", i * 0.5) for i in range(n))


def i32(n):
    return b"".join(struct.pack("<i", i - 3) for i in range(n))


def u16(n):
    return b"".join(struct.pack("<H", 0x3F80 + i) for i in range(n))


def header(descr, shape, order="False"):
    return "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, order, shape)


npy_seeds = {
    "f32-2x3.bin": prefix(0, [2, 3]) + npy(1, header("<f4", "(2, 3)"), f32(6)),
    "i32-4.bin": prefix(1, [4]) + npy(1, header("<i4", "(4,)"), i32(4)),
    "bf16-bits-2x2.bin": prefix(2, [2, 2]) + npy(1, header("<u2", "(2, 2)"), u16(4)),
    "bf16-v2-void-3.bin": prefix(2, [3]) + npy(2, header("<V2", "(3,)"), u16(3)),
    "bf16-from-f32-2x2.bin": prefix(2, [2, 2]) + npy(
        1, header("<f4", "(2, 2)"), struct.pack("<4f", 1.0, 1.1, -0.0, 3e38)),
    "f32-v3-scalar.bin": prefix(0, []) + npy(
        3, '{"descr": "<f4", "fortran_order": True, "shape": ()}', f32(1)),
    "f32-1x2x2-fortran.bin": prefix(0, [1, 2, 2]) + npy(
        1, header("<f4", "(1, 2, 2)", "True"), f32(4)),
    "bad-float-shape.bin": prefix(0, [8, 128]) + npy(1, header("<f4", "(8.0, 128)"), f32(16)),
    "bad-huge-shape.bin": prefix(0, [65535, 65535, 65535]) + npy(
        1, header("<f4", "(1099511627776,)"), f32(64)),
    "bad-v2-length.bin": prefix(0, [2, 3]) + npy(2, header("<f4", "(2, 3)"), f32(6), 0xFFFFFFFF),
    "bad-truncated.bin": prefix(1, [4]) + npy(1, header("<i4", "(4,)"), i32(3)),
}
csv_seeds = {
    "dma-bytes.csv": "bytes,cycles\n0,500\n65536,1012\n",
    "mxu-m-n.csv": "# m x n\nm, n, cycles, note\n16, 128, 200, a\n"
                   "16, 256, 400, \"quoted, with a comma\"\n80, 128, 1000, b\n"
                   "80, 256, 1600, c\n",
    "mxu-m-n-k.csv": "m,n,k,time_ns\n8,128,128,10\n8,128,256,20\n8,256,128,30\n"
                     "8,256,256,40\n16,128,128,50\n16,128,256,60\n16,256,128,70\n"
                     "16,256,256,80.5\n",
    "bad-hole.csv": "m,n,cycles\n1,1,5\n1,2,6\n2,1,7\n",
    "bad-nul.csv": "bytes,cycles\n0,500\x009\n65536,1012\n",
    "bad-quote.csv": "bytes,cycles\n\"0,500\n65536,1012\n",
}
for directory, seeds in (("fuzz-npy", npy_seeds), ("fuzz-csv", csv_seeds)):
    out = os.path.join(here, "corpus", directory)
    os.makedirs(out, exist_ok=True)
    for name, content in seeds.items():
        mode = "wb" if isinstance(content, bytes) else "w"
        with open(os.path.join(out, name), mode) as f:
            f.write(content)
