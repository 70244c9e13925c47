//===- Simulator.cpp - Functional and timed accel ISA simulator -----------===//
//
// Timing model (docs/isa.md, "Timing"; docs/config.md):
//  - The scalar core issues in order, one instruction every scalar.latency
//    cycles at best. An instruction issues at the first cycle at which its
//    unit is free and its operands' VMEM ranges are no longer being written
//    (or, for writes, read) by an in-flight unit op; the wait is a stall
//    with the binding cause. This file is that issue stage.
//  - MXU and VPU latencies: TimingModel (Units.cpp), by the opcode's cost
//    class in Opcodes.def.
//  - DMA ISSUE: DmaEngine (SnR Fig. 4); WAIT stalls until completion.
//
// Size (about 630 lines): the issue stage of one instruction per opcode
// (a switch over Opcodes.def); the units, DMA engine and memory are in
// their own files.
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/Simulator.h"
#include "accel/Sim/Access.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>

using namespace accel;
using namespace accel::sim;
using isa::Inst;
using isa::Opcode;

Observer::~Observer() = default;

llvm::StringRef sim::stallCauseName(StallCause cause) {
  switch (cause) {
  case StallCause::None:
    return "none";
  case StallCause::DmaWaitBase:
    return "dma_wait_base";
  case StallCause::DmaWaitTransfer:
    return "dma_wait_transfer";
  case StallCause::DmaSlots:
    return "dma_slots";
  case StallCause::MxuBusy:
    return "mxu_busy";
  case StallCause::VpuBusy:
    return "vpu_busy";
  case StallCause::DataHazard:
    return "data_hazard";
  case StallCause::SemWait:
    return "sem_wait";
  case StallCause::NumCauses:
    break;
  }
  return "?";
}

Simulator::Simulator(const MachineConfig &config, const isa::Program &program,
                     bool initHbm, unsigned chip, ChipPeers *peers)
    : config(config), program(program), chip(chip), peers(peers),
      memory(config.vmemBytes, program.buffers, initHbm, chip), dma(config),
      timing(config), operandBuffers(program.code.size()) {}

std::string Simulator::describePc(uint32_t atPc) const {
  std::string where = "pc " + std::to_string(atPc);
  if (atPc < program.code.size()) {
    where += " (" + isa::toString(program.code[atPc]) + ")";
    if (atPc < program.origins.size()) {
      const isa::Origin &o = program.origins[atPc];
      where += ", op " + std::to_string(o.opId) + " '" + o.opName + "' at " +
               o.loc;
    }
  }
  return where;
}

llvm::Error Simulator::fault(uint32_t faultPc, const llvm::Twine &what) const {
  // On a system of several chips the fault names its chip.
  std::string where = describePc(faultPc);
  if (getNumChips() > 1)
    where = "chip " + std::to_string(chip) + " " + where;
  return llvm::createStringError(
      llvm::Twine("fault at " + where + ": " + what).str());
}

/// Whether a tile of `a` and a tile of `b` share a byte (the actual strided
/// rows, not their bounding spans).
template <typename List>
static bool overlapsAny(const List &a, const List &b) {
  for (const auto &x : a)
    for (const auto &y : b)
      if (x.overlaps(y))
        return true;
  return false;
}

llvm::Expected<RunSummary> Simulator::run(uint64_t maxInstructions,
                                          bool stopAtBudget,
                                          ProgressFn progress) {
  // One comparison per instruction: the next budget or progress check.
  uint64_t nextProgress = progress ? instCount + kProgressInterval : UINT64_MAX;
  uint64_t nextCheck = std::min(maxInstructions, nextProgress);
  while (!halted) {
    if (instCount >= nextCheck) {
      if (instCount >= maxInstructions && stopAtBudget) {
        summary.truncated = true;
        return finish();
      }
      if (instCount >= maxInstructions)
        return fault(pc, "instruction budget of " +
                             llvm::Twine(maxInstructions) +
                             " exceeded (an endless loop?)");
      progress(instCount, lastIssue);
      nextProgress = instCount + kProgressInterval;
      nextCheck = std::min(maxInstructions, nextProgress);
    }
    if (llvm::Error e = step())
      return std::move(e);
  }
  return finish();
}

uint64_t Simulator::getEndCycle() const {
  uint64_t end = first ? 0 : lastIssue + 1;
  for (uint64_t f : unitFree)
    end = std::max(end, f);
  return std::max(end, dma.drainCycle());
}

RunSummary Simulator::finish(uint64_t endAtLeast) {
  if (!finished) {
    uint64_t end = std::max(endAtLeast, getEndCycle());
    summary.totalCycles = end;
    summary.instructions = instCount;
    finished = true;
    for (Observer *o : observers)
      o->onHalt(end);
  }
  return summary;
}

void Simulator::installRegister(unsigned r, uint64_t value) {
  if (r != 0)
    regs[r] = value;
}

/// The bytes a DMA from `src` to `dst` moves on the bus: its HBM side's
/// whole bursts (getBurstBytes; the larger side when both are in HBM),
/// else its bytes.
static uint64_t getBusBytes(const TileRef &src, const TileRef &dst,
                            uint64_t burst) {
  uint64_t bus = 0;
  for (const TileRef *t : {&src, &dst})
    if (t->space == isa::MemSpace::HBM)
      bus = std::max(bus, getBurstBytes(*t, burst));
  return bus ? bus : src.rows * src.rowBytes();
}

void Simulator::installPendingDma(uint32_t id, uint32_t issuePc,
                                  const TileRef &src, const TileRef &dst) {
  int link = config.findLink(src.space, dst.space);
  uint64_t bytes = src.rows * src.rowBytes();
  if (link >= 0) {
    dma.issue(0, link, bytes, id, getBusBytes(src, dst, config.dmaBurstBytes),
              src.rows);
    for (Observer *o : observers)
      o->onDmaInFlight(issuePc, dma.get(id));
  }
  pendingDmas.push_back({id, issuePc, src, dst});
}

/// "VMEM [b, e)": a byte range as data-race messages name it.
static std::string describeRange(const AddrRange &r) {
  return (isa::memSpaceName(r.space).upper() + " [" + llvm::Twine(r.begin) +
          ", " + llvm::Twine(r.end) + ")")
      .str();
}

/// "DMA 3<ofChip> (issued at pc 12)": a DMA not yet waited for, as
/// data-race messages name it.
static std::string describePending(const Simulator::PendingDma &p,
                                   llvm::StringRef ofChip) {
  return ("DMA " + llvm::Twine(p.id) + ofChip + " (issued at pc " +
          llvm::Twine(p.pc) + ")")
      .str();
}

llvm::Error Simulator::checkOperands(const InstAccess &acc, uint64_t ready,
                                     TileList &vmemReads, TileList &vmemWrites,
                                     IssueAt &at) {
  // Races and hazards compare the tiles' actual rows (TileRef::overlaps),
  // so two disjoint tiles of one row band (e.g. columns 0..127 and 128..255
  // of the same rows) neither race nor wait for each other.
  // Every tile read, then every tile written, with its span.
  TileList operands; // uninitialized storage: nothing to clear per step
  unsigned numReads = 0, numOperands = 0;
  for (auto [list, inVmem] : {std::make_pair(&acc.memReads, &vmemReads),
                              std::make_pair(&acc.memWrites, &vmemWrites)}) {
    for (const MemOperand &m : *list) {
      AddrRange span = m.tile.span();
      if (numOperands == TileList::kMax) // so no TileList below overflows
        llvm::report_fatal_error("an instruction with more than 4 memory "
                                 "operands");
      const isa::Buffer *&cached = operandBuffers[pc][numOperands];
      if (m.tile.rows == 0 || m.tile.cols == 0 ||
          !(cached = memory.findBuffer(span, cached)))
        return fault(pc, llvm::Twine(isa::memSpaceName(span.space).upper()) +
                             " access out of bounds: " + m.role + " [" +
                             llvm::Twine(span.begin) + ", " +
                             llvm::Twine(span.end) +
                             ") is not inside any allocated buffer");
      // Elements are aligned to their size (4 bytes for f32 and i32, 2 for
      // bf16): an address of another alignment (a register loaded from a
      // trace, an address computed by the program) is a fault, not a
      // misaligned access.
      if (m.tile.base % m.tile.elemBytes != 0)
        return fault(pc, llvm::Twine(isa::memSpaceName(span.space).upper()) +
                             " access misaligned: " + m.role +
                             " at byte address " + llvm::Twine(span.begin) +
                             ", which is not a multiple of " +
                             llvm::Twine(m.tile.elemBytes));
      HazardTile h = HazardTile::of(m.tile, span);
      operands.push_back(h);
      ++numOperands;
      if (span.space == isa::MemSpace::VMEM)
        inVmem->push_back(h);
    }
    if (list == &acc.memReads)
      numReads = numOperands;
  }
  for (const PendingDma &p : pendingDmas) {
    auto race = [&](const HazardTile &t, const char *what,
                    const char *dmaDoes) {
      return fault(pc, llvm::Twine("data race: ") + what + " " +
                           describeRange(t.span) + ", which " +
                           describePending(p, "") + " " + dmaDoes +
                           ", before its WAIT");
    };
    // Spans first (the common, disjoint case), then the rows.
    AddrRange pRead = p.src.span(), pWrite = p.dst.span();
    for (unsigned i = 0; i < numOperands; ++i) {
      const HazardTile &t = operands.tiles[i];
      if (t.span.overlaps(pWrite) && t.tile().rowsOverlap(p.dst))
        return race(t, i < numReads ? "reads" : "writes", "writes");
      if (i >= numReads && t.span.overlaps(pRead) &&
          t.tile().rowsOverlap(p.src))
        return race(t, "writes", "reads");
    }
  }
  for (const InFlightOp &op : inFlight)
    if (op.end > ready && (overlapsAny(op.writes, vmemReads) ||
                           overlapsAny(op.writes, vmemWrites) ||
                           overlapsAny(op.reads, vmemWrites)))
      at.atLeast(op.end, StallCause::DataHazard);
  return llvm::Error::success();
}

llvm::Error Simulator::step() {
  if (llvm::Error e = prepare())
    return e;
  if (prep.blocked)
    return fault(pc, "deadlock: " + describeBlocked() +
                         ", and no other chip can signal it");
  return commit();
}

std::string Simulator::describeBlocked() const {
  const Inst &in = program.code[pc];
  uint64_t has = in.a < semaphores.size() ? semaphores[in.a].size() : 0;
  return "chip " + std::to_string(chip) + " at " + describePc(pc) +
         ": waits for " + std::to_string(prep.count) + " signals of " +
         "semaphore " + std::to_string(in.a) + " and has " +
         std::to_string(has);
}

unsigned Simulator::getNumChips() const {
  return peers ? peers->getNumChips() : 1;
}

void Simulator::signal(unsigned sem, uint64_t cycle, uint32_t fromChip,
                       uint32_t dmaId) {
  if (semaphores.empty())
    semaphores.resize(isa::kNumSemaphores);
  std::vector<Signal> &list = semaphores[sem];
  Signal s{cycle, fromChip, dmaId};
  auto before = [](const Signal &a, const Signal &b) {
    return std::tie(a.cycle, a.chip, a.dmaId) <
           std::tie(b.cycle, b.chip, b.dmaId);
  };
  list.insert(std::upper_bound(list.begin(), list.end(), s, before), s);
}

Simulator::TimingState Simulator::getTimingState() const {
  TimingState s;
  s.lastIssue = lastIssue;
  s.first = first;
  s.unitFree = unitFree;
  for (size_t u = 0; u < inFlight.size(); ++u) {
    s.inFlight[u].end = inFlight[u].end;
    for (const HazardTile &t : inFlight[u].reads)
      s.inFlight[u].reads.push_back(t.tile());
    for (const HazardTile &t : inFlight[u].writes)
      s.inFlight[u].writes.push_back(t.tile());
  }
  s.engine = dma.getState();
  for (const PendingDma &p : pendingDmas)
    s.pendingTimings.push_back(dma.get(p.id));
  for (size_t sem = 0; sem < semaphores.size(); ++sem)
    for (const Signal &sig : semaphores[sem])
      s.signals.push_back({uint32_t(sem), sig});
  s.incoming = incoming;
  return s;
}

void Simulator::installTimingState(const TimingState &s,
                                   llvm::ArrayRef<PendingDma> pending) {
  lastIssue = s.lastIssue;
  first = s.first;
  unitFree = s.unitFree;
  for (size_t u = 0; u < inFlight.size(); ++u) {
    InFlightOp &op = inFlight[u];
    op = InFlightOp();
    op.end = s.inFlight[u].end;
    for (const TileRef &t : s.inFlight[u].reads)
      if (op.reads.size < TileList::kMax)
        op.reads.push_back(HazardTile::of(t, t.span()));
    for (const TileRef &t : s.inFlight[u].writes)
      if (op.writes.size < TileList::kMax)
        op.writes.push_back(HazardTile::of(t, t.span()));
  }
  dma.setState(s.engine);
  for (size_t i = 0; i < pending.size() && i < s.pendingTimings.size(); ++i) {
    dma.install(s.pendingTimings[i]);
    for (Observer *o : observers)
      o->onDmaInFlight(pending[i].pc, s.pendingTimings[i]);
    pendingDmas.push_back(pending[i]);
  }
  for (const auto &[sem, sig] : s.signals)
    if (sem < isa::kNumSemaphores)
      signal(sem, sig.cycle, sig.chip, sig.dmaId);
  for (const IncomingDma &d : s.incoming)
    addIncoming(d.tile, d.writes, d.complete, d.chip, d.dmaId, d.pc);
}

llvm::Error Simulator::applyExternal(const ExternalEvent &e) {
  switch (e.kind) {
  case ExternalEvent::Kind::HbmReserve:
    dma.reserveHbm(e.from, e.length, e.now);
    break;
  case ExternalEvent::Kind::MemWrite:
    return writeTileBytes(memory, e.tile, e.bytes);
  case ExternalEvent::Kind::Signal:
    signal(e.semaphore, e.cycle, e.fromChip, e.dmaId);
    break;
  case ExternalEvent::Kind::Incoming:
    addIncoming(e.tile, e.writes, e.cycle, e.fromChip, e.dmaId, e.pc);
    break;
  }
  prep.valid = false;
  return llvm::Error::success();
}

void Simulator::addIncoming(const TileRef &tile, bool writes, uint64_t complete,
                            uint32_t fromChip, uint32_t dmaId,
                            uint32_t issuePc) {
  incoming.push_back({tile, writes, complete, fromChip, dmaId, issuePc});
  for (Observer *o : observers)
    o->onIncomingDma(incoming.back());
}

llvm::Error Simulator::checkRemoteAccess(const TileRef &tile, bool writes,
                                         uint64_t cycle,
                                         uint32_t fromChip) const {
  auto race = [&](const llvm::Twine &what) {
    return llvm::createStringError(
        (llvm::Twine("data race: a DMA of chip ") + llvm::Twine(fromChip) +
         (writes ? " writes" : " reads") + " chip " + llvm::Twine(chip) +
         "'s " + describeRange(tile.span()) + ", which " + what)
            .str());
  };
  std::string ofChip = " of chip " + std::to_string(chip);
  for (const PendingDma &p : pendingDmas) {
    if (p.dst.overlaps(tile))
      return race(describePending(p, ofChip) + " writes before its WAIT");
    if (writes && p.src.overlaps(tile))
      return race(describePending(p, ofChip) + " reads before its WAIT");
  }
  HazardTile h = HazardTile::of(tile, tile.span());
  for (size_t u = 0; u < inFlight.size(); ++u) {
    const InFlightOp &op = inFlight[u];
    if (op.end <= cycle)
      continue;
    bool hit = llvm::any_of(op.writes,
                            [&](const HazardTile &t) { return t.overlaps(h); });
    if (writes)
      hit |= llvm::any_of(op.reads,
                          [&](const HazardTile &t) { return t.overlaps(h); });
    if (hit)
      return race("chip " + llvm::Twine(chip) + "'s " +
                  isa::unitName(isa::Unit(u)).upper() + " op " +
                  (writes ? "accesses" : "writes") + " until cycle " +
                  llvm::Twine(op.end));
  }
  return llvm::Error::success();
}

llvm::Error Simulator::checkMemory(const FootprintExtras &extras) {
  // A buffer table that does not fit the config is prepare()'s fault.
  if (llvm::Error e =
          program.checkBuffersFit(config.vmemBytes, config.hbmBytes)) {
    llvm::consumeError(std::move(e));
    return llvm::Error::success();
  }
  if (!memoryChecked) {
    MemoryFootprint f =
        getMemoryFootprint(1, config.vmemBytes, program.buffers);
    f.extras = extras;
    if (llvm::Error e = checkMemoryFootprint(f))
      return e;
    memoryChecked = true;
  }
  return memory.allocateVmem();
}

llvm::Error Simulator::prepare() {
  if (halted)
    return llvm::createStringError("the program has halted");
  // A buffer table from a file may claim memory the machine does not have;
  // the lowering and the trace and image readers check it too, but a
  // library user can hand over any program.
  if (!buffersChecked) {
    if (llvm::Error e =
            program.checkBuffersFit(config.vmemBytes, config.hbmBytes))
      return fault(pc, llvm::toString(std::move(e)));
    buffersChecked = true;
  }
  // The memories: checked against the memory available (a chip of a system
  // was checked with the system), then VMEM allocated, before anything
  // touches them.
  if (!vmemAllocated) {
    if (!peers || !peers->checksMemory())
      if (llvm::Error e = checkMemory())
        return e;
    if (llvm::Error e = memory.allocateVmem())
      return e;
    vmemAllocated = true;
  }
  if (pc >= program.code.size())
    return fault(pc, "pc outside the code (" +
                         llvm::Twine(program.code.size()) +
                         " instructions); the program has no halt");
  const Inst &in = program.code[pc];
  const isa::OpcodeInfo &info = isa::info(in.op);
  uint64_t ready = first ? 0 : lastIssue + config.scalarLatency;
  prep.valid = false;
  prep.blocked = false;
  prep.ready = ready;
  prep.at = IssueAt{ready};
  IssueAt &at = prep.at;
  isa::Unit unit = info.unit;

  if (in.op == Opcode::DmaIssue && in.dmaRemote() &&
      regs[in.rs3] >= getNumChips())
    return fault(pc, "remote DMA to chip " + llvm::Twine(regs[in.rs3]) + " (r" +
                         llvm::Twine(unsigned(in.rs3)) +
                         "), but the system has " + llvm::Twine(getNumChips()) +
                         " chip" + (getNumChips() == 1 ? "" : "s"));
  if ((in.op == Opcode::DivU || in.op == Opcode::RemU) && regs[in.rs2] == 0)
    return fault(pc, "division by zero (r" + llvm::Twine(unsigned(in.rs2)) +
                         " is 0)");
  if (in.op == Opcode::VCmp && in.rd >= isa::kNumCmpPredicates)
    return fault(pc, "vpu.cmp predicate " + llvm::Twine(unsigned(in.rd)) +
                         " is not one of the " +
                         llvm::Twine(isa::kNumCmpPredicates));
  // Memory operands: bounds, races with un-WAITed DMAs, data hazards.
  prep.vmemReads.size = prep.vmemWrites.size = 0;
  bool touchesMemory = unit != isa::Unit::Scalar || in.op == Opcode::Sld;
  bool accesses =
      touchesMemory && in.op != Opcode::DmaWait && in.op != Opcode::SemWait;
  if (accesses) {
    getAccesses(
        in, [&](unsigned r) { return regs[r]; }, chip, prep.acc);
    if (llvm::Error e =
            checkOperands(prep.acc, ready, prep.vmemReads, prep.vmemWrites, at))
      return e;
  } else {
    prep.acc.memReads.clear();
    prep.acc.memWrites.clear();
  }
  switch (in.op) {
  case Opcode::DmaIssue: {
    prep.src = prep.acc.memReads[0].tile;
    prep.dst = prep.acc.memWrites[0].tile;
    prep.link = config.findLink(prep.src.space, prep.dst.space);
    if (prep.link < 0)
      return fault(pc, "the machine config has no DMA link " +
                           isa::memSpaceName(prep.src.space) + "->" +
                           isa::memSpaceName(prep.dst.space));
    if ((in.flags & isa::kFlagSignal) && in.s3 >= isa::kNumSemaphores)
      return fault(pc, "semaphore " + llvm::Twine(in.s3) +
                           " out of range (a chip has " +
                           llvm::Twine(isa::kNumSemaphores) + ")");
    prep.route.clear();
    if (prep.src.chip != prep.dst.chip)
      prep.route = config.topology.route(prep.src.chip, prep.dst.chip);
    while (dma.outstandingAt(at.cycle) >= config.maxOutstandingDmas)
      at.atLeast(dma.nextCompletionAfter(at.cycle), StallCause::DmaSlots);
    break;
  }
  case Opcode::DmaWait: {
    uint64_t id = regs[in.rs1];
    if (!dma.isValid(uint32_t(id)) || id > UINT32_MAX)
      return fault(pc, "WAIT on DMA id " + llvm::Twine(id) +
                           ", which was never issued");
    prep.outcome = dma.wait(uint32_t(id), ready);
    at.cycle = prep.outcome.resume;
    at.cause = prep.outcome.stallBase       ? StallCause::DmaWaitBase
               : prep.outcome.stallTransfer ? StallCause::DmaWaitTransfer
                                            : StallCause::None;
    break;
  }
  case Opcode::SemWait: {
    if (in.a >= isa::kNumSemaphores)
      return fault(pc, "semaphore " + llvm::Twine(in.a) +
                           " out of range (a chip has " +
                           llvm::Twine(isa::kNumSemaphores) + ")");
    prep.semaphore = in.a;
    prep.count = regs[in.rs1];
    if (semaphores.empty())
      semaphores.resize(isa::kNumSemaphores);
    const std::vector<Signal> &signals = semaphores[in.a];
    if (prep.count > signals.size()) {
      prep.blocked = true;
    } else if (prep.count > 0) {
      at.atLeast(signals[prep.count - 1].cycle, StallCause::SemWait);
    }
    break;
  }
  default:
    if (unit == isa::Unit::Mxu || unit == isa::Unit::Vpu)
      // MXU and VPU: in order on their unit, then concurrent with the core.
      at.atLeast(unitFree[size_t(unit)], unit == isa::Unit::Mxu
                                             ? StallCause::MxuBusy
                                             : StallCause::VpuBusy);
    break;
  }
  // Remote DMAs of other chips that read or write this chip's memory:
  // touching what they write, or writing what they read, before they
  // complete is a race. Cycles only grow, so completed ones go.
  if (!incoming.empty()) {
    llvm::erase_if(incoming,
                   [&](const IncomingDma &d) { return d.complete <= ready; });
    for (const IncomingDma &d : incoming) {
      if (d.complete <= at.cycle)
        continue;
      auto check = [&](llvm::ArrayRef<MemOperand> list, bool isWrite) {
        for (const MemOperand &m : list)
          if ((d.writes || isWrite) && m.tile.overlaps(d.tile))
            return true;
        return false;
      };
      bool isRead = check(prep.acc.memReads, false);
      if (isRead || check(prep.acc.memWrites, true)) {
        AddrRange r = d.tile.span();
        return fault(
            pc, llvm::Twine("data race: ") + (isRead ? "reads " : "writes ") +
                    isa::memSpaceName(r.space).upper() + " [" +
                    llvm::Twine(r.begin) + ", " + llvm::Twine(r.end) +
                    ") at cycle " + llvm::Twine(at.cycle) + ", which DMA " +
                    llvm::Twine(d.dmaId) + " of chip " + llvm::Twine(d.chip) +
                    " (issued at pc " + llvm::Twine(d.pc) + ") " +
                    (d.writes ? "writes" : "reads") + " until cycle " +
                    llvm::Twine(d.complete));
      }
    }
  }
  prep.valid = true;
  return llvm::Error::success();
}

llvm::Error Simulator::commit() {
  assert(prep.valid && !prep.blocked && "commit() without a prepared issue");
  const Inst &in = program.code[pc];
  const isa::OpcodeInfo &info = isa::info(in.op);
  IssueAt &at = prep.at;
  uint64_t ready = prep.ready;
  RetireEvent ev;
  ev.index = instCount;
  ev.pc = pc;
  ev.inst = &in;
  ev.memReads = prep.acc.memReads;
  ev.memWrites = prep.acc.memWrites;
  isa::Unit unit = info.unit;
  uint64_t unitLatency = config.scalarLatency;
  CoreState state{memory, regs, pc + 1};
  switch (in.op) {
  case Opcode::DmaIssue: {
    const TileRef &src = prep.src, &dst = prep.dst;
    // The other chip may have started ops or DMAs on the tile since this
    // DMA was prepared: check it now.
    if (src.chip != chip)
      if (llvm::Error e = peers->checkRemoteAccess(src, false, at.cycle, chip))
        return fault(pc, llvm::toString(std::move(e)));
    if (dst.chip != chip)
      if (llvm::Error e = peers->checkRemoteAccess(dst, true, at.cycle, chip))
        return fault(pc, llvm::toString(std::move(e)));
    uint64_t bytes = src.rows * src.rowBytes();
    uint32_t id =
        prep.route.empty()
            ? dma.issue(at.cycle, prep.link, bytes, std::nullopt,
                        getBusBytes(src, dst, config.dmaBurstBytes), src.rows)
            : dma.issueRemote(at.cycle, prep.link, bytes, prep.route, *peers,
                              chip, getHbmChip(src), getHbmChip(dst),
                              getBusBytes(src, dst, config.dmaBurstBytes));
    int sem = in.flags & isa::kFlagSignal ? int(in.s3) : -1;
    dma.annotate(id, chip, src.chip, dst.chip, sem);
    // Functional effect at ISSUE: the program may not touch the destination
    // before its WAIT, and hazards above ordered the source's producers.
    if (src.chip == chip && dst.chip == chip)
      memory.copyTile(src, dst);
    else
      peers->copy(chip, memory, src, dst);
    regs[in.rd] = id;
    pendingDmas.push_back({id, pc, src, dst});
    const DmaTiming &t = dma.get(id);
    for (const TileRef *tile : {&src, &dst})
      if (tile->chip != chip)
        peers->notifyIncoming(*tile, tile == &dst, t.complete, chip, id, pc);
    if (sem >= 0) {
      if (dst.chip == chip)
        signal(unsigned(sem), t.complete, chip, id);
      else
        peers->signal(dst.chip, unsigned(sem), t.complete, chip, id);
    }
    ev.unitStart = t.transferStart;
    ev.unitEnd = t.complete;
    summary.unitBusyCycles[size_t(isa::Unit::Dma)] +=
        t.complete - t.transferStart;
    for (Observer *o : observers)
      o->onDmaIssue(pc, t);
    break;
  }
  case Opcode::DmaWait: {
    uint64_t id = regs[in.rs1];
    llvm::erase_if(pendingDmas,
                   [&](const PendingDma &p) { return p.id == id; });
    WaitEvent w;
    w.pc = pc;
    w.dmaId = uint32_t(id);
    w.cycle = ready;
    w.outcome = prep.outcome;
    summary.stallCycles[size_t(StallCause::DmaWaitBase)] += w.outcome.stallBase;
    summary.stallCycles[size_t(StallCause::DmaWaitTransfer)] +=
        w.outcome.stallTransfer;
    for (Observer *o : observers)
      o->onDmaWait(w);
    break;
  }
  case Opcode::SemWait: {
    std::vector<Signal> &signals = semaphores[prep.semaphore];
    SemWaitEvent e;
    e.pc = pc;
    e.semaphore = prep.semaphore;
    e.consumed = llvm::ArrayRef(signals).take_front(prep.count);
    // A DMA of this chip whose signal this WAIT consumes has completed: it
    // is no longer pending (docs/isa.md, "DMA synchronization").
    for (const Signal &sig : e.consumed)
      if (sig.chip == chip)
        llvm::erase_if(pendingDmas,
                       [&](const PendingDma &p) { return p.id == sig.dmaId; });
    for (Observer *o : observers)
      o->onSemWait(e);
    signals.erase(signals.begin(), signals.begin() + prep.count);
    break;
  }
  case Opcode::ChipId:
    regs[in.rd] = chip;
    break;
  case Opcode::ChipCount:
    regs[in.rd] = getNumChips();
    break;
  default:
    if (unit == isa::Unit::Scalar) {
      scalarUnit.execute(in, state);
      break;
    }
    unitLatency = timing.getLatency(in);
    inFlight[size_t(unit)] = {at.cycle + unitLatency, prep.vmemReads,
                              prep.vmemWrites};
    if (timingOnly)
      break;
    if (unit == isa::Unit::Mxu)
      mxu.execute(in, state);
    else
      vpu.execute(in, state);
    break;
  }
  halted |= state.halted;
  regs[0] = 0;
  prep.valid = false;

  ev.issueCycle = at.cycle;
  ev.stallCycles = at.cycle - ready;
  ev.cause = at.cause;
  if (in.op != Opcode::DmaWait)
    summary.stallCycles[size_t(at.cause)] += ev.stallCycles;
  if (unit == isa::Unit::Mxu || unit == isa::Unit::Vpu) {
    ev.unitStart = at.cycle;
    ev.unitEnd = at.cycle + unitLatency;
    unitFree[size_t(unit)] = ev.unitEnd;
    summary.unitBusyCycles[size_t(unit)] += unitLatency;
  } else if (unit == isa::Unit::Scalar) {
    ev.unitStart = at.cycle;
    ev.unitEnd = at.cycle + config.scalarLatency;
    summary.unitBusyCycles[size_t(unit)] += config.scalarLatency;
  }
  lastIssue = at.cycle;
  first = false;
  ++instCount;
  for (Observer *o : observers)
    o->onRetire(ev);
  if (!halted)
    pc = state.nextPc;
  return llvm::Error::success();
}
