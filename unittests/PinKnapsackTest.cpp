//===- PinKnapsackTest.cpp - The exact pin choice of accel-pin-vmem -------===//
//
// solveKnapsack (lib/Transforms/PinKnapsack.h) against exhaustive search on
// small random instances, with and without groups (at most one item of a
// group: a pin and the second copy of its buffer), on both of its methods:
// the dynamic program (weights with a large common unit) and the
// branch-and-bound (weights in odd bytes against a large capacity, whose
// table would be too wide).
//
//===----------------------------------------------------------------------===//

#include "../lib/Transforms/PinKnapsack.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace accel::detail;

namespace {

struct Instance {
  std::vector<int64_t> values, weights;
  std::vector<int> groups;
  uint64_t capacity = 0;
};

/// The best value of any feasible choice, by trying them all.
int64_t bruteForce(const Instance &in) {
  unsigned n = in.values.size();
  int64_t best = 0;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    uint64_t weight = 0;
    int64_t value = 0;
    std::vector<int> seen;
    bool ok = true;
    for (unsigned i = 0; i < n && ok; ++i) {
      if (!(mask >> i & 1))
        continue;
      weight += uint64_t(in.weights[i]);
      value += in.values[i];
      int g = in.groups.empty() ? -1 : in.groups[i];
      if (g >= 0) {
        ok = std::find(seen.begin(), seen.end(), g) == seen.end();
        seen.push_back(g);
      }
    }
    if (ok && weight <= in.capacity)
      best = std::max(best, value);
  }
  return best;
}

/// The value of `take`, checking that it is feasible.
int64_t valueOf(const Instance &in, const llvm::BitVector &take) {
  uint64_t weight = 0;
  int64_t value = 0;
  std::vector<int> seen;
  for (unsigned i = 0; i < in.values.size(); ++i) {
    if (!take.test(i))
      continue;
    weight += uint64_t(in.weights[i]);
    value += in.values[i];
    int g = in.groups.empty() ? -1 : in.groups[i];
    if (g >= 0) {
      EXPECT_EQ(std::find(seen.begin(), seen.end(), g), seen.end())
          << "two items of group " << g;
      seen.push_back(g);
    }
  }
  EXPECT_LE(weight, in.capacity);
  return value;
}

Instance randomInstance(std::mt19937_64 &rng, bool grouped, bool oddBytes) {
  Instance in;
  unsigned n = 4 + rng() % 9;
  uint64_t sum = 0;
  for (unsigned i = 0; i < n; ++i) {
    in.values.push_back(int64_t(1 + rng() % 2000));
    int64_t w = oddBytes ? int64_t(1'000'000 + rng() % 40'000'000)
                         : int64_t(4096 * (1 + rng() % 16));
    in.weights.push_back(w);
    sum += uint64_t(w);
    in.groups.push_back(grouped && rng() % 2 ? int(rng() % 3) : -1);
  }
  in.capacity = sum * (20 + rng() % 60) / 100;
  return in;
}

void checkMany(bool grouped, bool oddBytes) {
  std::mt19937_64 rng(grouped * 2 + oddBytes + 17);
  for (int trial = 0; trial < 300; ++trial) {
    Instance in = randomInstance(rng, grouped, oddBytes);
    bool exhausted = false;
    llvm::BitVector take =
        solveKnapsack(in.values, in.weights, in.capacity, exhausted, in.groups);
    EXPECT_FALSE(exhausted);
    EXPECT_EQ(valueOf(in, take), bruteForce(in)) << "trial " << trial;
  }
}

TEST(PinKnapsackTest, DynamicProgramIsOptimal) { checkMany(false, false); }
TEST(PinKnapsackTest, BranchAndBoundIsOptimal) { checkMany(false, true); }
TEST(PinKnapsackTest, GroupedDynamicProgramIsOptimal) {
  checkMany(true, false);
}
TEST(PinKnapsackTest, GroupedBranchAndBoundIsOptimal) { checkMany(true, true); }

TEST(PinKnapsackTest, AllFitTakesTheBestOfEachGroup) {
  // Everything fits: every ungrouped item, and of group 0 the item that
  // saves most (500 over 300).
  Instance in{{300, 500, 100}, {4096, 4096, 4096}, {0, 0, -1}, 1 << 20};
  bool exhausted = false;
  llvm::BitVector take =
      solveKnapsack(in.values, in.weights, in.capacity, exhausted, in.groups);
  EXPECT_FALSE(take.test(0));
  EXPECT_TRUE(take.test(1));
  EXPECT_TRUE(take.test(2));
}

} // namespace
