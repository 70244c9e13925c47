//===- Analyzer.cpp - The performance tracker's analyses ------------------===//

#include "accel/Analysis/Analyzer.h"
#include "accel/Sim/Access.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

using namespace accel;
using namespace accel::analysis;
using json = nlohmann::json;
using isa::Opcode;

Analyzer::Analyzer(const isa::Program &program,
                   const sim::MachineConfig &config)
    : program(program), config(config), tracks(3 + config.getNumDmaLinks()),
      vmem(config.vmemBytes, config.vmemPageBytes),
      dataflow(tracks.size() + 1, /*issueTrack=*/0, config.scalarLatency) {
  deps.setReadyCycles(&doneCycles);
  pcInfo.reserve(program.code.size());
  for (size_t pc = 0; pc < program.code.size(); ++pc)
    pcInfo.push_back(computePcInfo(program.code[pc], uint32_t(pc)));
  workByPc.resize(program.code.size());
  scalarBusyByPc.resize(program.code.size());
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
namespace analysis {
/// Shared helpers with access to Analyzer's private state.
struct AnalyzerImpl {
  static void busy(Analyzer &a, size_t track, uint64_t start, uint64_t end,
                   uint32_t opId) {
    if (end <= start)
      return;
    auto &t = a.tracks[track];
    // Merge with the previous interval when contiguous and of the same op
    // (the scalar track's carry no op: Analyzer::scalarBusyByPc).
    if (!t.empty() && t.back().end == start && t.back().opId == opId) {
      t.back().end = end;
      return;
    }
    t.push_back({start, end, opId});
  }
};
} // namespace analysis
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

void Analyzer::onRetire(const sim::RetireEvent &ev) {
  const isa::Inst &in = *ev.inst;
  // The instruction's static facts: from the table when it is the
  // program's own instruction at its PC (always, but for a hand-built
  // event; the simulator runs its own copy of the code).
  auto same = [](const isa::Inst &a, const isa::Inst &b) {
    return a.op == b.op && a.rd == b.rd && a.rs1 == b.rs1 && a.rs2 == b.rs2 &&
           a.rs3 == b.rs3 && a.flags == b.flags && a.a == b.a && a.b == b.b &&
           a.s1 == b.s1 && a.s2 == b.s2 && a.s3 == b.s3;
  };
  bool known = ev.pc < pcInfo.size() && same(program.code[ev.pc], in);
  std::optional<PcInfo> computed;
  if (!known)
    computed = computePcInfo(in, ev.pc);
  const PcInfo &info = known ? pcInfo[ev.pc] : *computed;
  uint32_t opId = info.opId;
  pcs.push_back(ev.pc);
  issueCycles.push_back(ev.issueCycle);
  isa::Unit unit = info.unit;
  doneCycles.push_back(unit == isa::Unit::Mxu || unit == isa::Unit::Vpu
                           ? ev.unitEnd
                           : ev.issueCycle + 1);
  if (unit == isa::Unit::Scalar && ev.unitEnd > ev.unitStart) {
    AnalyzerImpl::busy(*this, 0, ev.unitStart, ev.unitEnd, 0);
    (known ? scalarBusyByPc[ev.pc] : otherScalarBusy[opId]) +=
        ev.unitEnd - ev.unitStart;
  } else if (unit == isa::Unit::Mxu)
    AnalyzerImpl::busy(*this, 1, ev.unitStart, ev.unitEnd, opId);
  else if (unit == isa::Unit::Vpu)
    AnalyzerImpl::busy(*this, 2, ev.unitStart, ev.unitEnd, opId);

  // Byte ranges read and written.
  llvm::SmallVector<sim::AddrRange, 8> reads, writes;
  for (const sim::MemOperand &m : ev.memReads)
    sim::forEachRange(m.tile, [&](const sim::AddrRange &r) { reads.push_back(r); });
  for (const sim::MemOperand &m : ev.memWrites)
    sim::forEachRange(m.tile, [&](const sim::AddrRange &r) { writes.push_back(r); });

  // Timing of the accesses for VMEM liveness.
  bool isDma = in.op == Opcode::DmaIssue;
  uint64_t at = unit == isa::Unit::Scalar ? ev.issueCycle : ev.unitStart;
  Dma *dma = nullptr;
  if (isDma && !dmas.empty() && dmas.back().index == index &&
      !dmas.back().inFlightAtStart) {
    dma = &dmas.back();
    at = dma->timing.transferStart;
  }
  for (const sim::AddrRange &r : reads)
    if (r.space == isa::MemSpace::VMEM)
      vmem.read(r.begin, r.end, at);
  for (const sim::AddrRange &w : writes)
    if (w.space == isa::MemSpace::VMEM)
      vmem.write(w.begin, w.end, at, opId, isDma);

  // Dependencies.
  deps.instruction(index, in, info.regReads, info.regWrites, reads, writes);

  // Work: FLOPs and bytes moved.
  Work &w = known ? workByPc[ev.pc] : otherWork[opId];
  w.flops += info.flops;

  if (dma) {
    dma->src = ev.memReads.empty() ? sim::MemOperand{} : ev.memReads[0];
    dma->dst = ev.memWrites.empty() ? sim::MemOperand{} : ev.memWrites[0];
    deps.noteDmaId(dma->timing.id, reads, writes);
    // Communication with HBM: loads in, stores out (VMEM-local copies move
    // no bytes across the HBM boundary).
    if (dma->src.tile.space == isa::MemSpace::HBM)
      w.bytesIn += dma->timing.bytes;
    else if (dma->dst.tile.space == isa::MemSpace::HBM)
      w.bytesOut += dma->timing.bytes;
    // Re-DMA of unchanged source bytes into the same VMEM place (pinning):
    // the same source and destination tiles (space, base, shape, strides),
    // both on this chip (a remote DMA fills another chip's VMEM, which a
    // pin here cannot keep).
    const sim::TileRef &st = dma->src.tile, &dt = dma->dst.tile;
    PinKey key = {int(st.space), st.base, st.rows, st.cols, st.rowStride,
                  int(dt.space), dt.base, dt.rowStride};
    bool local = dma->timing.srcChip == dma->timing.chip &&
                 dma->timing.dstChip == dma->timing.chip;
    auto prev = dt.space == isa::MemSpace::VMEM && local ? lastSame.find(key)
                                                         : lastSame.end();
    if (prev != lastSame.end()) {
      const Dma &p = dmas[prev->second];
      dma->previousSame = prev->second;
      // The last writer of the source bytes so far (this ISSUE joins the
      // dataflow graph below).
      int64_t lastSrcWrite = -1;
      sim::forEachRange(dma->src.tile, [&](const sim::AddrRange &r) {
        dataflow.forEachLastWriter(
            r, [&](int64_t v) { lastSrcWrite = std::max(lastSrcWrite, v); });
      });
      dma->srcChangedSincePrevious = lastSrcWrite > int64_t(p.index);
    }
    if (dt.space == isa::MemSpace::VMEM && local)
      lastSame[key] = dmas.size() - 1;
  }

  // Dataflow: MXU/VPU work costs its busy cycles, a DMA its T_b and then
  // its transfer on its link (and on the HBM bus, for a DMA to or from
  // HBM); scalar work is free, and every instruction takes its issue on the
  // core (track 0).
  DataflowBound::Cost cost;
  if (unit == isa::Unit::Mxu || unit == isa::Unit::Vpu) {
    cost.track = unit == isa::Unit::Mxu ? 1 : 2;
    cost.busy = ev.unitEnd - ev.unitStart;
  } else if (dma && dma->timing.link >= 0) {
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
      cost.track2 = int(tracks.size());
      cost.busy2 =
          uint64_t((unsigned __int128)t.busBytes * sim::kBandwidthScale /
                   config.hbmMilliBytesPerCycle);
    }
  }
  cost.regsAtStart = isDma; // a DMA's id exists at its ISSUE
  cost.controls = info.controls;
  // On a system, another chip's memory this instruction reads (a remote
  // DMA's source) is ready when its producer there is.
  bool system = !peers.empty();
  if (system)
    for (const sim::AddrRange &r : reads)
      if (r.chip != selfChip && r.chip < peers.size())
        dataflow.addExternalWrite(r, peers[r.chip]->dataflow.getReady(r));
  dataflow.add(info.regReads, info.regWrites, reads, writes, cost);
  // What it writes on another chip is ready there when it finishes here.
  if (system)
    for (const sim::AddrRange &w : writes)
      if (w.chip != selfChip && w.chip < peers.size())
        peers[w.chip]->dataflow.addExternalWrite(w, dataflow.getLastFinish());
  ++index;
}

void Analyzer::onHalt(uint64_t total) {
  totalCycles = total;
  vmem.finish();
}
