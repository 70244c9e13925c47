//===- PinKnapsack.cpp - The exact pin choice of accel-pin-vmem -----------===//
//
// solveKnapsack (PinKnapsack.h): dynamic programming over the capacity, or
// a branch-and-bound when that table would be too large.
//
//===----------------------------------------------------------------------===//

#include "PinKnapsack.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <numeric>
#include <optional>

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
/// The items of one knapsack (PinKnapsack.h): their values (cycles), their
/// weights (bytes) and their groups (-1 or absent: none).
struct Items {
  ArrayRef<int64_t> values, weights;
  ArrayRef<int> groups;
  /// The group of item `i`, or -1.
  int groupOf(unsigned i) const {
    return i < groups.size() && groups[i] >= 0 ? groups[i] : -1;
  }
};
} // namespace

/// The choice when all of `items` (the indices of the items that fit on
/// their own) fit together: every ungrouped item, and of each group the
/// one that saves most (the earliest on a tie). One bit per item of `p`.
static BitVector takeAll(const Items &p, ArrayRef<unsigned> items) {
  BitVector take(p.values.size());
  llvm::DenseMap<int, unsigned> bestOfGroup;
  for (unsigned i : items) {
    int g = p.groupOf(i);
    if (g < 0) {
      take.set(i);
      continue;
    }
    auto [it, fresh] = bestOfGroup.try_emplace(g, i);
    if (!fresh && p.values[i] > p.values[it->second])
      it->second = i;
  }
  for (auto [g, i] : bestOfGroup)
    take.set(i);
  return take;
}

/// The multiple-choice dynamic program over `items` with groups, in
/// `width` capacity units of `unit` bytes; std::nullopt when a group has
/// 255 items or more or the table would be too large (kMaxDpRow,
/// kMaxDpCells / 4), for the branch-and-bound to solve instead.
static std::optional<BitVector> solveGroupedDp(const Items &p,
                                               ArrayRef<unsigned> items,
                                               uint64_t unit, uint64_t width) {
  // Blocks of items: a group's items together, an ungrouped item alone,
  // in the order of their first items.
  SmallVector<SmallVector<unsigned, 2>> blocks;
  llvm::DenseMap<int, unsigned> blockOf;
  for (unsigned i : items) {
    int g = p.groupOf(i);
    if (g >= 0) {
      auto [it, fresh] = blockOf.try_emplace(g, blocks.size());
      if (!fresh) {
        blocks[it->second].push_back(i);
        continue;
      }
    }
    blocks.push_back({i});
  }
  uint64_t nb = blocks.size();
  bool small =
      llvm::all_of(blocks, [](const auto &b) { return b.size() < 255; });
  if (!small || width > kMaxDpRow || nb * width > kMaxDpCells / 4)
    return std::nullopt;
  // best[c], the most the blocks from b on save within c units;
  // choice[b * width + c], 1 + the position in block b of the item taken
  // there (0: none). Within a block the earliest item wins a tie, and so
  // does taking an earlier block's item (as in the 0/1 program, solveDp).
  SmallVector<int64_t> best(width, 0), prev;
  std::vector<uint8_t> choice(nb * width, 0);
  for (uint64_t b = nb; b-- > 0;) {
    prev = best;
    for (unsigned j = blocks[b].size(); j-- > 0;) {
      unsigned i = blocks[b][j];
      uint64_t w = uint64_t(p.weights[i]) / unit;
      for (uint64_t c = width; c-- > w;)
        if (prev[c - w] + p.values[i] >= best[c]) {
          best[c] = prev[c - w] + p.values[i];
          choice[b * width + c] = uint8_t(j + 1);
        }
    }
  }
  BitVector take(p.values.size());
  uint64_t c = width - 1;
  for (uint64_t b = 0; b < nb; ++b)
    if (uint8_t j = choice[b * width + c]) {
      unsigned i = blocks[b][j - 1];
      take.set(i);
      c -= uint64_t(p.weights[i]) / unit;
    }
  return take;
}

/// The 0/1 dynamic program over `items` (no groups), in `width` capacity
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
  /// whole, in order, + the fraction of the first that does not. The
  /// groups in `used` are skipped (the bound stays an upper bound).
  int64_t bound(unsigned k, uint64_t room, int64_t value) const {
    for (; k < m; ++k) {
      if (int g = p.groupOf(items[k]); g >= 0 && used.contains(g))
        continue;
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
    int g = p.groupOf(i);
    if (g >= 0 && used.contains(g))
      return visit(k + 1, room, value);
    if (bound(k, room, value) <= bestValue)
      return;
    if (uint64_t(p.weights[i]) <= room) {
      current.set(i);
      if (g >= 0)
        used.insert(g);
      visit(k + 1, room - uint64_t(p.weights[i]), value + p.values[i]);
      if (g >= 0)
        used.erase(g);
      current.reset(i);
    }
    visit(k + 1, room, value);
  }

  const Items &p;
  ArrayRef<unsigned> items;
  unsigned m;
  /// Groups with an item taken on the current branch (their other items
  /// are skipped).
  llvm::DenseSet<int> used;
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
/// With groups (at most one item of each), the dynamic program is the
/// multiple-choice one (a block of a group's items against the same row)
/// and the branch-and-bound skips a group's other items once one is taken.
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
                                             uint64_t capacity, bool &exhausted,
                                             ArrayRef<int> groups) {
  unsigned n = values.size();
  exhausted = false;
  Items p{values, weights, groups};
  bool grouped = llvm::any_of(groups, [](int g) { return g >= 0; });
  // Items that fit on their own; all of them if they fit together (of a
  // group, then, the one that saves most, the earliest on a tie).
  SmallVector<unsigned> items;
  uint64_t total = 0, unit = capacity;
  for (unsigned i = 0; i < n; ++i) {
    if (weights[i] < 0 || uint64_t(weights[i]) > capacity)
      continue;
    items.push_back(i);
    total += uint64_t(weights[i]);
    unit = std::gcd(unit, uint64_t(weights[i]));
  }
  if (total <= capacity)
    return takeAll(p, items);
  if (unit == 0)
    unit = 1;
  uint64_t width = capacity / unit + 1;
  uint64_t m = items.size();
  if (grouped) {
    if (std::optional<BitVector> take = solveGroupedDp(p, items, unit, width))
      return *take;
  } else if (width <= kMaxDpRow && m * width <= kMaxDpCells) {
    return solveDp(p, items, unit, width);
  }
  // Branch-and-bound, densest first.
  llvm::stable_sort(items, [&](unsigned a, unsigned b) {
    return denser(values, weights, a, b);
  });
  return BranchAndBound(p, items).solve(capacity, exhausted);
}
