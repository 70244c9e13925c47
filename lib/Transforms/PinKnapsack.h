//===- PinKnapsack.h - The exact pin choice of accel-pin-vmem ---*- C++ -*-===//
//
// The 0/1 knapsack accel-pin-vmem solves to choose which DMAs to pin
// (internal to lib/Transforms).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TRANSFORMS_PINKNAPSACK_H
#define ACCEL_LIB_TRANSFORMS_PINKNAPSACK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/BitVector.h"

#include <cstdint>

namespace accel::detail {

/// Solves the pin choice exactly: the 0/1 knapsack
///
///   maximize  sum of values[i]  (expected cycles saved, cycles)
///   such that sum of weights[i] <= capacity  (resident buffer bytes against
///             the VMEM the function's allocations leave free, bytes)
///
/// over the items chosen, each taken at most once. This is FAST §5.5's
/// weight pinning as a capacity-constrained choice (FAST states it as an
/// ILP). Returns one bit per item; `exhausted` is set when the
/// branch-and-bound stopped at its node budget (the choice is then still
/// no worse than greedy). An item heavier than `capacity` (or of negative
/// weight) is never taken. The method and its tie-breaks are documented
/// at the definition (PinKnapsack.cpp).
llvm::BitVector solveKnapsack(llvm::ArrayRef<int64_t> values,
                              llvm::ArrayRef<int64_t> weights,
                              uint64_t capacity, bool &exhausted);

} // namespace accel::detail

#endif // ACCEL_LIB_TRANSFORMS_PINKNAPSACK_H
