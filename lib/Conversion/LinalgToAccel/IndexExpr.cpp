//===- IndexExpr.cpp - Integer values of a linalg body, as index math -----===//

#include "IndexExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace accel;

static bool isIndexLike(Type t) {
  return t.isIndex() ||
         (t.isSignlessInteger() && t.getIntOrFloatBitWidth() > 1);
}

bool accel::isIndexArithmetic(Operation *op) {
  if (isa<linalg::IndexOp>(op))
    return true;
  return op->getNumResults() == 1 && isIndexLike(op->getResult(0).getType()) &&
         isa_and_nonnull<arith::ArithDialect>(op->getDialect());
}

/// a * s + b, checked; false on overflow.
static bool addScaled(int64_t &acc, int64_t v, int64_t s) {
  int64_t p;
  if (llvm::MulOverflow(v, s, p))
    return false;
  return !llvm::AddOverflow(acc, p, acc);
}

/// into += scale * e; false on overflow.
static bool accumulate(IndexExpr &into, const IndexExpr &e, int64_t scale) {
  for (int i = 0; i < 2; ++i)
    if (!addScaled(into.coef[i], e.coef[i], scale))
      return false;
  if (!addScaled(into.constant, e.constant, scale))
    return false;
  for (auto [v, c] : e.terms) {
    int64_t s;
    if (llvm::MulOverflow(c, scale, s))
      return false;
    auto it = llvm::find_if(into.terms, [&](auto &t) { return t.first == v; });
    if (it == into.terms.end())
      into.terms.push_back({v, s});
    else if (llvm::AddOverflow(it->second, s, it->second))
      return false;
  }
  llvm::erase_if(into.terms, [](auto &t) { return t.second == 0; });
  return true;
}

FailureOr<IndexExpr> accel::analyzeIndexExpr(Value v, Block &body,
                                             unsigned numLoops,
                                             DenseMap<Value, IndexExpr> &memo,
                                             std::string &reason) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  IndexExpr e;
  Operation *def = v.getDefiningOp();
  auto overflow = [&]() -> FailureOr<IndexExpr> {
    reason = "its index arithmetic overflows 64 bits";
    return failure();
  };
  IntegerAttr attr;
  if (matchPattern(v, m_Constant(&attr))) { // inside the body or hoisted
    if (attr.getValue().getSignificantBits() > 64)
      return overflow();
    e.constant = attr.getValue().getSExtValue();
  } else if (!def || def->getBlock() != &body) {
    if (isa<BlockArgument>(v) && cast<BlockArgument>(v).getOwner() == &body) {
      reason = "it reads an integer operand; the VPU computes on f32 and "
               "bf16 tiles (integer values of its body must come from "
               "linalg.index and constants)";
      return failure();
    }
    e.terms.push_back({v, 1}); // defined outside: a tile offset
  } else if (auto index = dyn_cast<linalg::IndexOp>(def)) {
    // A 1-loop op's loop runs along the columns of its 1 x C tile.
    unsigned axis = numLoops == 1 ? 1 : index.getDim();
    if (axis > 1) {
      reason = "its body reads linalg.index " + std::to_string(index.getDim()) +
               " of a tile of rank 2";
      return failure();
    }
    e.coef[axis] = 1;
  } else if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
                 arith::ExtUIOp, arith::TruncIOp>(def)) {
    auto in =
        analyzeIndexExpr(def->getOperand(0), body, numLoops, memo, reason);
    if (failed(in))
      return failure();
    e = *in;
  } else if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def)) {
    auto lhs =
        analyzeIndexExpr(def->getOperand(0), body, numLoops, memo, reason);
    if (failed(lhs))
      return failure();
    auto rhs =
        analyzeIndexExpr(def->getOperand(1), body, numLoops, memo, reason);
    if (failed(rhs))
      return failure();
    if (isa<arith::MulIOp>(def)) {
      if (!lhs->isConstant() && !rhs->isConstant()) {
        reason = "its body multiplies two index values (" +
                 std::string("only a product by a constant is an affine ") +
                 "function of the indices)";
        return failure();
      }
      const IndexExpr &scaled = lhs->isConstant() ? *rhs : *lhs;
      int64_t by = lhs->isConstant() ? lhs->constant : rhs->constant;
      if (!accumulate(e, scaled, by))
        return overflow();
    } else if (!accumulate(e, *lhs, 1) ||
               !accumulate(e, *rhs, isa<arith::SubIOp>(def) ? -1 : 1)) {
      return overflow();
    }
  } else {
    reason = "its body computes an index with '" +
             def->getName().getStringRef().str() +
             "'; the frontend reads index arithmetic that is affine in "
             "linalg.index (addi, subi, muli by a constant, integer casts)";
    return failure();
  }
  memo[v] = e;
  return e;
}

Value accel::buildIndexBase(OpBuilder &b, Location loc, const IndexExpr &e) {
  Value sum = arith::ConstantIndexOp::create(b, loc, e.constant);
  for (auto [v, c] : e.terms) {
    Value t = v;
    if (!t.getType().isIndex())
      t = arith::IndexCastOp::create(b, loc, b.getIndexType(), t);
    if (c != 1)
      t = arith::MulIOp::create(b, loc, t,
                                arith::ConstantIndexOp::create(b, loc, c));
    sum = arith::AddIOp::create(b, loc, sum, t);
  }
  return sum;
}
