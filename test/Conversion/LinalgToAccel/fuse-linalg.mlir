// Elementwise consumers of a matmul are tiled and the matmul (with its fill
// and the elementwise ops between) fused into their tile loop; the fused
// intermediates are VMEM tensors (memory space 1).
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-fuse-linalg{tile-rows=32 tile-cols=128}))' | FileCheck %s

// relu(x * w + b): one loop nest over 32 x 128 tiles of the result; each
// tile's fill and matmul write a VMEM tile the generic reads.
// CHECK-LABEL: func.func @bias_relu
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] =
// CHECK-DAG:         %[[A:.*]] = tensor.extract_slice %arg0[%[[I]], 0] [32, 256] [1, 1]
// CHECK-DAG:         %[[B:.*]] = tensor.extract_slice %arg1[0, %[[J]]] [256, 128] [1, 1]
// CHECK:             %[[T:.*]] = bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<32x128xf32>
// CHECK:             %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[T]] : tensor<32x128xf32>)
// CHECK:             %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[Z]] : tensor<32x128xf32>)
// CHECK:             %[[OUT:.*]] = tensor.extract_slice %[[ACC]][%[[I]], %[[J]]] [32, 128] [1, 1]
// CHECK:             %[[R:.*]] = linalg.generic {{.*}} ins(%[[MM]], %{{.*}} : tensor<32x128xf32>, tensor<128xf32>) outs(%[[OUT]] : tensor<32x128xf32>)
// CHECK:             tensor.insert_slice %[[R]] into %[[ACC]][%[[I]], %[[J]]] [32, 128] [1, 1]
// CHECK-NOT:     linalg.matmul
func.func @bias_relu(%x: tensor<64x256xf32>, %w: tensor<256x512xf32>, %b: tensor<512xf32>) -> tensor<64x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x512xf32>) -> tensor<64x512xf32>
  %h = linalg.matmul ins(%x, %w : tensor<64x256xf32>, tensor<256x512xf32>) outs(%f : tensor<64x512xf32>) -> tensor<64x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h, %b : tensor<64x512xf32>, tensor<512xf32>) outs(%e : tensor<64x512xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x512xf32>
  return %r : tensor<64x512xf32>
}

// -----

// A matmul whose result also goes elsewhere (it is returned) is not fused:
// its consumer is left as it is.
// CHECK-LABEL: func.func @shared_result
// CHECK-NOT:     scf.for
// CHECK:         linalg.matmul
// CHECK:         linalg.add
func.func @shared_result(%x: tensor<64x64xf32>, %w: tensor<64x128xf32>, %b: tensor<64x128xf32>) -> (tensor<64x128xf32>, tensor<64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %h = linalg.matmul ins(%x, %w : tensor<64x64xf32>, tensor<64x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.add ins(%h, %b : tensor<64x128xf32>, tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %h, %r : tensor<64x128xf32>, tensor<64x128xf32>
}

// -----

// Tiles that do not divide the op (100 rows in tiles of 32) would give the
// intermediates dynamic shapes: not fused (accel-tile-linalg peels later).
// CHECK-LABEL: func.func @partial_tiles
// CHECK-NOT:     scf.for
// CHECK:         linalg.matmul
// CHECK:         linalg.exp
func.func @partial_tiles(%x: tensor<100x64xf32>, %w: tensor<64x128xf32>) -> tensor<100x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<100x128xf32>) -> tensor<100x128xf32>
  %h = linalg.matmul ins(%x, %w : tensor<100x64xf32>, tensor<64x128xf32>) outs(%f : tensor<100x128xf32>) -> tensor<100x128xf32>
  %r = linalg.exp ins(%h : tensor<100x128xf32>) outs(%e : tensor<100x128xf32>) -> tensor<100x128xf32>
  return %r : tensor<100x128xf32>
}
