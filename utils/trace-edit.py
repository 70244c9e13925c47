#!/usr/bin/env python3
"""A general editor of accel traces (docs/trace-format.md): it writes a
faulty variant of a trace, for the lit tests in test/Replay/bad and the
doc-check markers of docs/trace-format.md (its error table), which run
the tools on each variant and check their errors.

    utils/trace-edit.py IN OUT EDIT...
    utils/trace-edit.py IN --fields

IN is a trace of `accel-replay record --compress=false` (format version 3
or 4), or a compressed one for the zstd-size edits only. The EDITs are
applied in order, then the header is resealed (payload length and CRC-32
recomputed) so that only the reader's later checks and the replay can
reject OUT. An edit that names a field or a record prints "NAME at byte
N" ("FIELD=V at byte N" for a field it sets to V): its offset in the file
(in the payload of a compressed variant: N - 32). --fields lists every
field: offset, name, value.

  FIELD=V, FIELD+=V  set a field, or add V to it (V an integer, 0x... or
                     negative allowed), e.g. dma.0.src.elem-bytes,
                     written.1.begin, pc-count, event.3.kind, op.1.reads,
                     timing.0.link, sys.chips, image.origin-count,
                     image.buffer.3.base (--fields lists them)
  at:NAME            print where a field or a record (memory.0, dma.0,
                     written.2, ...) starts; changes nothing
  del:RECORD         remove a record (dma.0, answer.27, ...), its count
                     minus 1
  dup:RECORD         repeat a record after itself, its count plus 1
  cut:FIELD          end the file inside FIELD (after its first byte)
  append:N           append N zero bytes to the payload
  zstd               wrap the payload in one zstd frame of raw blocks (no
                     compressor needed) and set flag bit 0; after it only:
  zstd-size=V, zstd-size+=V  the declared uncompressed size (byte 32) of
                     a compressed payload (the payload is not decompressed)
  byte:OFF=V         one byte of the file (byte:40=0: the frame's magic)
"""
import struct
import sys
import zlib

HEADER = 32
# Records as "name:format ...": struct formats, T a tile, W a u128 (two
# u64), S a u64 length and that many bytes; an empty name is the record.
TILE = "chip:I space:B base:Q rows:Q cols:Q stride:Q elem-bytes:B"
REG = "reg:B value:Q"
INCOMING = "tile:T writes:B complete:Q chip:I dma-id:I pc:I"
TIMING = ("id:I link:I bytes:Q bus-bytes:Q issue:Q base-end:Q "
          "transfer-start:Q complete:Q chip:I src-chip:I dst-chip:I hops:I "
          "semaphore:I")
EVENTS = ("from:W length:W now:W", "tile:T bytes:S",
          "sem:I cycle:Q chip:I dma-id:I", INCOMING)


class Layout:
    """Walks a plain trace, noting each field's (offset, format) and each
    record's (begin, end, the field counting it)."""

    def __init__(self, data):
        self.d, self.at, self.fields, self.records = data, HEADER, {}, {}
        try:
            self.walk()
        except (struct.error, IndexError):  # cut or garbled: the fields
            pass                             # so far

    def take(self, name, fmt):
        if fmt == "T":
            return self.rec(name, TILE)
        if fmt == "W":
            return self.take(name, "Q"), self.take(name + ".hi", "Q")
        if fmt == "S":
            n = self.take(name + ".size", "Q")
            self.at += n
            return None
        self.fields[name] = (self.at, "<" + fmt)
        v = struct.unpack_from("<" + fmt, self.d, self.at)[0]
        self.at += struct.calcsize(fmt)
        return v

    def rec(self, name, spec):
        """The fields of spec, named name.FIELD; returns the last."""
        for item in spec.split():
            field, fmt = item.split(":")
            v = self.take(".".join(p for p in (name, field) if p), fmt)
        return v

    def each(self, name, fmt, spec, count=None):
        """A count, then its records name.I, each read as spec (a callable
        for records of several kinds)."""
        count = count or name + "-count"
        for i in range(self.take(count, fmt)):
            rec, begin = "%s.%d" % (name, i), self.at
            spec(rec) if callable(spec) else self.rec(rec, spec)
            self.records[rec] = (begin, self.at, count)

    def image(self):
        """The image's buffer table and origin count (docs/isa.md)."""
        u32 = lambda at: struct.unpack_from("<I", self.d, at)[0]
        at = self.at + 12  # magic, ISA version
        at += 4 + u32(at)  # name
        at += 4 + u32(at)  # fingerprint
        at += 4 + 16 * u32(at)  # code
        nbuf, at = u32(at), at + 4
        for i in range(nbuf):
            at += 4 + u32(at) + 7  # name, space, init, type, seed
            self.fields["image.buffer.%d.base" % i] = (at, "<Q")
            self.fields["image.buffer.%d.size" % i] = (at + 8, "<Q")
            at += 16
            at += 4 + 8 * u32(at)  # shape
        self.fields["image.origin-count"] = (at, "<I")

    def walk(self):
        assert struct.unpack_from("<I", self.d, 16)[0] == 0, \
            "record with --compress=false"
        self.take("config", "S")
        n = self.take("image.size", "Q")
        self.image()
        self.at += n
        self.rec("", "start-index:Q start-pc:I next-dma-id:I full-state:Q")
        self.each("register", "I", REG)
        self.each("memory", "I", "chip:I space:B addr:Q bytes:S")
        self.each("dma", "I", "id:I pc:I src:T dst:T")
        self.each("pc", "Q", ":I")
        self.each("final", "I", REG)
        self.each("written", "I", "chip:I space:B begin:Q end:Q")
        self.take("written-crc", "I")
        if struct.unpack_from("<I", self.d, 8)[0] == 4:
            self.system()

    def system(self):
        self.rec("sys", "chip:I chips:I last-issue:Q first:B")
        for u in range(4):
            self.take("unit-free.%d" % u, "Q")
        for u in range(4):
            self.take("op.%d.end" % u, "Q")
            for rw in ("reads", "writes"):
                name = "op.%d.%s" % (u, rw)
                self.each(name, "I", TILE, name)
        self.each("link", "I", "free:Q")
        self.take("remote-drain", "Q")
        self.each("hbm", "I", "start:W end:W")
        self.each("timing", "I", TIMING)
        self.each("signal", "I", "sem:I cycle:Q chip:I dma-id:I")
        self.each("incoming", "I", INCOMING)
        self.each("event", "Q", lambda r: self.rec(r, EVENTS[self.rec(
            r, "index:Q kind:B")]))
        self.each("answer", "Q", "inject:Q first:Q last:Q has-hbm:B "
                  "hbm-start:W read:S")


def apply(data, edit, zstd):
    """Applies one edit; returns the new data."""
    op, _, arg = edit.partition(":")
    if op in ("del", "dup"):
        lay = Layout(data)
        b, e, count = lay.records[arg]
        at, fmt = lay.fields[count]
        n = struct.unpack_from(fmt, data, at)[0] + (1 if op == "dup" else -1)
        struct.pack_into(fmt, data, at, n)
        print("%s at byte %d" % (arg, b))
        return data[:e] + data[b:] if op == "dup" else data[:b] + data[e:]
    if op == "at":
        lay = Layout(data)
        at = (lay.records.get(arg) or lay.fields[arg])[0]
        print("%s at byte %d" % (arg, at))
        return data
    if op == "cut":
        at = Layout(data).fields[arg][0]
        print("%s at byte %d" % (arg, at))
        return data[:at + 1]
    if op == "append":
        return data + bytes(int(arg, 0))
    if op == "byte":
        off, v = arg.split("=")
        data[int(off, 0)] = int(v, 0)
        return data
    if edit == "zstd":
        payload = bytes(data[HEADER:])
        # Frame header: single segment, an 8-byte content size; then raw
        # blocks of at most 128 KiB, the last one flagged.
        frame = struct.pack("<IBQ", 0xFD2FB528, 0xE0, len(payload))
        k = 0
        while True:
            block, k = payload[k:k + (1 << 17)], k + (1 << 17)
            last = int(k >= len(payload))
            frame += struct.pack("<I", last | len(block) << 3)[:3] + block
            if last:
                break
        struct.pack_into("<I", data, 16, 1)
        return data[:HEADER] + struct.pack("<Q", len(payload)) + frame
    name, op, v = edit.partition("+=") if "+=" in edit else \
        edit.partition("=")
    if name == "zstd-size":
        assert struct.unpack_from("<I", data, 16)[0] & 1, \
            "zstd-size: not a compressed trace"
        at, fmt = HEADER, "<Q"
    else:
        assert not zstd, "edit fields before zstd"
        at, fmt = Layout(data).fields[name]
    v = int(v, 0) + (struct.unpack_from(fmt, data, at)[0] if op == "+="
                     else 0)
    v %= 1 << 8 * struct.calcsize(fmt)
    struct.pack_into(fmt, data, at, v)
    print("%s=%d at byte %d" % (name, v, at))
    return data


def main():
    src, dst, edits = sys.argv[1], sys.argv[2], sys.argv[3:]
    data = bytearray(open(src, "rb").read())
    if dst == "--fields":
        lay = Layout(data)
        for name, (at, fmt) in sorted(lay.fields.items(), key=lambda f: f[1]):
            print(at, name, struct.unpack_from(fmt, data, at)[0])
        return
    for k, edit in enumerate(edits):
        try:
            data = apply(data, edit, "zstd" in edits[:k])
        except KeyError as e:
            sys.exit("%s: no field or record %s in %s (--fields lists the "
                     "fields)" % (edit, e, src))
    struct.pack_into("<Q", data, 24, len(data) - HEADER)
    struct.pack_into("<I", data, 20, zlib.crc32(bytes(data[HEADER:])))
    open(dst, "wb").write(bytes(data))


if __name__ == "__main__":
    main()
