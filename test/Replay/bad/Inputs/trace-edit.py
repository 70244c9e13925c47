"""Rewrites one field of an accel trace (docs/trace-format.md) and reseals
the header (payload size and CRC-32), so that only the reader's and the
replayer's own checks can reject the result.

  trace-edit.py IN OUT FIELD VALUE

FIELD (VALUE is an integer, 0x... allowed):
  start-index | start-pc | next-dma-id
  register.I.value            the I-th saved register's value
  memory.I.addr | memory.I.space | memory.I.chip
  dma.I.id | dma.I.pc         a DMA in flight
  dma.I.src.F | dma.I.dst.F   its source or destination tile, F one of
                              chip, space, base, rows, cols, stride,
                              elem-bytes
  pc.I                        the I-th PC of the window
  pc-count | register-count | memory-count | dma-count | final-count |
  written-count               a count only (the records stay)
  written.I.begin | written.I.end | written.I.space | written.I.chip
  image.origin-count          the program image's origin count only
  image.buffer.I.base | image.buffer.I.size
  zstd-size                   a compressed payload's declared size (the
                              payload is not decompressed)
  zstd-size-plus              a compressed payload's declared size plus
                              VALUE
"""
import struct
import sys
import zlib

src, dst, field, value = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4], 0)
data = bytearray(open(src, "rb").read())
HEADER = 32


def reseal(buf):
    struct.pack_into("<Q", buf, 24, len(buf) - HEADER)
    struct.pack_into("<I", buf, 20, zlib.crc32(bytes(buf[HEADER:])) & 0xFFFFFFFF)


if field in ("zstd-size", "zstd-size-plus"):
    assert struct.unpack_from("<I", data, 16)[0] & 1, "not a compressed trace"
    if field == "zstd-size-plus":
        value += struct.unpack_from("<Q", data, HEADER)[0]
        print("zstd-size %d" % value)
    struct.pack_into("<Q", data, HEADER, value)
    reseal(data)
    open(dst, "wb").write(bytes(data))
    sys.exit(0)
assert struct.unpack_from("<I", data, 16)[0] == 0, "record with --compress=false"


class Reader:
    """Walks the payload, remembering where each field and its record
    begin."""

    def __init__(self, buf, at):
        self.buf, self.at, self.where, self.record = buf, at, {}, None

    def start(self):
        self.record = self.at

    def take(self, name, fmt):
        self.where[name] = (self.at, fmt, self.record)
        v = struct.unpack_from(fmt, self.buf, self.at)[0]
        self.at += struct.calcsize(fmt)
        return v

    def count(self, name, fmt):
        """A count: a field of its own, not of the previous record."""
        self.record = None
        return self.take(name, fmt)


def image_fields(r, base):
    """Records the image's fields (docs/isa.md, ACCELBIN) in r.where."""
    at = base + 12
    for _ in ("name", "fingerprint"):
        (n,) = struct.unpack_from("<I", data, at)
        at += 4 + n
    (ninst,) = struct.unpack_from("<I", data, at)
    at += 4 + 16 * ninst
    (nbuf,) = struct.unpack_from("<I", data, at)
    at += 4
    for i in range(nbuf):
        (n,) = struct.unpack_from("<I", data, at)
        at += 4 + n + 1 + 1 + 1 + 4  # name, space, init, type, seed
        r.where["image.buffer.%d.base" % i] = (at, "<Q", None)
        r.where["image.buffer.%d.size" % i] = (at + 8, "<Q", None)
        at += 16
        (rank,) = struct.unpack_from("<I", data, at)
        at += 4 + 8 * rank
    r.where["image.origin-count"] = (at, "<I", None)


r = Reader(data, HEADER)
n = r.take("config-size", "<Q")
r.at += n
n = r.take("image-size", "<Q")
image_fields(r, r.at)
r.at += n
r.record = None
r.take("start-index", "<Q")
r.take("start-pc", "<I")
r.take("next-dma-id", "<I")
r.take("full-state", "<Q")
for i in range(r.count("register-count", "<I")):
    r.start()
    r.take("register.%d.reg" % i, "<B")
    r.take("register.%d.value" % i, "<Q")
for i in range(r.count("memory-count", "<I")):
    r.start()
    r.take("memory.%d.chip" % i, "<I")
    r.take("memory.%d.space" % i, "<B")
    r.take("memory.%d.addr" % i, "<Q")
    n = r.take("memory.%d.size" % i, "<Q")
    r.at += n
for i in range(r.count("dma-count", "<I")):
    r.start()
    r.take("dma.%d.id" % i, "<I")
    r.take("dma.%d.pc" % i, "<I")
    for tile in ("src", "dst"):
        for name, fmt in (("chip", "<I"), ("space", "<B"), ("base", "<Q"),
                          ("rows", "<Q"),
                          ("cols", "<Q"), ("stride", "<Q"),
                          ("elem-bytes", "<B")):
            r.take("dma.%d.%s.%s" % (i, tile, name), fmt)
for i in range(r.count("pc-count", "<Q")):
    r.start()
    r.take("pc.%d" % i, "<I")
for i in range(r.count("final-count", "<I")):
    r.at += 9
for i in range(r.count("written-count", "<I")):
    r.start()
    r.take("written.%d.chip" % i, "<I")
    r.take("written.%d.space" % i, "<B")
    r.take("written.%d.begin" % i, "<Q")
    r.take("written.%d.end" % i, "<Q")

if field not in r.where:
    sys.exit("no field %s in this trace" % field)
at, fmt, record = r.where[field]
struct.pack_into(fmt, data, at, value)
reseal(data)
open(dst, "wb").write(bytes(data))
print("%s at byte %d, record at byte %d"
      % (field, at, record if record is not None else at))
