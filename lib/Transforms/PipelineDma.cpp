//===- PipelineDma.cpp - Software-pipelined DMAs on scf::pipelineForLoop --===//
//
// Overlaps each iteration's DMAs with the work of earlier iterations (issue
// 5 item 4, issue 10 item 2; SnR §5.3.1 "prefetch more aggressively").
// accel's own code chooses the schedule (a stage per op) and proves it
// legal; upstream's scf::pipelineForLoop builds the prologue, the kernel
// loop and the peeled epilogue; the buffers whose lifetime the schedule
// stretches over several stages are then multi-buffered.
//
// Schedule. Each op of the body gets the earliest stage its dependences
// allow, where the edge from a DMA ISSUE to the op that WAITs for it weighs
// `d` stages (prefetch distance) for a DMA into VMEM and `ds` stages for a
// DMA into HBM (a store: its WAIT moves ds iterations later), and every
// other dependence (SSA, or two accesses of overlapping memory, one a write;
// a DMA accesses its source and destination from its ISSUE to its WAIT)
// weighs 0. So a load's ISSUE (with its address math) is at stage 0, its
// WAIT and the compute at stage d, a store of the result at stage d and its
// WAIT at d + ds, and a dependent chain (a table DMA, its WAIT, an
// accel.load of an offset, the row DMA at that offset, its WAIT, the
// compute) steps through stages 0, d, 2d. Pure ops go to the earliest stage
// that uses them, with a copy for every later stage that does, so that
// only tokens and loaded values cross stages (as iter_args of the kernel).
//
// Legality. Within an iteration the stages never reverse a dependence. The
// kernel runs stage s of iteration k + S - s together (S: the last stage),
// in the order of (stage, body position); an access x of iteration k and a
// conflicting access y of iteration k + m keep their order for every
// m >= 1 unless y is in an earlier stage than x. Such pairs are fine when
// the two iterations' views are provably disjoint (offsets linear in the
// induction variable), or when the buffer is private to each iteration (a
// VMEM allocation whose contents neither enter an iteration, every read
// following writes of the bytes it reads in the same iteration, nor leave
// the loop, every path after it writing the buffer before reading it):
// it then gets N copies, N the largest iteration distance m at which a
// pair would conflict, plus one. Anything else is refused with a remark.
//
// Multi-buffering follows memref::multiBuffer (N copies, iteration k uses
// copy k mod N), except that the ISA has no division or remainder: the
// prologue and the epilogue (iterations known at compile time) use the
// copies directly, and the kernel rotates the N copies through iter_args.
// The kernel is then unrolled by the rotation's period (modulo variable
// expansion), so each copy of the body names its buffers directly and the
// rotation's register moves go away.
//
//===----------------------------------------------------------------------===//

#include "DmaMotion.h"
#include "LoweringCheck.h"
#include "accel/Dialect/Accel/TileShape.h"
#include "accel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/MapVector.h"
#include <numeric>

namespace accel {
#define GEN_PASS_DEF_ACCELPIPELINEDMA
#include "accel/Transforms/Passes.h.inc"
} // namespace accel

using namespace mlir;
using namespace accel;
using namespace accel::detail;

/// Scalar registers a program may use (accel::isa::kNumRegs, less r0; the
/// header is not included here: its namespace `isa` would shadow
/// llvm::isa).
static constexpr int64_t kScalarRegs = 255;

/// The stage of an op of the loop being pipelined (removed afterwards).
static constexpr StringLiteral kStageAttr = "accel.pipeline_stage";

/// A clone is a new op: it gets its own op id later (--accel-assign-op-ids)
/// and none of the original's metrics.
static void dropAccelAttrs(Operation *root) {
  root->walk([](Operation *op) {
    SmallVector<StringAttr> names;
    for (NamedAttribute a : op->getDiscardableAttrs())
      if (a.getName().getValue().starts_with("accel.") &&
          a.getName().getValue() != "accel.pipelined")
        names.push_back(a.getName());
    for (StringAttr n : names)
      op->removeDiscardableAttr(n);
  });
}

static std::optional<int64_t> tripCount(scf::ForOp loop) {
  auto lb = getConstantIntValue(loop.getLowerBound());
  auto ub = getConstantIntValue(loop.getUpperBound());
  auto step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
}

/// Ops that only compute a value (address math): copied into every stage
/// that uses them.
static bool isPureOp(Operation *op) {
  return op->getNumRegions() == 0 && !isa<DmaWaitOp>(op) &&
         isMemoryEffectFree(op);
}

/// Cycles of work per iteration of `loop`: accel.busy_cycles summed over
/// the body (nested ops included) divided by the body's executions (the
/// largest accel.executions of a top-level op); 0 without metrics.
static int64_t workPerIteration(scf::ForOp loop) {
  int64_t busy = 0, executions = 0;
  loop.getBody()->walk(
      [&](Operation *op) { busy += getMetric(op, "accel.busy_cycles"); });
  for (Operation &op : *loop.getBody())
    executions = std::max(executions, getMetric(&op, "accel.executions"));
  return executions > 0 ? busy / executions : 0;
}

namespace {
/// One memory access: `view` of buffer `root`.
struct Access {
  Value root, view;
  bool write;
};

/// The body of a candidate loop, as the schedule sees it.
struct Body {
  scf::ForOp loop;
  SmallVector<Operation *> ops; ///< top level, without the terminator
  llvm::DenseMap<Operation *, unsigned> index;
  /// Per op: its accesses, and those of the DMAs it WAITs for (the end of
  /// their window).
  SmallVector<SmallVector<Access>> accesses;
  /// Dependences from -> to (from < to); kind 0: same stage allowed;
  /// 1: a DMA into VMEM, ISSUE -> WAIT (d stages); 2: into HBM (ds stages);
  /// 3: an MXU or VPU op's result read on another unit or by a DMA ISSUE
  /// (dc stages: the reader would otherwise wait for the unit, idle
  /// behind it, in the in-order core).
  struct Edge {
    unsigned from, to, kind;
  };
  SmallVector<Edge> edges;
  bool hasStall = false;
  int64_t loadLatency = 0, storeLatency = 0, transfer = 0;
};

/// The decision for one loop.
struct Plan {
  int64_t d = 1, ds = 1;
  /// Stages between a unit op (MXU, VPU) and a reader of its result on
  /// another unit or a DMA ISSUE: 0 or 1.
  int64_t dc = 1;
  SmallVector<unsigned> stage; ///< per op of Body::ops
  unsigned maxStage = 0;
  llvm::MapVector<Value, unsigned> copies; ///< buffer -> N (N > 1)
  uint64_t extraBytes = 0;
};

/// The top-level op of `body` that contains `op`, or null.
static Operation *holderIn(Block *body, Operation *op) {
  while (op && op->getBlock() != body)
    op = op->getParentOp();
  return op;
}

/// Appends the accesses of `root` and its nested ops to `out`; false with
/// `why` set for an op whose effects are unknown.
static bool collectAccesses(Operation *root, SmallVectorImpl<Access> &out,
                            std::string &why) {
  auto add = [&](Value v, bool write) {
    out.push_back({getRoot(v), v, write});
  };
  WalkResult r = root->walk([&](Operation *op) {
    if (isa<DmaWaitOp>(op))
      return WalkResult::advance(); // its DMA's window: see collect()
    if (auto m = dyn_cast<MatmulOp>(op)) {
      // C is only written without `accumulate` (the op declares a read
      // either way).
      add(m.getA(), false);
      add(m.getB(), false);
      if (m.getAccumulate())
        add(m.getC(), false);
      add(m.getC(), true);
      return WalkResult::advance();
    }
    if (forEachOwnAccess(op, [&](Value v, bool write) {
          add(v, write);
          return true;
        }) == AccessWalk::Unknown) {
      why = "an op with unknown memory effects in the loop";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !r.wasInterrupted();
}

struct PipelineDmaPass
    : public accel::impl::AccelPipelineDmaBase<PipelineDmaPass>,
      public ReportsChanges {
  using Base::Base;

  /// The most ops a loop unrolled by the pass (expandRotation, flatten)
  /// may have.
  static constexpr int64_t kMaxUnrolledOps = 2048;

  /// Work per iteration of every loop, read before any loop changes (the
  /// clones of an inner loop lose its metrics).
  llvm::DenseMap<Operation *, int64_t> work;
  /// The next `accel.pipelined` id.
  int64_t nextMarker = 0;
  /// Every value of the function being pipelined (operation results, then
  /// block arguments) numbered in walk order: a deterministic order for
  /// sets of buffers.
  llvm::DenseMap<Value, unsigned> valueOrder;
  /// The largest distance the current attempt may choose.
  int64_t distanceCap = INT64_MAX;
  /// Set while pipelining a copy of the module for the lowering check:
  /// statistics are not counted.
  bool trial = false;

  /// Fills `b` for `loop` (the working copy); returns the refusal reason or
  /// "".
  std::string collect(scf::ForOp loop, scf::ForOp original, Body &b) {
    b.loop = loop;
    Block *body = loop.getBody();
    for (Operation &op : body->without_terminator()) {
      b.index[&op] = b.ops.size();
      b.ops.push_back(&op);
    }
    b.accesses.resize(b.ops.size());
    std::string why;
    for (auto [i, op] : llvm::enumerate(b.ops))
      if (!collectAccesses(op, b.accesses[i], why))
        return why;
    // WAITs: on a DMA of this iteration.
    WalkResult r = loop.getBody()->walk([&](DmaWaitOp w) {
      Value t = w.getToken();
      while (auto arg = dyn_cast<BlockArgument>(t)) {
        auto inner = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
        if (!inner || inner == loop || arg.getArgNumber() == 0) {
          why = "a WAIT on a DMA carried in from an earlier iteration";
          return WalkResult::interrupt();
        }
        t = inner.getInitArgs()[arg.getArgNumber() - 1];
      }
      if (!loop->isAncestor(t.getDefiningOp())) {
        // A DMA issued before the loop: its window ends at this WAIT's
        // top-level op, which orders the accesses of the buffers after it
        // (the cross-iteration check keeps every stage of later
        // iterations behind it).
        auto dma = t.getDefiningOp<DmaStartOp>();
        if (!dma) {
          why = "a WAIT on a token that is not a DMA's";
          return WalkResult::interrupt();
        }
        unsigned h = b.index.lookup(holderIn(body, w));
        b.accesses[h].push_back({getRoot(dma.getSrc()), dma.getSrc(), false});
        b.accesses[h].push_back({getRoot(dma.getDst()), dma.getDst(), true});
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return why;
    // SSA dependences, and each top-level DMA's window: from its ISSUE to
    // every top-level op using its token.
    auto addEdge = [&](unsigned from, unsigned to, unsigned kind) {
      b.edges.push_back({from, to, kind});
    };
    for (auto [j, op] : llvm::enumerate(b.ops)) {
      op->walk([&](Operation *nested) {
        for (Value v : nested->getOperands()) {
          Operation *def = v.getDefiningOp();
          if (!def || def->getBlock() != body || def == op ||
              isa<DmaStartOp>(def))
            continue;
          addEdge(b.index.lookup(def), j, 0);
        }
      });
    }
    for (auto [i, op] : llvm::enumerate(b.ops)) {
      auto dma = dyn_cast<DmaStartOp>(op);
      if (!dma)
        continue;
      Value token = dma.getToken();
      if (token.use_empty())
        return "a DMA is never waited for";
      auto dst = getTileShape(dma.getDst().getType(), nullptr, true);
      bool store = succeeded(dst) && dst->space == MemorySpace::HBM;
      llvm::SmallSetVector<unsigned, 2> users;
      for (Operation *user : token.getUsers()) {
        Operation *h = holderIn(body, user);
        if (!h)
          return "a DMA's token is used outside the loop";
        if (isa<scf::YieldOp>(h))
          return "a DMA's token is carried to the next iteration";
        users.insert(b.index.lookup(h));
      }
      for (unsigned j : users) {
        addEdge(i, j, store ? 2 : 1);
        b.accesses[j].push_back(
            {getRoot(dma.getSrc()), dma.getSrc(), false});
        b.accesses[j].push_back({getRoot(dma.getDst()), dma.getDst(), true});
      }
      // Metrics: stall per execution (base + transfer, SnR Fig. 4).
      int64_t ex = getMetric(dma, "accel.executions");
      if (getStallCycles(dma) > 0)
        b.hasStall = true;
      if (ex > 0) {
        int64_t stall = getStallCycles(dma) / ex;
        (store ? b.storeLatency : b.loadLatency) =
            std::max(store ? b.storeLatency : b.loadLatency, stall);
        b.transfer += getMetric(dma, "accel.stall_transfer") / ex;
      }
    }
    // Memory dependences within an iteration; a unit op's result read by
    // another unit or a DMA ISSUE is kind 3.
    for (unsigned j = 0; j < b.ops.size(); ++j)
      for (unsigned i = 0; i < j; ++i)
        if (conflict(b.accesses[i], b.accesses[j])) {
          Unit ui = unitOf(b.ops[i]), uj = unitOf(b.ops[j]);
          bool crossUnit = ui != Unit::None && ui != uj &&
                           (uj != Unit::None || isa<DmaStartOp>(b.ops[j])) &&
                           readsWhatWrites(b.accesses[j], b.accesses[i]);
          addEdge(i, j, crossUnit ? 3 : 0);
        }
    (void)original;
    return "";
  }

  /// The stages edge kind `kind` spans under plan `p`.
  static int64_t weight(const Plan &p, unsigned kind) {
    return kind == 1 ? p.d : kind == 2 ? p.ds : kind == 3 ? p.dc : 0;
  }

  enum class Unit { None, Mxu, Vpu };
  /// The functional unit a top-level op of the body runs on.
  static Unit unitOf(Operation *op) {
    if (isa<MatmulOp>(op))
      return Unit::Mxu;
    if (isa<AccelDialect>(op->getDialect()) &&
        !isa<AllocOp, DmaStartOp, DmaWaitOp, LoadOp>(op))
      return Unit::Vpu;
    return Unit::None;
  }

  /// Whether some read of `readers` may see a write of `writers`.
  static bool readsWhatWrites(ArrayRef<Access> readers,
                              ArrayRef<Access> writers) {
    for (const Access &r : readers)
      for (const Access &w : writers)
        if (!r.write && w.write && mayAlias(r.root, w.root) &&
            mayOverlap(r.view, w.view))
          return true;
    return false;
  }

  /// Whether two lists of accesses (of one iteration) may conflict.
  static bool conflict(ArrayRef<Access> x, ArrayRef<Access> y) {
    for (const Access &a : x)
      for (const Access &c : y)
        if ((a.write || c.write) && mayAlias(a.root, c.root) &&
            mayOverlap(a.view, c.view))
          return true;
    return false;
  }

  /// The allocations `root` may stand for, together with every allocation
  /// a nested loop of the body rotates with them through its iter_args
  /// (the rotating buffers of an inner loop pipelined earlier): one group
  /// gets copies together. Empty when a chain reaches an unknown buffer.
  static llvm::SmallSetVector<Value, 4> bufferGroup(const Body &b,
                                                    Value root) {
    llvm::SmallPtrSet<Value, 8> buffers;
    llvm::SmallSetVector<Value, 4> group;
    if (!collectBuffers(root, buffers))
      return group;
    group.insert(buffers.begin(), buffers.end());
    for (bool grew = true; grew;) {
      grew = false;
      for (const SmallVector<Access> &list : b.accesses)
        for (const Access &a : list) {
          if (a.root.getDefiningOp<AllocOp>() || group.contains(a.root))
            continue;
          llvm::SmallPtrSet<Value, 8> other;
          if (!collectBuffers(a.root, other))
            continue; // an unknown root aliases everything: refused later
          if (llvm::none_of(other,
                            [&](Value v) { return group.contains(v); }))
            continue;
          for (Value v : other)
            grew |= group.insert(v);
        }
    }
    return group;
  }

  /// Executes ops symbolically for the privacy check: which bytes of a
  /// group of allocations (`members`) are written before they are read.
  /// A write of a whole buffer (an op writing the buffer itself: a DMA
  /// ISSUE into it, vfill, matmul without accumulate, ...) covers it; a
  /// write through a subview whose offsets evaluate to constants (unit
  /// strides; offsets from constants, the induction variables of nested
  /// loops being run, and arith add/sub/mul) covers that rectangle, and a
  /// read is covered when the rectangles written so far cover its own (the
  /// row band written tile by tile through column subviews). Nested
  /// scf.for loops with a constant trip count run trip by trip, their
  /// induction variables and iter_args bound to each iteration's values
  /// (the buffers an inner loop pipelined earlier rotates); a loop of
  /// unknown trip count runs once and its writes are forgotten. Any other
  /// region, an access through a value that may be a member but cannot be
  /// resolved to one, an op with unknown effects, or more than a step
  /// budget, counts as an uncovered read.
  struct SymbolicRun {
    enum class Touch { None, Live, Dead };
    /// [r0, r1) x [c0, c1) in the elements of a 2-D buffer (a 1-D buffer
    /// is one row).
    struct Rect {
      int64_t r0, r1, c0, c1;
    };
    /// What has been written: whole members, and rectangles of others.
    struct State {
      llvm::SmallPtrSet<Value, 8> whole;
      llvm::DenseMap<Value, SmallVector<Rect, 4>> parts;
    };
    llvm::SmallPtrSet<Value, 8> members;
    llvm::DenseMap<Value, Value> binding;
    llvm::DenseMap<Value, int64_t> ivs;
    int64_t budget = 1 << 18;

    explicit SymbolicRun(ArrayRef<Value> group)
        : members(group.begin(), group.end()) {}

    Value resolve(Value v) const {
      Value r = getRoot(v);
      Value bound = binding.lookup(r);
      return bound ? bound : r;
    }

    /// `v` as a constant under the current induction variables.
    std::optional<int64_t> evaluate(Value v, unsigned depth = 0) const {
      if (std::optional<int64_t> c = getConstantIntValue(v))
        return c;
      if (auto it = ivs.find(v); it != ivs.end())
        return it->second;
      Operation *def = v.getDefiningOp();
      if (!def || depth > 16 || !isa<arith::AddIOp, arith::SubIOp,
                                      arith::MulIOp>(def))
        return std::nullopt;
      std::optional<int64_t> x = evaluate(def->getOperand(0), depth + 1);
      std::optional<int64_t> y = evaluate(def->getOperand(1), depth + 1);
      if (!x || !y)
        return std::nullopt;
      if (isa<arith::AddIOp>(def))
        return *x + *y;
      if (isa<arith::SubIOp>(def))
        return *x - *y;
      return *x * *y;
    }

    /// The rectangle `view` covers in its root buffer, if the subviews
    /// leading to it have unit strides, static sizes and offsets that
    /// evaluate.
    std::optional<Rect> rectOf(Value view) const {
      auto type = dyn_cast<MemRefType>(view.getType());
      if (!type || !type.hasStaticShape() || type.getRank() < 1 ||
          type.getRank() > 2)
        return std::nullopt;
      int64_t rows = type.getRank() == 2 ? type.getDimSize(0) : 1;
      int64_t cols = type.getDimSize(type.getRank() - 1);
      int64_t r = 0, c = 0;
      Value v = view;
      while (true) {
        // A cast to another layout of the same shape views the same bytes.
        if (auto cast = v.getDefiningOp<memref::CastOp>()) {
          auto from = dyn_cast<MemRefType>(cast.getSource().getType());
          if (!from || from.getShape() != cast.getType().getShape())
            return std::nullopt;
          v = cast.getSource();
          continue;
        }
        auto sv = v.getDefiningOp<memref::SubViewOp>();
        if (!sv)
          break;
        if (sv.getSourceType().getRank() != type.getRank() ||
            llvm::any_of(sv.getStaticStrides(),
                         [](int64_t x) { return x != 1; }))
          return std::nullopt;
        SmallVector<OpFoldResult> offsets = sv.getMixedOffsets();
        SmallVector<int64_t> off;
        for (OpFoldResult o : offsets) {
          std::optional<int64_t> x =
              isa<Attribute>(o) ? getConstantIntValue(o)
                                : evaluate(cast<Value>(o));
          if (!x)
            return std::nullopt;
          off.push_back(*x);
        }
        if (type.getRank() == 2)
          r += off[0];
        c += off.back();
        v = sv.getSource();
      }
      if (v.getDefiningOp()) // a cast or another view: not followed
        if (!isa<AllocOp>(v.getDefiningOp()))
          return std::nullopt;
      return Rect{r, r + rows, c, c + cols};
    }

    /// The whole of buffer `root` as a rectangle.
    static std::optional<Rect> wholeOf(Value root) {
      auto type = dyn_cast<MemRefType>(root.getType());
      if (!type || !type.hasStaticShape() || type.getRank() < 1 ||
          type.getRank() > 2)
        return std::nullopt;
      return Rect{0, type.getRank() == 2 ? type.getDimSize(0) : 1, 0,
                  type.getDimSize(type.getRank() - 1)};
    }

    /// Whether the union of `parts` covers `target` (on the grid their
    /// edges cut `target` into, every cell inside some part).
    static bool covers(ArrayRef<Rect> parts, const Rect &target) {
      SmallVector<int64_t> rs = {target.r0, target.r1};
      SmallVector<int64_t> cs = {target.c0, target.c1};
      for (const Rect &p : parts) {
        for (int64_t x : {p.r0, p.r1})
          if (x > target.r0 && x < target.r1)
            rs.push_back(x);
        for (int64_t x : {p.c0, p.c1})
          if (x > target.c0 && x < target.c1)
            cs.push_back(x);
      }
      llvm::sort(rs);
      rs.erase(std::unique(rs.begin(), rs.end()), rs.end());
      llvm::sort(cs);
      cs.erase(std::unique(cs.begin(), cs.end()), cs.end());
      for (unsigned i = 0; i + 1 < rs.size(); ++i)
        for (unsigned j = 0; j + 1 < cs.size(); ++j)
          if (llvm::none_of(parts, [&](const Rect &p) {
                return p.r0 <= rs[i] && rs[i + 1] <= p.r1 &&
                       p.c0 <= cs[j] && cs[j + 1] <= p.c1;
              }))
            return false;
      return true;
    }

    /// Whether reading `view` of member `m` reads only written bytes.
    bool isCovered(const State &state, Value m, Value view) const {
      if (state.whole.contains(m))
        return true;
      auto parts = state.parts.find(m);
      if (parts == state.parts.end())
        return false;
      std::optional<Rect> rect = rectOf(view);
      return rect && covers(parts->second, *rect);
    }

    /// Records a write of `view` of member `m`.
    void write(State &state, Value m, Value view) const {
      if (state.whole.contains(m))
        return;
      if (getRoot(view) == view) {
        state.whole.insert(m);
        state.parts.erase(m);
        return;
      }
      std::optional<Rect> rect = rectOf(view);
      std::optional<Rect> whole = wholeOf(m);
      if (!rect || !whole)
        return;
      SmallVector<Rect, 4> &parts = state.parts[m];
      parts.push_back(*rect);
      if (covers(parts, *whole)) {
        state.whole.insert(m);
        state.parts.erase(m);
      }
    }

    /// Runs `op` on `state`: Live when it reads bytes of a member not
    /// written before, Dead once every member is written whole, None
    /// otherwise.
    Touch run(Operation &op, State &state) {
      if (--budget < 0)
        return Touch::Live;
      if (auto inner = dyn_cast<scf::ForOp>(op)) {
        std::optional<int64_t> trips = tripCount(inner);
        std::optional<int64_t> lb = getConstantIntValue(inner.getLowerBound());
        std::optional<int64_t> step = getConstantIntValue(inner.getStep());
        State local;
        if (!trips)
          local = state;
        State &w = trips ? state : local;
        SmallVector<Value> held;
        for (Value init : inner.getInitArgs())
          held.push_back(resolve(init));
        auto yield = inner.getBody()->getTerminator();
        for (int64_t t = 0; t < (trips ? *trips : 1); ++t) {
          for (auto [arg, v] : llvm::zip(inner.getRegionIterArgs(), held))
            binding[arg] = v;
          if (trips && lb && step)
            ivs[inner.getInductionVar()] = *lb + t * *step;
          Touch r = run(*inner.getBody(), w);
          if (r != Touch::None) {
            ivs.erase(inner.getInductionVar());
            return r;
          }
          for (auto [i, v] : llvm::enumerate(yield->getOperands()))
            held[i] = resolve(v);
        }
        ivs.erase(inner.getInductionVar());
      } else if (op.getNumRegions()) {
        if (touchesAny(&op, members))
          return Touch::Live;
      } else {
        SmallVector<Access> list;
        std::string why;
        if (!collectAccesses(&op, list, why))
          return Touch::Live;
        for (const Access &a : list) {
          Value r = resolve(a.root);
          if (members.contains(r)) {
            if (!a.write && !isCovered(state, r, a.view))
              return Touch::Live;
          } else if (!r.getDefiningOp<AllocOp>() &&
                     llvm::any_of(members,
                                  [&](Value m) { return mayAlias(r, m); })) {
            return Touch::Live; // an unknown buffer that may be a member
          }
        }
        for (const Access &a : list)
          if (a.write && members.contains(resolve(a.root)))
            write(state, resolve(a.root), a.view);
      }
      return state.whole.size() == members.size() ? Touch::Dead
                                                  : Touch::None;
    }

    /// Runs the ops of `block` from `it` to its terminator.
    Touch run(Block &block, State &state, Block::iterator it) {
      for (; it != block.end(); ++it) {
        if (it->hasTrait<OpTrait::IsTerminator>())
          break;
        Touch t = run(*it, state);
        if (t != Touch::None)
          return t;
      }
      return Touch::None;
    }
    Touch run(Block &block, State &state) {
      return run(block, state, block.begin());
    }
  };

  /// Whether the buffers of `group` may get a copy per iteration of the
  /// loop: VMEM allocations made outside the loop whose contents neither
  /// enter nor leave an iteration. Entering: every read of a member in an
  /// iteration reads bytes written earlier in the same iteration, by a
  /// whole-buffer write or by subview writes whose rectangles cover the
  /// read (SymbolicRun over the body). Leaving: the loop's last
  /// contents are dead after `outside` (the loop being replaced; see
  /// deadAfter), so the program may use the buffers before and after the
  /// loop for other tensors.
  static bool isPrivate(const Body &b, ArrayRef<Value> group,
                        scf::ForOp outside) {
    for (Value root : group)
      if (!root.getDefiningOp<AllocOp>() ||
          b.loop->isAncestor(root.getDefiningOp()))
        return false;
    if (!deadAfter(outside, group))
      return false;
    SymbolicRun exec(group);
    SymbolicRun::State written;
    scf::ForOp loop = b.loop;
    return exec.run(*loop.getBody(), written) !=
           SymbolicRun::Touch::Live;
  }

  /// Whether the contents of the buffers of `group` (allocations) when
  /// `loop` exits are never read: on every path from the loop's end, each
  /// buffer is written (whole, or by subviews covering it) before any read
  /// of it (SymbolicRun), or the
  /// function returns. The paths follow the enclosing scf.for loops both
  /// to their next iteration (the body from its start: a later wrap reads
  /// nothing the first did not, with more written) and past their end.
  /// Linear in the nesting depth.
  static bool deadAfter(scf::ForOp loop, ArrayRef<Value> group) {
    using Touch = SymbolicRun::Touch;
    SymbolicRun exec(group);
    Block *block = loop->getBlock();
    Block::iterator it = std::next(Block::iterator(loop));
    SymbolicRun::State written;
    while (true) {
      Touch t = exec.run(*block, written, it);
      if (t != Touch::None)
        return t == Touch::Dead;
      auto enclosing = dyn_cast_or_null<scf::ForOp>(block->getParentOp());
      if (!enclosing)
        return isa_and_nonnull<FunctionOpInterface>(block->getParentOp());
      SymbolicRun::State next = written;
      t = exec.run(*block, next);
      if (t == Touch::Live)
        return false;
      block = enclosing->getBlock();
      it = std::next(Block::iterator(enclosing));
    }
  }

  /// "the buffer allocated at LOC", "argument N", or "an iter_arg" (for
  /// remarks).
  static std::string describeBuffer(Value v) {
    std::string s;
    llvm::raw_string_ostream os(s);
    if (Operation *def = v.getDefiningOp())
      os << "the buffer allocated at " << def->getLoc();
    else if (auto arg = dyn_cast<BlockArgument>(v);
             arg && isa_and_nonnull<FunctionOpInterface>(
                        arg.getOwner()->getParentOp()))
      os << "argument " << arg.getArgNumber();
    else
      os << "a buffer carried in a loop's iter_args";
    return s;
  }

  /// Whether `root` or an op nested in it accesses a buffer that may be one
  /// of `members`.
  static bool touchesAny(Operation *root,
                         const llvm::SmallPtrSetImpl<Value> &members) {
    SmallVector<Access> list;
    std::string why;
    if (!collectAccesses(root, list, why))
      return true;
    return llvm::any_of(list, [&](const Access &a) {
      return llvm::any_of(members,
                          [&](Value m) { return mayAlias(a.root, m); });
    });
  }

  /// The schedule for distances d and ds; returns the refusal reason or "".
  std::string schedule(Body &b, scf::ForOp outside, int64_t trips,
                       uint64_t vmemBytes, int64_t baseRegs, bool asyncCopies,
                       Plan &p) {
    unsigned n = b.ops.size();
    p.stage.assign(n, 0);
    p.copies.clear();
    p.extraBytes = 0;
    llvm::DenseMap<Value, bool> privacy;
    SmallVector<SmallVector<std::pair<unsigned, unsigned>>> preds(n);
    for (const Body::Edge &e : b.edges)
      preds[e.to].push_back({e.from, e.kind});
    for (unsigned j = 0; j < n; ++j)
      for (auto [i, kind] : preds[j])
        p.stage[j] = std::max<unsigned>(
            p.stage[j],
            p.stage[i] + weight(p, kind));
    // Every op but an ISSUE then moves as late as its successors allow
    // (compute next to the WAIT it needs, not a stage early with a buffer
    // more; pure ops at the first stage using them, copied for later ones).
    SmallVector<SmallVector<std::pair<unsigned, unsigned>>> succs(n);
    for (const Body::Edge &e : b.edges)
      succs[e.from].push_back({e.to, e.kind});
    for (unsigned x = n; x-- > 0;) {
      if (isa<DmaStartOp>(b.ops[x]) || succs[x].empty())
        continue;
      unsigned latest = UINT_MAX;
      for (auto [y, kind] : succs[x])
        latest = std::min<unsigned>(
            latest, p.stage[y] - weight(p, kind));
      p.stage[x] = latest;
    }
    p.maxStage = 0;
    for (unsigned s : p.stage)
      p.maxStage = std::max(p.maxStage, s);
    if (p.maxStage == 0)
      return "no DMA of the body is waited for in a later stage";
    if (int64_t(p.maxStage) >= trips)
      return "the trip count (" + std::to_string(trips) +
             ") is not larger than the last stage (" +
             std::to_string(p.maxStage) + ")";
    // iter_args: computed and used in one stage (upstream's loop-carried
    // values of distance 1).
    Block *body = b.loop.getBody();
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    for (auto [arg, next] :
         llvm::zip(b.loop.getRegionIterArgs(), yield.getOperands())) {
      Operation *def = next.getDefiningOp();
      if (!def || def->getBlock() != body)
        return "an iter_arg is not computed in the loop body";
      unsigned sd = p.stage[b.index.lookup(def)];
      for (Operation *user : arg.getUsers()) {
        Operation *h = holderIn(body, user);
        if (h && !isa<scf::YieldOp>(h) && p.stage[b.index.lookup(h)] != sd)
          return "an iter_arg is used in another stage than it is computed "
                 "in";
      }
    }
    // Kernel order: (stage, body position).
    SmallVector<unsigned> pos(n);
    {
      SmallVector<unsigned> order(n);
      for (unsigned i = 0; i < n; ++i)
        order[i] = i;
      llvm::stable_sort(order, [&](unsigned x, unsigned y) {
        return p.stage[x] < p.stage[y];
      });
      for (unsigned i = 0; i < n; ++i)
        pos[order[i]] = i;
    }
    // Accesses of iteration k (op x) and k + m (op y) that the kernel would
    // reorder: m in [1, mmax]. With `asyncCopies`, an MXU or VPU op x in a
    // later stage than y also counts as running on past the op after it
    // (the unit works after the core issued it: y of the next kernel
    // iteration would wait for it, a data hazard), which a private buffer
    // avoids with one more copy.
    for (unsigned x = 0; x < n; ++x)
      for (unsigned y = 0; y < n; ++y) {
        int64_t mmax = int64_t(p.stage[x]) - int64_t(p.stage[y]) -
                       (pos[x] < pos[y] ? 1 : 0);
        int64_t mAsync = asyncCopies && mmax >= 1 &&
                                 unitOf(b.ops[x]) != Unit::None
                             ? mmax + 1
                             : mmax;
        if (mAsync < 1)
          continue;
        for (const Access &a : b.accesses[x])
          for (const Access &c : b.accesses[y]) {
            if (!(a.write || c.write) || !mayAlias(a.root, c.root))
              continue;
            int64_t need = 0;
            for (int64_t m = 1; m <= mAsync; ++m)
              if (mayOverlapAcross(a.view, c.view, b.loop, m))
                need = m;
            if (need == 0)
              continue;
            llvm::SmallSetVector<Value, 4> set = bufferGroup(b, a.root);
            for (Value v : bufferGroup(b, c.root))
              set.insert(v);
            // In program order (the sets above are ordered by pointer
            // values), so the copies, and the kernel's iter_args, come out
            // the same on every run.
            SmallVector<Value> group(set.begin(), set.end());
            llvm::sort(group, [&](Value x, Value y) {
              return valueOrder.lookup(x) < valueOrder.lookup(y);
            });
            bool isPriv = false;
            if (!group.empty()) { // empty: a chain to an unknown buffer
              auto known = privacy.find(group[0]);
              isPriv = known != privacy.end()
                           ? known->second
                           : isPrivate(b, group, outside);
            }
            for (Value v : group)
              privacy[v] = isPriv;
            if (!isPriv) {
              if (need > mmax)
                continue; // only the optional copy
              return "a buffer that is not private to an iteration is "
                     "accessed in two stages (" +
                     describeBuffer(group.empty() ? a.root : group[0]) + ")";
            }
            for (Value v : group) {
              unsigned &copies = p.copies[v];
              copies = std::max<unsigned>(std::max(copies, 1u),
                                          std::max(mmax, need) + 1);
            }
          }
      }
    p.extraBytes = extraBytesOf(p);
    // Scalar registers: the kernel carries a value in one register per
    // stage it crosses, and each buffer copy takes two (its address, set
    // at function entry, and its rotating iter_arg), on top of what is
    // live around the loop (`baseRegs`).
    int64_t regs = baseRegs;
    for (unsigned x = 0; x < n; ++x) {
      if (isPureOp(b.ops[x]))
        continue; // copied into each stage that uses it
      for (Value v : b.ops[x]->getResults()) {
        unsigned last = p.stage[x];
        for (Operation *user : v.getUsers())
          if (Operation *h = holderIn(body, user); h && !isa<scf::YieldOp>(h))
            last = std::max(last, p.stage[b.index.lookup(h)]);
        regs += last - p.stage[x];
      }
    }
    for (auto [root, copies] : p.copies)
      regs += 2 * copies;
    // A first filter (the lowering check in pipelineChecked decides): the
    // estimate alone must fit the registers.
    if (regs > kScalarRegs)
      return "the schedule would need about " + std::to_string(regs) +
             " scalar registers (the ISA has " + std::to_string(kScalarRegs) +
             ")";
    if (vmemBytes + p.extraBytes > vmemCapacity)
      return "the extra buffers (" + std::to_string(p.extraBytes) +
             " bytes) would exceed the VMEM capacity of " +
             std::to_string(uint64_t(vmemCapacity)) + " bytes";
    return "";
  }

  /// The VMEM the copies of plan `p` add, in pages of `vmemPage` bytes.
  uint64_t extraBytesOf(const Plan &p) const {
    uint64_t bytes = 0;
    for (auto [root, copies] : p.copies)
      bytes +=
          uint64_t(copies - 1) *
          llvm::alignTo(
              uint64_t(getTileShape(root.getType(), nullptr, true)->bytes()),
              std::max<uint64_t>(vmemPage, 1));
    return bytes;
  }

  /// Gives every buffer group of `p` the largest copy count when VMEM has
  /// room and the kernel (`trips` - the last stage) runs long enough for
  /// expandRotation to unroll it: the rotation then has one period, the
  /// unroll factor (copy counts 6 and 7 would need 42).
  void equalizeCopies(Plan &p, uint64_t vmemBytes, int64_t trips) const {
    unsigned most = 1;
    for (auto [root, n] : p.copies)
      most = std::max(most, n);
    if (trips - int64_t(p.maxStage) < 2 * int64_t(most))
      return; // too few kernel trips to unroll (expandRotation)
    Plan wide = p;
    for (auto &[root, n] : wide.copies)
      n = most;
    wide.extraBytes = extraBytesOf(wide);
    if (vmemBytes + wide.extraBytes <= vmemCapacity)
      p = std::move(wide);
  }

  /// Prefetch distances from the metrics (SnR §5.3.1): a tile's
  /// un-overlapped latency L (the largest stall per execution, T_b plus
  /// transfer) against the time an iteration takes once the DMAs overlap,
  /// P = max(work per iteration, transfer per iteration on the link):
  /// d = ceil(L / P) iterations in flight hide L; likewise ds for stores.
  /// Without metrics: `distance` (or 1) and 1.
  void chooseDistances(const Body &b, scf::ForOp original, Plan &p) {
    int64_t w = work.lookup(original.getOperation());
    int64_t period = std::max<int64_t>({w, b.transfer, 1});
    auto ceilDiv = [](int64_t x, int64_t y) { return (x + y - 1) / y; };
    int64_t cap = std::max<int64_t>(1, std::min<int64_t>(maxDistance,
                                                         distanceCap));
    p.d = distance > 0 ? std::min<int64_t>(distance, cap)
          : w > 0 && b.loadLatency > 0
              ? std::clamp<int64_t>(ceilDiv(b.loadLatency, period), 1, cap)
              : 1;
    p.ds = w > 0 && b.storeLatency > 0
               ? std::clamp<int64_t>(ceilDiv(b.storeLatency, period), 1, cap)
               : 1;
  }

  /// Rewrites the induction iter_args of `loop` (off' = off + c: the
  /// yielded value is linear in the iter_arg with coefficient 1 through
  /// arith.addi/subi/muli by constants, c a multiple of the step, so an
  /// offset counting down works too) as off = init + (c / step) (iv - lb)
  /// wherever they are read, the increment included: the loop-carried
  /// dependence then no longer ties the address math to one stage, and
  /// each stage computes its own offsets. The iter_arg itself stays,
  /// unread.
  static void rewriteInductions(scf::ForOp loop) {
    int64_t lb = *getConstantIntValue(loop.getLowerBound());
    int64_t step = *getConstantIntValue(loop.getStep());
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [arg, init, next] :
         llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs(),
                   yield.getOperands())) {
      if (!arg.getType().isIndex() || arg.use_empty())
        continue;
      LinearIndex li = LinearIndex::of(next);
      auto it = li.terms.find(arg);
      if (it == li.terms.end() || it->second != 1 ||
          llvm::any_of(li.terms, [&](auto &term) {
            return term.first != arg && term.second != 0;
          }))
        continue;
      std::optional<int64_t> c = li.constant;
      // Only the increment reads it, and only the yield the increment:
      // nothing to gain.
      if (*c % step != 0 ||
          (arg.hasOneUse() && next.getDefiningOp() &&
           *arg.getUsers().begin() == next.getDefiningOp() && next.hasOneUse()))
        continue;
      OpBuilder b = OpBuilder::atBlockBegin(loop.getBody());
      Location loc = loop.getLoc();
      Value t = loop.getInductionVar();
      if (lb != 0)
        t = arith::SubIOp::create(b, loc, t,
                                  arith::ConstantIndexOp::create(b, loc, lb));
      if (*c / step != 1)
        t = arith::MulIOp::create(
            b, loc, t, arith::ConstantIndexOp::create(b, loc, *c / step));
      Value off = arith::AddIOp::create(b, loc, init, t);
      arg.replaceAllUsesWith(off);
    }
  }

  void runOnOperation() override {
    resetCounts({"num-pipelined", "num-stages", "num-buffers"});
    if (distance < 0 || maxDistance < 1 || computeDistance < 0 ||
        computeDistance > 1) {
      getOperation().emitError()
          << "accel-pipeline-dma: distance must be >= 0 (0: from the "
             "metrics), max-distance >= 1 and compute-distance 0 or 1; got "
             "distance="
          << int64_t(distance) << " max-distance=" << int64_t(maxDistance)
          << " compute-distance=" << int64_t(computeDistance);
      return signalPassFailure();
    }
    if (warnIfNoMetrics(getOperation(), getArgument(), pipelineAll))
      return;
    nextMarker = 0;
    getOperation().walk([&](DmaStartOp d) {
      if (auto id = d->getAttrOfType<IntegerAttr>("accel.pipelined"))
        nextMarker = std::max(nextMarker, id.getInt() + 1);
    });
    // A loop of one iteration (a peeled K loop's remainder) is inlined
    // first (upstream's promoteIfSingleIteration): its DMAs then become
    // ops of the enclosing body, which can be scheduled.
    SmallVector<scf::ForOp> single;
    getOperation().walk([&](scf::ForOp loop) {
      if (tripCount(loop) == 1)
        single.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : single)
      (void)cast<LoopLikeOpInterface>(loop.getOperation())
          .promoteIfSingleIteration(rewriter);
    // Innermost first, and of sibling loops the last first: an
    // allocation's address register is live from function entry to its
    // last use, so the copies a later loop adds weigh on the registers of
    // every loop before it, and are counted when that loop is planned.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk<WalkOrder::PostOrder, ReverseIterator>(
        [&](scf::ForOp loop) {
          loops.push_back(loop);
          work[loop] = workPerIteration(loop);
        });
    bool lowersNow =
        checkLowers(getOperation(), vmemCapacity, vmemPage, kScalarRegs)
            .empty();
    for (scf::ForOp loop : loops) {
      std::string why = pipelineChecked(loop, lowersNow);
      if (why.empty())
        continue;
      if (StringRef(why).starts_with("the trip count") && flatten(loop))
        continue; // its enclosing loop schedules the iterations' DMAs
      if (emitRemarks)
        loop.emitRemark() << "not pipelined: " << why;
    }
  }

  /// Drops the `work` entries of `root` and the loops in it, before they
  /// are erased (a later loop may be allocated at the same address).
  void forgetLoops(Operation *root) {
    root->walk([&](scf::ForOp l) { work.erase(l.getOperation()); });
  }

  /// Fully unrolls `loop`, a loop with DMAs refused for its trip count
  /// (at most kFlattenTrips iterations, fewer than its stages), into the
  /// body of an enclosing scf.for, which is pipelined after it and can
  /// then overlap those DMAs across its own iterations (a 2-trip loop over
  /// the column tiles of a row band inside a loop over the bands). The
  /// loop's allocations are hoisted first (each has one static address, so
  /// the unrolled iterations keep sharing it). The first iteration keeps
  /// the op ids; the others keep the metrics (per execution they are the
  /// same) and get new ids when ids are assigned again. False (nothing
  /// changed) when there is no enclosing loop or the unrolled body would
  /// exceed kMaxUnrolledOps ops.
  bool flatten(scf::ForOp loop) {
    static constexpr int64_t kFlattenTrips = 4;
    std::optional<int64_t> trips = tripCount(loop);
    if (!trips || *trips < 2 || *trips > kFlattenTrips ||
        !loop->getParentOfType<scf::ForOp>())
      return false;
    int64_t ops = 0;
    bool dma = false;
    loop.getBody()->walk([&](Operation *op) {
      ++ops;
      dma |= isa<DmaStartOp>(op);
    });
    if (!dma || ops * *trips > kMaxUnrolledOps)
      return false;
    forgetLoops(loop);
    SmallVector<AllocOp> allocs;
    loop.getBody()->walk([&](AllocOp a) { allocs.push_back(a); });
    for (AllocOp a : allocs)
      a->moveBefore(loop);
    FailureOr<UnrolledLoopInfo> unrolled = loopUnrollByFactor(
        loop, *trips, [](unsigned i, Operation *op, OpBuilder) {
          if (i > 0)
            op->walk([](Operation *o) {
              o->removeAttr(AccelDialect::getOpIdAttrName());
              o->removeAttr("accel.pipelined");
            });
        });
    if (failed(unrolled))
      return false; // before any change to the loop (constant index bounds)
    // loopUnrollByFactor promotes the single iteration left (the loop is
    // then gone: no mainLoopOp); promote it here when it did not.
    if (unrolled->mainLoopOp) {
      IRRewriter rewriter(unrolled->mainLoopOp->getContext());
      (void)cast<LoopLikeOpInterface>(unrolled->mainLoopOp->getOperation())
          .promoteIfSingleIteration(rewriter);
    }
    return true;
  }

  /// Pipelines `loop`, or returns why not (leaving it unchanged).
  std::string pipeline(scf::ForOp loop) {
    std::optional<int64_t> trips = tripCount(loop);
    if (!trips)
      return "the loop bounds are not constant";
    if (*trips < 2)
      return "the trip count is less than 2";
    auto func = loop->getParentOfType<FunctionOpInterface>();
    uint64_t vmemBytes = allocatedVmemBytes(func, vmemPage);
    // Registers live around the loop: every allocation's address, each
    // enclosing loop's (and this loop's) bounds, step, induction variable
    // and iter_args, and a margin for the body's temporaries.
    int64_t baseRegs = 16;
    func->walk([&](AllocOp) { ++baseRegs; });
    for (Operation *l = loop; l; l = l->getParentOfType<scf::ForOp>())
      baseRegs += 4 + cast<scf::ForOp>(l).getNumRegionIterArgs();
    // Work on a copy: normalized (allocations of the body hoisted, they
    // get a static address anyway; induction iter_args rewritten), then
    // either pipelined in place of `loop` or erased.
    OpBuilder builder(loop);
    auto copy = cast<scf::ForOp>(builder.clone(*loop));
    SmallVector<Operation *> hoisted;
    copy.getBody()->walk([&](AllocOp op) { hoisted.push_back(op); });
    for (Operation *op : hoisted)
      op->moveBefore(copy);
    rewriteInductions(copy);
    valueOrder.clear();
    for (BlockArgument arg : func.getArguments())
      valueOrder[arg] = valueOrder.size();
    func->walk([&](Operation *op) {
      for (Value v : op->getResults())
        valueOrder[v] = valueOrder.size();
    });
    auto discard = [&](std::string why) {
      copy.erase();
      for (Operation *op : hoisted)
        op->erase();
      return why;
    };
    Body b;
    std::string why = collect(copy, loop, b);
    if (!why.empty())
      return discard(why);
    if (!pipelineAll && !b.hasStall)
      return discard("its DMAs' metrics show no stall");
    Plan p;
    chooseDistances(b, loop, p);
    p.dc = computeDistance;
    // Lower the distances until the schedule is legal and fits (trip
    // count, VMEM).
    while (true) {
      // First with the copies that keep async units from stalling the
      // core, then without them, before shorter distances.
      if (asyncCopies) {
        why = schedule(b, loop, *trips, vmemBytes, baseRegs, true, p);
        if (why.empty())
          break;
      }
      why = schedule(b, loop, *trips, vmemBytes, baseRegs, false, p);
      if (why.empty())
        break;
      if (p.dc > 0)
        --p.dc;
      else if (p.d > 1 && p.d >= p.ds)
        --p.d;
      else if (p.ds > 0) // at 0, a store is waited for where it is issued
        --p.ds;
      else
        break;
    }
    if (!why.empty())
      return discard(why);
    if (unrollRotation)
      equalizeCopies(p, vmemBytes, *trips);
    if (failed(transform(loop, copy, b, p, *trips)))
      return discard("scf::pipelineForLoop refused the schedule");
    if (!trial) {
      bump(numPipelined, 0);
      bump(numStages, 1, p.maxStage + 1);
      for (auto [root, n] : p.copies)
        bump(numBuffers, 2, n - 1);
    }
    return "";
  }

  /// Pipelines `loop` after a trial on a copy of its function (alone in a
  /// module of its own: the functions beside it may be changing on other
  /// threads) that must still lower (lib/Conversion/AccelToISA) within 7/8
  /// of the scalar registers, and within all of them after cse: the
  /// lowering does not spill, and how many registers a schedule needs
  /// depends on every value's lifetime in the prologue, kernel and
  /// epilogue, which the plan's estimate only approximates. A trial that
  /// does not lower is retried with half the largest distance, down to 1;
  /// then the loop is refused with the lowering's message. `lowersNow`:
  /// whether the function lowers before any change (if not, the trial
  /// proves nothing and is skipped).
  std::string pipelineChecked(scf::ForOp loop, bool lowersNow) {
    distanceCap = INT64_MAX;
    if (!lowersNow)
      return pipeline(loop);
    func::FuncOp func = getOperation();
    SmallVector<Operation *> originals;
    func.walk([&](scf::ForOp l) { originals.push_back(l); });
    unsigned index = llvm::find(originals, loop.getOperation()) -
                     originals.begin();
    for (int64_t cap = std::max<int64_t>(1, maxDistance);; cap /= 2) {
      distanceCap = cap;
      OwningOpRef<ModuleOp> copy = cloneIntoModule(func);
      SmallVector<scf::ForOp> copies;
      copy->walk([&](scf::ForOp l) { copies.push_back(l); });
      for (auto [o, c] : llvm::zip(originals, copies))
        if (work.count(o))
          work[c.getOperation()] = work.lookup(o);
      int64_t marker = nextMarker;
      trial = true;
      std::string why = pipeline(copies[index]);
      trial = false;
      nextMarker = marker;
      std::string error;
      if (why.empty())
        error = checkLowers(*copy, func.getSymName(), vmemCapacity, vmemPage,
                            kScalarRegs * 7 / 8);
      if (why.empty() && error.empty()) {
        // And within all of them after cse, which the FDO pipeline runs
        // next: merging equal constants and address math across the
        // prologue, the unrolled kernel and the epilogue lengthens live
        // ranges (seed 4017 of the corpus lowered before cse and needed
        // more than 255 registers after it).
        IRRewriter cseRewriter(copy->getContext());
        DominanceInfo dominance(*copy);
        eliminateCommonSubExpressions(cseRewriter, dominance, *copy);
        error = checkLowers(*copy, func.getSymName(), vmemCapacity, vmemPage,
                            kScalarRegs);
      }
      for (scf::ForOp c : copies)
        work.erase(c.getOperation());
      copy = nullptr;
      if (!why.empty())
        return why; // refused on its own: the real loop would be too
      if (error.empty())
        return pipeline(loop);
      if (cap <= 1)
        return "the pipelined program would not lower: " + error;
    }
  }

  /// An op made by the pipeliner: the part, the iteration (prologue,
  /// epilogue) and the stage of the op it copies. `live` turns false when
  /// the op is erased (its address may then be reused by another op).
  struct Made {
    Operation *op;
    scf::PipeliningOption::PipelinerPart part;
    unsigned iteration;
    bool live = true;
  };

  /// Records the ops the rewriter creates and erases, and the pipeliner's
  /// annotation of each (`made`). An erased op leaves both at once: a
  /// later op allocated at its address must not inherit its record (a
  /// stale record matched such an op and read a stage attribute it did
  /// not have: a crash that depended on the allocator's reuse).
  struct Recorder : public RewriterBase::Listener {
    llvm::SetVector<Operation *> created;
    std::vector<Made> made;
    llvm::DenseMap<Operation *, SmallVector<unsigned, 1>> madeAt;

    void annotate(Operation *op, scf::PipeliningOption::PipelinerPart part,
                  unsigned iteration) {
      madeAt[op].push_back(made.size());
      made.push_back({op, part, iteration});
    }
    void forget(Operation *op) {
      created.remove(op);
      auto it = madeAt.find(op);
      if (it == madeAt.end())
        return;
      for (unsigned i : it->second)
        made[i].live = false;
      madeAt.erase(it);
    }
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      created.insert(op);
    }
    void notifyOperationErased(Operation *op) override { forget(op); }
  };

  LogicalResult transform(scf::ForOp loop, scf::ForOp copy, const Body &b,
                          const Plan &p, int64_t trips) {
    Block *body = copy.getBody();
    MLIRContext *ctx = copy.getContext();
    // Stages as attributes (copied with the ops), and a copy of each pure
    // op for every later stage that uses it.
    for (auto [i, op] : llvm::enumerate(b.ops))
      op->setAttr(kStageAttr,
                  IntegerAttr::get(IntegerType::get(ctx, 32), p.stage[i]));
    auto stageOf = [](Operation *op) {
      return unsigned(op->getAttrOfType<IntegerAttr>(kStageAttr).getInt());
    };
    for (Operation *op : llvm::reverse(b.ops)) {
      if (!isPureOp(op))
        continue;
      std::map<unsigned, Operation *> perStage;
      for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
        Operation *h = holderIn(body, use.getOwner());
        if (!h || isa<scf::YieldOp>(h))
          continue;
        unsigned s = stageOf(h);
        if (s == stageOf(op))
          continue;
        Operation *&c = perStage[s];
        if (!c) {
          OpBuilder at(op);
          c = at.clone(*op);
          c->setAttr(kStageAttr,
                     IntegerAttr::get(IntegerType::get(ctx, 32), s));
        }
        use.set(c->getResult(cast<OpResult>(use.get()).getResultNumber()));
      }
    }
    SmallVector<Operation *> order;
    for (Operation &op : body->without_terminator())
      order.push_back(&op);
    llvm::stable_sort(order, [&](Operation *x, Operation *y) {
      return stageOf(x) < stageOf(y);
    });

    Recorder recorder;
    std::vector<Made> &made = recorder.made;
    scf::PipeliningOption options;
    options.getScheduleFn =
        [&](scf::ForOp, std::vector<std::pair<Operation *, unsigned>> &s) {
          for (Operation *op : order)
            s.push_back({op, stageOf(op)});
        };
    options.peelEpilogue = true;
    options.annotateFn = [&](Operation *op,
                             scf::PipeliningOption::PipelinerPart part,
                             unsigned iteration) {
      recorder.annotate(op, part, iteration);
    };
    IRRewriter rewriter(ctx, &recorder);
    rewriter.setInsertionPoint(copy);
    // The copy takes over the loop's results.
    loop->replaceAllUsesWith(copy->getResults());
    bool modified = false;
    FailureOr<scf::ForOp> kernel =
        scf::pipelineForLoop(rewriter, copy, options, &modified);
    if (failed(kernel)) {
      copy->replaceAllUsesWith(loop->getResults());
      if (modified) // not with constant bounds and a peeled epilogue
        llvm::report_fatal_error("scf::pipelineForLoop failed after "
                                 "modifying the IR");
      body->walk([](Operation *op) { op->removeAttr(kStageAttr); });
      return failure();
    }
    foldConstants(recorder.created,
                  [&](Operation *op) { recorder.forget(op); });

    // Multi-buffering: copies of each private buffer, placed after it.
    llvm::MapVector<Value, SmallVector<Value>> slots;
    for (auto [root, n] : p.copies) {
      SmallVector<Value> list = {root};
      OpBuilder ab(root.getDefiningOp());
      ab.setInsertionPointAfter(root.getDefiningOp());
      for (unsigned i = 1; i < n; ++i) {
        Operation *c = ab.clone(*root.getDefiningOp());
        c->removeAttr(AccelDialect::getOpIdAttrName());
        list.push_back(c->getResult(0));
      }
      slots[root] = list;
    }
    // The kernel rotates the copies: iter_arg r of kernel iteration j holds
    // copy (j + r) mod N, and stage s there runs iteration j + S - s.
    scf::ForOp k = *kernel;
    llvm::DenseMap<Value, unsigned> firstArg;
    if (!slots.empty()) {
      SmallVector<Value> inits;
      for (auto &[root, list] : slots) {
        firstArg[root] = inits.size();
        inits.append(list.begin(), list.end());
      }
      unsigned base = k.getNumRegionIterArgs();
      auto newLoop = cast<LoopLikeOpInterface>(k.getOperation())
                         .replaceWithAdditionalYields(
                             rewriter, inits,
                             /*replaceInitOperandUsesInLoop=*/false,
                             [&](OpBuilder &, Location,
                                 ArrayRef<BlockArgument> args) {
                               SmallVector<Value> next;
                               for (auto &[root, list] : slots) {
                                 unsigned f = firstArg[root], n = list.size();
                                 for (unsigned r = 0; r < n; ++r)
                                   next.push_back(args[f + (r + 1) % n]);
                               }
                               return next;
                             });
      if (failed(newLoop))
        llvm::report_fatal_error("cannot add iter_args to the kernel loop");
      k = cast<scf::ForOp>(newLoop->getOperation());
      for (auto &[root, f] : firstArg)
        f += base;
    }
    for (Made &m : made) {
      if (!m.live || !recorder.created.contains(m.op)) // folded away
        continue;
      unsigned s = stageOf(m.op);
      m.op->walk([&](Operation *nested) {
        for (OpOperand &operand : nested->getOpOperands()) {
          auto it = slots.find(operand.get());
          if (it == slots.end())
            continue;
          unsigned n = it->second.size();
          using Part = scf::PipeliningOption::PipelinerPart;
          if (m.part == Part::Kernel) {
            operand.set(k.getRegionIterArgs()[firstArg[operand.get()] +
                                              (p.maxStage - s) % n]);
            continue;
          }
          int64_t iteration = m.part == Part::Prologue
                                  ? int64_t(m.iteration) - s
                                  : trips - int64_t(s) + m.iteration;
          if (iteration < 0)
            llvm::report_fatal_error(
                "accel-pipeline-dma: negative iteration for a buffer copy");
          operand.set(it->second[iteration % n]);
        }
      });
    }
    // Markers (accel-replay counts the DMAs carrying one): one per
    // pipelined loop, `accel.pipelined = id`. Of the copies of a marked DMA
    // (an inner loop's, copied by this one) the first keeps the mark; this
    // loop marks the first unmarked DMA of its prologue (else of any part).
    llvm::DenseSet<Attribute> kept;
    for (Made &m : made) {
      if (!m.live || !recorder.created.contains(m.op))
        continue;
      m.op->walk([&](DmaStartOp d) {
        if (Attribute id = d->getAttr("accel.pipelined"))
          if (!kept.insert(id).second)
            d->removeAttr("accel.pipelined");
      });
    }
    auto mark = [&](bool prologueOnly) {
      for (Made &m : made)
        if ((!prologueOnly ||
             m.part == scf::PipeliningOption::PipelinerPart::Prologue) &&
            m.live && recorder.created.contains(m.op) &&
            isa<DmaStartOp>(m.op) &&
            !m.op->hasAttr("accel.pipelined")) {
          m.op->setAttr("accel.pipelined",
                        IntegerAttr::get(IntegerType::get(ctx, 64),
                                         nextMarker++));
          return true;
        }
      return false;
    };
    if (!mark(true))
      (void)mark(false);
    // The copies lose the originals' op ids and metrics.
    for (Operation *op : recorder.created)
      if (op->getBlock()) {
        dropAccelAttrs(op);
        op->walk([](Operation *o) { o->removeAttr(kStageAttr); });
      }
    k->removeAttr(kStageAttr);
    forgetLoops(loop);
    loop.erase();
    unsigned period = 1;
    for (auto &[root, list] : slots)
      period = std::lcm(period, unsigned(list.size()));
    if (unrollRotation)
      expandRotation(k, period);
    return success();
  }

  /// Modulo variable expansion of a kernel whose buffer iter_args rotate
  /// with period `period`: unrolled by the period (scf's
  /// loopUnrollByFactor; the remainder iterations, fewer than the period,
  /// unrolled after it), the
  /// rotation yields each buffer back to its own iter_arg, which scf.for's
  /// canonicalization then folds into the copy it starts with. Each unrolled
  /// body addresses its copies directly: the rotation cost one register
  /// move per copy and iteration (the ISA has no remainder instruction to
  /// index copy k mod N). Skipped when the kernel runs fewer than
  /// 2 * `period` times (the unrolled loop would run once, and a loop
  /// enclosing it would see its iterations as ops of its own body, without
  /// metrics) or the unrolled body would exceed kMaxUnrolledOps ops.
  static void expandRotation(scf::ForOp kernel, unsigned period) {
    std::optional<int64_t> trips = tripCount(kernel);
    if (period < 2 || !trips || *trips < 2 * int64_t(period))
      return; // a loop stays (an enclosing loop schedules it as one op)
    int64_t ops = 0;
    kernel.getBody()->walk([&](Operation *) { ++ops; });
    if (ops * int64_t(period) > kMaxUnrolledOps)
      return;
    FailureOr<UnrolledLoopInfo> unrolled = loopUnrollByFactor(
        kernel, period, [](unsigned i, Operation *op, OpBuilder) {
          if (i > 0) // one marker per pipelined loop
            op->walk([](Operation *o) { o->removeAttr("accel.pipelined"); });
        });
    if (failed(unrolled))
      return;
    // The remainder iterations (fewer than the period) as straight-line
    // code too: a rotating loop of a few trips costs its iter_args' setup.
    if (unrolled->epilogueLoopOp)
      (void)loopUnrollFull(*unrolled->epilogueLoopOp);
    SmallVector<Operation *> loops;
    if (unrolled->mainLoopOp)
      loops.push_back(*unrolled->mainLoopOp);
    if (loops.empty())
      return;
    // The unrolled iterations' offsets (iv + i * step) on constants.
    llvm::SetVector<Operation *> body;
    loops[0]->walk([&](Operation *op) {
      if (op != loops[0])
        body.insert(op);
    });
    foldConstants(body);
    MLIRContext *ctx = kernel.getContext();
    RewritePatternSet patterns(ctx);
    scf::ForOp::getCanonicalizationPatterns(patterns, ctx);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    (void)applyOpPatternsGreedily(loops, std::move(patterns), config);
  }

  /// Folds the arith ops among `ops` whose operands are constants (the
  /// pipeliner's iteration arithmetic: arith.divsi, arith.cmpi, arith.select,
  /// arith.maxsi, which the ISA lacks), and erases those left unused.
  static void
  foldConstants(llvm::SetVector<Operation *> &ops,
                llvm::function_ref<void(Operation *)> erasing = {}) {
    SmallVector<Operation *> list(ops.begin(), ops.end());
    for (Operation *op : list) {
      if (op->getName().getDialectNamespace() != "arith" ||
          isa<arith::ConstantOp>(op) || op->getNumResults() != 1)
        continue;
      SmallVector<Attribute> operands;
      for (Value v : op->getOperands()) {
        Attribute a;
        if (!matchPattern(v, m_Constant(&a)))
          break;
        operands.push_back(a);
      }
      SmallVector<OpFoldResult> results;
      if (operands.size() != op->getNumOperands() ||
          failed(op->fold(operands, results)) || results.size() != 1)
        continue;
      Value v = dyn_cast<Value>(results[0]);
      if (!v) {
        OpBuilder b(op);
        Operation *c = op->getDialect()->materializeConstant(
            b, cast<Attribute>(results[0]), op->getResult(0).getType(),
            op->getLoc());
        if (!c)
          continue;
        ops.insert(c);
        v = c->getResult(0);
      }
      op->getResult(0).replaceAllUsesWith(v);
    }
    for (bool changed = true; changed;) {
      changed = false;
      list.assign(ops.begin(), ops.end());
      for (Operation *op : llvm::reverse(list))
        if (op->getName().getDialectNamespace() == "arith" &&
            isOpTriviallyDead(op)) {
          ops.remove(op);
          if (erasing)
            erasing(op);
          op->erase();
          changed = true;
        }
    }
  }
};
} // namespace
