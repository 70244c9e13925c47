//===- FloatMax.h - The VPU's elementwise functions of one f32 --*- C++ -*-===//
//
// The f32 arithmetic of the VPU's opcodes that is more than one IEEE
// operation (docs/isa.md, "NaN" and "Element types"): the maximum and
// minimum with their NaN semantics, rsqrt, and the transcendental
// functions. The simulator (lib/Sim/Units.cpp) and the frontend's constant
// folding (lib/Conversion/LinalgToAccel) both call these, so a folded
// constant is bit for bit what the VPU would have computed.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_FLOATMAX_H
#define ACCEL_SUPPORT_FLOATMAX_H

#include <cmath>
#include <limits>

namespace accel {

/// vpu.max and vpu.rmax by default: IEEE 754-2019 maximum
/// (arith.maximumf): NaN (the canonical quiet NaN) when either operand is
/// NaN, otherwise the larger, with -0.0 < +0.0. Symmetric in its operands.
inline float maximumF(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<float>::quiet_NaN();
  if (a == b) // -0.0 and +0.0 compare equal: the positive one wins
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

/// vpu.max and vpu.rmax with kFlagMaxNum: IEEE 754-2008 maxNum
/// (arith.maxnumf): a NaN operand is ignored, NaN only when both are;
/// otherwise maximumF.
inline float maxNumF(float a, float b) {
  if (std::isnan(a))
    return std::isnan(b) ? std::numeric_limits<float>::quiet_NaN() : b;
  if (std::isnan(b))
    return a;
  return maximumF(a, b);
}

/// vpu.min by default: IEEE 754-2019 minimum (arith.minimumf): NaN when
/// either operand is NaN, otherwise the smaller, with -0.0 < +0.0.
inline float minimumF(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<float>::quiet_NaN();
  if (a == b) // -0.0 and +0.0 compare equal: the negative one wins
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

/// vpu.min with kFlagMaxNum: IEEE 754-2008 minNum (arith.minnumf): a NaN
/// operand is ignored, NaN only when both are; otherwise minimumF.
inline float minNumF(float a, float b) {
  if (std::isnan(a))
    return std::isnan(b) ? std::numeric_limits<float>::quiet_NaN() : b;
  if (std::isnan(b))
    return a;
  return minimumF(a, b);
}

/// vpu.rsqrt: 1 / sqrt(x) in f32 (two roundings: the square root, then
/// the division). +inf at +-0 (the sign of 1/sqrt(-0) = 1/-0 is -inf),
/// NaN below 0, +0 at +inf.
inline float rsqrtF(float a) { return 1.0f / std::sqrt(a); }

/// vpu.exp, vpu.tanh, vpu.log, vpu.log1p, vpu.erf: the C library's
/// single-precision functions (correctly rounded or within an ulp or two,
/// deterministic on one build), with IEEE special values: exp(-inf) = 0,
/// log(0) = -inf, log(x < 0) = NaN, log1p(-1) = -inf, tanh(+-inf) = +-1,
/// erf(+-inf) = +-1. vpu.abs clears the sign bit (|-0| = +0, |NaN| a NaN).
inline float expF(float a) { return std::exp(a); }
inline float tanhF(float a) { return std::tanh(a); }
inline float logF(float a) { return std::log(a); }
inline float log1pF(float a) { return std::log1p(a); }
inline float erfF(float a) { return std::erf(a); }
inline float absF(float a) { return std::fabs(a); }

/// vpu.expm1: exp(x) - 1 without the cancellation near 0 (the C library's
/// expm1f): expm1(-inf) = -1, expm1(+-0) = +-0. vpu.floor, vpu.ceil,
/// vpu.roundeven (to nearest, ties to even: jnp.round, math.roundeven) and
/// vpu.round (ties away from zero: math.round) are exact; they keep the
/// sign of a zero result (floor(-0.5) = -1, ceil(-0.5) = -0) and return
/// NaN and +-inf unchanged. vpu.copysign: x's magnitude with y's sign bit.
inline float expm1F(float a) { return std::expm1(a); }
inline float floorF(float a) { return std::floor(a); }
inline float ceilF(float a) { return std::ceil(a); }
inline float roundEvenF(float a) { return std::nearbyint(a); }
inline float roundF(float a) { return std::round(a); }
inline float copySignF(float a, float b) { return std::copysign(a, b); }

/// vpu.cmp: whether `x PRED y` holds, PRED in arith.cmpf's numbering (0
/// false, 1 oeq, 2 ogt, 3 oge, 4 olt, 5 ole, 6 one, 7 ord, 8 ueq, 9 ugt,
/// 10 uge, 11 ult, 12 ule, 13 une, 14 uno, 15 true; a larger value, which
/// the simulator refuses at issue, holds). IEEE 754: an ordered predicate
/// is false and an unordered one true when either operand is NaN; -0 == +0.
inline bool compareF(unsigned predicate, float x, float y) {
  bool unordered = std::isnan(x) || std::isnan(y);
  bool ordered = !unordered;
  switch (predicate) {
  case 0:
    return false;
  case 1:
    return ordered && x == y;
  case 2:
    return ordered && x > y;
  case 3:
    return ordered && x >= y;
  case 4:
    return ordered && x < y;
  case 5:
    return ordered && x <= y;
  case 6:
    return ordered && x != y;
  case 7:
    return ordered;
  case 8:
    return unordered || x == y;
  case 9:
    return unordered || x > y;
  case 10:
    return unordered || x >= y;
  case 11:
    return unordered || x < y;
  case 12:
    return unordered || x <= y;
  case 13:
    return unordered || x != y;
  case 14:
    return unordered;
  default:
    return true;
  }
}

} // namespace accel

#endif // ACCEL_SUPPORT_FLOATMAX_H
