//===- Analyzer.cpp - The performance tracker's analyses ------------------===//

#include "accel/Profile/Analyzer.h"
#include "accel/Sim/Access.h"

#include "llvm/Support/Compiler.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/MathExtras.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

using namespace accel;
using namespace accel::profile;
using json = nlohmann::json;
using isa::Opcode;

Analyzer::Analyzer(const isa::Program &program,
                   const sim::MachineConfig &config)
    : program(program), config(config), tracks(3 + config.getNumDmaLinks()),
      vmem(config.vmemBytes, config.vmemPageBytes),
      history(program.code.size()),
      dataflow(tracks.size() + 1, /*issueTrack=*/0, config.scalarLatency) {
  deps.setReadyCycles(&cycles);
  deps.setHistory(&history);
  dataflow.setHistory(&history);
  pcInfo.reserve(program.code.size());
  for (size_t pc = 0; pc < program.code.size(); ++pc)
    pcInfo.push_back(computePcInfo(program.code[pc], uint32_t(pc)));
  workByPc.resize(program.code.size());
  scalarBusyByPc.resize(program.code.size());
  pcRangesSlot.resize(program.code.size());
}

/// Appends `v` as LEB128 at `out`; returns the end. One byte below 128,
/// the usual case, else llvm::encodeULEB128 (5 bytes at most).
static inline uint8_t *putLeb(uint32_t v, uint8_t *out) {
  if (LLVM_LIKELY(v < 0x80)) {
    *out = uint8_t(v);
    return out + 1;
  }
  return out + llvm::encodeULEB128(v, out);
}

/// The LEB128 number at `p` (one putLeb wrote), `p` moved past it. One
/// byte below 128, the usual case, else llvm::decodeULEB128.
static inline uint32_t getLeb(const uint8_t *&p) {
  if (LLVM_LIKELY(*p < 0x80))
    return *p++;
  unsigned n;
  uint32_t v = uint32_t(llvm::decodeULEB128(p, &n));
  p += n;
  return v;
}

void Analyzer::BusyTrack::add(uint64_t start, uint32_t length, uint32_t opId) {
  if (count) {
    // The previous interval is final now: encode it (15 bytes at most).
    size_t at = bytes.size();
    bytes.resize_for_overwrite(at + 15);
    uint8_t *out = bytes.data() + at;
    out = putLeb(last.gap, out);
    out = putLeb(last.length, out);
    out = putLeb(last.opId, out);
    bytes.truncate(size_t(out - bytes.data()));
  }
  uint32_t gap = kWide;
  if (start >= lastEnd && start - lastEnd < kWide)
    gap = uint32_t(start - lastEnd);
  else
    wideStarts.push_back(start);
  last.gap = gap;
  last.length = length;
  last.opId = opId;
  ++count;
  lastEnd = start + length;
  busyCycles += length;
}

uint64_t Analyzer::BusyTrack::startOf(size_t k) const {
  Iterator it(*this, 0);
  for (size_t i = 0; i < k; ++i)
    ++it;
  return (*it).start;
}

void Analyzer::BusyTrack::Iterator::load() {
  if (k >= t->count)
    return;
  Entry e = t->last;
  if (k + 1 < t->count) {
    const uint8_t *p = t->bytes.data() + pos;
    e.gap = getLeb(p);
    e.length = getLeb(p);
    e.opId = getLeb(p);
    pos = size_t(p - t->bytes.data());
  }
  cur.start = e.gap == kWide ? t->wideStarts[wide++] : prevEnd + e.gap;
  cur.length = e.length;
  cur.opId = e.opId;
}

Analyzer::PcInfo Analyzer::computePcInfo(const isa::Inst &in,
                                         uint32_t pc) const {
  PcInfo info;
  // Registers only: the memory operands' addresses are not wanted here.
  sim::InstAccess acc = sim::getAccesses(in, [](unsigned) { return 0; });
  info.regReads = acc.regReads;
  info.regWrites = acc.regWrites;
  info.flops = isa::getFlops(in);
  info.opId = pc < program.origins.size() ? program.origins[pc].opId : 0;
  info.unit = isa::info(in.op).unit;
  info.controls = isa::info(in.op).format == isa::InstFormat::RsRsTarget;
  return info;
}

std::map<uint32_t, uint64_t> Analyzer::getScalarBusyByOp() const {
  std::map<uint32_t, uint64_t> byOp = otherScalarBusy;
  for (size_t pc = 0; pc < scalarBusyByPc.size(); ++pc)
    if (scalarBusyByPc[pc])
      byOp[pcInfo[pc].opId] += scalarBusyByPc[pc];
  return byOp;
}

std::map<uint32_t, Analyzer::Work> Analyzer::getWorkByOp() const {
  std::map<uint32_t, Work> byOp = otherWork;
  for (size_t pc = 0; pc < workByPc.size(); ++pc) {
    const Work &w = workByPc[pc];
    Work &o = byOp[pcInfo[pc].opId];
    o.flops += w.flops, o.bytesIn += w.bytesIn, o.bytesOut += w.bytesOut;
  }
  return byOp;
}

namespace accel {
namespace profile {
/// Shared helpers with access to Analyzer's private state.
struct AnalyzerImpl {
  static void busy(Analyzer &a, size_t track, uint64_t start, uint64_t end,
                   uint32_t opId) {
    Analyzer::BusyTrack &t = a.tracks[track];
    while (end > start) {
      // Merge with the previous interval when contiguous and of the same
      // op (the scalar track's carry no op: Analyzer::scalarBusyByPc).
      constexpr uint64_t kMax = UINT32_MAX;
      if (t.extends(start, opId)) {
        uint64_t add = std::min(end - start, kMax - t.lastLength());
        t.grow(uint32_t(add));
        start += add;
        continue;
      }
      uint64_t length = std::min(end - start, kMax);
      t.add(start, uint32_t(length), opId);
      start += length;
    }
  }
};
} // namespace profile
} // namespace accel

static uint32_t opIdAt(const isa::Program &p, uint32_t pc) {
  return pc < p.origins.size() ? p.origins[pc].opId : 0;
}

void Analyzer::onDmaIssue(uint32_t pc, const sim::DmaTiming &t) {
  Dma d;
  d.timing = t;
  d.pc = pc;
  d.index = index; // the ISSUE is the instruction about to retire
  dmaById[t.id] = dmas.size();
  dmas.push_back(d);
  if (t.link >= 0)
    AnalyzerImpl::busy(*this, 3 + size_t(t.link), t.transferStart, t.complete,
                       opIdAt(program, pc));
}

void Analyzer::onDmaInFlight(uint32_t pc, const sim::DmaTiming &t) {
  onDmaIssue(pc, t);
  dmas.back().inFlightAtStart = true;
}

void Analyzer::onDmaWait(const sim::WaitEvent &e) {
  auto it = dmaById.find(e.dmaId);
  if (it != dmaById.end()) {
    Dma &d = dmas[it->second];
    if (!d.waitCycle) {
      d.waitCycle = e.cycle;
      d.waitIndex = index;
      d.stallBase = e.outcome.stallBase;
      d.stallTransfer = e.outcome.stallTransfer;
    }
  }
  deps.dmaWait(index, e.dmaId);
}

void Analyzer::onIncomingDma(const sim::IncomingDma &d) {
  llvm::SmallVector<sim::AddrRange, 8> ranges;
  sim::forEachRange(d.tile,
                    [&](const sim::AddrRange &r) { ranges.push_back(r); });
  deps.incomingDma(d.chip, d.dmaId, ranges, d.writes);
}

void Analyzer::onSemWait(const sim::SemWaitEvent &e) {
  deps.semWait(index, e.consumed); // the sem.wait is about to retire
}

namespace accel::profile {
/// The steps of Analyzer::onRetire, in the order they run.
struct RetireSteps {
  /// Whether `a` and `b` are the same instruction (every field): their
  /// bytes, which are exactly their fields (two 8-byte compares, where the
  /// eleven field compares were 0.8% of a run).
  static bool same(const isa::Inst &a, const isa::Inst &b) {
    static_assert(std::has_unique_object_representations_v<isa::Inst>,
                  "no padding: equal bytes are equal fields");
    return std::memcmp(&a, &b, sizeof(isa::Inst)) == 0;
  }

  /// The byte ranges of `operands`, into `out`. Each range is copied field
  /// by field: copied whole, it was read back as 16-byte halves over the
  /// 1-, 16- and 4-byte stores that built it, which the store buffer cannot
  /// forward (perf: most of this function's time).
  static void getRanges(llvm::ArrayRef<sim::MemOperand> operands,
                        llvm::SmallVectorImpl<sim::AddrRange> &out) {
    out.clear();
    // Each range's fields are copied one by one: a range built on the stack
    // and pushed whole is read back as 16-byte halves over its narrower
    // stores, a store-forwarding stall per range (perf, a52b02b).
    auto add = [&](const sim::TileRef &t, uint64_t begin, uint64_t end) {
      sim::AddrRange &a = out.emplace_back();
      a.space = t.space;
      a.begin = begin;
      a.end = end;
      a.chip = t.chip;
    };
    for (const sim::MemOperand &m : operands) {
      const sim::TileRef &t = m.tile;
      if (t.rows == 0 || t.cols == 0)
        continue;
      // The usual dense tile, inline: one range (forEachRange's first case,
      // the tile's span).
      if (t.rowStride == t.cols || t.rows == 1) {
        add(t, t.base, t.base + t.rows * t.cols * t.elemBytes);
        continue;
      }
      sim::forEachRange(
          t, [&](const sim::AddrRange &r) { add(t, r.begin, r.end); });
    }
  }

  /// The byte ranges of `ev`'s operands into `reads` and `writes`: from
  /// its PC's entry in a.pcRanges when `known` and the shapes are fixed
  /// (`same`: the entry's bases were these, so were the ranges), else
  /// computed into a.readRanges and a.writeRanges. Valid until the next
  /// call.
  static void ranges(Analyzer &a, const sim::RetireEvent &ev, bool known,
                     llvm::ArrayRef<sim::AddrRange> &reads,
                     llvm::ArrayRef<sim::AddrRange> &writes, bool &same) {
    using PcRanges = Analyzer::PcRanges;
    size_t nr = ev.memReads.size(), n = nr + ev.memWrites.size();
    same = false;
    auto compute = [&] {
      getRanges(ev.memReads, a.readRanges);
      getRanges(ev.memWrites, a.writeRanges);
      reads = a.readRanges;
      writes = a.writeRanges;
    };
    if (!known || !ev.fixedShapes || n == 0 || n > PcRanges::kMaxOperands)
      return compute();
    uint32_t &slot = a.pcRangesSlot[ev.pc];
    if (!slot) {
      a.pcRanges.emplace_back();
      slot = uint32_t(a.pcRanges.size());
    }
    PcRanges &c = a.pcRanges[slot - 1];
    auto baseOf = [&](size_t k) {
      return k < nr ? ev.memReads[k].tile.base : ev.memWrites[k - nr].tile.base;
    };
    same = c.valid && c.numOperands == n;
    for (size_t k = 0; k < n && same; ++k)
      same = c.bases[k] == baseOf(k);
    if (!same) {
      compute();
      size_t numRanges = reads.size() + writes.size();
      c.valid = numRanges <= PcRanges::kMaxRanges;
      if (!c.valid)
        return;
      c.numOperands = uint8_t(n);
      for (size_t k = 0; k < n; ++k)
        c.bases[k] = baseOf(k);
      std::copy(reads.begin(), reads.end(), c.ranges);
      std::copy(writes.begin(), writes.end(), c.ranges + reads.size());
      c.numReadRanges = uint8_t(reads.size());
      c.numRanges = uint8_t(numRanges);
    }
    reads = llvm::ArrayRef(c.ranges, c.numReadRanges);
    writes = llvm::ArrayRef(c.ranges + c.numReadRanges,
                            c.numRanges - c.numReadRanges);
  }

  /// The instruction's issue and done cycles, and its unit's busy interval
  /// (a scalar unit's charged to its PC, or to its op when `known` is
  /// false).
  static void recordTiming(Analyzer &a, const sim::RetireEvent &ev,
                           const Analyzer::PcInfo &info, bool known) {
    a.pcs.push_back(ev.pc);
    isa::Unit unit = info.unit;
    a.cycles.push(ev.issueCycle,
                  unit == isa::Unit::Mxu || unit == isa::Unit::Vpu
                      ? ev.unitEnd
                      : ev.issueCycle + 1);
    if (unit == isa::Unit::Scalar && ev.unitEnd > ev.unitStart) {
      AnalyzerImpl::busy(a, 0, ev.unitStart, ev.unitEnd, 0);
      (known ? a.scalarBusyByPc[ev.pc] : a.otherScalarBusy[info.opId]) +=
          ev.unitEnd - ev.unitStart;
    } else if (unit == isa::Unit::Mxu)
      AnalyzerImpl::busy(a, 1, ev.unitStart, ev.unitEnd, info.opId);
    else if (unit == isa::Unit::Vpu)
      AnalyzerImpl::busy(a, 2, ev.unitStart, ev.unitEnd, info.opId);
  }

  /// A DMA's operands and HBM traffic (loads in, stores out; VMEM-local
  /// copies move no bytes across the HBM boundary), and whether it re-DMAs
  /// unchanged source bytes into the same VMEM place as an earlier one
  /// (pinning): the same source and destination tiles (space, base, shape,
  /// strides), both on this chip (a remote DMA fills another chip's VMEM,
  /// which a pin here cannot keep).
  static void noteDma(Analyzer &a, Analyzer::Dma &dma,
                      const sim::RetireEvent &ev, Analyzer::Work &w,
                      llvm::ArrayRef<sim::AddrRange> reads,
                      llvm::ArrayRef<sim::AddrRange> writes) {
    dma.src = ev.memReads.empty() ? sim::MemOperand{} : ev.memReads[0];
    dma.dst = ev.memWrites.empty() ? sim::MemOperand{} : ev.memWrites[0];
    if (dma.src.tile.space == isa::MemSpace::HBM)
      w.bytesIn += dma.timing.bytes;
    else if (dma.dst.tile.space == isa::MemSpace::HBM)
      w.bytesOut += dma.timing.bytes;
    const sim::TileRef &st = dma.src.tile, &dt = dma.dst.tile;
    Analyzer::PinKey key = {int(st.space), st.base,      st.rows,
                            st.cols,       st.rowStride, int(dt.space),
                            dt.base,       dt.rowStride};
    bool local = dma.timing.srcChip == dma.timing.chip &&
                 dma.timing.dstChip == dma.timing.chip;
    auto prev = dt.space == isa::MemSpace::VMEM && local ? a.lastSame.find(key)
                                                         : a.lastSame.end();
    if (prev != a.lastSame.end()) {
      const Analyzer::Dma &p = a.dmas[prev->second];
      dma.previousSame = prev->second;
      // The last writer of the source bytes so far (this ISSUE joins the
      // dataflow graph below).
      int64_t lastSrcWrite = -1;
      sim::forEachRange(dma.src.tile, [&](const sim::AddrRange &r) {
        a.dataflow.forEachLastWriter(
            r, [&](int64_t v) { lastSrcWrite = std::max(lastSrcWrite, v); });
      });
      dma.srcChangedSincePrevious = lastSrcWrite > int64_t(p.index);
    }
    if (dt.space == isa::MemSpace::VMEM && local)
      a.lastSame[key] = a.dmas.size() - 1;
  }

  /// The instruction's cost in the dataflow bound: MXU/VPU work costs its
  /// busy cycles, a DMA its T_b and then its transfer on its link (and on
  /// the HBM bus, for a DMA to or from HBM); scalar work is free, and every
  /// instruction takes its issue on the core (track 0).
  static DataflowBound::Cost getCost(const Analyzer &a,
                                     const sim::RetireEvent &ev, isa::Unit unit,
                                     const Analyzer::Dma *dma) {
    DataflowBound::Cost cost;
    if (unit == isa::Unit::Mxu || unit == isa::Unit::Vpu) {
      cost.track = unit == isa::Unit::Mxu ? 1 : 2;
      cost.busy = ev.unitEnd - ev.unitStart;
      return cost;
    }
    if (!dma || dma->timing.link < 0)
      return cost;
    const sim::MachineConfig &config = a.config;
    const sim::DmaTiming &t = dma->timing;
    cost.track = 3 + t.link;
    cost.lead = t.baseEnd - t.issue;
    cost.busy = t.complete - t.transferStart;
    // A remote DMA: base_end is its unloaded latency (T_b and the hops);
    // its transfer at least its bytes at one ICI link's bandwidth (the
    // packets serialize on the first link). What contention on the network
    // added is the link bound's to count, not the dataflow's.
    if (size_t(t.link) >= config.links.size())
      cost.busy = std::min(
          cost.busy,
          sim::getTransferCycles(t.bytes, config.iciMilliBytesPerCycle));
    cost.holdsDmaSlot = true;
    // The HBM bus the links share (the last track): its bursts at
    // hbm.bytes_per_cycle, as in the roofline, rounded down (the DMA engine
    // reserves HBM in fractions of a cycle, so rounding up each DMA would
    // overstate the bus's work).
    if (size_t(t.link) < config.links.size() &&
        (config.links[t.link].src == isa::MemSpace::HBM ||
         config.links[t.link].dst == isa::MemSpace::HBM) &&
        config.hbmMilliBytesPerCycle) {
      cost.track2 = int(a.tracks.size());
      cost.busy2 =
          uint64_t((unsigned __int128)t.busBytes * sim::kBandwidthScale /
                   config.hbmMilliBytesPerCycle);
    }
    return cost;
  }

  /// Adds the instruction to the dataflow bound. On a system, another
  /// chip's memory it reads (a remote DMA's source) is ready when its
  /// producer there is, and what it writes on another chip is ready there
  /// when it finishes here.
  static void addToDataflow(Analyzer &a, const Analyzer::PcInfo &info,
                            llvm::ArrayRef<sim::AddrRange> reads,
                            llvm::ArrayRef<sim::AddrRange> writes,
                            const DataflowBound::Cost &cost, unsigned period) {
    bool system = !a.peers.empty();
    if (system)
      for (const sim::AddrRange &r : reads)
        if (r.chip != a.selfChip && r.chip < a.peers.size())
          a.dataflow.addExternalWrite(r, a.peers[r.chip]->dataflow.getReady(r));
    a.dataflow.add(info.regReads, info.regWrites, reads, writes, cost, period);
    if (system)
      for (const sim::AddrRange &w : writes)
        if (w.chip != a.selfChip && w.chip < a.peers.size())
          a.peers[w.chip]->dataflow.addExternalWrite(
              w, a.dataflow.getLastFinish());
  }
};
} // namespace accel::profile

void Analyzer::onRetire(const sim::RetireEvent &ev) {
  const isa::Inst &in = *ev.inst;
  // The instruction's static facts: from the table when it is the
  // program's own instruction at its PC (always, but for a hand-built
  // event; the simulator runs its own copy of the code).
  bool known =
      ev.pc < pcInfo.size() && RetireSteps::same(program.code[ev.pc], in);
  if (!known)
    otherPcInfo = computePcInfo(in, ev.pc);
  const PcInfo &info = known ? pcInfo[ev.pc] : otherPcInfo;
  uint32_t opId = info.opId;
  RetireSteps::recordTiming(*this, ev, info, known);
  isa::Unit unit = info.unit;

  // Byte ranges read and written.
  llvm::ArrayRef<sim::AddrRange> reads, writes;
  bool sameRanges;
  RetireSteps::ranges(*this, ev, known, reads, writes, sameRanges);
  unsigned period = history.push(known ? ev.pc : AccessHistory::kNoPc, reads,
                                 writes, sameRanges);

  // Timing of the accesses for VMEM liveness.
  bool isDma = in.op == Opcode::DmaIssue;
  uint64_t at = unit == isa::Unit::Scalar ? ev.issueCycle : ev.unitStart;
  Dma *dma = nullptr;
  if (isDma && !dmas.empty() && dmas.back().index == index &&
      !dmas.back().inFlightAtStart) {
    dma = &dmas.back();
    at = dma->timing.transferStart;
  }
  bool accessesVmem = false;
  for (const sim::AddrRange &r : reads)
    accessesVmem |= r.space == isa::MemSpace::VMEM;
  for (const sim::AddrRange &w : writes)
    accessesVmem |= w.space == isa::MemSpace::VMEM;
  if (!vmemRepeats(period, at, accessesVmem, known && !isDma && !dma)) {
    for (const sim::AddrRange &r : reads)
      if (r.space == isa::MemSpace::VMEM)
        vmem.read(r.begin, r.end, at);
    for (const sim::AddrRange &w : writes)
      if (w.space == isa::MemSpace::VMEM)
        vmem.write(w.begin, w.end, at, opId, isDma);
  }

  // Dependencies.
  // A DMA that signals a semaphore may complete by the sem.wait that
  // consumes its signal instead of a WAIT: its bytes count from its ISSUE.
  if (!deps.tryDefer(index, in.op, info.regWrites, dma != nullptr, period))
    deps.instruction(index, in, info.regReads, info.regWrites, reads, writes,
                     dma ? std::optional<uint32_t>(dma->timing.id)
                         : std::nullopt,
                     /*onlyAtWait=*/dma && dma->timing.semaphore < 0, period);

  // Work: FLOPs and bytes moved.
  Work &w = known ? workByPc[ev.pc] : otherWork[opId];
  w.flops += info.flops;
  if (dma)
    RetireSteps::noteDma(*this, *dma, ev, w, reads, writes);

  DataflowBound::Cost cost = RetireSteps::getCost(*this, ev, unit, dma);
  cost.regsAtStart = isDma; // a DMA's id exists at its ISSUE
  cost.controls = info.controls;
  RetireSteps::addToDataflow(*this, info, reads, writes, cost, period);
  ++index;
}

bool Analyzer::vmemRepeatsAny(unsigned period, uint64_t at, bool accessesVmem,
                              bool repeatable) {
  VmemRepeat &r = vmemRepeat;
  constexpr uint64_t w = AccessHistory::kWindow;
  // Its accesses are its twin's `shift` cycles later.
  auto onShift = [&] {
    return !accessesVmem ||
           (index >= period && at == r.at[(index - period) % w] + r.shift);
  };
  if (r.active) {
    if (repeatable && period == r.period && onShift()) {
      r.at[index % w] = at;
      return true;
    }
    endVmemRepeat(index);
  }
  r.at[index % w] = at;
  repeatable &= vmemRepeatRuns;
  if (!repeatable || !period || (r.period && period != r.period))
    dropVmemStreak();
  if (!repeatable || !period)
    return false;
  if (!r.period) {
    // A streak starts: its first period's accesses are logged.
    r.period = period;
    r.periodBegin = index;
    r.minAt = UINT64_MAX;
    r.shiftKnown = r.havePrev = false;
    vmem.startLog();
  } else if (index - r.periodBegin == period) {
    // A period ends: a run starts when it repeated the one before.
    VmemTracker::PeriodRecord cur = vmem.closePeriod();
    cur.minAt = r.minAt;
    if (r.havePrev && vmem.repeats(r.prev, cur, r.shift)) {
      vmem.stopLog();
      r.tmpl = std::move(cur);
      r.active = true;
      r.runBegin = index;
      if (onShift())
        return true;
      endVmemRepeat(index);
      return false;
    }
    r.prev = std::move(cur);
    r.havePrev = true;
    r.periodBegin = index;
    r.minAt = UINT64_MAX;
  }
  if (accessesVmem) {
    uint64_t twin = index >= period ? r.at[(index - period) % w] : 0;
    if (index < period || at < twin || (r.shiftKnown && at - twin != r.shift)) {
      dropVmemStreak();
      return false;
    }
    r.shift = at - twin;
    r.shiftKnown = true;
    r.minAt = std::min(r.minAt, at);
  }
  return false;
}

void Analyzer::dropVmemStreak() {
  if (vmemRepeat.period)
    vmem.stopLog();
  vmemRepeat.period = 0;
  vmemRepeat.havePrev = false;
}

void Analyzer::endVmemRepeat(uint64_t end) {
  VmemRepeat &r = vmemRepeat;
  r.active = false;
  uint64_t n = end - r.runBegin, k = n / r.period;
  vmemRepeated += n;
  vmem.applyRepeats(r.tmpl, r.shift, k);
  // The instructions of a period begun: their own accesses (the program's
  // instructions at their PCs, with the ranges AccessHistory kept).
  for (uint64_t j = r.runBegin + k * r.period; j < end; ++j) {
    uint64_t at = r.at[j % AccessHistory::kWindow];
    uint32_t opId = pcInfo[pcs[j]].opId;
    for (const sim::AddrRange &x : history.getReads(j))
      if (x.space == isa::MemSpace::VMEM)
        vmem.read(x.begin, x.end, at);
    for (const sim::AddrRange &x : history.getWrites(j))
      if (x.space == isa::MemSpace::VMEM)
        vmem.write(x.begin, x.end, at, opId, false);
  }
  r.period = 0;
  r.havePrev = false;
}

void Analyzer::onHalt(uint64_t total) {
  totalCycles = total;
  if (vmemRepeat.active)
    endVmemRepeat(index);
  dropVmemStreak();
  vmem.finish();
}
