//===- PinKnapsackTest.cpp - The exact pin choice of accel-pin-vmem -------===//
//
// solveKnapsack (lib/Transforms/PinKnapsack.h) against exhaustive search on
// small random instances, on both of its methods:
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
  uint64_t capacity = 0;
};

/// The best value of any feasible choice, by trying them all.
int64_t bruteForce(const Instance &in) {
  unsigned n = in.values.size();
  int64_t best = 0;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    uint64_t weight = 0;
    int64_t value = 0;
    for (unsigned i = 0; i < n; ++i) {
      if (!(mask >> i & 1))
        continue;
      weight += uint64_t(in.weights[i]);
      value += in.values[i];
    }
    if (weight <= in.capacity)
      best = std::max(best, value);
  }
  return best;
}

/// The value of `take`, checking that it is feasible.
int64_t valueOf(const Instance &in, const llvm::BitVector &take) {
  uint64_t weight = 0;
  int64_t value = 0;
  for (unsigned i = 0; i < in.values.size(); ++i) {
    if (!take.test(i))
      continue;
    weight += uint64_t(in.weights[i]);
    value += in.values[i];
  }
  EXPECT_LE(weight, in.capacity);
  return value;
}

Instance randomInstance(std::mt19937_64 &rng, bool oddBytes) {
  Instance in;
  unsigned n = 4 + rng() % 9;
  uint64_t sum = 0;
  for (unsigned i = 0; i < n; ++i) {
    in.values.push_back(int64_t(1 + rng() % 2000));
    int64_t w = oddBytes ? int64_t(1'000'000 + rng() % 40'000'000)
                         : int64_t(4096 * (1 + rng() % 16));
    in.weights.push_back(w);
    sum += uint64_t(w);
  }
  in.capacity = sum * (20 + rng() % 60) / 100;
  return in;
}

void checkMany(bool oddBytes) {
  std::mt19937_64 rng(oddBytes + 17);
  for (int trial = 0; trial < 300; ++trial) {
    Instance in = randomInstance(rng, oddBytes);
    bool exhausted = false;
    llvm::BitVector take =
        solveKnapsack(in.values, in.weights, in.capacity, exhausted);
    EXPECT_FALSE(exhausted);
    EXPECT_EQ(valueOf(in, take), bruteForce(in)) << "trial " << trial;
  }
}

TEST(PinKnapsackTest, DynamicProgramIsOptimal) { checkMany(false); }
TEST(PinKnapsackTest, BranchAndBoundIsOptimal) { checkMany(true); }

TEST(PinKnapsackTest, AllFitTakesAll) {
  // What fits on its own fits together: all of it is taken; an item
  // heavier than the capacity never is.
  Instance in{{300, 500, 100}, {4096, 4096, 1 << 21}, 1 << 20};
  bool exhausted = false;
  llvm::BitVector take =
      solveKnapsack(in.values, in.weights, in.capacity, exhausted);
  EXPECT_TRUE(take.test(0));
  EXPECT_TRUE(take.test(1));
  EXPECT_FALSE(take.test(2));
}

} // namespace
