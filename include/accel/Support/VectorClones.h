//===- VectorClones.h - Per-CPU copies of hot vector loops ------*- C++ -*-===//
//
// ACCEL_VECTOR_CLONES before a function definition asks GCC for a copy of
// it per x86-64 microarchitecture level (AVX-512, AVX2, and the baseline
// SSE2 every x86-64 has), picked once at load time by the CPU the program
// runs on (an ifunc). The build targets baseline x86-64, so without it a
// loop the compiler vectorizes uses 16-byte vectors even on a CPU with
// 64-byte ones, and 64-bit multiplies (the initial HBM values' splitmix64)
// are not vectorized at all.
//
// Every copy computes the same bits: the build compiles with
// -ffp-contract=off (no fused multiply-add where the source has none) and
// without -ffast-math, so vector widths change only how many elements a
// step handles. Other compilers and targets get the one plain definition.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_VECTORCLONES_H
#define ACCEL_SUPPORT_VECTORCLONES_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&         \
    defined(__linux__)
#define ACCEL_VECTOR_CLONES                                                    \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define ACCEL_VECTOR_CLONES
#endif

#endif // ACCEL_SUPPORT_VECTORCLONES_H
