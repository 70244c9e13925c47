"""Writes a .npy file with any header, for the .npy reader's error tests
(test/EndToEnd/npy-header.test; the format: numpy.lib.format).

  make-npy.py OUT VERSION DICT DATA_BYTES [HEADER_LENGTH]

VERSION is 1, 2 or 3 (or any byte, for the version check); DICT the header
dict's text, padded with spaces and a newline as NumPy pads it; DATA_BYTES
how many bytes of data follow (little-endian f32 0.0, 1.0, 2.0, ...);
HEADER_LENGTH, when given, replaces the header length field (0x... allowed).
"""
import struct
import sys

out, version, text, data_bytes = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
length_bytes = 2 if version == 1 else 4
header = text.encode("latin1")
pad = (64 - (6 + 2 + length_bytes + len(header) + 1) % 64) % 64
header += b" " * pad + b"\n"
length = len(header) if len(sys.argv) < 6 else int(sys.argv[5], 0)
data = b"".join(struct.pack("<f", float(i)) for i in range(data_bytes // 4 + 1))
with open(out, "wb") as f:
    f.write(b"\x93NUMPY" + bytes([version, 0]))
    f.write(struct.pack("<H" if length_bytes == 2 else "<I", length))
    f.write(header)
    f.write(data[:data_bytes])
