//===- PipelinePrivacy.cpp - Buffers private to an iteration --------------===//
//
// Whether --accel-pipeline-dma may give a buffer a copy per iteration:
// its contents neither enter an iteration (every read follows writes of
// the bytes it reads in the same iteration) nor leave the loop (every path
// after it writes the buffer before reading it), found by running the ops
// symbolically over the rectangles they write. PipelineDma.cpp's header
// explains where this fits.
//
//===----------------------------------------------------------------------===//

#include "PipelineSchedule.h"

using namespace mlir;
using namespace accel;
using namespace accel::detail;
using namespace accel::detail::pipeline;

namespace {

/// Whether `root` or an op nested in it accesses a buffer that may be one
/// of `members`.
static bool touchesAny(Operation *root,
                       const llvm::SmallPtrSetImpl<Value> &members) {
  SmallVector<MemoryAccess> list;
  if (collectAccesses(root, list))
    return true;
  return llvm::any_of(list, [&](const MemoryAccess &a) {
    return llvm::any_of(members, [&](Value m) { return mayAlias(a.root, m); });
  });
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
    if (!def || depth > 16 ||
        !isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
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
          llvm::any_of(sv.getStaticStrides(), [](int64_t x) { return x != 1; }))
        return std::nullopt;
      SmallVector<OpFoldResult> offsets = sv.getMixedOffsets();
      SmallVector<int64_t> off;
      for (OpFoldResult o : offsets) {
        std::optional<int64_t> x = isa<Attribute>(o) ? getConstantIntValue(o)
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
              return p.r0 <= rs[i] && rs[i + 1] <= p.r1 && p.c0 <= cs[j] &&
                     cs[j + 1] <= p.c1;
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
      SmallVector<MemoryAccess> list;
      if (collectAccesses(&op, list))
        return Touch::Live;
      for (const MemoryAccess &a : list) {
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
      for (const MemoryAccess &a : list)
        if (a.write && members.contains(resolve(a.root)))
          write(state, resolve(a.root), a.view);
    }
    return state.whole.size() == members.size() ? Touch::Dead : Touch::None;
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
} // namespace

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

bool accel::detail::pipeline::isPrivate(const Body &b, ArrayRef<Value> group,
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
  return exec.run(*loop.getBody(), written) != SymbolicRun::Touch::Live;
}
