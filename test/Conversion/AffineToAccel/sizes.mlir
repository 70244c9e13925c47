// Issue 31: the affine conversions compute element counts and row lengths
// of the user's memrefs in 64 bits; a memref of more than 2^63 - 1 bytes is
// one located error at its definition, not a wrapped tile.
// RUN: accel-opt %s -split-input-file --convert-memory-spaces-to-accel --convert-affine-dma-to-accel -verify-diagnostics
// RUN: accel-opt %s -split-input-file --accel-raise-affine-loops -verify-diagnostics

// expected-error @+1 {{argument 0 of type 'memref<1152921504606846976x16xf32>' holds 1152921504606846976 × 16 × 4 bytes = 73786976294838206464 bytes (2^66), more than the 2^63 - 1 bytes a buffer can have}}
func.func @dma_from_huge(%A: memref<1152921504606846976x16xf32>) {
  %buf = memref.alloc() : memref<32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 32 : index
  affine.dma_start %A[%c0, %c0], %buf[%c0], %tag[%c0], %n : memref<1152921504606846976x16xf32>, memref<32xf32, 1>, memref<1xi32>
  affine.dma_wait %tag[%c0], %n : memref<1xi32>
  return
}

// -----

func.func @alloc_huge() {
  // expected-error @+1 {{result 0 of 'memref.alloc' of type 'memref<4294967296x4294967296xi32>' holds 4294967296 × 4294967296 × 4 bytes = 73786976294838206464 bytes (2^66)}}
  %tag = memref.alloc() : memref<4294967296x4294967296xi32>
  return
}
