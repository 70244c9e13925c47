//===- Trace.cpp - Trace file serialisation (docs/trace-format.md) --------===//

#include "accel/Replay/Trace.h"
#include "accel/ISA/ByteStream.h"
#include "accel/Sim/Access.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/Compression.h"

#include <cstring>
#include <optional>

#include <tuple>

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

/// A memory: the chip (u32) and the space (u8) of a range or tile.
static void writeMemory(ByteWriter &w, uint32_t chip, isa::MemSpace space) {
  w.u32(chip);
  w.u8(uint8_t(space));
}

static void writeTile(ByteWriter &w, const sim::TileRef &t) {
  writeMemory(w, t.chip, t.space);
  w.u64(t.base);
  w.u64(t.rows);
  w.u64(t.cols);
  w.u64(t.rowStride);
  w.u8(uint8_t(t.elemBytes));
}

/// Bytes of the fixed-size records (docs/trace-format.md).
static constexpr uint64_t kRegisterRecord = 1 + 8;
static constexpr uint64_t kMemoryId = 4 + 1;
static constexpr uint64_t kMemoryRecordMin = kMemoryId + 8 + 8;
static constexpr uint64_t kTileRecord = kMemoryId + 4 * 8 + 1;
static constexpr uint64_t kDmaRecord = 4 + 4 + 2 * kTileRecord;
static constexpr uint64_t kPcRecord = 4;
static constexpr uint64_t kWrittenRecord = kMemoryId + 8 + 8;

/// Reads a memory space byte: 0 (HBM) or 1 (VMEM); any other value is an
/// error naming its offset.
static isa::MemSpace readSpace(ByteReader &r, const std::string &invalid,
                               const char *what) {
  size_t at = r.fileOffset();
  uint8_t v = r.u8(what);
  if (v > 1)
    r.fail(invalid + std::to_string(at) + ": " + what + " is " +
           std::to_string(v) + " (0 = HBM, 1 = VMEM)");
  return isa::MemSpace(v & 1);
}

static sim::TileRef readTile(ByteReader &r, const std::string &invalid,
                             const char *what) {
  sim::TileRef t;
  t.chip = r.u32(what);
  t.space = readSpace(r, invalid, what);
  t.base = r.u64(what);
  t.rows = r.u64(what);
  t.cols = r.u64(what);
  t.rowStride = r.u64(what);
  size_t at = r.fileOffset();
  t.elemBytes = r.u8(what);
  if (r.ok() && t.elemBytes != 2 && t.elemBytes != 4)
    r.fail(invalid + std::to_string(at) + ": " + what + " has " +
           std::to_string(t.elemBytes) +
           "-byte elements (2 = bf16, 4 = f32 or i32)");
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
    writeMemory(p, c.chip, c.space);
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
    writeMemory(p, w.chip, w.space);
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
  h.setPos(8);
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
  std::string invalid = "invalid trace at byte ";
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
    // The declared size is allocated before decompressing: it may not
    // exceed what the frame can regenerate.
    uint64_t frameBytes = z.rest().size();
    if (rawSize / kMaxZstdRatio > frameBytes)
      return llvm::createStringError(
          "invalid trace at byte %zu: the uncompressed size %llu is more than "
          "the %llu-byte zstd frame at byte %zu can hold (zstd regenerates at "
          "most %llu bytes per compressed byte)",
          kHeaderBytes, (unsigned long long)rawSize,
          (unsigned long long)frameBytes, kHeaderBytes + 8,
          (unsigned long long)kMaxZstdRatio);
    if (llvm::Error e = llvm::compression::zstd::decompress(
            z.rest(), inflated, size_t(rawSize)))
      return llvm::createStringError(
          "cannot decompress the payload at byte 40: " +
          llvm::toString(std::move(e)));
    // The declared size is exact: the frame regenerating fewer bytes than
    // it (which the decompressor accepts) means a wrong header, not a
    // shorter payload.
    if (inflated.size() != rawSize)
      return llvm::createStringError(
          "invalid trace at byte %zu: the uncompressed size is %llu bytes but "
          "the zstd frame at byte %zu holds %zu",
          kHeaderBytes, (unsigned long long)rawSize, kHeaderBytes + 8,
          inflated.size());
    payload = inflated;
    payloadBase = 0;
    truncated = "truncated trace payload at byte ";
    invalid = "invalid trace payload at byte ";
  }
  TraceLayout &at = t.layout;
  at.fromFile = true;
  at.inflated = t.compressed;
  ByteReader r(payload, payloadBase, truncated);
  at.config = r.fileOffset();
  auto config = r.bytes("config");
  t.configJson.assign(config.begin(), config.end());
  at.image = r.fileOffset() + 8;
  auto image = r.bytes("program image");
  if (r.err.empty()) {
    auto program = isa::Program::fromImage(image);
    if (!program)
      return llvm::createStringError(
          "program image at byte %llu: %s", (unsigned long long)at.image,
          llvm::toString(program.takeError()).c_str());
    t.program = std::move(*program);
  }
  at.startIndex = r.fileOffset();
  t.startIndex = r.u64("window start");
  at.startPc = r.fileOffset();
  t.startPc = r.u32("start pc");
  at.nextDmaId = r.fileOffset();
  t.nextDmaId = r.u32("next DMA id");
  t.fullStateBytes = r.u64("full-state size");

  uint32_t nregs = r.u32("register count");
  at.registers = r.fileOffset();
  if (r.needRecords(nregs, kRegisterRecord, "registers"))
    t.registers.reserve(nregs);
  for (uint32_t i = 0; i < nregs && r.ok(); ++i) {
    uint8_t reg = r.u8("register");
    uint64_t value = r.u64("register value");
    t.registers.push_back({reg, value});
  }

  uint32_t nchunks = r.u32("memory chunk count");
  if (r.needRecords(nchunks, kMemoryRecordMin, "memory chunks")) {
    t.memory.reserve(nchunks);
    at.memory.reserve(nchunks);
  }
  for (uint32_t i = 0; i < nchunks && r.ok(); ++i) {
    at.memory.push_back(r.fileOffset());
    MemChunk c;
    c.chip = r.u32("memory chip");
    c.space = readSpace(r, invalid, "memory space");
    c.addr = r.u64("memory address");
    auto b = r.bytes("memory bytes");
    c.bytes.assign(b.begin(), b.end());
    t.memory.push_back(std::move(c));
  }

  uint32_t ndmas = r.u32("DMA count");
  at.dmas = r.fileOffset();
  if (r.needRecords(ndmas, kDmaRecord, "DMAs in flight"))
    t.pendingDmas.reserve(ndmas);
  for (uint32_t i = 0; i < ndmas && r.ok(); ++i) {
    DmaDescriptor d;
    d.id = r.u32("DMA id");
    d.issuePc = r.u32("DMA issue pc");
    d.src = readTile(r, invalid, "DMA source");
    d.dst = readTile(r, invalid, "DMA destination");
    t.pendingDmas.push_back(d);
  }

  uint64_t npcs = r.u64("PC count");
  at.pcs = r.fileOffset();
  if (r.needRecords(npcs, kPcRecord, "PC sequence")) {
    t.pcs.resize(npcs);
    for (uint64_t i = 0; i < npcs; ++i)
      t.pcs[i] = r.u32("PC");
  }

  uint32_t nfinal = r.u32("final register count");
  at.finalRegisters = r.fileOffset();
  if (r.needRecords(nfinal, kRegisterRecord, "final registers"))
    t.finalRegisters.reserve(nfinal);
  for (uint32_t i = 0; i < nfinal && r.ok(); ++i) {
    uint8_t reg = r.u8("final register");
    uint64_t value = r.u64("final register value");
    t.finalRegisters.push_back({reg, value});
  }

  uint32_t nwritten = r.u32("written range count");
  at.writtenRanges = r.fileOffset();
  if (r.needRecords(nwritten, kWrittenRecord, "written ranges"))
    t.writtenRanges.reserve(nwritten);
  for (uint32_t i = 0; i < nwritten && r.ok(); ++i) {
    size_t recordAt = r.fileOffset();
    sim::AddrRange w;
    w.chip = r.u32("written range chip");
    w.space = readSpace(r, invalid, "written range space");
    w.begin = r.u64("written range begin");
    w.end = r.u64("written range end");
    if (!r.ok())
      break;
    // The recorder writes non-empty ranges, HBM first, each space by
    // address, coalesced: a later range starts at or after the previous
    // one's end.
    const char *problem = nullptr;
    if (w.begin >= w.end)
      problem = "is empty or reversed (begin >= end)";
    else if (!t.writtenRanges.empty()) {
      const sim::AddrRange &prev = t.writtenRanges.back();
      if (std::tie(w.chip, w.space) < std::tie(prev.chip, prev.space) ||
          (w.chip == prev.chip && w.space == prev.space && w.begin < prev.end))
        problem = "overlaps or precedes the previous one (ranges are by "
                  "chip, HBM first, by address, disjoint)";
    }
    if (problem)
      r.fail(invalid + std::to_string(recordAt) + ": written range " +
             std::to_string(i) + " " + isa::memSpaceName(w.space).str() +
             " [" + std::to_string(w.begin) + ", " + std::to_string(w.end) +
             ") " + problem);
    else
      t.writtenRanges.push_back(w);
  }
  t.writtenCrc = r.u32("written bytes CRC-32");
  if (!r.err.empty())
    return llvm::createStringError(r.err);
  // The payload ends with the last field: bytes after it mean a size or a
  // count that is too small (records left unread), or a wrong payload.
  if (!r.rest().empty())
    return llvm::createStringError(
        "%s%zu: %zu byte%s after the last field (the written bytes CRC-32); "
        "the payload ends there",
        invalid.c_str(), r.fileOffset(), r.rest().size(),
        r.rest().size() == 1 ? "" : "s");
  return t;
}

//===----------------------------------------------------------------------===//
// Validation against the program and the machine config
//===----------------------------------------------------------------------===//

namespace {
/// validate()'s errors: "invalid trace at byte N: WHAT" for a trace read
/// from a file, "invalid trace: WHAT" for one built in memory.
struct InvalidTrace {
  const TraceLayout &at;
  llvm::Error operator()(std::optional<uint64_t> offset,
                         const llvm::Twine &what) const {
    std::string where = "invalid trace: ";
    if (at.fromFile && offset)
      where = std::string(at.inflated ? "invalid trace payload at byte "
                                      : "invalid trace at byte ") +
              std::to_string(*offset) + ": ";
    return llvm::createStringError(where + what.str());
  }
};

/// `a + b`, or UINT64_MAX when it does not fit.
uint64_t addSaturating(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/// "hbm [B, E)".
std::string describeRange(isa::MemSpace space, uint64_t b, uint64_t e) {
  return isa::memSpaceName(space).str() + " [" + std::to_string(b) + ", " +
         std::to_string(e) + ")";
}

/// Whether [b, e) of `space` is covered by buffers of `program` (a
/// coalesced range may span adjacent buffers).
bool coveredByBuffers(const isa::Program &program, isa::MemSpace space,
                      uint64_t b, uint64_t e) {
  while (b < e) {
    const isa::Buffer *hit = nullptr;
    for (const isa::Buffer &buf : program.buffers)
      if (buf.space == space && b >= buf.base && b - buf.base < buf.bytes) {
        hit = &buf;
        break;
      }
    if (!hit)
      return false;
    b = hit->base + hit->bytes; // no wrap: validate() checked every buffer
  }
  return true;
}

/// Whether one buffer of `program` holds all of the tile (the simulator's
/// bounds check at ISSUE); the tile's shape fields are below 2^16.
bool tileInOneBuffer(const isa::Program &program, const sim::TileRef &t) {
  uint64_t len = t.span().end - t.span().begin;
  if (t.base > UINT64_MAX - len)
    return false;
  for (const isa::Buffer &buf : program.buffers)
    if (buf.space == t.space && t.base >= buf.base &&
        t.base + len <= buf.base + buf.bytes)
      return true;
  return false;
}

/// The most bytes instruction `inst` writes to memory: its output tiles'
/// sizes, which the encoding fixes (registers only place them).
uint64_t maxBytesWritten(const isa::Inst &inst) {
  sim::InstAccess acc = sim::getAccesses(inst, [](unsigned) { return 0; });
  uint64_t n = 0;
  for (const sim::MemOperand &m : acc.memWrites)
    n += m.tile.rows * m.tile.rowBytes(); // each below 2^34
  return n;
}
} // namespace

llvm::Error Trace::validate(const sim::MachineConfig &config) const {
  InvalidTrace invalid{layout};
  auto record = [&](uint64_t first, uint64_t size,
                    uint64_t index) -> std::optional<uint64_t> {
    return first + index * size;
  };
  const size_t numInsts = program.code.size();

  // The program's buffers fit the machine.
  if (llvm::Error e =
          program.checkBuffersFit(config.vmemBytes, config.hbmBytes))
    return invalid(layout.image,
                   "program image: " + llvm::toString(std::move(e)));

  // The window's PCs are instructions of the program (that they are the
  // ones the replay reaches is the replay's PC check).
  for (size_t i = 0; i < pcs.size(); ++i)
    if (pcs[i] >= numInsts)
      return invalid(record(layout.pcs, 4, i),
                     "PC " + llvm::Twine(i) + " of the window is " +
                         llvm::Twine(pcs[i]) + ", outside the program's " +
                         llvm::Twine(numInsts) + " instructions");

  // Saved memory: no wrap around 2^64, inside the machine (the buffers that
  // hold it are checked when it is installed).
  for (size_t i = 0; i < memory.size(); ++i) {
    const MemChunk &c = memory[i];
    std::optional<uint64_t> at;
    if (i < layout.memory.size())
      at = layout.memory[i];
    if (c.chip != 0)
      return invalid(at, "memory chunk " + llvm::Twine(i) + " is on chip " +
                             llvm::Twine(c.chip) +
                             "; a window replays one chip, chip 0");
    uint64_t capacity =
        c.space == isa::MemSpace::VMEM ? config.vmemBytes : config.hbmBytes;
    if (c.addr > UINT64_MAX - c.bytes.size() ||
        c.addr + c.bytes.size() > capacity)
      return invalid(at, "memory chunk " + llvm::Twine(i) + " at " +
                             isa::memSpaceName(c.space) + " address " +
                             llvm::Twine(c.addr) + " with " +
                             llvm::Twine(c.bytes.size()) +
                             " bytes does not fit the config's " +
                             (c.space == isa::MemSpace::VMEM ? "vmem.bytes "
                                                             : "hbm.bytes ") +
                             llvm::Twine(capacity));
  }

  // DMA ids: each DMA of the recorded run before the window was issued by
  // one of its startIndex instructions.
  if (nextDmaId > startIndex)
    return invalid(layout.nextDmaId,
                   "the next DMA id " + llvm::Twine(nextDmaId) +
                       " is more than the " + llvm::Twine(startIndex) +
                       " instructions before the window could have "
                       "issued");
  std::vector<uint32_t> ids;
  ids.reserve(pendingDmas.size());
  for (size_t i = 0; i < pendingDmas.size(); ++i) {
    const DmaDescriptor &d = pendingDmas[i];
    std::optional<uint64_t> at = record(layout.dmas, kDmaRecord, i);
    std::string which = "DMA in flight " + std::to_string(i) + " (id " +
                        std::to_string(d.id) + ")";
    if (d.id >= nextDmaId)
      return invalid(at, which + " is not below the next DMA id " +
                             llvm::Twine(nextDmaId));
    if (d.src.chip != 0 || d.dst.chip != 0)
      return invalid(at, which + " moves data of chip " +
                             llvm::Twine(d.src.chip ? d.src.chip : d.dst.chip) +
                             "; a window replays one chip, chip 0");
    ids.push_back(d.id);
    if (d.issuePc >= numInsts ||
        program.code[d.issuePc].op != isa::Opcode::DmaIssue)
      return invalid(at, which + " has issue pc " + llvm::Twine(d.issuePc) +
                             ", which is not a dma.issue of the program");
    const isa::Inst &in = program.code[d.issuePc];
    if (d.src.space != in.dmaSrc() || d.dst.space != in.dmaDst() ||
        d.src.rows != in.a || d.dst.rows != in.a || d.src.cols != in.b ||
        d.dst.cols != in.b || d.src.rowStride != in.s1 ||
        d.dst.rowStride != in.s2 || in.a == 0 || in.b == 0 ||
        d.src.elemBytes != in.getElemBytes(0) ||
        d.dst.elemBytes != in.getElemBytes(0))
      return invalid(at, which + " differs from its dma.issue at pc " +
                             llvm::Twine(d.issuePc) + " (" +
                             isa::toString(in) + ")");
    if (config.findLink(d.src.space, d.dst.space) < 0)
      return invalid(at, which + ": the config has no DMA link " +
                             isa::memSpaceName(d.src.space) + "->" +
                             isa::memSpaceName(d.dst.space));
    for (const sim::TileRef *t : {&d.src, &d.dst})
      if (!tileInOneBuffer(program, *t))
        return invalid(at, which + ": its " +
                               (t == &d.src ? "source" : "destination") +
                               " at " + isa::memSpaceName(t->space) +
                               " address " + llvm::Twine(t->base) +
                               " is not inside one buffer of the program");
  }
  llvm::sort(ids);
  for (size_t i = 1; i < ids.size(); ++i)
    if (ids[i] == ids[i - 1])
      return invalid(layout.dmas, "two DMAs in flight have id " +
                                      llvm::Twine(ids[i]));

  // Written ranges (deserialize checked that they are non-empty, ordered
  // and disjoint): inside the program's buffers.
  for (size_t i = 0; i < writtenRanges.size(); ++i) {
    const sim::AddrRange &w = writtenRanges[i];
    std::optional<uint64_t> at =
        record(layout.writtenRanges, kWrittenRecord, i);
    if (w.chip != 0)
      return invalid(at, "written range " + llvm::Twine(i) + " is on chip " +
                             llvm::Twine(w.chip) +
                             "; a window replays one chip, chip 0");
    if (w.begin >= w.end)
      return invalid(at, "written range " + llvm::Twine(i) + " " +
                             describeRange(w.space, w.begin, w.end) +
                             " is empty or reversed (begin >= end)");
    if (!coveredByBuffers(program, w.space, w.begin, w.end))
      return invalid(at, "written range " + llvm::Twine(i) + " " +
                             describeRange(w.space, w.begin, w.end) +
                             " is not inside the program's buffers");
  }
  return llvm::Error::success();
}

llvm::Error Trace::checkWrittenSize() const {
  InvalidTrace invalid{layout};
  uint64_t written = 0;
  for (const sim::AddrRange &w : writtenRanges)
    written = addSaturating(written, w.end - w.begin);
  // What the window's instructions write at most, counted once per PC.
  std::vector<uint64_t> perPc(program.code.size(), UINT64_MAX);
  uint64_t most = 0;
  for (uint32_t pc : pcs) {
    if (pc >= perPc.size())
      return invalid(layout.pcs, "the window has pc " + llvm::Twine(pc) +
                                     ", outside the program's " +
                                     llvm::Twine(perPc.size()) +
                                     " instructions");
    if (perPc[pc] == UINT64_MAX)
      perPc[pc] = maxBytesWritten(program.code[pc]);
    most = addSaturating(most, perPc[pc]);
  }
  if (written > most)
    return invalid(layout.writtenRanges,
                   "the written ranges hold " + llvm::Twine(written) +
                       " bytes but the window's " + llvm::Twine(pcs.size()) +
                       " instructions write at most " + llvm::Twine(most));
  return llvm::Error::success();
}
