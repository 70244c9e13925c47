// Without accel memory spaces the conversion cannot tell HBM from VMEM.
// RUN: accel-opt %s --convert-affine-dma-to-accel -verify-diagnostics

func.func @no_spaces(%A: memref<64xf32>) {
  %buf = memref.alloc() : memref<32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 32 : index
  // expected-error @+1 {{copies between memrefs without accel memory spaces: run --convert-memory-spaces-to-accel first}}
  affine.dma_start %A[%c0], %buf[%c0], %tag[%c0], %n : memref<64xf32>, memref<32xf32, 1>, memref<1xi32>
  affine.dma_wait %tag[%c0], %n : memref<1xi32>
  return
}
