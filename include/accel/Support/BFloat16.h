//===- BFloat16.h - bf16 <-> f32 conversions of the VPU and MXU --*- C++
//-*-===//
//
// bfloat16 is the upper half of an IEEE 754 binary32: 1 sign bit, 8
// exponent bits, 7 fraction bits. Widening to f32 is exact; narrowing rounds
// to nearest, ties to even (IEEE 754 roundTiesToEven, the rounding of
// arith.truncf and of llvm::APFloat's rmNearestTiesToEven), keeps
// subnormals, overflows to infinity, and turns any NaN into a quiet NaN of
// the same sign. The simulator, the frontend's constant folding and the
// .npy reader all convert through these two functions (docs/isa.md,
// "Element types").
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_BFLOAT16_H
#define ACCEL_SUPPORT_BFLOAT16_H

#include <cstdint>
#include <cstring>

namespace accel {

/// The f32 whose upper 16 bits are `bits` (exact).
inline float bf16ToF32(uint16_t bits) {
  uint32_t w = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}

/// `f` rounded to bf16 (round to nearest, ties to even; NaN -> quiet NaN).
inline uint16_t f32ToBf16(float f) {
  uint32_t w;
  std::memcpy(&w, &f, 4);
  if ((w & 0x7fffffffu) > 0x7f800000u) // NaN: keep sign and payload top
    return uint16_t((w >> 16) | 0x0040u);
  // Adding 0x7fff plus the lowest kept bit rounds half to even; a carry out
  // of the fraction bumps the exponent (up to infinity) as it should.
  w += 0x7fffu + ((w >> 16) & 1u);
  return uint16_t(w >> 16);
}

/// Widens `n` bf16 values at `in` (unaligned bytes are fine) into `out`.
inline void widenBf16(const void *in, float *out, uint64_t n) {
  const uint8_t *p = static_cast<const uint8_t *>(in);
  for (uint64_t i = 0; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, p + 2 * i, 2);
    out[i] = bf16ToF32(h);
  }
}

/// Rounds `n` f32 values at `in` to bf16 into `out` (unaligned is fine).
inline void narrowToBf16(const float *in, void *out, uint64_t n) {
  uint8_t *p = static_cast<uint8_t *>(out);
  for (uint64_t i = 0; i < n; ++i) {
    uint16_t h = f32ToBf16(in[i]);
    std::memcpy(p + 2 * i, &h, 2);
  }
}

/// `f` rounded to bf16 and widened back to f32.
inline float roundToBf16(float f) { return bf16ToF32(f32ToBf16(f)); }

} // namespace accel

#endif // ACCEL_SUPPORT_BFLOAT16_H
