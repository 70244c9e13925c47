//===- Simulator.cpp - Functional and timed accel ISA simulator -----------===//
//
// Timing model (docs/isa.md, "Timing"; DESIGN.md §2):
//  - The scalar core issues in order, one instruction every scalar.latency
//    cycles at best. An instruction issues at the first cycle at which its
//    unit is free and its operands' VMEM ranges are no longer being written
//    (or, for writes, read) by an in-flight unit op; the wait is a stall
//    with the binding cause. This file is that issue stage.
//  - MXU and VPU latencies: TimingModel (Units.cpp), by the opcode's cost
//    class in Opcodes.def.
//  - DMA ISSUE: DmaEngine (seed 000 Fig. 4); WAIT stalls until completion.
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/Simulator.h"
#include "accel/Sim/Access.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <cstring>

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
  case StallCause::NumCauses:
    break;
  }
  return "?";
}

Simulator::Simulator(const MachineConfig &config, const isa::Program &program,
                     bool initHbm)
    : config(config), program(program),
      memory(config.vmemBytes, program.buffers, initHbm), dma(config),
      timing(config), operandBuffers(program.code.size()) {}

llvm::Error Simulator::fault(uint32_t faultPc, const llvm::Twine &what) const {
  std::string where;
  if (faultPc < program.code.size()) {
    where = " (" + isa::toString(program.code[faultPc]) + ")";
    if (faultPc < program.origins.size()) {
      const isa::Origin &o = program.origins[faultPc];
      where += ", op " + std::to_string(o.opId) + " '" + o.opName + "' at " +
               o.loc;
    }
  }
  return llvm::createStringError(
      llvm::Twine("fault at pc " + llvm::Twine(faultPc) + where + ": " + what)
          .str());
}

namespace {
/// Issue-time bookkeeping: the earliest cycle and the cause that set it.
} // namespace

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
                                          bool stopAtBudget) {
  while (!halted) {
    if (instCount >= maxInstructions && stopAtBudget) {
      summary.truncated = true;
      return finish();
    }
    if (instCount >= maxInstructions)
      return fault(pc, "instruction budget of " +
                           llvm::Twine(maxInstructions) +
                           " exceeded (an endless loop?)");
    if (llvm::Error e = step())
      return std::move(e);
  }
  return finish();
}

RunSummary Simulator::finish() {
  if (!finished) {
    uint64_t end = first ? 0 : lastIssue + 1;
    for (uint64_t f : unitFree)
      end = std::max(end, f);
    end = std::max(end, dma.drainCycle());
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

void Simulator::installPendingDma(uint32_t id, uint32_t issuePc,
                                  const TileRef &src, const TileRef &dst) {
  int link = config.findLink(src.space, dst.space);
  uint64_t bytes = src.rows * src.cols * isa::kElemBytes;
  if (link >= 0) {
    dma.issue(0, link, bytes, id);
    for (Observer *o : observers)
      o->onDmaInFlight(issuePc, dma.get(id));
  }
  pendingDmas.push_back({id, issuePc, src, dst});
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
      // Words are 4 bytes: an address of another alignment (a register
      // loaded from a trace, an address computed by the program) is a
      // fault, not a misaligned f32/i32 access.
      if (m.tile.base % isa::kElemBytes != 0)
        return fault(pc, llvm::Twine(isa::memSpaceName(span.space).upper()) +
                             " access misaligned: " + m.role +
                             " at byte address " + llvm::Twine(span.begin) +
                             ", which is not a multiple of 4");
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
      const AddrRange &r = t.span;
      return fault(pc, llvm::Twine("data race: ") + what + " " +
                           isa::memSpaceName(r.space).upper() + " [" +
                           llvm::Twine(r.begin) + ", " + llvm::Twine(r.end) +
                           "), which DMA " + llvm::Twine(p.id) +
                           " (issued at pc " + llvm::Twine(p.pc) + ") " +
                           dmaDoes + ", before its WAIT");
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
  if (pc >= program.code.size())
    return fault(pc, "pc outside the code (" +
                         llvm::Twine(program.code.size()) +
                         " instructions); the program has no halt");
  const Inst &in = program.code[pc];
  const isa::OpcodeInfo &info = isa::info(in.op);
  uint64_t ready = first ? 0 : lastIssue + config.scalarLatency;
  IssueAt at{ready};
  RetireEvent ev;
  ev.index = instCount;
  ev.pc = pc;
  ev.inst = &in;
  isa::Unit unit = info.unit;
  uint64_t unitLatency = config.scalarLatency;

  // Memory operands: bounds, races with un-WAITed DMAs, data hazards.
  TileList vmemReads, vmemWrites;
  bool touchesMemory = unit != isa::Unit::Scalar || in.op == Opcode::Sld;
  bool accesses = touchesMemory && in.op != Opcode::DmaWait;
  InstAccess acc = accesses
                       ? getAccesses(in, [&](unsigned r) { return regs[r]; })
                       : InstAccess();
  if (accesses) {
    ev.memReads = acc.memReads;
    ev.memWrites = acc.memWrites;
    if (llvm::Error e = checkOperands(acc, ready, vmemReads, vmemWrites, at))
      return e;
  }
  CoreState state{memory, regs, pc + 1};
  switch (in.op) {
  case Opcode::DmaIssue: {
    TileRef src{in.dmaSrc(), regs[in.rs1], in.a, in.b, in.s1};
    TileRef dst{in.dmaDst(), regs[in.rs2], in.a, in.b, in.s2};
    int link = config.findLink(src.space, dst.space);
    if (link < 0)
      return fault(pc, "the machine config has no DMA link " +
                           isa::memSpaceName(src.space) + "->" +
                           isa::memSpaceName(dst.space));
    while (dma.outstandingAt(at.cycle) >= config.maxOutstandingDmas)
      at.atLeast(dma.nextCompletionAfter(at.cycle), StallCause::DmaSlots);
    uint64_t bytes = uint64_t(in.a) * in.b * isa::kElemBytes;
    uint32_t id = dma.issue(at.cycle, link, bytes);
    // Functional effect at ISSUE: the program may not touch the destination
    // before its WAIT, and hazards above ordered the source's producers.
    memory.copyTile(src, dst);
    regs[in.rd] = id;
    pendingDmas.push_back({id, pc, src, dst});
    const DmaTiming &t = dma.get(id);
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
    if (!dma.isValid(uint32_t(id)) || id > UINT32_MAX)
      return fault(pc, "WAIT on DMA id " + llvm::Twine(id) +
                           ", which was never issued");
    llvm::erase_if(pendingDmas,
                   [&](const PendingDma &p) { return p.id == id; });
    WaitEvent w;
    w.pc = pc;
    w.dmaId = uint32_t(id);
    w.cycle = ready;
    w.outcome = dma.wait(uint32_t(id), ready);
    at.cycle = w.outcome.resume;
    at.cause = w.outcome.stallBase ? StallCause::DmaWaitBase
               : w.outcome.stallTransfer ? StallCause::DmaWaitTransfer
                                         : StallCause::None;
    summary.stallCycles[size_t(StallCause::DmaWaitBase)] += w.outcome.stallBase;
    summary.stallCycles[size_t(StallCause::DmaWaitTransfer)] +=
        w.outcome.stallTransfer;
    for (Observer *o : observers)
      o->onDmaWait(w);
    break;
  }

  default:
    if (unit == isa::Unit::Scalar) {
      scalarUnit.execute(in, state);
      break;
    }
    // MXU and VPU: in order on their unit, then concurrent with the core.
    at.atLeast(unitFree[size_t(unit)], unit == isa::Unit::Mxu
                                           ? StallCause::MxuBusy
                                           : StallCause::VpuBusy);
    unitLatency = timing.getLatency(in);
    inFlight[size_t(unit)] = {at.cycle + unitLatency, vmemReads, vmemWrites};
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
