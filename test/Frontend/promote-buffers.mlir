// RUN: accel-opt %s -split-input-file --accel-promote-buffers | FileCheck %s
// RUN: accel-opt %s -split-input-file --accel-promote-buffers='vmem-bytes=65536' | FileCheck %s --check-prefix=SMALL

// An intermediate that only linalg ops write and read, through views, moves
// to VMEM (space 1) with every view of it; the arguments stay in HBM.

// CHECK-LABEL: func.func @intermediate
// CHECK-SAME: (%[[A:.*]]: memref<64x128xf32>, %[[OUT:.*]]: memref<64x128xf32>)
// CHECK: %[[T:.*]] = memref.alloc() : memref<64x128xf32, 1>
// CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<64x128xf32>) outs(%[[T]] : memref<64x128xf32, 1>)
// CHECK: %[[E:.*]] = memref.expand_shape %[[T]] {{.*}} into memref<64x4x32xf32, 1>
// CHECK: memref.subview %[[E]][0, 1, 0] [64, 1, 32] [1, 1, 1] : memref<64x4x32xf32, 1> to memref<64x32xf32, strided<[128, 1], offset: 32>, 1>
// CHECK: memref.copy %[[T]], %[[OUT]] : memref<64x128xf32, 1> to memref<64x128xf32>
// A 128 KiB buffer is more than an eighth of 64 KiB: it stays in HBM.
// SMALL-LABEL: func.func @intermediate
// SMALL: memref.alloc() : memref<64x128xf32>{{$}}
func.func @intermediate(%a: memref<64x128xf32>, %out: memref<64x128xf32>) {
  %t = memref.alloc() : memref<64x128xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x128xf32>) outs(%t : memref<64x128xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  %e = memref.expand_shape %t [[0], [1, 2]] output_shape [64, 4, 32] : memref<64x128xf32> into memref<64x4x32xf32>
  %h = memref.subview %e[0, 1, 0] [64, 1, 32] [1, 1, 1] : memref<64x4x32xf32> to memref<64x32xf32, strided<[128, 1], offset: 32>>
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%h : memref<64x32xf32, strided<[128, 1], offset: 32>>)
  memref.copy %t, %out : memref<64x128xf32> to memref<64x128xf32>
  return
}

// -----

// Buffers the pass leaves in HBM: one returned, one passed to a call, one
// read by scalar code, one of i32 elements, one with a dynamic shape.

// CHECK-LABEL: func.func @kept
// CHECK: memref.alloc() : memref<8x128xf32>{{$}}
// CHECK: memref.alloc() : memref<8x128xf32>{{$}}
// CHECK: memref.alloc() : memref<8x128xf32>{{$}}
// CHECK: memref.alloc() : memref<8x128xi32>{{$}}
// CHECK: memref.alloc(%{{.*}}) : memref<?x128xf32>{{$}}
func.func private @callee(memref<8x128xf32>)
func.func @kept(%n: index) -> memref<8x128xf32> {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %ret = memref.alloc() : memref<8x128xf32>
  linalg.fill ins(%z : f32) outs(%ret : memref<8x128xf32>)
  %called = memref.alloc() : memref<8x128xf32>
  linalg.fill ins(%z : f32) outs(%called : memref<8x128xf32>)
  func.call @callee(%called) : (memref<8x128xf32>) -> ()
  %loaded = memref.alloc() : memref<8x128xf32>
  linalg.fill ins(%z : f32) outs(%loaded : memref<8x128xf32>)
  %v = memref.load %loaded[%c0, %c0] : memref<8x128xf32>
  memref.store %v, %ret[%c0, %c0] : memref<8x128xf32>
  %ints = memref.alloc() : memref<8x128xi32>
  %zi = arith.constant 0 : i32
  linalg.fill ins(%zi : i32) outs(%ints : memref<8x128xi32>)
  %dyn = memref.alloc(%n) : memref<?x128xf32>
  linalg.fill ins(%z : f32) outs(%dyn : memref<?x128xf32>)
  return %ret : memref<8x128xf32>
}

// -----

// The budget: an eighth of vmem-bytes for one buffer, a quarter in all,
// in program order. With 64 KiB, each 8 KiB buffer fits alone; the first
// two take the quarter (16 KiB), so the third stays in HBM.

// SMALL-LABEL: func.func @budget
// SMALL: memref.alloc() : memref<16x128xf32, 1>
// SMALL: memref.alloc() : memref<16x128xf32, 1>
// SMALL: memref.alloc() : memref<16x128xf32>{{$}}
func.func @budget(%out: memref<16x128xf32>) {
  %z = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<16x128xf32>
  linalg.fill ins(%z : f32) outs(%a : memref<16x128xf32>)
  %b = memref.alloc() : memref<16x128xf32>
  linalg.fill ins(%z : f32) outs(%b : memref<16x128xf32>)
  %c = memref.alloc() : memref<16x128xf32>
  linalg.fill ins(%z : f32) outs(%c : memref<16x128xf32>)
  linalg.add ins(%a, %b : memref<16x128xf32>, memref<16x128xf32>) outs(%c : memref<16x128xf32>)
  memref.copy %c, %out : memref<16x128xf32> to memref<16x128xf32>
  return
}
