//===- HoistInvariantOps.cpp - Loop-invariant tile ops out of loops -------===//
//
// Passes.td, accel-hoist-invariant-ops: loop-invariant code motion for ops
// on buffers. Upstream's LICM moves only ops without memory effects; accel's
// VPU ops write their output buffer, so an op that computes the same tile on
// every iteration (a scalar broadcast by `vfill`, a causal mask made by
// `viota` and `vcmp`) ran once per tile of the loop around it. Such an op
// and the buffer it writes move in front of the loop when the buffer is the
// loop's own and only such ops write it.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/AccelOps.h"
#include "accel/Frontend/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace accel {
#define GEN_PASS_DEF_ACCELHOISTINVARIANTOPS
#include "accel/Frontend/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;

namespace {

/// How `op` touches buffer `v`: reads it, writes it, or both.
struct Access {
  bool reads = false, writes = false;
};

/// The accesses of `op` to each memref operand, or nullopt when `op` has
/// results, regions, or an effect other than a read or write of one of its
/// operands (a DMA's token, a WAIT, a scalar load, an op with unknown
/// effects): only ops whose whole effect is on their operand buffers move.
std::optional<DenseMap<Value, Access>> getOperandAccesses(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects || op->getNumResults() || op->getNumRegions())
    return std::nullopt;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  DenseMap<Value, Access> accesses;
  for (MemoryEffects::EffectInstance &e : instances) {
    Value v = e.getValue();
    if (!v || !llvm::is_contained(op->getOperands(), v))
      return std::nullopt;
    if (isa<MemoryEffects::Read>(e.getEffect()))
      accesses[v].reads = true;
    else if (isa<MemoryEffects::Write>(e.getEffect()))
      accesses[v].writes = true;
    else
      return std::nullopt;
  }
  return accesses;
}

/// The accesses of an op to its memref operands (nullopt: unknown, so it
/// may write anything), per op of a loop body.
using AccessesOf =
    DenseMap<Operation *, std::optional<DenseMap<Value, Access>>>;

/// A buffer of a loop's own: the ops of the body that touch it (an op
/// holding a nested use stands for it), in order, and those of them that
/// hold a nested use (which only reads it).
struct OwnBuffer {
  SmallVector<Operation *> users;
  DenseSet<Operation *> nestedReaders;
};

/// The loop's own buffers of `body` (see hoistInvariants), in the order of
/// their `accel.alloc`s, each with its users sorted by `position` (the
/// index of each op in `body`). A nested use must only read the buffer:
/// it is then a reader at its ancestor.
llvm::MapVector<Value, OwnBuffer>
getOwnBuffers(Block *body, const DenseMap<Operation *, unsigned> &position) {
  llvm::MapVector<Value, OwnBuffer> own;
  for (Operation &op : *body) {
    auto alloc = dyn_cast<AllocOp>(op);
    if (!alloc || alloc->use_empty())
      continue;
    OwnBuffer o;
    bool local = true;
    for (Operation *user : alloc->getUsers()) {
      Operation *at = body->findAncestorOpInBlock(*user);
      if (at != user) {
        std::optional<DenseMap<Value, Access>> a = getOperandAccesses(user);
        local &= a && !a->lookup(alloc.getResult()).writes;
        o.nestedReaders.insert(at);
      }
      o.users.push_back(at);
    }
    if (!local)
      continue;
    llvm::sort(o.users, [&](Operation *a, Operation *b) {
      return position.lookup(a) < position.lookup(b);
    });
    o.users.erase(llvm::unique(o.users), o.users.end());
    own[alloc.getResult()] = std::move(o);
  }
  return own;
}

/// Fills `accessesOf` with the accesses of every op of `loop`'s body but
/// its terminator, and returns the candidates: the ops whose whole effect
/// is on buffers of the loop's own (`own`) and whose other operands are
/// defined outside the loop.
DenseSet<Operation *>
getInvariantCandidates(scf::ForOp loop,
                       const llvm::MapVector<Value, OwnBuffer> &own,
                       AccessesOf &accessesOf) {
  DenseSet<Operation *> invariant;
  for (Operation &op : loop.getBody()->without_terminator()) {
    std::optional<DenseMap<Value, Access>> accesses = getOperandAccesses(&op);
    bool ok = accesses && !accesses->empty() &&
              llvm::all_of(op.getOperands(), [&](Value v) {
                if (isa<BaseMemRefType>(v.getType()))
                  return own.count(v) != 0;
                return !loop->isAncestor(v.getParentBlock()->getParentOp());
              });
    if (ok)
      invariant.insert(&op);
    accessesOf[&op] = std::move(accesses);
  }
  return invariant;
}

/// Whether the ops of `invariant` that touch `buffer` (one of the loop's
/// own, `o` its users) may stay invariant: the first user writes it
/// without reading it and is invariant, every writer is invariant, and no
/// other user comes before the last invariant writer. `accessesOf` (an op
/// not in it is unknown) and `position` as in hoistInvariants.
bool keepsInvariant(Value buffer, const OwnBuffer &o,
                    const DenseSet<Operation *> &invariant,
                    AccessesOf &accessesOf,
                    const DenseMap<Operation *, unsigned> &position) {
  ArrayRef<Operation *> users = o.users;
  auto isInvariant = [&](Operation *op) { return invariant.count(op); };
  auto access = [&](Operation *op) {
    const std::optional<DenseMap<Value, Access>> &a = accessesOf[op];
    Access direct = a ? a->lookup(buffer) : Access{true, true};
    if (o.nestedReaders.count(op) && a) // an op of the body and a nest
      return Access{true, direct.writes};
    return o.nestedReaders.count(op) ? Access{true, false} : direct;
  };
  auto writes = [&](Operation *op) { return access(op).writes; };
  Operation *first = users.front();
  bool firstWrites =
      isInvariant(first) && access(first).writes && !access(first).reads;
  Operation *lastWriter = nullptr;
  bool otherWriter = false;
  for (Operation *user : users) {
    if (!writes(user))
      continue;
    if (!isInvariant(user))
      otherWriter = true;
    else
      lastWriter = user;
  }
  bool interleaved = llvm::any_of(users, [&](Operation *user) {
    return !isInvariant(user) && lastWriter &&
           position.lookup(user) < position.lookup(lastWriter);
  });
  return firstWrites && !otherWriter && !interleaved;
}

/// Hoists the invariant ops of `loop`'s body in front of it; returns how
/// many moved.
///
/// A buffer is the loop's own when an `accel.alloc` in the body makes it
/// and every use is an op of the body itself (not a view), or an op nested
/// in one that only reads it.
/// An op is invariant when its whole effect is on its operand buffers,
/// each of them one of the loop's own, its other operands are defined
/// outside the loop, and, for each buffer it touches: every op that writes
/// the buffer is invariant, the first op to touch it in the body writes it
/// without reading it (an accel op writes the whole of its output tile, so
/// nothing flows from one iteration to the next), and every other op that
/// touches it comes after its last invariant writer. Each iteration then
/// computes the same tiles, and computing them once before the loop (which
/// runs at least once) gives every other op the same values.
unsigned hoistInvariants(scf::ForOp loop) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (!trips || trips->isZero())
    return 0;
  Block *body = loop.getBody();
  DenseMap<Operation *, unsigned> position;
  for (Operation &op : *body)
    position[&op] = position.size();
  llvm::MapVector<Value, OwnBuffer> own = getOwnBuffers(body, position);
  AccessesOf accessesOf;
  DenseSet<Operation *> invariant =
      getInvariantCandidates(loop, own, accessesOf);

  // Drop what breaks the conditions until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto &[buffer, o] : own) {
      if (keepsInvariant(buffer, o, invariant, accessesOf, position))
        continue;
      for (Operation *user : o.users)
        changed |= invariant.erase(user);
    }
  }
  if (invariant.empty())
    return 0;

  // The buffers first, then the ops, each in their order.
  SmallVector<Operation *> moved;
  for (auto &[buffer, o] : own)
    if (llvm::any_of(o.users, [&](Operation *u) { return invariant.count(u); }))
      moved.push_back(buffer.getDefiningOp());
  for (Operation &op : *body)
    if (invariant.count(&op))
      moved.push_back(&op);
  for (Operation *op : moved)
    op->moveBefore(loop);
  return invariant.size();
}

struct HoistInvariantOpsPass
    : accel::impl::AccelHoistInvariantOpsBase<HoistInvariantOpsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Inner loops first: what leaves one may then leave the loop around it.
    getOperation().walk<WalkOrder::PostOrder>(
        [&](scf::ForOp loop) { numHoisted += hoistInvariants(loop); });
  }
};

} // namespace
