//===- TraceValidate.cpp - A trace checked against its machine ------------===//
//
// Trace::validate, Trace::validateSystem and Trace::checkWrittenSize: what
// a trace read from a file (or built in memory) must satisfy before a
// replay indexes or allocates anything by its numbers: its program and
// window against the machine config, its DMAs in flight against the
// program, and the system section of a version-4 trace.
//
//===----------------------------------------------------------------------===//

#include "TraceFormat.h"
#include "accel/Sim/Access.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <optional>
#include <tuple>

using namespace accel;
using namespace accel::replay;

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

/// Where record `index` of a list of `size`-byte records starting at
/// `first` begins.
static std::optional<uint64_t> recordAt(uint64_t first, uint64_t size,
                                        uint64_t index) {
  return first + index * size;
}

/// The machine: the system's chips (or 1 for a chip alone) are the
/// config's, the program's buffers fit it, and the window's PCs are
/// instructions of the program (that they are the ones the replay reaches
/// is the replay's PC check).
static llvm::Error checkMachine(const Trace &t,
                                const sim::MachineConfig &config,
                                const InvalidTrace &invalid) {
  const TraceLayout &layout = t.layout;
  if (t.system) {
    if (t.system->chips != config.chips || t.system->chip >= t.system->chips)
      return invalid(layout.system, "the window is chip " +
                                        llvm::Twine(t.system->chip) + " of " +
                                        llvm::Twine(t.system->chips) +
                                        " chips but the machine config has " +
                                        llvm::Twine(config.chips));
  } else if (config.chips != 1) {
    return invalid(std::nullopt,
                   "a trace of a chip alone replays on 1 chip, not " +
                       llvm::Twine(config.chips));
  }
  if (llvm::Error e =
          t.program.checkBuffersFit(config.vmemBytes, config.hbmBytes))
    return invalid(layout.image,
                   "program image: " + llvm::toString(std::move(e)));
  const size_t numInsts = t.program.code.size();
  // A run of PCs [first, first + count) leaves the program at its first
  // PC past the last instruction.
  uint64_t i = 0;
  for (const PcSequence::Run &run : t.pcs.getRuns()) {
    uint64_t last = uint64_t(run.first) + run.count - 1;
    if (last >= numInsts) {
      uint64_t pc = std::max<uint64_t>(run.first, numInsts);
      uint64_t at = i + (pc - run.first);
      return invalid(recordAt(layout.pcs, 4, at),
                     "PC " + llvm::Twine(at) + " of the window is " +
                         llvm::Twine(pc) + ", outside the program's " +
                         llvm::Twine(numInsts) + " instructions");
    }
    i += run.count;
  }
  return llvm::Error::success();
}

/// Saved memory: on chip `own` (else an error ending in `ownText`), no
/// wrap around 2^64, inside the machine (the buffers that hold it are
/// checked when it is installed).
static llvm::Error checkMemoryChunks(const Trace &t,
                                     const sim::MachineConfig &config,
                                     uint32_t own, const std::string &ownText,
                                     const InvalidTrace &invalid) {
  for (size_t i = 0; i < t.memory.size(); ++i) {
    const MemChunk &c = t.memory[i];
    std::optional<uint64_t> at;
    if (i < t.layout.memory.size())
      at = t.layout.memory[i];
    if (c.chip != own)
      return invalid(at, "memory chunk " + llvm::Twine(i) + " is on chip " +
                             llvm::Twine(c.chip) + ownText);
    uint64_t capacity =
        c.space == isa::MemSpace::VMEM ? config.vmemBytes : config.hbmBytes;
    if (c.addr > UINT64_MAX - c.bytes.size() ||
        c.addr + c.bytes.size() > capacity)
      return invalid(
          at,
          "memory chunk " + llvm::Twine(i) + " at " +
              isa::memSpaceName(c.space) + " address " + llvm::Twine(c.addr) +
              " with " + llvm::Twine(c.bytes.size()) +
              " bytes does not fit the config's " +
              (c.space == isa::MemSpace::VMEM ? "vmem.bytes " : "hbm.bytes ") +
              llvm::Twine(capacity));
  }
  return llvm::Error::success();
}

/// DMA in flight `d`, named `which`, at `at`: below the next DMA id, on
/// chips of the machine, issued by a dma.issue of its shape and spaces on
/// a link of the config, and inside one buffer each way.
static llvm::Error
checkPendingDma(const Trace &t, const sim::MachineConfig &config,
                const DmaDescriptor &d, std::optional<uint64_t> at,
                const std::string &which, const std::string &ownText,
                const InvalidTrace &invalid) {
  const isa::Program &program = t.program;
  if (d.id >= t.nextDmaId)
    return invalid(at, which + " is not below the next DMA id " +
                           llvm::Twine(t.nextDmaId));
  // Alone, a DMA moves the chip's own data; on a system it may read or
  // write another chip.
  if (!t.system && (d.src.chip != 0 || d.dst.chip != 0))
    return invalid(at, which + " moves data of chip " +
                           llvm::Twine(d.src.chip ? d.src.chip : d.dst.chip) +
                           ownText);
  if (t.system && (d.src.chip >= config.chips || d.dst.chip >= config.chips))
    return invalid(at, which + " moves data of chip " +
                           llvm::Twine(std::max(d.src.chip, d.dst.chip)) +
                           ", beyond the system's " +
                           llvm::Twine(config.chips));
  if (d.issuePc >= program.code.size() ||
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
                           llvm::Twine(d.issuePc) + " (" + isa::toString(in) +
                           ")");
  if (config.findLink(d.src.space, d.dst.space) < 0)
    return invalid(at, which + ": the config has no DMA link " +
                           isa::memSpaceName(d.src.space) + "->" +
                           isa::memSpaceName(d.dst.space));
  for (const sim::TileRef *tile : {&d.src, &d.dst})
    if (!tileInOneBuffer(program, *tile))
      return invalid(at, which + ": its " +
                             (tile == &d.src ? "source" : "destination") +
                             " at " + isa::memSpaceName(tile->space) +
                             " address " + llvm::Twine(tile->base) +
                             " is not inside one buffer of the program");
  return llvm::Error::success();
}

/// DMA ids: each DMA of the recorded run before the window was issued by
/// one of its startIndex instructions; then each DMA in flight
/// (checkPendingDma), and no two with one id.
static llvm::Error checkPendingDmas(const Trace &t,
                                    const sim::MachineConfig &config,
                                    const std::string &ownText,
                                    const InvalidTrace &invalid) {
  const TraceLayout &layout = t.layout;
  if (t.nextDmaId > t.startIndex)
    return invalid(layout.nextDmaId,
                   "the next DMA id " + llvm::Twine(t.nextDmaId) +
                       " is more than the " + llvm::Twine(t.startIndex) +
                       " instructions before the window could have "
                       "issued");
  std::vector<uint32_t> ids;
  ids.reserve(t.pendingDmas.size());
  for (size_t i = 0; i < t.pendingDmas.size(); ++i) {
    const DmaDescriptor &d = t.pendingDmas[i];
    std::string which = "DMA in flight " + std::to_string(i) + " (id " +
                        std::to_string(d.id) + ")";
    if (llvm::Error e =
            checkPendingDma(t, config, d, recordAt(layout.dmas, kDmaRecord, i),
                            which, ownText, invalid))
      return e;
    ids.push_back(d.id);
  }
  llvm::sort(ids);
  for (size_t i = 1; i < ids.size(); ++i)
    if (ids[i] == ids[i - 1])
      return invalid(layout.dmas,
                     "two DMAs in flight have id " + llvm::Twine(ids[i]));
  return llvm::Error::success();
}

/// Written ranges (deserialize checked that they are non-empty, ordered
/// and disjoint): on chip `own` (else an error ending in `ownText`),
/// inside the program's buffers.
static llvm::Error checkWrittenRanges(const Trace &t, uint32_t own,
                                      const std::string &ownText,
                                      const InvalidTrace &invalid) {
  for (size_t i = 0; i < t.writtenRanges.size(); ++i) {
    const sim::AddrRange &w = t.writtenRanges[i];
    std::optional<uint64_t> at =
        recordAt(t.layout.writtenRanges, kWrittenRecord, i);
    if (w.chip != own)
      return invalid(at, "written range " + llvm::Twine(i) + " is on chip " +
                             llvm::Twine(w.chip) + ownText);
    if (w.begin >= w.end)
      return invalid(at, "written range " + llvm::Twine(i) + " " +
                             describeRange(w.space, w.begin, w.end) +
                             " is empty or reversed (begin >= end)");
    if (!coveredByBuffers(t.program, w.space, w.begin, w.end))
      return invalid(at, "written range " + llvm::Twine(i) + " " +
                             describeRange(w.space, w.begin, w.end) +
                             " is not inside the program's buffers");
  }
  return llvm::Error::success();
}

llvm::Error Trace::validate(const sim::MachineConfig &config) const {
  InvalidTrace invalid{layout};
  // The chip whose memory the window holds: chip 0 alone, the recorded
  // chip of a system.
  const uint32_t own = system ? system->chip : 0;
  const std::string ownText =
      system ? "; the window is chip " + std::to_string(own) + "'s"
             : std::string("; a window replays one chip, chip 0");
  if (llvm::Error e = checkMachine(*this, config, invalid))
    return e;
  if (llvm::Error e = checkMemoryChunks(*this, config, own, ownText, invalid))
    return e;
  if (llvm::Error e = checkPendingDmas(*this, config, ownText, invalid))
    return e;
  if (llvm::Error e = checkWrittenRanges(*this, own, ownText, invalid))
    return e;
  if (system)
    return validateSystem(config);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// The system section
//===----------------------------------------------------------------------===//

/// Whether tile `t` has the ISA's shape (16-bit fields, non-empty) and lies
/// in one buffer of `program`.
static bool isProgramTile(const isa::Program &program, const sim::TileRef &t) {
  return t.rows && t.cols && t.rows <= UINT16_MAX && t.cols <= UINT16_MAX &&
         t.rowStride <= UINT16_MAX && tileInOneBuffer(program, t);
}

namespace {
/// The latest cycle (and HBM unit) a trace may hold: cycles (and HBM
/// units) stay far below 2^64, so the replay's sums of cycles and
/// latencies cannot wrap: 2^48 cycles are three days at 1 GHz.
struct CycleLimits {
  uint64_t maxCycle;
  sim::HbmUnits maxUnits;
  explicit CycleLimits(const sim::MachineConfig &config)
      : maxCycle(kMaxTraceCycle),
        maxUnits(sim::HbmUnits(kMaxTraceCycle) *
                 std::max<uint64_t>(1, config.hbmMilliBytesPerCycle)) {}
  bool late(std::initializer_list<uint64_t> cycles) const {
    return llvm::any_of(cycles, [&](uint64_t c) { return c > maxCycle; });
  }
  bool lateUnits(std::initializer_list<sim::HbmUnits> units) const {
    return llvm::any_of(units, [&](sim::HbmUnits u) { return u > maxUnits; });
  }
};
} // namespace

/// What an error about a late cycle ends with.
static const char kLateText[] =
    " is past cycle 2^48 (a trace's cycles stay below it)";

/// No cycle of the chip's timing state, its pending signals, its incoming
/// DMAs or the answers of `sys` is past `limits`.
static llvm::Error checkLateCycles(const SystemWindow &sys,
                                   const TraceLayout &layout,
                                   const CycleLimits &limits,
                                   const InvalidTrace &invalid) {
  const sim::Simulator::TimingState &ts = sys.timing;
  std::optional<uint64_t> at = layout.system;
  const uint64_t maxCycle = limits.maxCycle;
  const std::string lateText = kLateText;
  bool late =
      limits.late({ts.lastIssue, ts.engine.remoteDrain}) ||
      llvm::any_of(ts.unitFree, [&](uint64_t c) { return c > maxCycle; }) ||
      llvm::any_of(ts.inFlight,
                   [&](const auto &op) { return op.end > maxCycle; }) ||
      llvm::any_of(ts.engine.linkFree,
                   [&](uint64_t c) { return c > maxCycle; }) ||
      llvm::any_of(ts.engine.hbmBusy,
                   [&](const auto &iv) { return iv.second > limits.maxUnits; });
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
    if (limits.late({a.transfer.injectStart, a.transfer.firstArrival,
                     a.transfer.lastArrival}) ||
        limits.lateUnits({a.peerHbmAt}))
      return invalid(i < layout.answers.size()
                         ? std::optional<uint64_t>(layout.answers[i])
                         : std::nullopt,
                     "answer " + llvm::Twine(i) + lateText);
  }
  return llvm::Error::success();
}

/// What is wrong with tile `t`, named `what`, of the system section of
/// `trace`: not on the recorded chip (when `mustBeOwn`), on no chip of
/// `config`, or not a tile inside one buffer of the program; none if
/// nothing.
static std::optional<std::string>
getTileProblem(const Trace &trace, const sim::MachineConfig &config,
               const sim::TileRef &t, bool mustBeOwn, const llvm::Twine &what) {
  const uint32_t own = trace.system->chip;
  if (mustBeOwn && t.chip != own)
    return (what + " is on chip " + llvm::Twine(t.chip) +
            "; the window is chip " + llvm::Twine(own) + "'s")
        .str();
  if (t.chip >= config.chips)
    return (what + " is on chip " + llvm::Twine(t.chip) +
            ", beyond the system's " + llvm::Twine(config.chips))
        .str();
  if (!isProgramTile(trace.program, t))
    return (what + " at " + isa::memSpaceName(t.space) + " address " +
            llvm::Twine(t.base) +
            " is not a tile inside one buffer of the "
            "program")
        .str();
  return std::nullopt;
}

/// The chip's timing state: the tiles of its ops in flight, one free
/// cycle per link of `config`, HBM reservations non-empty and in order.
static llvm::Error checkTimingState(const Trace &t,
                                    const sim::MachineConfig &config,
                                    const InvalidTrace &invalid) {
  const sim::Simulator::TimingState &ts = t.system->timing;
  std::optional<uint64_t> at = t.layout.system;
  for (size_t u = 0; u < ts.inFlight.size(); ++u)
    for (const auto *list : {&ts.inFlight[u].reads, &ts.inFlight[u].writes})
      for (const sim::TileRef &tile : *list)
        if (auto p = getTileProblem(t, config, tile, true,
                                    "a tile of the op in flight"))
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
  return llvm::Error::success();
}

/// The DMAs in flight: one timing each, in order, on a link of the config,
/// its cycles in order and before `limits`.
static llvm::Error checkPendingTimings(const Trace &trace,
                                       const sim::MachineConfig &config,
                                       const CycleLimits &limits,
                                       const InvalidTrace &invalid) {
  const sim::Simulator::TimingState &ts = trace.system->timing;
  const TraceLayout &layout = trace.layout;
  const std::vector<DmaDescriptor> &pendingDmas = trace.pendingDmas;
  const std::string lateText = kLateText;
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
    if (limits.late({t.issue, t.baseEnd, t.transferStart, t.complete}))
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
  return llvm::Error::success();
}

/// The pending signals' semaphores and chips exist; the incoming DMAs'
/// tiles are the recorded chip's.
static llvm::Error checkSignalsAndIncoming(const Trace &t,
                                           const sim::MachineConfig &config,
                                           const InvalidTrace &invalid) {
  const sim::Simulator::TimingState &ts = t.system->timing;
  std::optional<uint64_t> at = t.layout.system;
  for (const auto &[sem, sig] : ts.signals)
    if (sem >= isa::kNumSemaphores || sig.chip >= config.chips)
      return invalid(at, "a pending signal names semaphore " +
                             llvm::Twine(sem) + " of chip " +
                             llvm::Twine(sig.chip) + " (a chip has " +
                             llvm::Twine(isa::kNumSemaphores) + ")");
  for (const sim::IncomingDma &d : ts.incoming)
    if (auto p =
            getTileProblem(t, config, d.tile, true, "an incoming DMA's tile"))
      return invalid(at, *p);
  return llvm::Error::success();
}

/// The events: in the window, in order, before `limits`; their tiles the
/// recorded chip's, a write's bytes its tile's, their chips and
/// semaphores those of the machine.
static llvm::Error checkEvents(const Trace &t, const sim::MachineConfig &config,
                               const CycleLimits &limits,
                               const InvalidTrace &invalid) {
  const SystemWindow &sys = *t.system;
  const TraceLayout &layout = t.layout;
  const uint64_t startIndex = t.startIndex;
  const std::string lateText = kLateText;
  uint64_t end = startIndex + t.pcs.size();
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
    if (limits.late({e.cycle}) || limits.lateUnits({e.from, e.length, e.now}))
      return invalid(eAt, which + lateText);
    using Kind = sim::ExternalEvent::Kind;
    if (e.kind == Kind::MemWrite || e.kind == Kind::Incoming)
      if (auto p = getTileProblem(t, config, e.tile, true, which + "'s tile"))
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

llvm::Error Trace::validateSystem(const sim::MachineConfig &config) const {
  InvalidTrace invalid{layout};
  CycleLimits limits(config);
  if (llvm::Error e = checkLateCycles(*system, layout, limits, invalid))
    return e;
  if (llvm::Error e = checkTimingState(*this, config, invalid))
    return e;
  if (llvm::Error e = checkPendingTimings(*this, config, limits, invalid))
    return e;
  if (llvm::Error e = checkSignalsAndIncoming(*this, config, invalid))
    return e;
  return checkEvents(*this, config, limits, invalid);
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
