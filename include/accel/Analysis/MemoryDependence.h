//===- MemoryDependence.h - Memory dependences between accel ops -*- C++
//-*-===//
//
// The memory dependence analysis every transform that reorders ops asks
// (--accel-hoist-dma, --accel-sink-dma-wait, --accel-parallelize-dma,
// --accel-pipeline-dma, --accel-pin-vmem, --accel-rename-vmem,
// --accel-schedule): which buffers a memref value may stand for (aliasing),
// which bytes two views of one buffer may share (overlap, in one iteration
// or between iterations `m` apart), the reads and writes an op and its
// nested ops make, and the dependence between two of them (its kind, its
// distance, and a sentence naming it for remarks).
//
// The model is conservative: "may" answers true unless a proof exists.
// Proofs come from distinct allocations, and from unit-stride
// memref.subviews of one source whose offsets are linear in SSA values
// (LinearIndex) and differ by at least a view's size. docs/transforms.md
// ("Memory dependences") states the rule the passes apply.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_ANALYSIS_MEMORYDEPENDENCE_H
#define ACCEL_ANALYSIS_MEMORYDEPENDENCE_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>
#include <string>

namespace mlir::scf {
class ForOp;
} // namespace mlir::scf

namespace accel {

//===----------------------------------------------------------------------===//
// Aliasing: the buffers a memref value stands for
//===----------------------------------------------------------------------===//

/// Follows `v` through scf.for iter_args and results to the init and
/// yielded values they may hold, transitively (through view ops too, with
/// `throughViews`), and calls `leaf` on every other value reached. Returns
/// false as soon as `leaf` does (a value the caller does not know).
/// `onLoop`, when given, is called on every loop whose iter_args or
/// results the chain passes through (a loop may be reported twice).
bool forEachCarriedSource(
    mlir::Value v, llvm::function_ref<bool(mlir::Value)> leaf,
    bool throughViews = false,
    llvm::function_ref<void(mlir::scf::ForOp)> onLoop = nullptr);

/// The buffers `root` (a getRoot result) may stand for, added to `out`:
/// itself for an accel.alloc or a function argument; for an scf.for
/// iter_arg or result (a rotating buffer, as --accel-pipeline-dma makes),
/// the buffers of its init value and of its yielded value, transitively.
/// Returns false when the chain reaches anything else (unknown buffers).
bool collectBuffers(mlir::Value root, llvm::SmallPtrSetImpl<mlir::Value> &out);

/// Whether roots `a` and `b` (getRoot results) may be one buffer: the same
/// value, or buffers that collectBuffers cannot tell apart (an iter_arg
/// that may hold the other buffer, or an unknown chain). Distinct
/// allocations and function arguments never alias.
bool mayAlias(mlir::Value a, mlir::Value b);

/// `loc` as "FILE:LINE:COL" when it has a file position (inside fused and
/// named locations too), else as MLIR prints it (for remarks).
std::string describeLoc(mlir::Location loc);

/// "the buffer allocated at LOC", "argument N", or "a buffer carried in a
/// loop's iter_args": a root (getRoot result) named for remarks.
std::string describeBuffer(mlir::Value root);

//===----------------------------------------------------------------------===//
// Overlap: the bytes two views of one buffer may share
//===----------------------------------------------------------------------===//

/// The constant value of the integer or index `v`, folding the ops free of
/// memory effects that compute it with their own (upstream) folders:
/// arith.addi, muli, remui, ... of constants, as a fully unrolled loop's
/// offsets are (a ring's slot (i + 2) mod 3 with i = 7). nullopt when some
/// value on the way is not a constant (an argument, a load) or the chain is
/// deeper than 32 ops. With `bound`, that value (e.g. an induction
/// variable) counts as the constant `boundValue`: the value `v` takes in
/// the iteration where `bound` is `boundValue`.
std::optional<int64_t> foldToConstant(mlir::Value v, mlir::Value bound = {},
                                      int64_t boundValue = 0);

/// An index as a linear combination of opaque SSA values plus a constant,
/// following arith.constant/addi/subi and muli by a constant, and any
/// value that folds to a constant (foldToConstant: a fully unrolled loop's
/// `(t / 2) * 32`); the other values are opaque terms.
struct LinearIndex {
  llvm::SmallDenseMap<mlir::Value, int64_t, 4> terms;
  int64_t constant = 0;

  /// The linear form of `ofr`, following at most 8 levels of arithmetic.
  static LinearIndex of(mlir::OpFoldResult ofr, unsigned depth = 0);

  /// `other - this` when it is a constant.
  std::optional<int64_t> distanceTo(const LinearIndex &other) const;
};

/// Whether index values `a` and `b` are equal wherever both are computed
/// (in one iteration of the loops around them): their linear forms are
/// equal, or both are ring slots S * ((x + c) mod K) + r whose dividends
/// are congruent mod K and whose rests are equal.
bool alwaysEqual(mlir::OpFoldResult a, mlir::OpFoldResult b);

/// Whether the views `a` and `b` of one buffer may overlap: false only when
/// both are unit-stride memref.subviews of the same source whose offsets in
/// some dimension differ by a constant at least the size of the lower one
/// (e.g. rows 8k and 8(k+1) of an 8-row tile loop).
bool mayOverlap(mlir::Value a, mlir::Value b);

/// Whether view `a` in one iteration of `loop` and view `b` in the iteration
/// `shift` iterations later (shift >= 1) may overlap. Like mayOverlap, with
/// the induction variable's term of b's offsets advanced by shift * step;
/// false only when both are unit-stride memref.subviews of one source (the
/// same memory on every iteration: defined outside the loop, or a view
/// taken again in it from operands defined outside) whose offsets in some
/// dimension are linear in the induction variable, values defined outside
/// the loop and induction variables of loops nested in it with constant
/// bounds (each ranging over its values independently in the two
/// iterations), and differ by at least the lower view's size over all
/// those values. Any other value of the loop (an iter_arg, a loaded index)
/// may change between iterations: may overlap.
bool mayOverlapAcross(mlir::Value a, mlir::Value b, mlir::scf::ForOp loop,
                      int64_t shift);

//===----------------------------------------------------------------------===//
// Accesses: the reads and writes of an op
//===----------------------------------------------------------------------===//

/// How forEachOwnAccess ended.
enum class AccessWalk { Done, Stopped, Unknown };

/// Calls fn(value, isWrite) for each read or write `op` makes itself (not
/// its nested ops), from its MemoryEffectOpInterface; allocation and free
/// effects are skipped, and ops with recursive or no effects and
/// accel.alloc make none. `accel.sem_wait` writes the destination buffer
/// (the whole of it) of every DMA of its function that signals a semaphore
/// (every chip runs the same function, so those are the DMAs, from this
/// chip or another, whose completion it may wait for), and the buffer on
/// the other chip of every remote DMA (its protocol is ordered by the
/// semaphores alone, so no remote DMA crosses a wait). Returns Stopped as soon
/// as fn returns false, and Unknown (before any call for the offending effect)
/// when the effects are unknown: no interface, or an effect on no particular
/// value.
AccessWalk forEachOwnAccess(mlir::Operation *op,
                            llvm::function_ref<bool(mlir::Value, bool)> fn);

/// One read or write of memory: `op` accesses `view`, a view of buffer
/// `root` (getRoot(view)).
struct MemoryAccess {
  mlir::Operation *op = nullptr;
  mlir::Value view, root;
  bool write = false;
  /// (--accel-pipeline-dma) The write of a DMA issued before the loop and
  /// waited in it (a weight or an input loaded once), whose source and
  /// destination nothing in the loop writes: it happens before the first
  /// iteration's WAIT, so the later iterations' WAITs change nothing and
  /// may move across reads of the bytes.
  bool once = false;
  /// `root` is an accel.alloc result or a function argument: a buffer that
  /// aliases no other root (mayAlias), known without walking. Lets the
  /// pairwise checks of a block's accesses (O(N^2) pairs in
  /// --accel-schedule) reject two distinct such roots in a compare.
  bool distinctRoot = false;

  MemoryAccess() = default;
  MemoryAccess(mlir::Operation *op, mlir::Value view, bool write);

  /// "a write of the buffer allocated at LOC by 'accel.vadd' at LOC" (for
  /// remarks).
  std::string describe() const;
};

/// Which reads and writes collectAccesses lists for a DMA.
enum class DmaWindow {
  /// The ISSUE reads its source and writes its destination (its declared
  /// effects); WAITs make no access. For a caller that orders WAITs itself.
  Issue,
  /// Also each WAIT, as its DMA's read of the source and write of the
  /// destination: the transfer happens anywhere between ISSUE and WAIT, so
  /// an op ordered after the WAIT sees it done. A WAIT whose token does not
  /// come straight from an ISSUE (an iter_arg) is unknown.
  IssueAndWait,
};

/// Appends the reads and writes of `root` and of every op nested in it to
/// `out`, in program order. accel.matmul without `accumulate` writes C and
/// does not read it (whatever its declared effects say). Returns the op
/// whose effects are unknown (its accesses could be anything: callers
/// refuse), or null when every access is known.
mlir::Operation *collectAccesses(mlir::Operation *root,
                                 llvm::SmallVectorImpl<MemoryAccess> &out,
                                 DmaWindow window = DmaWindow::Issue);

//===----------------------------------------------------------------------===//
// Dependences
//===----------------------------------------------------------------------===//

/// A memory dependence: `from` (earlier in program order, or `distance`
/// iterations earlier) and `to` may touch the same bytes, and one of them
/// writes. Reordering them changes what a read sees or what stays written.
struct Dependence {
  MemoryAccess from, to;
  /// Iterations of the loop carrying it; 0 within one iteration.
  int64_t distance = 0;

  /// "flow" (read after write), "anti" (write after read) or "output"
  /// (write after write).
  llvm::StringRef kind() const;

  /// "a flow dependence on the buffer allocated at LOC: written by 'X' at
  /// LOC, read by 'Y' at LOC[, 2 iterations later]" (for remarks).
  std::string describe() const;
};

/// Whether `a` and `b` (of one iteration) may touch the same bytes with
/// one of them writing.
bool mayConflict(const MemoryAccess &a, const MemoryAccess &b);

/// Whether `a` in one iteration of `loop` and `b` `distance` iterations
/// later (distance >= 1) may touch the same bytes with one of them writing.
bool mayConflictAcross(const MemoryAccess &a, const MemoryAccess &b,
                       mlir::scf::ForOp loop, int64_t distance);

/// The first dependence from an access of `earlier` to one of `later`
/// (same iteration), or nullopt when they are independent.
std::optional<Dependence> findDependence(llvm::ArrayRef<MemoryAccess> earlier,
                                         llvm::ArrayRef<MemoryAccess> later);

/// The first dependence from an access of `earlier` in one iteration of
/// `loop` to one of `later` `distance` iterations later, or nullopt.
std::optional<Dependence>
findDependenceAcross(llvm::ArrayRef<MemoryAccess> earlier,
                     llvm::ArrayRef<MemoryAccess> later, mlir::scf::ForOp loop,
                     int64_t distance);

} // namespace accel

#endif // ACCEL_ANALYSIS_MEMORYDEPENDENCE_H
