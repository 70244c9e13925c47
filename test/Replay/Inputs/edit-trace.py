"""Edits an accel trace file for the bad-trace tests (docs/trace-format.md).

  edit-trace.py IN OUT truncate N        keep the first N bytes
  edit-trace.py IN OUT set-byte OFF VAL  set one byte (checksum left stale)
  edit-trace.py IN OUT set-i32 OLD NEW   replace the first i32 table entry
                                         equal to OLD that follows 0..OLD-1
                                         with NEW, then fix the CRC-32 so
                                         only the replay can notice
"""
import struct
import sys
import zlib

src, dst, mode = sys.argv[1], sys.argv[2], sys.argv[3]
data = bytearray(open(src, "rb").read())
if mode == "truncate":
    data = data[: int(sys.argv[4])]
elif mode == "set-byte":
    data[int(sys.argv[4])] = int(sys.argv[5])
elif mode == "set-i32":
    old, new = int(sys.argv[4]), int(sys.argv[5])
    pattern = b"".join(struct.pack("<i", i) for i in range(old + 1))
    at = data.find(pattern)
    if at < 0:
        sys.exit("table not found in the trace")
    data[at + 4 * old : at + 4 * old + 4] = struct.pack("<i", new)
    struct.pack_into("<I", data, 20, zlib.crc32(bytes(data[32:])) & 0xFFFFFFFF)
else:
    sys.exit("unknown mode " + mode)
open(dst, "wb").write(bytes(data))
