//===- Trace.cpp - Trace file serialisation (docs/trace-format.md) --------===//

#include "accel/Replay/Trace.h"
#include "accel/ISA/ByteStream.h"

#include "llvm/Support/CRC.h"
#include "llvm/Support/Compression.h"

#include <cstring>

using namespace accel;
using namespace accel::replay;

static constexpr char kMagic[8] = {'A', 'C', 'C', 'E', 'L', 'T', 'R', 'C'};
static constexpr size_t kHeaderBytes = 32;

uint64_t Trace::stateBytes() const {
  uint64_t n = registers.size() * 8;
  for (const MemChunk &c : memory)
    n += c.bytes.size();
  return n;
}

static void writeTile(ByteWriter &w, const sim::TileRef &t) {
  w.u8(uint8_t(t.space));
  w.u64(t.base);
  w.u64(t.rows);
  w.u64(t.cols);
  w.u64(t.rowStride);
}

static sim::TileRef readTile(ByteReader &r, const char *what) {
  sim::TileRef t;
  t.space = isa::MemSpace(r.u8(what) & 1);
  t.base = r.u64(what);
  t.rows = r.u64(what);
  t.cols = r.u64(what);
  t.rowStride = r.u64(what);
  return t;
}

/// Header flag: the payload is a u64 uncompressed size followed by the zstd
/// frame of the payload.
static constexpr uint32_t kFlagZstd = 1;

bool Trace::canCompress() { return llvm::compression::zstd::isAvailable(); }

std::vector<uint8_t> Trace::serialize(bool compress) const {
  ByteWriter p;
  p.bytes(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(configJson.data()), configJson.size()));
  p.bytes(program.toImage());
  p.u64(startIndex);
  p.u32(startPc);
  p.u32(nextDmaId);
  p.u64(fullStateBytes);
  p.u32(uint32_t(registers.size()));
  for (auto [r, v] : registers) {
    p.u8(r);
    p.u64(v);
  }
  p.u32(uint32_t(memory.size()));
  for (const MemChunk &c : memory) {
    p.u8(uint8_t(c.space));
    p.u64(c.addr);
    p.bytes(c.bytes);
  }
  p.u32(uint32_t(pendingDmas.size()));
  for (const DmaDescriptor &d : pendingDmas) {
    p.u32(d.id);
    p.u32(d.issuePc);
    writeTile(p, d.src);
    writeTile(p, d.dst);
  }
  p.u64(pcs.size());
  for (uint32_t pc : pcs)
    p.u32(pc);
  p.u32(uint32_t(finalRegisters.size()));
  for (auto [r, v] : finalRegisters) {
    p.u8(r);
    p.u64(v);
  }
  p.u32(uint32_t(writtenRanges.size()));
  for (const sim::AddrRange &w : writtenRanges) {
    p.u8(uint8_t(w.space));
    p.u64(w.begin);
    p.u64(w.end);
  }
  p.u32(writtenCrc);

  uint32_t flags = 0;
  if (compress && canCompress()) {
    llvm::SmallVector<uint8_t, 0> packed;
    llvm::compression::zstd::compress(p.out, packed);
    ByteWriter z;
    z.u64(p.out.size());
    z.raw(packed);
    p.out = std::move(z.out);
    flags |= kFlagZstd;
  }
  ByteWriter h;
  h.out.insert(h.out.end(), kMagic, kMagic + 8);
  h.u32(formatVersion);
  h.u32(isaVersion);
  h.u32(flags);
  h.u32(llvm::crc32(p.out));
  h.u64(p.out.size());
  h.out.insert(h.out.end(), p.out.begin(), p.out.end());
  return h.out;
}

llvm::Expected<Trace> Trace::deserialize(llvm::ArrayRef<uint8_t> bytes) {
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kMagic, 8) != 0)
    return llvm::createStringError(
        "not an accel trace (bad magic at byte 0)");
  ByteReader h(bytes, 0, "truncated trace at byte ");
  h.pos = 8;
  Trace t;
  t.formatVersion = h.u32("format version");
  if (h.err.empty() && t.formatVersion != kTraceFormatVersion)
    return llvm::createStringError(
        "unsupported trace format version %u at byte 8 (this build reads "
        "version %u)",
        t.formatVersion, kTraceFormatVersion);
  t.isaVersion = h.u32("ISA version");
  if (h.err.empty() && t.isaVersion != isa::kIsaVersion)
    return llvm::createStringError(
        "unsupported ISA version %u at byte 12 (this build runs version %u)",
        t.isaVersion, isa::kIsaVersion);
  uint32_t flags = h.u32("flags");
  uint32_t checksum = h.u32("checksum");
  uint64_t payloadBytes = h.u64("payload size");
  if (!h.err.empty())
    return llvm::createStringError(h.err);
  if (flags & ~kFlagZstd)
    return llvm::createStringError("unsupported trace flags 0x%x at byte 16",
                                   flags);
  if (payloadBytes != bytes.size() - kHeaderBytes)
    return llvm::createStringError(
        "truncated trace: the header at byte 24 announces %llu payload bytes "
        "but the file has %zu after the 32-byte header",
        (unsigned long long)payloadBytes, bytes.size() - kHeaderBytes);
  llvm::ArrayRef<uint8_t> payload = bytes.drop_front(kHeaderBytes);
  uint32_t actual = llvm::crc32(payload);
  if (actual != checksum)
    return llvm::createStringError(
        "checksum mismatch: the header at byte 20 says CRC-32 0x%08x, the "
        "payload has 0x%08x (the trace is corrupt)",
        checksum, actual);

  // A compressed payload: decompress, then read it like a plain one (byte
  // offsets in errors then refer to the decompressed payload).
  llvm::SmallVector<uint8_t, 0> inflated;
  size_t payloadBase = kHeaderBytes;
  std::string truncated = "truncated trace at byte ";
  if (flags & kFlagZstd) {
    t.compressed = true;
    if (!canCompress())
      return llvm::createStringError(
          "the trace is zstd-compressed (flags at byte 16) but this build's "
          "LLVM has no zstd");
    ByteReader z(payload, kHeaderBytes, "truncated trace at byte ");
    uint64_t rawSize = z.u64("uncompressed size");
    if (!z.err.empty())
      return llvm::createStringError(z.err);
    if (llvm::Error e = llvm::compression::zstd::decompress(
            z.rest(), inflated, size_t(rawSize)))
      return llvm::createStringError(
          "cannot decompress the payload at byte 40: " +
          llvm::toString(std::move(e)));
    payload = inflated;
    payloadBase = 0;
    truncated = "truncated trace payload at byte ";
  }
  ByteReader r(payload, payloadBase, truncated);
  auto config = r.bytes("config");
  t.configJson.assign(config.begin(), config.end());
  size_t imageAt = payloadBase + r.pos + 8;
  auto image = r.bytes("program image");
  if (r.err.empty()) {
    auto program = isa::Program::fromImage(image);
    if (!program)
      return llvm::createStringError(
          "program image at byte %zu: %s", imageAt,
          llvm::toString(program.takeError()).c_str());
    t.program = std::move(*program);
  }
  t.startIndex = r.u64("window start");
  t.startPc = r.u32("start pc");
  t.nextDmaId = r.u32("next DMA id");
  t.fullStateBytes = r.u64("full-state size");
  uint32_t nregs = r.u32("register count");
  for (uint32_t i = 0; i < nregs && r.err.empty(); ++i) {
    uint8_t reg = r.u8("register");
    uint64_t value = r.u64("register value");
    t.registers.push_back({reg, value});
  }
  uint32_t nchunks = r.u32("memory chunk count");
  for (uint32_t i = 0; i < nchunks && r.err.empty(); ++i) {
    MemChunk c;
    c.space = isa::MemSpace(r.u8("memory space") & 1);
    c.addr = r.u64("memory address");
    auto b = r.bytes("memory bytes");
    c.bytes.assign(b.begin(), b.end());
    t.memory.push_back(std::move(c));
  }
  uint32_t ndmas = r.u32("DMA count");
  for (uint32_t i = 0; i < ndmas && r.err.empty(); ++i) {
    DmaDescriptor d;
    d.id = r.u32("DMA id");
    d.issuePc = r.u32("DMA issue pc");
    d.src = readTile(r, "DMA source");
    d.dst = readTile(r, "DMA destination");
    t.pendingDmas.push_back(d);
  }
  uint64_t npcs = r.u64("PC count");
  if (npcs > payload.size() / 4)
    npcs = payload.size(); // cannot fit: need() below reports truncation
  if (r.need(npcs * 4, "PC sequence")) {
    t.pcs.resize(npcs);
    for (uint64_t i = 0; i < npcs; ++i)
      t.pcs[i] = r.u32("PC");
  }
  uint32_t nfinal = r.u32("final register count");
  for (uint32_t i = 0; i < nfinal && r.err.empty(); ++i) {
    uint8_t reg = r.u8("final register");
    uint64_t value = r.u64("final register value");
    t.finalRegisters.push_back({reg, value});
  }
  uint32_t nwritten = r.u32("written range count");
  for (uint32_t i = 0; i < nwritten && r.err.empty(); ++i) {
    sim::AddrRange w;
    w.space = isa::MemSpace(r.u8("written range space") & 1);
    w.begin = r.u64("written range begin");
    w.end = r.u64("written range end");
    t.writtenRanges.push_back(w);
  }
  t.writtenCrc = r.u32("written bytes CRC-32");
  if (!r.err.empty())
    return llvm::createStringError(r.err);
  return t;
}
