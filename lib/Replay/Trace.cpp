//===- Trace.cpp - Trace file serialisation (docs/trace-format.md) --------===//
//
// The trace file: its header (magic, versions, flags, CRC-32, size), the
// optional zstd compression of its payload, and the payload's window
// sections, written and read in file order. The system section of a
// version-4 trace is TraceSystem.cpp; the checks against the machine
// config, TraceValidate.cpp.
//
//===----------------------------------------------------------------------===//

#include "TraceFormat.h"

#include "accel/Support/BulkVector.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <iterator>
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

//===----------------------------------------------------------------------===//
// Records shared by the sections (TraceFormat.h)
//===----------------------------------------------------------------------===//

void replay::writeMemory(ByteWriter &w, uint32_t chip, isa::MemSpace space) {
  w.u32(chip);
  w.u8(uint8_t(space));
}

void replay::writeTile(ByteWriter &w, const sim::TileRef &t) {
  writeMemory(w, t.chip, t.space);
  w.u64(t.base);
  w.u64(t.rows);
  w.u64(t.cols);
  w.u64(t.rowStride);
  w.u8(uint8_t(t.elemBytes));
}

void replay::writeWide(ByteWriter &w, sim::HbmUnits v) {
  w.u64(uint64_t(v));
  w.u64(uint64_t(v >> 64));
}

isa::MemSpace replay::readSpace(ByteReader &r, const std::string &invalid,
                                const char *what) {
  size_t at = r.fileOffset();
  uint8_t v = r.u8(what);
  if (v > 1)
    r.fail(invalid + std::to_string(at) + ": " + what + " is " +
           std::to_string(v) + " (0 = HBM, 1 = VMEM)");
  return isa::MemSpace(v & 1);
}

sim::TileRef replay::readTile(ByteReader &r, const std::string &invalid,
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

sim::HbmUnits replay::readWide(ByteReader &r, const char *what) {
  uint64_t lo = r.u64(what);
  uint64_t hi = r.u64(what);
  return sim::HbmUnits(lo) | (sim::HbmUnits(hi) << 64);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// Header flag: the payload is a u64 uncompressed size followed by the zstd
/// frame of the payload.
static constexpr uint32_t kFlagZstd = 1;

bool Trace::canCompress() { return llvm::compression::zstd::isAvailable(); }

uint32_t PcSequence::operator[](uint64_t i) const {
  assert(i < total && "PcSequence index out of range");
  for (const Run &run : runs) {
    if (i < run.count)
      return run.first + uint32_t(i);
    i -= run.count;
  }
  llvm_unreachable("PcSequence index out of range");
}

void PcSequence::append(llvm::ArrayRef<uint32_t> pcs) {
  size_t k = 0, n = pcs.size();
  if (n == 0)
    return;
  total += n;
  if (runs.empty())
    runs.push_back({pcs[k++], 1});
  // The last run as locals: `next` the PC that would continue it, `limit`
  // where it would reach UINT32_MAX PCs.
  uint64_t first = runs.back().first, next = first + runs.back().count;
  uint64_t limit = first + UINT32_MAX;
  for (; k < n; ++k) {
    uint32_t pc = pcs[k];
    if (LLVM_LIKELY(pc == next && next < limit)) {
      ++next;
      continue;
    }
    runs.back().count = uint32_t(next - first);
    runs.push_back({pc, 1});
    first = pc;
    next = first + 1;
    limit = first + UINT32_MAX;
  }
  runs.back().count = uint32_t(next - first);
}

void PcSequence::truncate(uint64_t n) {
  assert(n <= total && "PcSequence::truncate past the end");
  uint64_t kept = 0;
  size_t r = 0;
  for (; r < runs.size() && kept < n; ++r) {
    uint64_t take = std::min<uint64_t>(runs[r].count, n - kept);
    runs[r].count = uint32_t(take);
    kept += take;
  }
  runs.resize(r);
  total = kept;
}

void PcSequence::set(uint64_t i, uint32_t pc) {
  std::vector<uint32_t> pcs = toVector();
  pcs.at(i) = pc;
  clear();
  append(pcs);
}

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
  if (system)
    writeSystem(p, *system);

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
  h.u32(system ? kSystemTraceFormatVersion : formatVersion);
  h.u32(isaVersion);
  h.u32(flags);
  h.u32(llvm::crc32(p.out));
  h.u64(p.out.size());
  h.out.insert(h.out.end(), p.out.begin(), p.out.end());
  return h.out;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// Reads and checks the header of the trace file `bytes`: its magic, its
/// format and ISA versions (into `t`), its `flags`, and its payload size
/// and CRC-32 against the payload. Errors name the header's byte.
static llvm::Error readHeader(llvm::ArrayRef<uint8_t> bytes, Trace &t,
                              uint32_t &flags) {
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kMagic, 8) != 0)
    return llvm::createStringError(
        "not an accel trace (bad magic at byte 0)");
  ByteReader h(bytes, 0, "truncated trace at byte ");
  h.setPos(8);
  t.formatVersion = h.u32("format version");
  if (h.err.empty() && t.formatVersion != kTraceFormatVersion &&
      t.formatVersion != kSystemTraceFormatVersion)
    return llvm::createStringError(
        "unsupported trace format version %u at byte 8 (this build reads "
        "versions %u, a chip alone, and %u, a chip of a system)",
        t.formatVersion, kTraceFormatVersion, kSystemTraceFormatVersion);
  t.isaVersion = h.u32("ISA version");
  if (h.err.empty() && t.isaVersion != isa::kIsaVersion)
    return llvm::createStringError(
        "unsupported ISA version %u at byte 12 (this build runs version %u)",
        t.isaVersion, isa::kIsaVersion);
  flags = h.u32("flags");
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
  return llvm::Error::success();
}

namespace {
/// The payload to read: its bytes, the file offset of the first (0 for a
/// decompressed payload, whose offsets are its own), and how its errors
/// start.
struct Payload {
  llvm::ArrayRef<uint8_t> bytes;
  size_t base = kHeaderBytes;
  std::string truncated = "truncated trace at byte ";
  std::string invalid = "invalid trace at byte ";
};
} // namespace

/// A zstd-compressed payload: decompresses `p.bytes` (a u64 uncompressed
/// size, then the frame) into `inflated` and points `p` at it. The declared
/// size must be what the frame regenerates, and within kMaxZstdRatio of it.
static llvm::Error inflate(Payload &p, HugeBlock &inflated) {
  if (!Trace::canCompress())
    return llvm::createStringError(
        "the trace is zstd-compressed (flags at byte 16) but this build's "
        "LLVM has no zstd");
  ByteReader z(p.bytes, kHeaderBytes, "truncated trace at byte ");
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
  // Into a block that is not zero-filled first (a SmallVector's resize
  // was) and, when large, is made of huge pages (HugeBlock).
  inflated = HugeBlock(size_t(rawSize));
  size_t regenerated = size_t(rawSize);
  if (llvm::Error e = llvm::compression::zstd::decompress(
          z.rest(), inflated.data(), regenerated))
    return llvm::createStringError(
        "cannot decompress the payload at byte 40: " +
        llvm::toString(std::move(e)));
  // The declared size is exact: the frame regenerating fewer bytes than
  // it (which the decompressor accepts) means a wrong header, not a
  // shorter payload.
  if (regenerated != rawSize)
    return llvm::createStringError(
        "invalid trace at byte %zu: the uncompressed size is %llu bytes but "
        "the zstd frame at byte %zu holds %zu",
        kHeaderBytes, (unsigned long long)rawSize, kHeaderBytes + 8,
        regenerated);
  p.bytes = llvm::ArrayRef<uint8_t>(inflated.data(), regenerated);
  p.base = 0;
  p.truncated = "truncated trace payload at byte ";
  p.invalid = "invalid trace payload at byte ";
  return llvm::Error::success();
}

/// Reads the config and the program image of the payload.
static llvm::Error readProgram(ByteReader &r, Trace &t) {
  TraceLayout &at = t.layout;
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
  return llvm::Error::success();
}

/// Reads the window's start and the state saved for it: the registers,
/// the memory chunks and the DMAs in flight.
static void readState(ByteReader &r, const std::string &invalid, Trace &t) {
  TraceLayout &at = t.layout;
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
}

/// Reads the written ranges: non-empty, by chip, HBM first, by address and
/// disjoint (else an error naming the range).
static void readWrittenRanges(ByteReader &r, const std::string &invalid,
                              Trace &t) {
  TraceLayout &at = t.layout;
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
}

/// Reads the window and its results: the PCs, the final registers, the
/// written ranges and their CRC-32.
static void readWindow(ByteReader &r, const std::string &invalid, Trace &t) {
  TraceLayout &at = t.layout;
  uint64_t npcs = r.u64("PC count");
  at.pcs = r.fileOffset();
  if (r.needRecords(npcs, kPcRecord, "PC sequence")) {
    // Read a chunk at a time into the runs (PcSequence), never as a whole.
    uint32_t chunk[4096];
    for (uint64_t done = 0; done < npcs;) {
      uint64_t n = std::min<uint64_t>(npcs - done, std::size(chunk));
      r.u32s(chunk, n, "PC");
      t.pcs.append(llvm::ArrayRef<uint32_t>(chunk, n));
      done += n;
    }
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
  readWrittenRanges(r, invalid, t);
  t.writtenCrc = r.u32("written bytes CRC-32");
}

llvm::Expected<Trace> Trace::deserialize(llvm::ArrayRef<uint8_t> bytes) {
  Trace t;
  uint32_t flags = 0;
  if (llvm::Error e = readHeader(bytes, t, flags))
    return std::move(e);
  // A compressed payload: decompress, then read it like a plain one (byte
  // offsets in errors then refer to the decompressed payload).
  Payload payload;
  payload.bytes = bytes.drop_front(kHeaderBytes);
  HugeBlock inflated;
  if (flags & kFlagZstd) {
    t.compressed = true;
    if (llvm::Error e = inflate(payload, inflated))
      return std::move(e);
  }
  const std::string &invalid = payload.invalid;
  TraceLayout &at = t.layout;
  at.fromFile = true;
  at.inflated = t.compressed;
  ByteReader r(payload.bytes, payload.base, payload.truncated);
  if (llvm::Error e = readProgram(r, t))
    return std::move(e);
  readState(r, invalid, t);
  readWindow(r, invalid, t);
  if (t.formatVersion == kSystemTraceFormatVersion && r.ok())
    readSystem(r, invalid, t);
  if (!r.err.empty())
    return llvm::createStringError(r.err);
  // The payload ends with the last field: bytes after it mean a size or a
  // count that is too small (records left unread), or a wrong payload.
  if (!r.rest().empty())
    return llvm::createStringError(
        "%s%zu: %zu byte%s after the last field (%s); the payload ends there",
        invalid.c_str(), r.fileOffset(), r.rest().size(),
        r.rest().size() == 1 ? "" : "s",
        t.system ? "the last remote DMA answer" : "the written bytes CRC-32");
  return t;
}
