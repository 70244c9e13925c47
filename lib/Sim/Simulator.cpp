//===- Simulator.cpp - Functional and timed accel ISA simulator -----------===//
//
// Timing model (docs/isa.md, "Timing"; ../shared/DESIGN.md §2):
//  - The scalar core issues in order, one instruction every scalar.latency
//    cycles at best. An instruction issues at the first cycle at which its
//    unit is free and its operands' VMEM ranges are no longer being written
//    (or, for writes, read) by an in-flight unit op; the wait is a stall
//    with the binding cause.
//  - MXU matmul (weight-stationary, R x C array): for each of
//    ceil(K/R) * ceil(N/C) weight tiles, R cycles to load the weights (fill)
//    and M cycles to stream the rows of A; then C cycles to drain:
//    latency = passes * (R + M) + C.
//  - VPU op: pipeline_depth + ceil(rows * cols / lanes) * cost(op).
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
      operandBuffers(program.code.size()) {}

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
struct IssueAt {
  uint64_t cycle;
  StallCause cause = StallCause::None;
  void atLeast(uint64_t c, StallCause why) {
    if (c > cycle) {
      cycle = c;
      cause = why;
    }
  }
};
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
  uint32_t nextPc = pc + 1;
  isa::Unit unit = info.unit;
  uint64_t unitLatency = config.scalarLatency;

  // Memory operands: bounds, races with un-WAITed DMAs, data hazards. Races
  // and hazards compare the tiles' actual rows (TileRef::overlaps), so two
  // disjoint tiles of one row band (e.g. columns 0..127 and 128..255 of the
  // same rows) neither race nor wait for each other.
  TileList vmemReads, vmemWrites;
  // Every tile read, then every tile written, with its span.
  TileList operands; // uninitialized storage: nothing to clear per step
  unsigned numReads = 0, numOperands = 0;
  bool touchesMemory = unit != isa::Unit::Scalar || in.op == Opcode::Sld;
  bool accesses = touchesMemory && in.op != Opcode::DmaWait;
  InstAccess acc = accesses
                       ? getAccesses(in, [&](unsigned r) { return regs[r]; })
                       : InstAccess();
  if (accesses) {
    ev.memReads = acc.memReads;
    ev.memWrites = acc.memWrites;
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
  }
  auto vmemTile = [&](uint8_t reg, uint64_t rows, uint64_t cols,
                      uint64_t stride) {
    return TileRef{isa::MemSpace::VMEM, regs[reg], rows, cols, stride};
  };

  switch (in.op) {
  case Opcode::Nop:
    break;
  case Opcode::Halt:
    halted = true;
    break;
  case Opcode::Li:
    regs[in.rd] = uint64_t(in.imm());
    break;
  case Opcode::Add:
    regs[in.rd] = regs[in.rs1] + regs[in.rs2];
    break;
  case Opcode::Sub:
    regs[in.rd] = regs[in.rs1] - regs[in.rs2];
    break;
  case Opcode::Mul:
    regs[in.rd] = regs[in.rs1] * regs[in.rs2];
    break;
  case Opcode::Addi:
    regs[in.rd] = regs[in.rs1] + uint64_t(in.imm());
    break;
  case Opcode::Muli:
    regs[in.rd] = regs[in.rs1] * uint64_t(in.imm());
    break;
  case Opcode::Mov:
    regs[in.rd] = regs[in.rs1];
    break;
  case Opcode::Sld: {
    int32_t v;
    std::memcpy(&v, memory.vmemPtr(regs[in.rs1] + uint64_t(in.imm())), 4);
    regs[in.rd] = uint64_t(int64_t(v));
    break;
  }
  case Opcode::Blt:
    if (int64_t(regs[in.rs1]) < int64_t(regs[in.rs2]))
      nextPc = uint32_t(in.imm());
    break;
  case Opcode::Bge:
    if (int64_t(regs[in.rs1]) >= int64_t(regs[in.rs2]))
      nextPc = uint32_t(in.imm());
    break;
  case Opcode::Jmp:
    nextPc = uint32_t(in.imm());
    break;

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

  case Opcode::Matmul: {
    uint64_t m = in.a, n = in.b, k = in.s1;
    TileRef a = vmemTile(in.rs1, m, k, in.s2);
    TileRef b = vmemTile(in.rs2, k, n, n);
    TileRef c = vmemTile(in.rs3, m, n, in.s3);
    at.atLeast(unitFree[size_t(isa::Unit::Mxu)], StallCause::MxuBusy);
    uint64_t passes = llvm::divideCeil(k, config.mxuRows) *
                      llvm::divideCeil(n, config.mxuCols);
    unitLatency = passes * (config.mxuRows + m) + config.mxuCols;
    inFlight[size_t(unit)] = {at.cycle + unitLatency, vmemReads, vmemWrites};
    if (timingOnly)
      break;
    // C (+)= A * B, rows of C accumulated in a dense temporary.
    std::vector<float> &acc = scratch[0];
    acc.resize(n);
    for (uint64_t i = 0; i < m; ++i) {
      float *crow = memory.vmemPtr(c.base + i * c.rowStride * 4);
      if (in.flags & isa::kFlagAccumulate)
        std::memcpy(acc.data(), crow, n * 4);
      else
        std::fill(acc.begin(), acc.end(), 0.0f);
      const float *arow = memory.vmemPtr(a.base + i * a.rowStride * 4);
      for (uint64_t kk = 0; kk < k; ++kk) {
        float av = arow[kk];
        const float *brow = memory.vmemPtr(b.base + kk * n * 4);
        for (uint64_t j = 0; j < n; ++j)
          acc[j] += av * brow[j];
      }
      std::memcpy(crow, acc.data(), n * 4);
    }
    break;
  }

  case Opcode::VAdd:
  case Opcode::VSub:
  case Opcode::VMul:
  case Opcode::VDiv:
  case Opcode::VMax:
  case Opcode::VExp:
  case Opcode::VSqrt:
  case Opcode::VCopy:
  case Opcode::VFill:
  case Opcode::VRSum:
  case Opcode::VRMax: {
    uint64_t rows = in.a, cols = in.b;
    bool reduce = in.op == Opcode::VRSum || in.op == Opcode::VRMax;
    bool binary = info.format == isa::InstFormat::VBinary;
    bool bcast = binary && (in.flags & isa::kFlagBroadcast);
    bool rowBcast = binary && !bcast && (in.flags & isa::kFlagBroadcastRow);
    TileRef out = vmemTile(in.rs3, rows, reduce ? 1 : cols, in.s3);
    TileRef x = vmemTile(in.rs1, rows, cols, in.s1);
    TileRef y =
        vmemTile(in.rs2, rowBcast ? 1 : rows, bcast ? 1 : cols, in.s2);
    at.atLeast(unitFree[size_t(isa::Unit::Vpu)], StallCause::VpuBusy);
    unsigned cost = config.vpuCostSimple;
    if (in.op == Opcode::VDiv)
      cost = config.vpuCostDiv;
    else if (in.op == Opcode::VExp)
      cost = config.vpuCostExp;
    else if (in.op == Opcode::VSqrt)
      cost = config.vpuCostSqrt;
    else if (reduce)
      cost = config.vpuCostReduce;
    unitLatency = config.vpuPipelineDepth +
                  llvm::divideCeil(rows * cols, config.vpuLanes) * cost;
    inFlight[size_t(unit)] = {at.cycle + unitLatency, vmemReads, vmemWrites};
    if (timingOnly)
      break;

    // Every input is read before any output is written (docs/isa.md): an
    // input the output tile overlaps is read from a snapshot of its span,
    // unless it is the output tile itself with rows that do not overlap
    // (an in-place elementwise op, which reads each element just before
    // writing it). The output is then written row by row in place, so no
    // temporary is larger than an operand's span (a stride-0 tile of 65535
    // x 65535 elements does not allocate 16 GiB).
    bool outRowsDisjoint = out.rows == 1 || out.rowStride >= out.cols;
    auto inputRows = [&](const TileRef &t, std::vector<float> &snapshot,
                         bool elementwise) -> const float * {
      bool inPlace = elementwise && outRowsDisjoint && t.base == out.base &&
                     t.rowStride == out.rowStride && t.rows == out.rows &&
                     t.cols == out.cols;
      if (inPlace || !t.overlaps(out))
        return memory.vmemPtr(t.base);
      AddrRange span = t.span();
      snapshot.resize((span.end - span.begin) / isa::kElemBytes);
      std::memcpy(snapshot.data(), memory.vmemPtr(t.base),
                  span.end - span.begin);
      return snapshot.data();
    };
    const float *xp =
        in.op == Opcode::VFill ? nullptr : inputRows(x, scratch[0], !reduce);
    const float *yp =
        binary ? inputRows(y, scratch[1], !bcast && !rowBcast) : nullptr;
    // Rows of the three tiles (strides in elements). Contiguous tiles of an
    // elementwise op without broadcast are one long row.
    uint64_t nRows = rows, nCols = cols;
    uint64_t xStride = x.rowStride, yStride = y.rowStride,
             oStride = out.rowStride;
    auto contiguous = [&](const TileRef &t) {
      return t.rows == 1 || t.rowStride == t.cols;
    };
    if (!reduce && !bcast && !rowBcast && contiguous(out) &&
        (in.op == Opcode::VFill || contiguous(x)) &&
        (!binary || contiguous(y))) {
      nCols = rows * cols;
      nRows = 1;
    }
    float *op0 = memory.vmemPtr(out.base);
    auto binaryOp = [&](auto f) {
      for (uint64_t r = 0; r < nRows; ++r) {
        float *o = op0 + r * oStride;
        const float *xr = xp + r * xStride;
        if (bcast) {
          float yv = yp[r * yStride];
          for (uint64_t c = 0; c < nCols; ++c)
            o[c] = f(xr[c], yv);
        } else {
          const float *yr = rowBcast ? yp : yp + r * yStride;
          for (uint64_t c = 0; c < nCols; ++c)
            o[c] = f(xr[c], yr[c]);
        }
      }
    };
    auto unaryOp = [&](auto f) {
      for (uint64_t r = 0; r < nRows; ++r) {
        float *o = op0 + r * oStride;
        const float *xr = xp + r * xStride;
        for (uint64_t c = 0; c < nCols; ++c)
          o[c] = f(xr[c]);
      }
    };
    switch (in.op) {
    case Opcode::VAdd:
      binaryOp([](float a, float b) { return a + b; });
      break;
    case Opcode::VSub:
      binaryOp([](float a, float b) { return a - b; });
      break;
    case Opcode::VMul:
      binaryOp([](float a, float b) { return a * b; });
      break;
    case Opcode::VDiv:
      binaryOp([](float a, float b) { return a / b; });
      break;
    case Opcode::VMax:
      binaryOp([](float a, float b) { return std::max(a, b); });
      break;
    case Opcode::VExp:
      unaryOp([](float a) { return std::exp(a); });
      break;
    case Opcode::VSqrt:
      unaryOp([](float a) { return std::sqrt(a); });
      break;
    case Opcode::VCopy:
      unaryOp([](float a) { return a; });
      break;
    case Opcode::VFill: {
      uint32_t bits = in.fillBits();
      float v;
      std::memcpy(&v, &bits, 4);
      for (uint64_t r = 0; r < nRows; ++r)
        std::fill(op0 + r * oStride, op0 + r * oStride + nCols, v);
      break;
    }
    case Opcode::VRSum:
    case Opcode::VRMax:
      // Rows are summed left to right (the order is part of the model:
      // results must be bit-identical across runs).
      for (uint64_t r = 0; r < rows; ++r) {
        const float *xr = xp + r * xStride;
        float v = in.op == Opcode::VRSum ? 0.0f : -INFINITY;
        for (uint64_t c = 0; c < cols; ++c)
          v = in.op == Opcode::VRSum ? v + xr[c] : std::max(v, xr[c]);
        op0[r * oStride] = v;
      }
      break;
    default:
      break;
    }
    break;
  }
  }
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
    pc = nextPc;
  return llvm::Error::success();
}
