//===- TestMemoryDependence.cpp - Print the memory dependence analysis ----===//
//
// --accel-test-memory-dependence numbers the ops of each function that
// read or write memory (in program order, from 0) and emits a remark on op
// i for every op j it may depend on, as the shared analysis of
// include/accel/Analysis/MemoryDependence.h answers (in the manner of
// upstream's -test-memref-dependence-check):
//
//   dependence from I to J at depth D: KINDS[ at distances M, ...]
//
// With N scf.for loops around both ops, depth N + 1 is one iteration of
// all of them (only for I before J); depth d <= N is a dependence carried
// by the d-th common loop (outermost first): I in iteration k, J in
// iteration k + M, for M in [1, max-distance], the loops around the d-th
// in the same iteration and the loops inside it in any. KINDS lists
// "flow", "anti" and "output" for the pairs of accesses that may touch the
// same bytes. An op whose effects are unknown gets "unknown memory
// effects" and takes part in nothing else. With `waits=true` a DMA's WAIT
// stands for its DMA's read of the source and write of the destination.
// For tests only.
//
//===----------------------------------------------------------------------===//

#include "accel/Analysis/MemoryDependence.h"
#include "accel/Dialect/Accel/AccelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace accel;

namespace {
struct TestMemoryDependencePass
    : public PassWrapper<TestMemoryDependencePass,
                         OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestMemoryDependencePass)

  TestMemoryDependencePass() = default;
  TestMemoryDependencePass(const TestMemoryDependencePass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "accel-test-memory-dependence"; }
  StringRef getDescription() const final {
    return "(tests) Print the memory dependences between the ops of each "
           "function as remarks";
  }

  Option<bool> waits{*this, "waits",
                     llvm::cl::desc("A WAIT stands for its DMA's accesses"),
                     llvm::cl::init(false)};
  Option<unsigned> maxDistance{
      *this, "max-distance",
      llvm::cl::desc("Largest iteration distance to test (default 4)"),
      llvm::cl::init(4)};

  /// The scf.for loops around `op`, outermost first.
  static SmallVector<scf::ForOp> loopsAround(Operation *op) {
    SmallVector<scf::ForOp> loops;
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
      if (auto loop = dyn_cast<scf::ForOp>(p))
        loops.push_back(loop);
    std::reverse(loops.begin(), loops.end());
    return loops;
  }

  /// The kinds ("flow", "anti", "output") of the access pairs of `a` x `b`
  /// that `conflict` accepts, added to `found`.
  static void
  addKinds(ArrayRef<MemoryAccess> a, ArrayRef<MemoryAccess> b,
           llvm::function_ref<bool(const MemoryAccess &, const MemoryAccess &)>
               conflict,
           llvm::SetVector<StringRef> &found) {
    for (const MemoryAccess &x : a)
      for (const MemoryAccess &y : b)
        if (conflict(x, y))
          found.insert(Dependence{x, y, 0}.kind());
  }

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    SmallVector<SmallVector<MemoryAccess>> accesses;
    DmaWindow window = waits ? DmaWindow::IssueAndWait : DmaWindow::Issue;
    getOperation().walk([&](Operation *op) {
      if (op->getNumRegions() != 0)
        return;
      SmallVector<MemoryAccess> list;
      if (collectAccesses(op, list, window)) {
        op->emitRemark("unknown memory effects");
        return;
      }
      if (list.empty())
        return;
      ops.push_back(op);
      accesses.push_back(std::move(list));
    });
    for (unsigned i = 0; i < ops.size(); ++i)
      for (unsigned j = 0; j < ops.size(); ++j)
        report(i, j, ops, accesses);
  }

  void report(unsigned i, unsigned j, ArrayRef<Operation *> ops,
              ArrayRef<SmallVector<MemoryAccess>> accesses) {
    SmallVector<scf::ForOp> li = loopsAround(ops[i]), lj = loopsAround(ops[j]);
    unsigned common = 0;
    while (common < li.size() && common < lj.size() && li[common] == lj[common])
      ++common;
    for (unsigned d = 1; d <= common; ++d) {
      scf::ForOp loop = li[d - 1];
      SmallVector<int64_t> distances;
      llvm::SetVector<StringRef> found;
      for (int64_t m = 1; m <= int64_t(maxDistance); ++m) {
        bool any = false;
        addKinds(
            accesses[i], accesses[j],
            [&](const MemoryAccess &x, const MemoryAccess &y) {
              bool c = mayConflictAcross(x, y, loop, m);
              any |= c;
              return c;
            },
            found);
        if (any)
          distances.push_back(m);
      }
      if (distances.empty())
        continue;
      std::string list;
      for (int64_t m : distances)
        list += (list.empty() ? "" : ", ") + std::to_string(m);
      ops[i]->emitRemark() << "dependence from " << i << " to " << j
                           << " at depth " << d << ": "
                           << llvm::join(found, ", ") << " at distances "
                           << list;
    }
    if (i < j) {
      llvm::SetVector<StringRef> found;
      addKinds(accesses[i], accesses[j], mayConflict, found);
      if (!found.empty())
        ops[i]->emitRemark()
            << "dependence from " << i << " to " << j << " at depth "
            << common + 1 << ": " << llvm::join(found, ", ");
    }
  }
};
} // namespace

namespace accel::test {
void registerTestMemoryDependencePass() {
  PassRegistration<TestMemoryDependencePass>();
}
} // namespace accel::test
