//===- PinKnapsack.cpp - The exact pin choice of accel-pin-vmem -----------===//
//
// solveKnapsack (PinKnapsack.h): dynamic programming over the capacity, or
// a branch-and-bound when that table would be too large.
//
//===----------------------------------------------------------------------===//

#include "PinKnapsack.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <numeric>

using namespace llvm;

/// Largest dynamic-programming table solveKnapsack fills: items x
/// (capacity units + 1) cells (one bit each for the choice) and a row of
/// capacity units + 1 best values (8 bytes each).
static constexpr uint64_t kMaxDpCells = 50'000'000;
static constexpr uint64_t kMaxDpRow = uint64_t(1) << 23;
/// Node budget of the branch-and-bound (never reached on the suite).
static constexpr uint64_t kMaxBranchNodes = uint64_t(1) << 26;

/// Whether item `a` saves more cycles per byte than item `b`; on a tie,
/// the earlier item (op order) first.
static bool denser(ArrayRef<int64_t> values, ArrayRef<int64_t> weights,
                   unsigned a, unsigned b) {
  // values[a] / weights[a] > values[b] / weights[b], without division.
  int64_t lhs, rhs;
  if (!llvm::MulOverflow(values[a], weights[b], lhs) &&
      !llvm::MulOverflow(values[b], weights[a], rhs)) {
    if (lhs != rhs)
      return lhs > rhs;
  } else {
    double da = double(values[a]) / double(std::max<int64_t>(weights[a], 1));
    double db = double(values[b]) / double(std::max<int64_t>(weights[b], 1));
    if (da != db)
      return da > db;
  }
  return a < b;
}

namespace {
/// The items of one knapsack (PinKnapsack.h): their values (cycles) and
/// weights (bytes).
struct Items {
  ArrayRef<int64_t> values, weights;
};
} // namespace

/// The 0/1 dynamic program over `items`, in `width` capacity
/// units of `unit` bytes: best[c], the most cycles the items from k on save
/// within c units; chosen[k * width + c]: taking item k is optimal there.
/// Items are added from the last, so the walk back from the first takes
/// the earliest items on a tie.
static BitVector solveDp(const Items &p, ArrayRef<unsigned> items,
                         uint64_t unit, uint64_t width) {
  uint64_t m = items.size();
  SmallVector<int64_t> best(width, 0);
  llvm::BitVector chosen(m * width);
  for (uint64_t k = m; k-- > 0;) {
    uint64_t w = uint64_t(p.weights[items[k]]) / unit;
    int64_t v = p.values[items[k]];
    for (uint64_t c = width; c-- > w;)
      if (best[c - w] + v >= best[c]) {
        best[c] = best[c - w] + v;
        chosen.set(k * width + c);
      }
  }
  BitVector take(p.values.size());
  uint64_t c = width - 1;
  for (uint64_t k = 0; k < m; ++k)
    if (chosen.test(k * width + c)) {
      take.set(items[k]);
      c -= uint64_t(p.weights[items[k]]) / unit;
    }
  return take;
}

namespace {
/// The depth-first branch-and-bound over the items, densest first, pruned
/// by the fractional (LP relaxation) bound; stops at kMaxBranchNodes.
class BranchAndBound {
public:
  /// `items`: the indices of the items that fit on their own, densest
  /// first.
  BranchAndBound(const Items &p, ArrayRef<unsigned> items)
      : p(p), items(items), m(items.size()), current(p.values.size()),
        bestSet(p.values.size()) {}

  /// The best choice within `capacity` bytes (one bit per item);
  /// `exhausted` is set when the node budget ran out.
  BitVector solve(uint64_t capacity, bool &exhausted) {
    visit(0, capacity, 0);
    exhausted = this->exhausted;
    return bestSet;
  }

private:
  /// Integer floor of the LP bound: value + the items from k on that fit
  /// whole, in order, + the fraction of the first that does not.
  int64_t bound(unsigned k, uint64_t room, int64_t value) const {
    for (; k < m; ++k) {
      uint64_t w = uint64_t(p.weights[items[k]]);
      int64_t v = p.values[items[k]];
      if (w > room) {
        int64_t part;
        if (llvm::MulOverflow(v, int64_t(room), part))
          return std::numeric_limits<int64_t>::max();
        return value + part / int64_t(w);
      }
      room -= w;
      value += v;
    }
    return value;
  }

  /// The subtree of the choices of items[k..] with `room` bytes left and
  /// `value` cycles saved by the items taken so far (`current`).
  void visit(unsigned k, uint64_t room, int64_t value) {
    if (exhausted)
      return;
    if (++nodes > kMaxBranchNodes) {
      exhausted = true;
      return;
    }
    if (k == m) {
      if (value > bestValue) {
        bestValue = value;
        bestSet = current;
      }
      return;
    }
    unsigned i = items[k];
    if (bound(k, room, value) <= bestValue)
      return;
    if (uint64_t(p.weights[i]) <= room) {
      current.set(i);
      visit(k + 1, room - uint64_t(p.weights[i]), value + p.values[i]);
      current.reset(i);
    }
    visit(k + 1, room, value);
  }

  const Items &p;
  ArrayRef<unsigned> items;
  unsigned m;
  BitVector current, bestSet;
  int64_t bestValue = -1;
  uint64_t nodes = 0;
  bool exhausted = false;
};
} // namespace

/// Solves the pin choice exactly: the 0/1 knapsack
///
///   maximize  sum of values[i]  (expected cycles saved, cycles)
///   such that sum of weights[i] <= capacity  (resident buffer bytes against
///             the VMEM the function's allocations leave free, bytes)
///
/// over the items chosen, each taken at most once. This is FAST §5.5's
/// weight pinning as a capacity-constrained choice (FAST states it as
/// an ILP). Returns one bit per item. The result is deterministic: the
/// dynamic program returns, among optimal choices, the one taking the
/// earliest items (op order); the branch-and-bound the first optimum it
/// meets in decreasing value per byte (ties in op order).
///
/// Method: dynamic programming over the capacity, counted in units of the
/// GCD of the weights and the capacity (exact: every reachable total is a
/// multiple of the GCD; resident buffers are whole tiles, so the unit is
/// usually kilobytes). When that table would exceed kMaxDpCells cells (or
/// a row kMaxDpRow units), a depth-first branch-and-bound over the items
/// in decreasing value per byte, pruned by the fractional (LP relaxation)
/// bound, which is exact too; its first leaf is the greedy choice, so if
/// it ever stops at kMaxBranchNodes (`exhausted`), the choice is still no
/// worse than greedy.
///
/// Written here rather than calling an ILP solver: the problem is one
/// knapsack constraint over a few dozen candidates; GLPK (Debian's
/// libglpk-dev) is GPL, which we do not link into accel-opt, and CBC
/// (coinor-libcbc-dev, EPL) would add a large C++ dependency for it.
llvm::BitVector accel::detail::solveKnapsack(ArrayRef<int64_t> values,
                                             ArrayRef<int64_t> weights,
                                             uint64_t capacity,
                                             bool &exhausted) {
  unsigned n = values.size();
  exhausted = false;
  Items p{values, weights};
  // Items that fit on their own; all of them if they fit together.
  SmallVector<unsigned> items;
  BitVector all(n);
  uint64_t total = 0, unit = capacity;
  for (unsigned i = 0; i < n; ++i) {
    if (weights[i] < 0 || uint64_t(weights[i]) > capacity)
      continue;
    items.push_back(i);
    all.set(i);
    total += uint64_t(weights[i]);
    unit = std::gcd(unit, uint64_t(weights[i]));
  }
  if (total <= capacity)
    return all;
  if (unit == 0)
    unit = 1;
  uint64_t width = capacity / unit + 1;
  if (width <= kMaxDpRow && items.size() * width <= kMaxDpCells)
    return solveDp(p, items, unit, width);
  // Branch-and-bound, densest first.
  llvm::stable_sort(items, [&](unsigned a, unsigned b) {
    return denser(values, weights, a, b);
  });
  return BranchAndBound(p, items).solve(capacity, exhausted);
}
