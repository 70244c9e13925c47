//===- Contraction.cpp - The matmul roles of a linalg contraction ---------===//

#include "Contraction.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

std::optional<accel::ContractionRoles>
accel::getContractionRoles(linalg::LinalgOp op) {
  if (op.getNumLoops() != 3 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  // The loop positions an operand's rank-2 map reads, or nullopt.
  auto dims =
      [&](OpOperand &operand) -> std::optional<std::pair<unsigned, unsigned>> {
    auto type = dyn_cast<ShapedType>(operand.get().getType());
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!type || type.getRank() != 2 || map.getNumResults() != 2 ||
        !map.isProjectedPermutation())
      return std::nullopt;
    return std::make_pair(map.getDimPosition(0), map.getDimPosition(1));
  };
  auto out = dims(*op.getDpsInitOperand(0));
  if (!out)
    return std::nullopt;
  ContractionRoles roles;
  roles.m = out->first;
  roles.n = out->second;
  roles.k = 3 - roles.m - roles.n; // the loop the output does not read
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators[roles.m] != utils::IteratorType::parallel ||
      iterators[roles.n] != utils::IteratorType::parallel ||
      iterators[roles.k] != utils::IteratorType::reduction)
    return std::nullopt;
  bool haveA = false, haveB = false;
  for (unsigned i = 0; i < 2; ++i) {
    auto in = dims(*op.getDpsInputOperand(i));
    if (!in)
      return std::nullopt;
    auto [first, second] = *in;
    if (!haveA && ((first == roles.m && second == roles.k) ||
                   (first == roles.k && second == roles.m))) {
      haveA = true;
      roles.aInput = i;
      roles.aTransposed = first == roles.k;
    } else if (!haveB && ((first == roles.k && second == roles.n) ||
                          (first == roles.n && second == roles.k))) {
      haveB = true;
      roles.bInput = i;
      roles.bTransposed = first == roles.n;
    } else {
      return std::nullopt;
    }
  }
  return roles;
}
