// RUN: accel-opt --allow-unregistered-dialect --accel-bind-shapes="shapes=0=16x64,1=64x32,2=32" -split-input-file %s | FileCheck %s

// A JAX-style dynamic batch: every tensor.dim folds, tensor.empty and the
// linalg ops become static, and so does the result.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%{{.*}}: tensor<16x64xf32>, %{{.*}}: tensor<64x32xf32>, %{{.*}}: tensor<32xf32>) -> tensor<16x32xf32>
// CHECK-NOT: tensor.dim
// CHECK-NOT: tensor.cast
// CHECK: tensor.empty() : tensor<16x32xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<64x32xf32>) outs(%{{.*}} : tensor<16x32xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<32xf32>)
// CHECK: return %{{.*}} : tensor<16x32xf32>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @main(%arg0: tensor<?x64xf32>, %arg1: tensor<64x?xf32>, %arg2: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %d0 = tensor.dim %arg0, %c0 : tensor<?x64xf32>
  %d1 = tensor.dim %arg1, %c1 : tensor<64x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %m = linalg.matmul ins(%arg0, %arg1 : tensor<?x64xf32>, tensor<64x?xf32>) outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%m, %arg2 : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Casts through an unranked tensor (upstream's tensor.cast tests), on static
// arguments: they fold, with no shape given, and the unranked result is
// refined.
// CHECK-LABEL: func.func @unranked
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[X]] : tensor<4x8xf32>
func.func @unranked(%arg0: tensor<4x8xf32>) -> tensor<*xf32> {
  %0 = tensor.cast %arg0 : tensor<4x8xf32> to tensor<*xf32>
  %1 = tensor.cast %0 : tensor<*xf32> to tensor<?x8xf32>
  %2 = tensor.cast %1 : tensor<?x8xf32> to tensor<*xf32>
  return %2 : tensor<*xf32>
}

// -----

// Buffers: a dynamic memref argument takes the shape through a memref.cast.
// CHECK-LABEL: func.func @buffers
// CHECK-SAME: (%[[A:.*]]: memref<16x64xf32>, %{{.*}}: memref<64x32xf32>, %{{.*}}: memref<32xf32>)
// CHECK: memref.cast %[[A]] : memref<16x64xf32> to memref<?x64xf32>
func.func @buffers(%a: memref<?x64xf32>, %b: memref<64x?xf32>, %c: memref<?xf32>) {
  "test.use"(%a) : (memref<?x64xf32>) -> ()
  return
}

// -----

// Private functions (helpers, inlined before this pass runs) and functions
// without dynamic arguments are left alone.
// CHECK-LABEL: func.func private @helper(%{{.*}}: tensor<?xf32>) -> tensor<?xf32>
func.func private @helper(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  return %arg0 : tensor<?xf32>
}
