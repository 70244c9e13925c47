//===- VpuKinds.cpp - The body ops the VPU has ----------------------------===//
//
// VpuEmitter.h: which arith and math ops of a linalg body the VPU runs,
// their properties (arity, commutativity, swapped comparisons), and their
// values on constants, as the simulator computes them.
//
//===----------------------------------------------------------------------===//

#include "VpuEmitter.h"
#include "accel/Support/FloatMax.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace accel;
using namespace accel::linalg_to_accel;

VpuValue::Kind linalg_to_accel::joinKinds(VpuValue::Kind a, VpuValue::Kind b) {
  if (a == b || b == VpuValue::Scalar)
    return a;
  if (a == VpuValue::Scalar)
    return b;
  // One element broadcasts to anything.
  if (b == VpuValue::Element)
    return a;
  if (a == VpuValue::Element)
    return b;
  return VpuValue::Tile; // Tile with anything, or Column with Row
}

bool linalg_to_accel::isMaskToFloat(Operation *op) {
  return isa<arith::SIToFPOp, arith::UIToFPOp>(op) &&
         op->getOperand(0).getType().isSignlessInteger(1) &&
         isVpuFloat(op->getResult(0).getType());
}

std::optional<VpuKind> linalg_to_accel::getVpuKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<VpuKind>>(op)
      .Case<arith::AddFOp>([](auto) { return VpuKind::Add; })
      .Case<arith::SubFOp>([](auto) { return VpuKind::Sub; })
      .Case<arith::MulFOp>([](auto) { return VpuKind::Mul; })
      .Case<arith::DivFOp>([](auto) { return VpuKind::Div; })
      .Case<arith::MaximumFOp>([](auto) { return VpuKind::Max; })
      .Case<arith::MaxNumFOp>([](auto) { return VpuKind::MaxNum; })
      .Case<arith::MinimumFOp>([](auto) { return VpuKind::Min; })
      .Case<arith::MinNumFOp>([](auto) { return VpuKind::MinNum; })
      .Case<math::ExpOp>([](auto) { return VpuKind::Exp; })
      .Case<math::SqrtOp>([](auto) { return VpuKind::Sqrt; })
      .Case<math::RsqrtOp>([](auto) { return VpuKind::Rsqrt; })
      .Case<math::TanhOp>([](auto) { return VpuKind::Tanh; })
      .Case<math::LogOp>([](auto) { return VpuKind::Log; })
      .Case<math::Log1pOp>([](auto) { return VpuKind::Log1p; })
      .Case<math::ErfOp>([](auto) { return VpuKind::Erf; })
      .Case<math::AbsFOp>([](auto) { return VpuKind::Abs; })
      .Case<math::ExpM1Op>([](auto) { return VpuKind::Expm1; })
      .Case<math::FloorOp>([](auto) { return VpuKind::Floor; })
      .Case<math::CeilOp>([](auto) { return VpuKind::Ceil; })
      .Case<math::RoundEvenOp>([](auto) { return VpuKind::RoundEven; })
      .Case<math::RoundOp>([](auto) { return VpuKind::Round; })
      .Case<math::CopySignOp>([](auto) { return VpuKind::CopySign; })
      .Case<arith::NegFOp>([](auto) { return VpuKind::Neg; })
      .Case<arith::CmpFOp>([](arith::CmpFOp cmp) -> std::optional<VpuKind> {
        if (!isVpuFloat(cmp.getLhs().getType()))
          return std::nullopt;
        return VpuKind::Cmp;
      })
      .Case<arith::SelectOp>([](arith::SelectOp sel) -> std::optional<VpuKind> {
        if (!isVpuFloat(sel.getType()) && !sel.getType().isSignlessInteger(1))
          return std::nullopt;
        return VpuKind::Select;
      })
      // Masks combine as 0.0 / 1.0 values: and is a product, or a maximum.
      .Case<arith::AndIOp>([](arith::AndIOp op) -> std::optional<VpuKind> {
        if (!op.getType().isSignlessInteger(1))
          return std::nullopt;
        return VpuKind::Mul;
      })
      .Case<arith::OrIOp>([](arith::OrIOp op) -> std::optional<VpuKind> {
        if (!op.getType().isSignlessInteger(1))
          return std::nullopt;
        return VpuKind::Max;
      })
      .Case<arith::ExtFOp, arith::TruncFOp>(
          [](Operation *cvt) -> std::optional<VpuKind> {
            // Only f32 <-> bf16, rounded to nearest even (the default).
            auto trunc = dyn_cast<arith::TruncFOp>(cvt);
            if (!isVpuFloat(cvt->getOperand(0).getType()) ||
                !isVpuFloat(cvt->getResult(0).getType()) ||
                (trunc && trunc.getRoundingmode() &&
                 *trunc.getRoundingmode() !=
                     arith::RoundingMode::to_nearest_even))
              return std::nullopt;
            return VpuKind::Convert;
          })
      .Default([](Operation *) { return std::nullopt; });
}

bool linalg_to_accel::isCommutative(VpuKind k) {
  return k == VpuKind::Add || k == VpuKind::Mul || k == VpuKind::Max ||
         k == VpuKind::MaxNum || k == VpuKind::Min || k == VpuKind::MinNum;
}

bool linalg_to_accel::isUnary(VpuKind k) {
  switch (k) {
  case VpuKind::Exp:
  case VpuKind::Sqrt:
  case VpuKind::Rsqrt:
  case VpuKind::Tanh:
  case VpuKind::Log:
  case VpuKind::Log1p:
  case VpuKind::Erf:
  case VpuKind::Abs:
  case VpuKind::Expm1:
  case VpuKind::Floor:
  case VpuKind::Ceil:
  case VpuKind::RoundEven:
  case VpuKind::Round:
  case VpuKind::Neg:
  case VpuKind::Convert:
    return true;
  default:
    return false;
  }
}

CmpPredicate linalg_to_accel::swapPredicate(CmpPredicate p) {
  switch (p) {
  case CmpPredicate::OGT:
    return CmpPredicate::OLT;
  case CmpPredicate::OLT:
    return CmpPredicate::OGT;
  case CmpPredicate::OGE:
    return CmpPredicate::OLE;
  case CmpPredicate::OLE:
    return CmpPredicate::OGE;
  case CmpPredicate::UGT:
    return CmpPredicate::ULT;
  case CmpPredicate::ULT:
    return CmpPredicate::UGT;
  case CmpPredicate::UGE:
    return CmpPredicate::ULE;
  case CmpPredicate::ULE:
    return CmpPredicate::UGE;
  default: // symmetric
    return p;
  }
}

std::optional<CmpPredicate>
linalg_to_accel::getFloatPredicate(arith::CmpIPredicate p) {
  switch (p) {
  case arith::CmpIPredicate::eq:
    return CmpPredicate::OEQ;
  case arith::CmpIPredicate::ne:
    return CmpPredicate::ONE;
  case arith::CmpIPredicate::slt:
    return CmpPredicate::OLT;
  case arith::CmpIPredicate::sle:
    return CmpPredicate::OLE;
  case arith::CmpIPredicate::sgt:
    return CmpPredicate::OGT;
  case arith::CmpIPredicate::sge:
    return CmpPredicate::OGE;
  default:
    return std::nullopt;
  }
}

float linalg_to_accel::foldScalar(VpuKind kind, float x, float y) {
  switch (kind) {
  case VpuKind::Add:
    return x + y;
  case VpuKind::Sub:
    return x - y;
  case VpuKind::Mul:
    return x * y;
  case VpuKind::Div:
    return x / y;
  case VpuKind::Max:
    return accel::maximumF(x, y);
  case VpuKind::MaxNum:
    return accel::maxNumF(x, y);
  case VpuKind::Min:
    return accel::minimumF(x, y);
  case VpuKind::MinNum:
    return accel::minNumF(x, y);
  case VpuKind::Exp:
    return accel::expF(x);
  case VpuKind::Sqrt:
    return std::sqrt(x);
  case VpuKind::Rsqrt:
    return accel::rsqrtF(x);
  case VpuKind::Tanh:
    return accel::tanhF(x);
  case VpuKind::Log:
    return accel::logF(x);
  case VpuKind::Log1p:
    return accel::log1pF(x);
  case VpuKind::Erf:
    return accel::erfF(x);
  case VpuKind::Abs:
    return accel::absF(x);
  case VpuKind::Expm1:
    return accel::expm1F(x);
  case VpuKind::Floor:
    return accel::floorF(x);
  case VpuKind::Ceil:
    return accel::ceilF(x);
  case VpuKind::RoundEven:
    return accel::roundEvenF(x);
  case VpuKind::Round:
    return accel::roundF(x);
  case VpuKind::CopySign:
    return accel::copySignF(x, y);
  case VpuKind::Neg:
    return x * -1.0f;
  case VpuKind::Convert:
    return x;
  case VpuKind::Cmp:
  case VpuKind::Select:
    break;
  }
  llvm_unreachable("unknown VPU kind");
}
