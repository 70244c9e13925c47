//===- PinVmemLegality.cpp - Which DMAs accel-pin-vmem may pin ------------===//
//
// PinAnalyzer (PinVmem.h): a DMA in a loop may be pinned when it brings
// the same, unchanged bytes on every iteration into a buffer whose readers
// can read a resident copy instead; a DMA whose source changes with its
// loop's induction variable only may be pinned across the loop around it
// (a stack of tiles). The memory accesses come from the shared dependence
// analysis (MemoryDependence.h).
//
//===----------------------------------------------------------------------===//

#include "PinVmem.h"

#include "accel/Dialect/Accel/TileShape.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace accel;
using namespace accel::detail;
using namespace accel::detail::pinvmem;

/// Whether `op` (or an op nested in it) may read or write `buffer` (a
/// root), by the shared dependence analysis; sets `read` / `write` for the
/// kinds of access, and `writer` (when given) to a write. An op with
/// unknown memory effects may do both.
static bool touches(Operation *op, Value buffer, bool &read, bool &write,
                    MemoryAccess *writer = nullptr) {
  SmallVector<MemoryAccess> accesses;
  if (Operation *unknown = collectAccesses(op, accesses)) {
    read = write = true;
    if (writer)
      *writer = MemoryAccess(unknown, buffer, true);
    return true;
  }
  bool any = false;
  for (const MemoryAccess &a : accesses)
    if (mayAlias(a.root, buffer)) {
      any = true;
      read |= !a.write;
      if (a.write && writer && !write)
        *writer = a;
      write |= a.write;
    }
  return any;
}

SmallVector<Value> accel::detail::pinvmem::getInputsBesidesDst(DmaStartOp d) {
  SmallVector<Value> inputs;
  for (Value v : d->getOperands())
    if (v != d.getDst())
      inputs.push_back(v);
  return inputs;
}

/// The DMA that fills `buffer` when it is a resident buffer: marked
/// `accel.pinned` and written only by that one `accel.pinned` DMA (its
/// whole destination), with every other user reading it directly (no
/// view, no write; so it holds one value for the rest of the program once
/// that DMA is waited for). Null otherwise.
static DmaStartOp getResidentLoad(AllocOp buffer) {
  if (!buffer->hasAttr("accel.pinned"))
    return nullptr;
  Value b = buffer.getResult();
  DmaStartOp load;
  for (OpOperand &use : buffer->getUses()) {
    Operation *user = use.getOwner();
    auto dma = dyn_cast<DmaStartOp>(user);
    if (dma && dma.getDst() == b && !load && dma->hasAttr("accel.pinned") &&
        dma.getSrc() != b) {
      load = dma;
      continue;
    }
    bool writes = false;
    AccessWalk walk = forEachOwnAccess(user, [&](Value v, bool write) {
      writes |= write && v == b;
      return !writes;
    });
    if (walk != AccessWalk::Done || user->getNumRegions() ||
        isLoweredView(user) || llvm::any_of(user->getResultTypes(), [](Type t) {
          return isa<MemRefType>(t);
        }))
      return nullptr;
  }
  return load;
}

/// Whether `a` and `b` hold the same value: the same SSA value, or results
/// of equivalent ops (locations and discardable attributes ignored)
/// without regions whose operands hold the same values, each op free of
/// memory effects or a scalar load of a resident buffer (written only by
/// its pinned load, before the loops that read it).
static bool sameValue(Value a, Value b, unsigned depth = 0) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || depth > 8 || x->getNumRegions() || y->getNumRegions() ||
      cast<OpResult>(a).getResultNumber() !=
          cast<OpResult>(b).getResultNumber())
    return false;
  auto plain = [](Operation *op) {
    if (isMemoryEffectFree(op))
      return true;
    auto load = dyn_cast<LoadOp>(op);
    auto buffer = load ? load.getBuffer().getDefiningOp<AllocOp>() : AllocOp();
    return buffer && getResidentLoad(buffer);
  };
  if (!plain(x) || !plain(y))
    return false;
  return OperationEquivalence::isEquivalentTo(
      x, y,
      [&](Value l, Value r) { return success(sameValue(l, r, depth + 1)); },
      nullptr,
      OperationEquivalence::IgnoreLocations |
          OperationEquivalence::IgnoreDiscardableAttrs);
}

/// The resident buffer of an earlier pin before `loop` (in its block) that
/// loaded the same bytes `d` would: an `accel.pinned` DMA into an
/// `accel.pinned` allocation of `d`'s destination type, from a source
/// holding the same value, with no op between it and the loop that may
/// write that source.
static AllocOp findResidentCopy(DmaStartOp d, scf::ForOp loop) {
  Value srcRoot = getRoot(d.getSrc());
  for (Operation *x = loop->getPrevNode(); x; x = x->getPrevNode()) {
    auto load = dyn_cast<DmaStartOp>(x);
    auto resident = load ? load.getDst().getDefiningOp<AllocOp>() : AllocOp();
    if (load && resident && getResidentLoad(resident) == load &&
        resident.getType() == d.getDst().getType() &&
        sameValue(load.getSrc(), d.getSrc()))
      return resident;
    bool read = false, write = false;
    if (!isa<DmaStartOp, DmaWaitOp>(x) && touches(x, srcRoot, read, write) &&
        write)
      return nullptr;
    if (auto other = dyn_cast<DmaStartOp>(x))
      if (mayAlias(getRoot(other.getDst()), srcRoot))
        return nullptr;
  }
  return nullptr;
}

/// Why `d`'s destination cannot hold pinned bytes in `loop` (empty: it
/// can): it must be a whole allocation made outside `loop` and used only
/// in it, and `d`'s token must have one WAIT, after `d` in its block. Sets
/// `buffer` and `wait`.
static std::string checkDestination(DmaStartOp d, scf::ForOp loop,
                                    AllocOp &buffer, DmaWaitOp &wait) {
  buffer = d.getDst().getDefiningOp<AllocOp>();
  if (!buffer || loop->isAncestor(buffer))
    return "its destination is not a whole VMEM allocation made outside "
           "the loop";
  if (!usedOnlyInside(buffer.getResult(), loop))
    return "its destination is used outside the loop";
  if (!d.getToken().hasOneUse())
    return "its token has more than one WAIT";
  wait = getOnlyWait(d);
  if (!wait || wait->getBlock() != d->getBlock() || !d->isBeforeInBlock(wait))
    return "its WAIT is not after it in the loop body";
  return "";
}

/// Why the readers of the bytes `d` (in `loop`, WAITed by `wait`) brings
/// into `b` cannot read a resident copy instead (empty: they can); they are
/// appended to `readers`. The readers are the ops after the WAIT, up to the
/// next write of the buffer, that name the buffer itself. Reads before `d`
/// in the body see the previous iteration's last data: fine if another
/// write follows `d`'s range, not if `d`'s data is the last the buffer
/// holds.
static std::string collectReaders(DmaStartOp d, DmaWaitOp wait, scf::ForOp loop,
                                  Value b,
                                  SmallVectorImpl<Operation *> &readers) {
  bool seenDma = false, inRange = false, done = false, readBefore = false;
  // Before D: once another DMA has filled the whole buffer in this
  // iteration, later reads see that DMA's bytes, not D's from the last
  // iteration.
  bool refilledBefore = false;
  for (Operation &op : *loop.getBody()) {
    if (&op == d.getOperation()) {
      seenDma = true;
      continue;
    }
    if (&op == wait.getOperation()) {
      inRange = true;
      continue;
    }
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    bool read = false, write = false;
    if (!touches(&op, b, read, write))
      continue;
    if (!seenDma) {
      readBefore |= read && !refilledBefore;
      if (auto other = dyn_cast<DmaStartOp>(&op))
        refilledBefore |= other.getDst() == b;
      continue;
    }
    if (!inRange)
      return "its destination is accessed before its WAIT";
    if (done)
      continue; // other data in the buffer
    if (write) {
      if (read)
        return "an op updates the bytes it brings in place";
      done = true;
      continue;
    }
    if (op.getNumRegions() != 0 ||
        llvm::none_of(op.getOperands(), [&](Value v) { return v == b; }) ||
        llvm::any_of(op.getOperands(), [&](Value v) {
          return v != b && isa<MemRefType>(v.getType()) &&
                 mayAlias(getRoot(v), b);
        }))
      return "an op reads its destination through a view or a region";
    readers.push_back(&op);
  }
  if (readBefore && !done)
    return "the loop reads its destination before the DMA, where it still "
           "holds the previous iteration's copy";
  return "";
}

int64_t PinAnalyzer::paged(uint64_t bytes) const {
  return int64_t(llvm::alignTo(bytes, std::max<uint64_t>(vmemPage, 1)));
}

std::string PinAnalyzer::analyze(DmaStartOp d, Candidate &c) const {
  auto loop = dyn_cast<scf::ForOp>(d->getParentOp());
  if (!loop)
    return "the DMA is not directly in a loop";
  llvm::SetVector<Operation *> defs;
  Operation *unsafe = nullptr;
  if (!areLoopInvariant(getInputsBesidesDst(d), loop, defs, &unsafe)) {
    if (unsafe)
      return "its source is computed in the loop by " +
             unsafe->getName().getStringRef().str() +
             ", which may not run before a loop that may run zero times";
    std::string why = analyzeStacked(d, loop, c);
    if (why.empty())
      return "";
    return "its source changes in the loop; " + why;
  }
  return analyzeReuse(d, loop, loop, c);
}

/// The rest of analyze for `d` in `loop`, whose bytes stay unchanged
/// throughout `scope` (`loop` or a loop around it): the destination is a
/// whole allocation made outside `loop` and used only in it, nothing in
/// `scope` writes the source, and the readers of the bytes read the buffer
/// itself between the WAIT and its next write.
std::string PinAnalyzer::analyzeReuse(DmaStartOp d, scf::ForOp loop,
                                      scf::ForOp scope, Candidate &c) const {
  Value src = getRoot(d.getSrc());
  AllocOp buffer;
  DmaWaitOp wait;
  if (std::string why = checkDestination(d, loop, buffer, wait); !why.empty())
    return why;
  // The loop (the scope) must not write the source.
  for (Operation &op : scope.getBody()->without_terminator()) {
    bool read = false, write = false;
    MemoryAccess writer;
    if (&op != d.getOperation() && touches(&op, src, read, write, &writer) &&
        write)
      return "the loop writes its source (" + writer.describe() + ")";
  }
  if (std::string why =
          collectReaders(d, wait, loop, buffer.getResult(), c.readers);
      !why.empty())
    return why;
  if (c.readers.empty())
    return "nothing reads the bytes it brings";
  c.dma = d;
  c.wait = wait;
  c.buffer = buffer;
  c.bytes =
      paged(uint64_t(getTileShape(buffer.getType(), nullptr, true)->bytes()));
  c.resident = findResidentCopy(d, loop);
  if (c.resident)
    c.bytes = 0;
  return "";
}

/// Why `d`'s loop `k` cannot be stacked (empty: it can): `k` must have
/// constant bounds and at most kMaxStackedTiles iterations, and `d`'s
/// destination must be a 1-D or 2-D tile. Sets `trips`.
static std::string checkStackLoop(DmaStartOp d, scf::ForOp k,
                                  std::optional<int64_t> &trips) {
  trips = k.getStaticTripCount()
              ? std::optional<int64_t>(k.getStaticTripCount()->getZExtValue())
              : std::nullopt;
  auto tile = dyn_cast<MemRefType>(d.getDst().getType());
  if (!trips || *trips <= 0 || !getConstantIntValue(k.getLowerBound()) ||
      !getConstantIntValue(k.getStep()))
    return "no outer loop: its loop's bounds are not constants";
  if (*trips > kMaxStackedTiles)
    return "no outer loop: its loop has more than " +
           std::to_string(kMaxStackedTiles) + " iterations";
  if (!tile || tile.getRank() < 1 || tile.getRank() > 2 ||
      !tile.hasStaticShape())
    return "no outer loop: its destination is not a 1-D or 2-D tile";
  return "";
}

/// The loops around `k` (innermost first, up to the function) in which
/// every value `inputs` come from is `k`'s induction variable, computed by
/// an op of `defs`, or defined outside the loop; the walk stops at the
/// first loop that is not such.
static SmallVector<scf::ForOp>
loopsIndexedOnlyBy(scf::ForOp k, ArrayRef<Value> inputs,
                   const llvm::SetVector<Operation *> &defs) {
  Value iv = k.getInductionVar();
  auto indexedOnlyByK = [&](scf::ForOp level) {
    auto ok = [&](Value v) {
      return v == iv || defs.contains(v.getDefiningOp()) ||
             !level->isAncestor(v.getParentRegion()->getParentOp());
    };
    if (!llvm::all_of(inputs, ok))
      return false;
    for (Operation *def : defs)
      if (!llvm::all_of(def->getOperands(), ok))
        return false;
    return true;
  };
  SmallVector<scf::ForOp> levels;
  for (Operation *p = k->getParentOp(); p && !isa<FunctionOpInterface>(p);
       p = p->getParentOp()) {
    auto level = dyn_cast<scf::ForOp>(p);
    if (!level)
      continue;
    if (!indexedOnlyByK(level))
      break;
    levels.push_back(level);
  }
  return levels;
}

/// The candidate for a pin of `d` across a loop around its loop `k`
/// (Candidate::level), or the refusal reason: `k` has constant bounds and
/// at most kMaxStackedTiles iterations, and `d`'s source is computed from
/// `k`'s induction variable and values defined outside the level by pure
/// ops of `k`'s body. The level is the outermost such loop in which nothing
/// writes the source (analyzeReuse with that scope).
std::string PinAnalyzer::analyzeStacked(DmaStartOp d, scf::ForOp k,
                                        Candidate &c) const {
  std::optional<int64_t> trips;
  if (std::string why = checkStackLoop(d, k, trips); !why.empty())
    return why;
  llvm::SetVector<Operation *> defs;
  SmallVector<Value> inputs = getInputsBesidesDst(d);
  collectLoopDefs(inputs, k, defs, /*withAllocs=*/false);
  if (!llvm::all_of(defs, [](Operation *op) { return isPure(op); }))
    return "no outer loop: its source is computed by an op that may not "
           "run again before the loop";
  SmallVector<scf::ForOp> levels = loopsIndexedOnlyBy(k, inputs, defs);
  if (levels.empty())
    return "no outer loop keeps it unchanged";
  // The stack is filled on every entry of its level: inside another loop
  // it would be filled again for each of that loop's iterations, a serial
  // head each time for tiles reused only within one of them.
  if (levels.back()->getParentOfType<scf::ForOp>())
    return "no outer loop: the outermost loop that keeps it unchanged "
           "(at " +
           describeLoc(levels.back().getLoc()) +
           ") is itself in a loop that changes it";
  std::string why;
  for (scf::ForOp level : llvm::reverse(levels)) {
    Candidate s;
    why = analyzeReuse(d, k, level, s);
    if (!why.empty())
      continue;
    s.level = level;
    s.stackLoop = k;
    s.stack = *trips;
    s.defs = std::move(defs);
    s.resident = nullptr;
    s.bytes = paged(
        uint64_t(*trips) *
        uint64_t(getTileShape(s.buffer.getType(), nullptr, true)->bytes()));
    c = std::move(s);
    return "";
  }
  return "not across the loop around it either: " + why;
}
