// RUN: accel-opt %s -split-input-file -verify-diagnostics | FileCheck %s

#vmem = #accel.space<vmem>

// The collectives round-trip.
// CHECK-LABEL: func.func @collectives
// CHECK: accel.all_gather %arg0, %arg1 {algorithm = "ring"} : memref<8x128xf32, #accel.space<vmem>>, memref<32x128xf32, #accel.space<vmem>>
// CHECK: accel.reduce_scatter %arg1, %arg0 : memref<32x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.all_reduce %arg0, %arg0 : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.all_to_all %arg1, %arg1 : memref<32x128xf32, #accel.space<vmem>>, memref<32x128xf32, #accel.space<vmem>>
// CHECK: accel.send %arg0, %arg0 to %arg2 tag 3 : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.recv %arg0 tag 3 : memref<8x128xf32, #accel.space<vmem>>
func.func @collectives(%a: memref<8x128xf32, #vmem>, %b: memref<32x128xf32, #vmem>, %p: index) {
  accel.all_gather %a, %b {algorithm = "ring"} : memref<8x128xf32, #vmem>, memref<32x128xf32, #vmem>
  accel.reduce_scatter %b, %a : memref<32x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.all_reduce %a, %a : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.all_to_all %b, %b : memref<32x128xf32, #vmem>, memref<32x128xf32, #vmem>
  accel.send %a, %a to %p tag 3 : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.recv %a tag 3 : memref<8x128xf32, #vmem>
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @unknown_algorithm(%a: memref<8x128xf32, #vmem>, %b: memref<32x128xf32, #vmem>) {
  // expected-error @below {{unknown algorithm 'tree': expected direct, ring, bidirectional_ring, torus2d or recursive_doubling}}
  accel.all_gather %a, %b {algorithm = "tree"} : memref<8x128xf32, #vmem>, memref<32x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @in_hbm(%a: memref<8x128xf32, #hbm>, %b: memref<32x128xf32, #vmem>) {
  // expected-error @below {{operand 'in' must be in vmem, not hbm}}
  accel.all_gather %a, %b : memref<8x128xf32, #hbm>, memref<32x128xf32, #vmem>
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @not_a_multiple(%a: memref<8x128xf32, #vmem>, %b: memref<20x128xf32, #vmem>) {
  // expected-error @below {{out's 20 rows must be a multiple of in's 8 (one block per chip)}}
  accel.all_gather %a, %b : memref<8x128xf32, #vmem>, memref<20x128xf32, #vmem>
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @columns(%a: memref<8x128xf32, #vmem>, %b: memref<8x64xf32, #vmem>) {
  // expected-error @below {{in has 128 columns but out 64}}
  accel.all_reduce %a, %b : memref<8x128xf32, #vmem>, memref<8x64xf32, #vmem>
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @sum_of_bf16(%a: memref<8x128xbf16, #vmem>, %b: memref<8x128xbf16, #vmem>) {
  // expected-error @below {{sums f32 tiles only}}
  accel.all_reduce %a, %b : memref<8x128xbf16, #vmem>, memref<8x128xbf16, #vmem>
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @send_shapes(%a: memref<8x128xf32, #vmem>, %b: memref<4x128xf32, #vmem>, %p: index) {
  // expected-error @below {{src and dst must have one shape and element type}}
  accel.send %a, %b to %p tag 1 : memref<8x128xf32, #vmem>, memref<4x128xf32, #vmem>
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @groups_not_2d(%a: memref<8x128xf32, #vmem>, %b: memref<8x128xf32, #vmem>) {
  // expected-error @below {{groups must be a non-empty 2-D tensor: one row of chip ids per group}}
  accel.all_reduce %a, %b {groups = dense<[0, 1]> : tensor<2xi64>} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @groups_twice(%a: memref<8x128xf32, #vmem>, %b: memref<8x128xf32, #vmem>) {
  // expected-error @below {{groups name chip 1 more than once}}
  accel.all_reduce %a, %b {groups = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @groups_negative(%a: memref<8x128xf32, #vmem>, %b: memref<8x128xf32, #vmem>) {
  // expected-error @below {{groups name chip -1}}
  accel.all_reduce %a, %b {groups = dense<[[0, -1]]> : tensor<1x2xi64>} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}
