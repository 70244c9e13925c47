//===- Contraction.h - The matmul roles of a linalg contraction -*- C++ -*-===//
//
// accel-tile-linalg and accel-stage-operands both need to know which loops
// of a 3-loop contraction are M, N and K and whether an operand is stored
// transposed (`x @ w.T`, `q @ k.T`, a `dot_general` contracting the last
// dimensions of both sides).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_FRONTEND_CONTRACTION_H
#define ACCEL_LIB_FRONTEND_CONTRACTION_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <optional>

namespace accel {

/// The roles of a contraction C[m, n] += A[m, k] * B[k, n] with 3 loops:
/// the loop positions of m, n and k, which input is A and which is B, and
/// whether each is stored with its two dimensions swapped (A as [k, m], B
/// as [n, k]).
struct ContractionRoles {
  unsigned m = 0, n = 1, k = 2;
  unsigned aInput = 0, bInput = 1;
  bool aTransposed = false, bTransposed = false;
};

/// The roles of `op` when it is a contraction (upstream's
/// isaContractionOpInterface: a multiply-add body) with 3 loops, two rank-2
/// inputs and one rank-2 output, every indexing map a projected permutation
/// of two loops, the output indexed by the two parallel loops (m, n) and
/// each input by the reduction loop and one of them; nullopt otherwise
/// (batch loops must be gone: accel-tile-linalg runs them as loops first).
std::optional<ContractionRoles> getContractionRoles(mlir::linalg::LinalgOp op);

} // namespace accel

#endif // ACCEL_LIB_FRONTEND_CONTRACTION_H
