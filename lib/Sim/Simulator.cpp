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
// The issue stage of one instruction per opcode (a switch over Opcodes.def)
// and its execution; the system and replay side of a chip (semaphores,
// remote DMAs, the timing state a replay installs) is SimulatorChips.cpp,
// and the units, DMA engine and memory are in their own files.
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/Simulator.h"
#include "SimulatorDetail.h"
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
      timing(config), operandBounds(program.code.size()),
      decodedInsts(program.code.size()) {}

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

/// Whether `addr` is a multiple of `size` (a mask for the element sizes,
/// powers of two: a 64-bit division per operand showed in the replay).
static bool isAligned(uint64_t addr, uint32_t size) {
  return llvm::isPowerOf2_32(size) ? (addr & (size - 1)) == 0
                                   : addr % size == 0;
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

llvm::Error Simulator::checkOperands(llvm::ArrayRef<MemOperand> reads,
                                     llvm::ArrayRef<MemOperand> writes,
                                     const HazardTile *shapes, bool checked,
                                     uint64_t ready, VmemTiles &vmem,
                                     IssueAt &at) {
  // Races and hazards compare the tiles' actual rows (TileRef::overlaps),
  // so two disjoint tiles of one row band (e.g. columns 0..127 and 128..255
  // of the same rows) neither race nor wait for each other.
  // Every tile read, then every tile written, with its span: each written
  // once, in place (the VMEM ones in `vmemReads` / `vmemWrites`, the others
  // here), field by field from registers (a tile built aside and copied
  // into its list made loads wait on the stores just written, a third of
  // this function in a --timing-only replay).
  TileList others; // uninitialized storage: nothing to clear per step
  const HazardTile *operands[TileList::kMax];
  unsigned numReads = reads.size(), numOperands = numReads + writes.size();
  if (numOperands > TileList::kMax) // so no TileList below overflows
    llvm::report_fatal_error("an instruction with more than 4 memory "
                             "operands");
  // The lists' sizes are counted in registers and stored once: a size
  // incremented in memory per tile made each tile's address wait on the
  // store before it (perf: a third of this function in a --timing-only
  // replay).
  unsigned numVmemReads = 0, numVmemWrites = 0, numOthers = 0;
  for (unsigned k = 0; k < numOperands; ++k) {
    const TileRef &tile =
        k < numReads ? reads[k].tile : writes[k - numReads].tile;
    HazardTile &h = tile.space != isa::MemSpace::VMEM
                        ? others.tiles[numOthers++]
                    : k < numReads ? vmem.reads.tiles[numVmemReads++]
                                   : vmem.writes.tiles[numVmemWrites++];
    if (shapes)
      h.setMoved(shapes[k], tile.base);
    else
      h.set(tile);
    operands[k] = &h;
  }
  vmem.reads.size = numVmemReads;
  vmem.writes.size = numVmemWrites;
  others.size = numOthers;
  for (unsigned k = 0; k < numOperands && !checked; ++k) {
    const MemOperand &m = k < numReads ? reads[k] : writes[k - numReads];
    const TileRef &tile = m.tile;
    const AddrRange &span = operands[k]->span;
    BufferBounds &bounds = operandBounds[pc][k];
    if (tile.rows == 0 || tile.cols == 0 ||
        (!bounds.holds(span) && !bounds.find(memory, span)))
      return fault(pc, llvm::Twine(isa::memSpaceName(span.space).upper()) +
                           " access out of bounds: " + m.role + " [" +
                           llvm::Twine(span.begin) + ", " +
                           llvm::Twine(span.end) +
                           ") is not inside any allocated buffer");
    // Elements are aligned to their size (4 bytes for f32 and i32, 2 for
    // bf16): an address of another alignment (a register loaded from a
    // trace, an address computed by the program) is a fault, not a
    // misaligned access.
    if (!isAligned(tile.base, tile.elemBytes))
      return fault(pc, llvm::Twine(isa::memSpaceName(span.space).upper()) +
                           " access misaligned: " + m.role +
                           " at byte address " + llvm::Twine(span.begin) +
                           ", which is not a multiple of " +
                           llvm::Twine(tile.elemBytes));
  }
  if (!pendingDmas.empty())
    if (llvm::Error e =
            checkRaces(llvm::ArrayRef(operands, numOperands), numReads))
      return e;
  checkHazards(vmem, ready, at);
  return llvm::Error::success();
}

void Simulator::checkHazards(VmemTiles &mine, uint64_t ready, IssueAt &at) {
  for (size_t u = 0; u < inFlight.size(); ++u) {
    const InFlightOp &op = inFlight[u];
    if (op.end <= ready)
      continue;
    const VmemTiles &theirs = tilesOf(op);
    VmemTiles::HazardMemo &memo = mine.memo[u];
    if (memo.other != theirs.version || theirs.version == 0) {
      memo.other = theirs.version;
      memo.hazard = overlapsAny(theirs.writes, mine.reads) ||
                    overlapsAny(theirs.writes, mine.writes) ||
                    overlapsAny(theirs.reads, mine.writes);
    }
    if (memo.hazard)
      at.atLeast(op.end, StallCause::DataHazard);
  }
}

Simulator::VmemTiles &Simulator::takeFreeSlot() {
  // Round robin over the slots: the tiles filled longest ago go first, so
  // a loop with fewer memory instructions than slots keeps all of theirs.
  for (;;) {
    uint8_t slot = nextFreeSlot;
    nextFreeSlot = uint8_t((slot + 1) % vmemTileSlots.size());
    if (llvm::none_of(inFlight,
                      [&](const InFlightOp &op) { return op.slot == slot; })) {
      prep.slot = slot;
      VmemTiles &tiles = vmemTileSlots[slot];
      tiles.refill(nextTilesVersion++);
      return tiles;
    }
  }
}

llvm::Error Simulator::checkRaces(llvm::ArrayRef<const HazardTile *> operands,
                                  unsigned numReads) {
  for (const PendingDma &p : pendingDmas) {
    auto race = [&](const HazardTile &t, const char *what,
                    const char *dmaDoes) {
      return fault(pc, llvm::Twine("data race: ") + what + " " +
                           describeRange(t.span) + ", which " +
                           describePending(p, "") + " " + dmaDoes +
                           ", before its WAIT");
    };
    // Spans first (the common, disjoint case), then the rows.
    for (unsigned i = 0; i < operands.size(); ++i) {
      const HazardTile &t = *operands[i];
      if (t.overlaps(p.dst, p.dstSpan))
        return race(t, i < numReads ? "reads" : "writes", "writes");
      if (i >= numReads && t.overlaps(p.src, p.srcSpan))
        return race(t, "writes", "reads");
    }
  }
  return llvm::Error::success();
}

llvm::Error Simulator::prepareMemories() {
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
  return llvm::Error::success();
}

llvm::Error Simulator::checkFields(const Inst &in) {
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
  return llvm::Error::success();
}

Simulator::DecodedInst &Simulator::decode(uint32_t atPc) {
  DecodedInst &d = decodedInsts[atPc];
  if (d.decoded)
    return d;
  const Inst &in = program.code[atPc];
  d.unit = isa::info(in.op).unit;
  if (d.unit == isa::Unit::Mxu || d.unit == isa::Unit::Vpu)
    d.latency = timing.getLatency(in);
  unsigned numReads = 0, numWrites = 0;
  d.firstTemplate = operandTemplates.size();
  d.hasTemplates =
      getAccessTemplates(in, chip, operandTemplates, numReads, numWrites);
  d.allVmem = true;
  for (size_t i = d.firstTemplate; i < operandTemplates.size(); ++i) {
    TileRef shape = operandTemplates[i].operand.tile;
    d.allVmem &= shape.space == isa::MemSpace::VMEM;
    shape.base = 0;
    operandShapes.push_back(HazardTile::of(shape, shape.span()));
    filledOperands.push_back(operandTemplates[i].operand);
  }
  d.numReads = numReads;
  d.numWrites = numWrites;
  d.decoded = true;
  return d;
}

llvm::Error Simulator::prepareAccesses(const Inst &in, DecodedInst &d,
                                       uint64_t ready) {
  // Memory operands: bounds, races with un-WAITed DMAs, data hazards.
  bool touchesMemory = d.unit != isa::Unit::Scalar || in.op == Opcode::Sld;
  bool accesses =
      touchesMemory && in.op != Opcode::DmaWait && in.op != Opcode::SemWait;
  if (!accesses) {
    prep.reads = prep.writes = {}; // and no slot (not an MXU or VPU op)
    return llvm::Error::success();
  }
  if (d.hasTemplates) {
    // The decoded operands, each at its address register's value: only
    // the bases change, and when none does, neither do the checks' results.
    const OperandTemplate *t = operandTemplates.data() + d.firstTemplate;
    MemOperand *ops = filledOperands.data() + d.firstTemplate;
    unsigned n = d.numReads + d.numWrites;
    bool same = d.operandsChecked;
    for (unsigned k = 0; k < n; ++k) {
      uint64_t base = t[k].operand.tile.base;
      if (t[k].hasBaseReg)
        base += regs[t[k].baseReg];
      if (ops[k].tile.base != base) {
        ops[k].tile.base = base;
        same = false;
      }
    }
    prep.reads = llvm::ArrayRef(ops, d.numReads);
    prep.writes = llvm::ArrayRef(ops + d.numReads, d.numWrites);
    // The same tiles as the last checked issue here, still in their slot:
    // only the races (its operands are the slot's tiles, reads first, when
    // all are in VMEM) and the hazards are left.
    VmemTiles &kept = vmemTileSlots[d.tilesSlot];
    if (same && kept.version == d.tilesVersion &&
        (pendingDmas.empty() || d.allVmem)) {
      prep.slot = d.tilesSlot;
      if (!pendingDmas.empty()) {
        const HazardTile *operands[TileList::kMax];
        unsigned k = 0;
        for (const TileList *list : {&kept.reads, &kept.writes})
          for (const HazardTile &h : *list)
            operands[k++] = &h;
        if (llvm::Error e =
                checkRaces(llvm::ArrayRef(operands, k), kept.reads.size))
          return e;
      }
      checkHazards(kept, ready, prep.at);
      return llvm::Error::success();
    }
    d.operandsChecked = false; // until the checks below pass
    VmemTiles &vmem = takeFreeSlot();
    if (llvm::Error e = checkOperands(prep.reads, prep.writes,
                                      operandShapes.data() + d.firstTemplate,
                                      same, ready, vmem, prep.at))
      return e;
    d.operandsChecked = true;
    d.tilesSlot = prep.slot;
    d.tilesVersion = vmem.version;
    return llvm::Error::success();
  }
  getAccesses(
      in, [&](unsigned r) { return regs[r]; }, chip, prep.acc);
  prep.reads = prep.acc.memReads;
  prep.writes = prep.acc.memWrites;
  return checkOperands(prep.reads, prep.writes, nullptr, false, ready,
                       takeFreeSlot(), prep.at);
}

llvm::Error Simulator::prepareDmaIssue(const Inst &in) {
  IssueAt &at = prep.at;
  prep.src = prep.reads[0].tile;
  prep.dst = prep.writes[0].tile;
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
  return llvm::Error::success();
}

llvm::Error Simulator::prepareDmaWait(const Inst &in, uint64_t ready) {
  IssueAt &at = prep.at;
  uint64_t id = regs[in.rs1];
  if (!dma.isValid(uint32_t(id)) || id > UINT32_MAX)
    return fault(pc, "WAIT on DMA id " + llvm::Twine(id) +
                         ", which was never issued");
  prep.outcome = dma.wait(uint32_t(id), ready);
  at.cycle = prep.outcome.resume;
  at.cause = prep.outcome.stallBase       ? StallCause::DmaWaitBase
             : prep.outcome.stallTransfer ? StallCause::DmaWaitTransfer
                                          : StallCause::None;
  return llvm::Error::success();
}

llvm::Error Simulator::prepareSemWait(const Inst &in) {
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
    prep.at.atLeast(signals[prep.count - 1].cycle, StallCause::SemWait);
  }
  return llvm::Error::success();
}

llvm::Error Simulator::checkIncoming(uint64_t ready) {
  // Remote DMAs of other chips that read or write this chip's memory:
  // touching what they write, or writing what they read, before they
  // complete is a race. Cycles only grow, so completed ones go.
  const IssueAt &at = prep.at;
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
    bool isRead = check(prep.reads, false);
    if (isRead || check(prep.writes, true)) {
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
  return llvm::Error::success();
}

llvm::Error Simulator::prepare() {
  if (halted)
    return llvm::createStringError("the program has halted");
  if (llvm::Error e = prepareMemories())
    return e;
  if (pc >= program.code.size())
    return fault(pc, "pc outside the code (" +
                         llvm::Twine(program.code.size()) +
                         " instructions); the program has no halt");
  const Inst &in = program.code[pc];
  DecodedInst &d = decode(pc);
  isa::Unit unit = d.unit;
  uint64_t ready = first ? 0 : lastIssue + config.scalarLatency;
  prep.valid = false;
  prep.blocked = false;
  prep.ready = ready;
  prep.at = IssueAt{ready};
  if (llvm::Error e = checkFields(in))
    return e;
  if (llvm::Error e = prepareAccesses(in, d, ready))
    return e;
  switch (in.op) {
  case Opcode::DmaIssue:
    if (llvm::Error e = prepareDmaIssue(in))
      return e;
    break;
  case Opcode::DmaWait:
    if (llvm::Error e = prepareDmaWait(in, ready))
      return e;
    break;
  case Opcode::SemWait:
    if (llvm::Error e = prepareSemWait(in))
      return e;
    break;
  default:
    if (unit == isa::Unit::Mxu || unit == isa::Unit::Vpu)
      // MXU and VPU: in order on their unit, then concurrent with the core.
      prep.at.atLeast(unitFree[size_t(unit)], unit == isa::Unit::Mxu
                                                  ? StallCause::MxuBusy
                                                  : StallCause::VpuBusy);
    break;
  }
  if (!incoming.empty())
    if (llvm::Error e = checkIncoming(ready))
      return e;
  prep.valid = true;
  return llvm::Error::success();
}

llvm::Error Simulator::commitDmaIssue(const Inst &in, RetireEvent &ev) {
  const IssueAt &at = prep.at;
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
  return llvm::Error::success();
}

void Simulator::commitDmaWait(const Inst &in) {
  uint64_t id = regs[in.rs1];
  llvm::erase_if(pendingDmas, [&](const PendingDma &p) { return p.id == id; });
  WaitEvent w;
  w.pc = pc;
  w.dmaId = uint32_t(id);
  w.cycle = prep.ready;
  w.outcome = prep.outcome;
  summary.stallCycles[size_t(StallCause::DmaWaitBase)] += w.outcome.stallBase;
  summary.stallCycles[size_t(StallCause::DmaWaitTransfer)] +=
      w.outcome.stallTransfer;
  for (Observer *o : observers)
    o->onDmaWait(w);
}

void Simulator::commitSemWait() {
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
}

void Simulator::retire(const Inst &in, isa::Unit unit, uint64_t unitLatency,
                       RetireEvent &ev, const CoreState &state) {
  const IssueAt &at = prep.at;
  uint64_t ready = prep.ready;
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
}

llvm::Error Simulator::commitInline() {
  assert(prep.valid && !prep.blocked && "commit() without a prepared issue");
  const Inst &in = program.code[pc];
  const DecodedInst &d = decodedInsts[pc];
  isa::Unit unit = d.unit;
  RetireEvent &ev = retiring;
  ev.index = instCount;
  ev.pc = pc;
  ev.inst = &in;
  ev.issueCycle = ev.stallCycles = 0;
  ev.cause = StallCause::None;
  ev.unitStart = ev.unitEnd = 0;
  ev.memReads = prep.reads;
  ev.memWrites = prep.writes;
  ev.fixedShapes = d.hasTemplates;
  uint64_t unitLatency = config.scalarLatency;
  CoreState state{memory, regs, pc + 1};
  switch (in.op) {
  case Opcode::DmaIssue:
    if (llvm::Error e = commitDmaIssue(in, ev))
      return e;
    break;
  case Opcode::DmaWait:
    commitDmaWait(in);
    break;
  case Opcode::SemWait:
    commitSemWait();
    break;
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
    unitLatency = d.latency;
    InFlightOp &op = inFlight[size_t(unit)];
    op.end = prep.at.cycle + unitLatency;
    // The op's tiles are the prepared ones: it takes their slot (and the
    // slot of the op it replaces is free again).
    op.slot = prep.slot;
    if (timingOnly)
      break;
    if (unit == isa::Unit::Mxu)
      mxu.execute(in, state);
    else
      vpu.execute(in, state);
    break;
  }
  retire(in, unit, unitLatency, ev, state);
  return llvm::Error::success();
}

llvm::Error Simulator::commit() { return commitInline(); }

llvm::Error Simulator::step() {
  if (llvm::Error e = prepare())
    return e;
  if (prep.blocked)
    return fault(pc, "deadlock: " + describeBlocked() +
                         ", and no other chip can signal it");
  return commitInline();
}
