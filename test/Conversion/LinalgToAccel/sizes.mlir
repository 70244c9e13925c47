// RUN: accel-opt %s -split-input-file --accel-from-linalg -verify-diagnostics
// RUN: not accel-replay run %s -o %t 2>&1 | FileCheck %s --check-prefix=RUN-ERR
// RUN: not test -e %t

// Issue 31: the frontend's shape arithmetic (tile footprints, views of
// affine DMAs, element counts) is done in 64 bits on the user's dimensions:
// a shape of 2^66 bytes would wrap. Every such memref or tensor is one
// located error, before any of it (accel-replay: before the pipeline).

// RUN-ERR: sizes.mlir:[[@LINE+3]]:17: error: argument 0 of type 'memref<4294967296x4294967296xf32>' holds 4294967296 × 4294967296 × 4 bytes = 73786976294838206464 bytes (2^66), more than the 2^63 - 1 bytes a buffer can have
// expected-error @+2 {{argument 0 of type 'memref<4294967296x4294967296xf32>' holds 4294967296 × 4294967296 × 4 bytes = 73786976294838206464 bytes (2^66), more than the 2^63 - 1 bytes a buffer can have}}
// expected-error @+1 {{argument 1 of type 'memref<4294967296x4294967296xf32>' holds}}
func.func @copy(%a: memref<4294967296x4294967296xf32>, %b: memref<4294967296x4294967296xf32>) {
  linalg.copy ins(%a : memref<4294967296x4294967296xf32>) outs(%b : memref<4294967296x4294967296xf32>)
  return
}

// -----

// Tensors: bufferized first (function boundaries), then refused.
// expected-error @+2 {{argument 0 of type 'memref<1152921504606846976x16xf32>' holds 1152921504606846976 × 16 × 4 bytes = 73786976294838206464 bytes (2^66)}}
// expected-error @+1 {{argument 1 of type 'memref<1152921504606846976x16xf32>' holds}}
func.func @exp(%a: tensor<1152921504606846976x16xf32>) -> tensor<1152921504606846976x16xf32> {
  %e = tensor.empty() : tensor<1152921504606846976x16xf32>
  %0 = linalg.exp ins(%a : tensor<1152921504606846976x16xf32>) outs(%e : tensor<1152921504606846976x16xf32>) -> tensor<1152921504606846976x16xf32>
  return %0 : tensor<1152921504606846976x16xf32>
}

// -----

// An affine nest: refused before the raise.
// expected-error @+2 {{argument 0 of type 'memref<4294967296x4294967296xbf16>' holds 4294967296 × 4294967296 × 2 bytes = 36893488147419103232 bytes (2^65)}}
// expected-error @+1 {{argument 1 of type 'memref<4294967296x4294967296xbf16>' holds}}
func.func @affine(%a: memref<4294967296x4294967296xbf16>, %b: memref<4294967296x4294967296xbf16>) {
  affine.for %i = 0 to 4294967296 {
    affine.for %j = 0 to 4294967296 {
      %v = affine.load %a[%i, %j] : memref<4294967296x4294967296xbf16>
      affine.store %v, %b[%i, %j] : memref<4294967296x4294967296xbf16>
    }
  }
  return
}
