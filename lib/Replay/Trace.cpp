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

static void writeWide(ByteWriter &w, sim::HbmUnits v) {
  w.u64(uint64_t(v));
  w.u64(uint64_t(v >> 64));
}

static void writeTiles(ByteWriter &w, const std::vector<sim::TileRef> &tiles) {
  w.u32(uint32_t(tiles.size()));
  for (const sim::TileRef &t : tiles)
    writeTile(w, t);
}

static void writeTiming(ByteWriter &w, const sim::DmaTiming &t) {
  w.u32(t.id);
  w.u32(uint32_t(t.link));
  w.u64(t.bytes);
  w.u64(t.busBytes);
  w.u64(t.issue);
  w.u64(t.baseEnd);
  w.u64(t.transferStart);
  w.u64(t.complete);
  w.u32(t.chip);
  w.u32(t.srcChip);
  w.u32(t.dstChip);
  w.u32(t.hops);
  w.u32(uint32_t(t.semaphore));
}

static void writeIncoming(ByteWriter &w, const sim::IncomingDma &d) {
  writeTile(w, d.tile);
  w.u8(d.writes);
  w.u64(d.complete);
  w.u32(d.chip);
  w.u32(d.dmaId);
  w.u32(d.pc);
}

/// The system section of a version-4 trace (docs/trace-format.md).
static void writeSystem(ByteWriter &p, const SystemWindow &sys) {
  p.u32(sys.chip);
  p.u32(sys.chips);
  const sim::Simulator::TimingState &ts = sys.timing;
  p.u64(ts.lastIssue);
  p.u8(ts.first);
  for (uint64_t f : ts.unitFree)
    p.u64(f);
  for (const auto &op : ts.inFlight) {
    p.u64(op.end);
    writeTiles(p, op.reads);
    writeTiles(p, op.writes);
  }
  p.u32(uint32_t(ts.engine.linkFree.size()));
  for (uint64_t f : ts.engine.linkFree)
    p.u64(f);
  p.u64(ts.engine.remoteDrain);
  p.u32(uint32_t(ts.engine.hbmBusy.size()));
  for (auto [b, e] : ts.engine.hbmBusy) {
    writeWide(p, b);
    writeWide(p, e);
  }
  p.u32(uint32_t(ts.pendingTimings.size()));
  for (const sim::DmaTiming &t : ts.pendingTimings)
    writeTiming(p, t);
  p.u32(uint32_t(ts.signals.size()));
  for (const auto &[sem, sig] : ts.signals) {
    p.u32(sem);
    p.u64(sig.cycle);
    p.u32(sig.chip);
    p.u32(sig.dmaId);
  }
  p.u32(uint32_t(ts.incoming.size()));
  for (const sim::IncomingDma &d : ts.incoming)
    writeIncoming(p, d);
  p.u64(sys.log.events.size());
  for (const sim::ExternalEvent &e : sys.log.events) {
    p.u64(e.index);
    p.u8(uint8_t(e.kind));
    switch (e.kind) {
    case sim::ExternalEvent::Kind::HbmReserve:
      writeWide(p, e.from);
      writeWide(p, e.length);
      writeWide(p, e.now);
      break;
    case sim::ExternalEvent::Kind::MemWrite:
      writeTile(p, e.tile);
      p.bytes(e.bytes);
      break;
    case sim::ExternalEvent::Kind::Signal:
      p.u32(e.semaphore);
      p.u64(e.cycle);
      p.u32(e.fromChip);
      p.u32(e.dmaId);
      break;
    case sim::ExternalEvent::Kind::Incoming:
      writeIncoming(p, {e.tile, e.writes, e.cycle, e.fromChip, e.dmaId, e.pc});
      break;
    }
  }
  p.u64(sys.log.answers.size());
  for (const sim::RemoteAnswer &a : sys.log.answers) {
    p.u64(a.transfer.injectStart);
    p.u64(a.transfer.firstArrival);
    p.u64(a.transfer.lastArrival);
    p.u8(a.hasPeerHbm);
    writeWide(p, a.peerHbmAt);
    p.bytes(a.readBytes);
  }
}

/// Bytes of the fixed-size records (docs/trace-format.md).
static constexpr uint64_t kRegisterRecord = 1 + 8;
static constexpr uint64_t kMemoryId = 4 + 1;
static constexpr uint64_t kMemoryRecordMin = kMemoryId + 8 + 8;
static constexpr uint64_t kTileRecord = kMemoryId + 4 * 8 + 1;
static constexpr uint64_t kDmaRecord = 4 + 4 + 2 * kTileRecord;
static constexpr uint64_t kPcRecord = 4;
static constexpr uint64_t kWrittenRecord = kMemoryId + 8 + 8;
static constexpr uint64_t kTimingRecord = 4 + 4 + 6 * 8 + 5 * 4;
static constexpr uint64_t kSignalRecord = 4 + 8 + 4 + 4;
static constexpr uint64_t kIncomingRecord = kTileRecord + 1 + 8 + 3 * 4;
static constexpr uint64_t kHbmRecord = 2 * 16;
/// The smallest event (a Signal) and answer (no read bytes).
static constexpr uint64_t kEventRecordMin = 8 + 1 + kSignalRecord;
static constexpr uint64_t kAnswerRecordMin = 3 * 8 + 1 + 16 + 8;

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

static sim::HbmUnits readWide(ByteReader &r, const char *what) {
  uint64_t lo = r.u64(what);
  uint64_t hi = r.u64(what);
  return sim::HbmUnits(lo) | (sim::HbmUnits(hi) << 64);
}

static std::vector<sim::TileRef>
readTiles(ByteReader &r, const std::string &invalid, const char *what) {
  std::vector<sim::TileRef> tiles;
  size_t at = r.fileOffset();
  uint32_t n = r.u32(what);
  // An op reads at most 3 tiles and writes at most 2 (Simulator).
  if (r.ok() && n > 4) {
    r.fail(invalid + std::to_string(at) + ": " + what + " count is " +
           std::to_string(n) + " (an op in flight has at most 4)");
    return tiles;
  }
  for (uint32_t i = 0; i < n && r.ok(); ++i)
    tiles.push_back(readTile(r, invalid, what));
  return tiles;
}

/// An incoming DMA: of the timing state, or an event's (the same record).
static sim::IncomingDma readIncoming(ByteReader &r,
                                     const std::string &invalid) {
  sim::IncomingDma d;
  d.tile = readTile(r, invalid, "incoming DMA tile");
  d.writes = r.u8("incoming DMA writes") != 0;
  d.complete = r.u64("incoming DMA complete");
  d.chip = r.u32("incoming DMA chip");
  d.dmaId = r.u32("incoming DMA id");
  d.pc = r.u32("incoming DMA pc");
  return d;
}

static sim::DmaTiming readTiming(ByteReader &r) {
  sim::DmaTiming t;
  t.id = r.u32("DMA timing id");
  t.link = int32_t(r.u32("DMA timing link"));
  t.bytes = r.u64("DMA timing bytes");
  t.busBytes = r.u64("DMA timing bus bytes");
  t.issue = r.u64("DMA timing issue");
  t.baseEnd = r.u64("DMA timing base end");
  t.transferStart = r.u64("DMA timing transfer start");
  t.complete = r.u64("DMA timing complete");
  t.chip = r.u32("DMA timing chip");
  t.srcChip = r.u32("DMA timing source chip");
  t.dstChip = r.u32("DMA timing destination chip");
  t.hops = r.u32("DMA timing hops");
  t.semaphore = int32_t(r.u32("DMA timing semaphore"));
  return t;
}

/// Reads the system section of a version-4 trace into `t.system`, checking
/// every count against the bytes left before allocating for it.
static void readSystem(ByteReader &r, const std::string &invalid, Trace &t) {
  // Long: the system section's fields in file order (docs/trace-format.md).
  TraceLayout &at = t.layout;
  SystemWindow &sys = t.system.emplace();
  at.system = r.fileOffset();
  sys.chip = r.u32("system chip");
  sys.chips = r.u32("system chips");
  sys.log.chip = sys.chip;
  sim::Simulator::TimingState &ts = sys.timing;
  ts.lastIssue = r.u64("last issue cycle");
  ts.first = r.u8("first flag") != 0;
  for (uint64_t &f : ts.unitFree)
    f = r.u64("unit free cycle");
  for (auto &op : ts.inFlight) {
    op.end = r.u64("op in flight end");
    op.reads = readTiles(r, invalid, "op in flight reads");
    op.writes = readTiles(r, invalid, "op in flight writes");
  }
  uint32_t nlinks = r.u32("link count");
  if (r.needRecords(nlinks, 8, "link free cycles"))
    for (uint32_t i = 0; i < nlinks && r.ok(); ++i)
      ts.engine.linkFree.push_back(r.u64("link free cycle"));
  ts.engine.remoteDrain = r.u64("remote drain cycle");
  uint32_t nhbm = r.u32("HBM reservation count");
  if (r.needRecords(nhbm, kHbmRecord, "HBM reservations"))
    for (uint32_t i = 0; i < nhbm && r.ok(); ++i) {
      sim::HbmUnits b = readWide(r, "HBM reservation start");
      sim::HbmUnits e = readWide(r, "HBM reservation end");
      ts.engine.hbmBusy.push_back({b, e});
    }
  uint32_t ntimings = r.u32("DMA timing count");
  at.timings = r.fileOffset();
  if (r.needRecords(ntimings, kTimingRecord, "DMA timings"))
    for (uint32_t i = 0; i < ntimings && r.ok(); ++i)
      ts.pendingTimings.push_back(readTiming(r));
  uint32_t nsignals = r.u32("signal count");
  if (r.needRecords(nsignals, kSignalRecord, "semaphore signals"))
    for (uint32_t i = 0; i < nsignals && r.ok(); ++i) {
      uint32_t sem = r.u32("signal semaphore");
      sim::Signal sig;
      sig.cycle = r.u64("signal cycle");
      sig.chip = r.u32("signal chip");
      sig.dmaId = r.u32("signal DMA id");
      ts.signals.push_back({sem, sig});
    }
  uint32_t nincoming = r.u32("incoming DMA count");
  if (r.needRecords(nincoming, kIncomingRecord, "incoming DMAs"))
    for (uint32_t i = 0; i < nincoming && r.ok(); ++i)
      ts.incoming.push_back(readIncoming(r, invalid));
  uint64_t nevents = r.u64("event count");
  if (r.needRecords(nevents, kEventRecordMin, "events")) {
    sys.log.events.reserve(nevents);
    at.events.reserve(nevents);
  }
  for (uint64_t i = 0; i < nevents && r.ok(); ++i) {
    at.events.push_back(r.fileOffset());
    sim::ExternalEvent e;
    e.index = r.u64("event index");
    size_t kindAt = r.fileOffset();
    uint8_t kind = r.u8("event kind");
    if (r.ok() && kind >= sim::ExternalEvent::kNumKinds) {
      r.fail(invalid + std::to_string(kindAt) + ": event " + std::to_string(i) +
             " has kind " + std::to_string(kind) +
             " (0 = HBM reservation, 1 = write, 2 = signal, 3 = incoming "
             "DMA)");
      break;
    }
    e.kind = sim::ExternalEvent::Kind(kind);
    switch (e.kind) {
    case sim::ExternalEvent::Kind::HbmReserve:
      e.from = readWide(r, "event HBM from");
      e.length = readWide(r, "event HBM length");
      e.now = readWide(r, "event HBM now");
      break;
    case sim::ExternalEvent::Kind::MemWrite: {
      e.tile = readTile(r, invalid, "event write tile");
      auto b = r.bytes("event write bytes");
      e.bytes.assign(b.begin(), b.end());
      e.writes = true;
      break;
    }
    case sim::ExternalEvent::Kind::Signal:
      e.semaphore = r.u32("event semaphore");
      e.cycle = r.u64("event signal cycle");
      e.fromChip = r.u32("event chip");
      e.dmaId = r.u32("event DMA id");
      break;
    case sim::ExternalEvent::Kind::Incoming: {
      sim::IncomingDma d = readIncoming(r, invalid);
      e.tile = d.tile;
      e.writes = d.writes;
      e.cycle = d.complete;
      e.fromChip = d.chip;
      e.dmaId = d.dmaId;
      e.pc = d.pc;
      break;
    }
    }
    sys.log.events.push_back(std::move(e));
  }
  uint64_t nanswers = r.u64("answer count");
  if (r.needRecords(nanswers, kAnswerRecordMin, "remote DMA answers")) {
    sys.log.answers.reserve(nanswers);
    at.answers.reserve(nanswers);
  }
  for (uint64_t i = 0; i < nanswers && r.ok(); ++i) {
    at.answers.push_back(r.fileOffset());
    sim::RemoteAnswer a;
    a.transfer.injectStart = r.u64("answer inject start");
    a.transfer.firstArrival = r.u64("answer first arrival");
    a.transfer.lastArrival = r.u64("answer last arrival");
    a.hasPeerHbm = r.u8("answer HBM flag") != 0;
    a.peerHbmAt = readWide(r, "answer HBM start");
    auto b = r.bytes("answer read bytes");
    a.readBytes.assign(b.begin(), b.end());
    sys.log.answers.push_back(std::move(a));
  }
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

llvm::Expected<Trace> Trace::deserialize(llvm::ArrayRef<uint8_t> bytes) {
  // Long: the trace's fields in file order, each read and checked
  // (docs/trace-format.md).
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kMagic, 8) != 0)
    return llvm::createStringError(
        "not an accel trace (bad magic at byte 0)");
  ByteReader h(bytes, 0, "truncated trace at byte ");
  h.setPos(8);
  Trace t;
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
  // Long: one check per field of the trace, in file order
  // (docs/trace-format.md).
  InvalidTrace invalid{layout};
  auto record = [&](uint64_t first, uint64_t size,
                    uint64_t index) -> std::optional<uint64_t> {
    return first + index * size;
  };
  const size_t numInsts = program.code.size();
  // The chip whose memory the window holds: chip 0 alone, the recorded
  // chip of a system.
  const uint32_t own = system ? system->chip : 0;
  const std::string ownText =
      system ? "; the window is chip " + std::to_string(own) + "'s"
             : std::string("; a window replays one chip, chip 0");
  if (system) {
    if (system->chips != config.chips || system->chip >= system->chips)
      return invalid(layout.system, "the window is chip " +
                                        llvm::Twine(system->chip) + " of " +
                                        llvm::Twine(system->chips) +
                                        " chips but the machine config has " +
                                        llvm::Twine(config.chips));
  } else if (config.chips != 1) {
    return invalid(std::nullopt,
                   "a trace of a chip alone replays on 1 chip, not " +
                       llvm::Twine(config.chips));
  }

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
    if (c.chip != own)
      return invalid(at, "memory chunk " + llvm::Twine(i) + " is on chip " +
                             llvm::Twine(c.chip) + ownText);
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
    // Alone, a DMA moves the chip's own data; on a system it may read or
    // write another chip.
    if (!system && (d.src.chip != 0 || d.dst.chip != 0))
      return invalid(at, which + " moves data of chip " +
                             llvm::Twine(d.src.chip ? d.src.chip : d.dst.chip) +
                             ownText);
    if (system && (d.src.chip >= config.chips || d.dst.chip >= config.chips))
      return invalid(at, which + " moves data of chip " +
                             llvm::Twine(std::max(d.src.chip, d.dst.chip)) +
                             ", beyond the system's " +
                             llvm::Twine(config.chips));
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
    if (w.chip != own)
      return invalid(at, "written range " + llvm::Twine(i) + " is on chip " +
                             llvm::Twine(w.chip) + ownText);
    if (w.begin >= w.end)
      return invalid(at, "written range " + llvm::Twine(i) + " " +
                             describeRange(w.space, w.begin, w.end) +
                             " is empty or reversed (begin >= end)");
    if (!coveredByBuffers(program, w.space, w.begin, w.end))
      return invalid(at, "written range " + llvm::Twine(i) + " " +
                             describeRange(w.space, w.begin, w.end) +
                             " is not inside the program's buffers");
  }
  if (system)
    return validateSystem(config);
  return llvm::Error::success();
}

/// Whether tile `t` has the ISA's shape (16-bit fields, non-empty) and lies
/// in one buffer of `program`.
static bool isProgramTile(const isa::Program &program, const sim::TileRef &t) {
  return t.rows && t.cols && t.rows <= UINT16_MAX && t.cols <= UINT16_MAX &&
         t.rowStride <= UINT16_MAX && tileInOneBuffer(program, t);
}

llvm::Error Trace::validateSystem(const sim::MachineConfig &config) const {
  // Long: one check per field of the system section, in file order.
  InvalidTrace invalid{layout};
  const SystemWindow &sys = *system;
  const uint32_t own = sys.chip;
  const sim::Simulator::TimingState &ts = sys.timing;
  std::optional<uint64_t> at = layout.system;
  // Cycles (and HBM units) stay far below 2^64, so the replay's sums of
  // cycles and latencies cannot wrap: 2^48 cycles are three days at 1 GHz.
  const uint64_t maxCycle = kMaxTraceCycle;
  const sim::HbmUnits maxUnits =
      sim::HbmUnits(maxCycle) *
      std::max<uint64_t>(1, config.hbmMilliBytesPerCycle);
  auto lateCycle = [&](std::initializer_list<uint64_t> cycles) {
    return llvm::any_of(cycles, [&](uint64_t c) { return c > maxCycle; });
  };
  auto lateUnits = [&](std::initializer_list<sim::HbmUnits> units) {
    return llvm::any_of(units, [&](sim::HbmUnits u) { return u > maxUnits; });
  };
  const std::string lateText =
      " is past cycle 2^48 (a trace's cycles stay below it)";
  bool late =
      lateCycle({ts.lastIssue, ts.engine.remoteDrain}) ||
      llvm::any_of(ts.unitFree, [&](uint64_t c) { return c > maxCycle; }) ||
      llvm::any_of(ts.inFlight,
                   [&](const auto &op) { return op.end > maxCycle; }) ||
      llvm::any_of(ts.engine.linkFree,
                   [&](uint64_t c) { return c > maxCycle; }) ||
      llvm::any_of(ts.engine.hbmBusy,
                   [&](const auto &iv) { return iv.second > maxUnits; });
  if (late)
    return invalid(at, "the chip's timing state" + lateText);
  for (const auto &[sem, sig] : ts.signals)
    if (sig.cycle > maxCycle)
      return invalid(at, "a pending signal" + lateText);
  for (const sim::IncomingDma &d : ts.incoming)
    if (d.complete > maxCycle)
      return invalid(at, "an incoming DMA" + lateText);
  for (size_t i = 0; i < sys.log.answers.size(); ++i) {
    const sim::RemoteAnswer &a = sys.log.answers[i];
    if (lateCycle({a.transfer.injectStart, a.transfer.firstArrival,
                   a.transfer.lastArrival}) ||
        lateUnits({a.peerHbmAt}))
      return invalid(i < layout.answers.size()
                         ? std::optional<uint64_t>(layout.answers[i])
                         : std::nullopt,
                     "answer " + llvm::Twine(i) + lateText);
  }
  auto tileProblem =
      [&](const sim::TileRef &t, bool mustBeOwn,
          const llvm::Twine &what) -> std::optional<std::string> {
    if (mustBeOwn && t.chip != own)
      return (what + " is on chip " + llvm::Twine(t.chip) +
              "; the window is chip " + llvm::Twine(own) + "'s")
          .str();
    if (t.chip >= config.chips)
      return (what + " is on chip " + llvm::Twine(t.chip) +
              ", beyond the system's " + llvm::Twine(config.chips))
          .str();
    if (!isProgramTile(program, t))
      return (what + " at " + isa::memSpaceName(t.space) + " address " +
              llvm::Twine(t.base) +
              " is not a tile inside one buffer of the "
              "program")
          .str();
    return std::nullopt;
  };
  for (size_t u = 0; u < ts.inFlight.size(); ++u)
    for (const auto *list : {&ts.inFlight[u].reads, &ts.inFlight[u].writes})
      for (const sim::TileRef &t : *list)
        if (auto p = tileProblem(t, true, "a tile of the op in flight"))
          return invalid(at, *p);
  if (ts.engine.linkFree.size() != config.links.size())
    return invalid(at, "the DMA engine state has " +
                           llvm::Twine(ts.engine.linkFree.size()) +
                           " links but the machine config has " +
                           llvm::Twine(config.links.size()));
  for (size_t i = 0; i < ts.engine.hbmBusy.size(); ++i) {
    auto [b, e] = ts.engine.hbmBusy[i];
    if (b >= e || (i && b <= ts.engine.hbmBusy[i - 1].second))
      return invalid(at, "HBM reservation " + llvm::Twine(i) +
                             " is empty, or not after the previous one");
  }
  // The DMAs in flight: one timing each, in order, on a link of the config.
  if (ts.pendingTimings.size() != pendingDmas.size())
    return invalid(layout.timings, "the system section has " +
                                       llvm::Twine(ts.pendingTimings.size()) +
                                       " DMA timings for " +
                                       llvm::Twine(pendingDmas.size()) +
                                       " DMAs in flight");
  const uint64_t numLinks = config.links.size() + config.topology.getNumLinks();
  for (size_t i = 0; i < ts.pendingTimings.size(); ++i) {
    const sim::DmaTiming &t = ts.pendingTimings[i];
    std::optional<uint64_t> tAt = layout.timings + i * kTimingRecord;
    if (t.id != pendingDmas[i].id)
      return invalid(tAt, "DMA timing " + llvm::Twine(i) + " has id " +
                              llvm::Twine(t.id) + " but DMA in flight " +
                              llvm::Twine(i) + " is " +
                              llvm::Twine(pendingDmas[i].id));
    if (lateCycle({t.issue, t.baseEnd, t.transferStart, t.complete}))
      return invalid(tAt, "DMA timing " + llvm::Twine(i) + lateText);
    if (t.link < 0 || uint64_t(t.link) >= numLinks ||
        !(t.issue <= t.baseEnd && t.baseEnd <= t.complete &&
          t.transferStart <= t.complete) ||
        t.semaphore >= int(isa::kNumSemaphores) || t.semaphore < -1)
      return invalid(tAt, "DMA timing " + llvm::Twine(i) + " (id " +
                              llvm::Twine(t.id) +
                              ") is not a DMA of the machine: link, cycles "
                              "out of order, or semaphore");
  }
  for (const auto &[sem, sig] : ts.signals)
    if (sem >= isa::kNumSemaphores || sig.chip >= config.chips)
      return invalid(at, "a pending signal names semaphore " +
                             llvm::Twine(sem) + " of chip " +
                             llvm::Twine(sig.chip) + " (a chip has " +
                             llvm::Twine(isa::kNumSemaphores) + ")");
  for (const sim::IncomingDma &d : ts.incoming)
    if (auto p = tileProblem(d.tile, true, "an incoming DMA's tile"))
      return invalid(at, *p);
  // Events: in the window, in order.
  uint64_t end = startIndex + pcs.size();
  uint64_t prev = startIndex;
  for (size_t i = 0; i < sys.log.events.size(); ++i) {
    const sim::ExternalEvent &e = sys.log.events[i];
    std::optional<uint64_t> eAt;
    if (i < layout.events.size())
      eAt = layout.events[i];
    std::string which = "event " + std::to_string(i);
    if (e.index < prev || e.index >= end)
      return invalid(
          eAt, which + " comes before instruction " + llvm::Twine(e.index) +
                   " of the run, not in order in the window [" +
                   llvm::Twine(startIndex) + ", " + llvm::Twine(end) + ")");
    prev = e.index;
    if (lateCycle({e.cycle}) || lateUnits({e.from, e.length, e.now}))
      return invalid(eAt, which + lateText);
    using Kind = sim::ExternalEvent::Kind;
    if (e.kind == Kind::MemWrite || e.kind == Kind::Incoming)
      if (auto p = tileProblem(e.tile, true, which + "'s tile"))
        return invalid(eAt, *p);
    if (e.kind == Kind::MemWrite &&
        e.bytes.size() != e.tile.rows * e.tile.rowBytes())
      return invalid(eAt, which + " writes " + llvm::Twine(e.bytes.size()) +
                              " bytes to a tile of " +
                              llvm::Twine(e.tile.rows * e.tile.rowBytes()));
    if ((e.kind == Kind::Signal || e.kind == Kind::Incoming) &&
        e.fromChip >= config.chips)
      return invalid(eAt,
                     which + " comes from chip " + llvm::Twine(e.fromChip) +
                         ", beyond the system's " + llvm::Twine(config.chips));
    if (e.kind == Kind::Signal && e.semaphore >= isa::kNumSemaphores)
      return invalid(eAt, which + " signals semaphore " +
                              llvm::Twine(e.semaphore) + " (a chip has " +
                              llvm::Twine(isa::kNumSemaphores) + ")");
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
