// accel-opt runs the transform dialect's interpreter with linalg's
// transform ops registered: a matmul tiled by 32 x 64 into two scf.for
// loops over subviews.
// RUN: accel-opt %s --transform-interpreter --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @tiled
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c32
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c64
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<32x128xf32, strided<[128, 1], offset: ?>>, memref<128x64xf32, strided<[256, 1], offset: ?>>)
func.func @tiled(%a: memref<256x128xf32>, %b: memref<128x256xf32>,
                 %c: memref<256x256xf32>) {
  linalg.matmul ins(%a, %b : memref<256x128xf32>, memref<128x256xf32>)
                outs(%c : memref<256x256xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l0, %l1 = transform.structured.tile_using_for %mm tile_sizes [32, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
