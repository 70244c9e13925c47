// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-stage-operands))' | FileCheck %s

// Inputs are copied into VMEM (space 1) buffers of their shape; a matmul
// reads its output, which is copied in and back out; an operand used twice
// is staged once; VMEM operands stay.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: memref<8x128xf32, strided<[256, 1], offset: ?>>, %[[B:.*]]: memref<128x128xf32>, %[[C:.*]]: memref<8x128xf32>, %[[V:.*]]: memref<8x128xf32, 1>)
// CHECK-NEXT: %[[VA:.*]] = memref.alloc() : memref<8x128xf32, 1>
// CHECK-NEXT: memref.copy %[[A]], %[[VA]]
// CHECK-NEXT: %[[VB:.*]] = memref.alloc() : memref<128x128xf32, 1>
// CHECK-NEXT: memref.copy %[[B]], %[[VB]]
// CHECK-NEXT: %[[VC:.*]] = memref.alloc() : memref<8x128xf32, 1>
// CHECK-NEXT: memref.copy %[[C]], %[[VC]]
// CHECK-NEXT: linalg.matmul ins(%[[VA]], %[[VB]] : {{.*}}) outs(%[[VC]] : memref<8x128xf32, 1>)
// CHECK-NEXT: memref.copy %[[VC]], %[[C]]
// CHECK-NEXT: %[[W:.*]] = memref.alloc() : memref<128x128xf32, 1>
// CHECK-NEXT: linalg.matmul ins(%[[V]], %[[W]] : {{.*}}) outs(%[[V]] : memref<8x128xf32, 1>)
// CHECK-NEXT: return
func.func @matmul(%a: memref<8x128xf32, strided<[256, 1], offset: ?>>, %b: memref<128x128xf32>, %c: memref<8x128xf32>, %v: memref<8x128xf32, 1>) {
  linalg.matmul ins(%a, %b : memref<8x128xf32, strided<[256, 1], offset: ?>>, memref<128x128xf32>) outs(%c : memref<8x128xf32>)
  %w = memref.alloc() : memref<128x128xf32, 1>
  linalg.matmul ins(%v, %w : memref<8x128xf32, 1>, memref<128x128xf32, 1>) outs(%v : memref<8x128xf32, 1>)
  return
}

// -----

// A fill and an elementwise op that does not read its output: no copy in
// of the output, one copy out; x + x stages x once.
// CHECK-LABEL: func.func @no_read
// CHECK-SAME: (%[[X:.*]]: memref<16xf32>, %[[Y:.*]]: memref<16xf32>)
// CHECK-NEXT: %[[C:.*]] = arith.constant
// CHECK-NEXT: %[[VY:.*]] = memref.alloc() : memref<16xf32, 1>
// CHECK-NEXT: linalg.fill ins(%[[C]] : f32) outs(%[[VY]] : memref<16xf32, 1>)
// CHECK-NEXT: memref.copy %[[VY]], %[[Y]]
// CHECK-NEXT: %[[VX:.*]] = memref.alloc() : memref<16xf32, 1>
// CHECK-NEXT: memref.copy %[[X]], %[[VX]]
// CHECK-NEXT: %[[VY2:.*]] = memref.alloc() : memref<16xf32, 1>
// CHECK-NEXT: linalg.add ins(%[[VX]], %[[VX]] : {{.*}}) outs(%[[VY2]] : memref<16xf32, 1>)
// CHECK-NEXT: memref.copy %[[VY2]], %[[Y]]
func.func @no_read(%x: memref<16xf32>, %y: memref<16xf32>) {
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%y : memref<16xf32>)
  linalg.add ins(%x, %x : memref<16xf32>, memref<16xf32>) outs(%y : memref<16xf32>)
  return
}

// -----

// A contraction reading B transposed (x @ w.T, maps (m, k), (n, k)) and one
// reading A transposed with its inputs in the other order (maps (k, n) and
// (k, m)): each transposed operand is staged as stored, transposed into a
// VMEM buffer in matmul order (linalg.transpose), and the op becomes a
// linalg.matmul of A and B.
// CHECK-LABEL: func.func @transposed_operands
// CHECK-SAME: (%[[X:.*]]: memref<8x64xf32>, %[[W:.*]]: memref<32x64xf32>, %[[C:.*]]: memref<8x32xf32>, %[[U:.*]]: memref<64x8xf32>)
// CHECK: %[[VX:.*]] = memref.alloc() : memref<8x64xf32, 1>
// CHECK-NEXT: memref.copy %[[X]], %[[VX]]
// CHECK-NEXT: %[[VW:.*]] = memref.alloc() : memref<32x64xf32, 1>
// CHECK-NEXT: memref.copy %[[W]], %[[VW]]
// CHECK-NEXT: %[[VC:.*]] = memref.alloc() : memref<8x32xf32, 1>
// CHECK-NEXT: memref.copy %[[C]], %[[VC]]
// CHECK-NEXT: %[[WT:.*]] = memref.alloc() : memref<64x32xf32, 1>
// CHECK-NEXT: linalg.transpose ins(%[[VW]] : memref<32x64xf32, 1>) outs(%[[WT]] : memref<64x32xf32, 1>) permutation = [1, 0]
// CHECK-NEXT: linalg.matmul ins(%[[VX]], %[[WT]] : memref<8x64xf32, 1>, memref<64x32xf32, 1>) outs(%[[VC]] : memref<8x32xf32, 1>)
// CHECK-NEXT: memref.copy %[[VC]], %[[C]]
// CHECK: %[[UT:.*]] = memref.alloc() : memref<8x64xf32, 1>
// CHECK-NEXT: linalg.transpose ins(%{{.*}} : memref<64x8xf32, 1>) outs(%[[UT]] : memref<8x64xf32, 1>) permutation = [1, 0]
// CHECK-NEXT: %[[WT2:.*]] = memref.alloc() : memref<64x32xf32, 1>
// CHECK-NEXT: linalg.transpose
// CHECK-NEXT: linalg.matmul ins(%[[UT]], %[[WT2]] : memref<8x64xf32, 1>, memref<64x32xf32, 1>)
func.func @transposed_operands(%x: memref<8x64xf32>, %w: memref<32x64xf32>, %c: memref<8x32xf32>, %u: memref<64x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x64xf32>, memref<32x64xf32>) outs(%c : memref<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%w, %u : memref<32x64xf32>, memref<64x8xf32>) outs(%c : memref<8x32xf32>) {
  ^bb0(%b: f32, %a: f32, %o: f32):
    %p = arith.mulf %b, %a : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}
