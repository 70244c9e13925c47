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

// -----

// A 1x1 convolution's matmul expanded back to N x H x W x F before its
// (fused) batchnorm and ReLU: the 4-D consumer is collapsed to the matmul's
// two dimensions, its per-channel vectors read through (d1), and then fused
// with the matmul like any 2-D consumer; the result is expanded at the end.
// CHECK-LABEL: func.func @expanded_consumer(
// CHECK-SAME:    %[[A:.*]]: tensor<64x8xf32>, %[[B:.*]]: tensor<8x128xf32>, %[[S:.*]]: tensor<128xf32>
// CHECK:         %[[R:.*]] = scf.for
// CHECK:           scf.for
// CHECK:             %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x8xf32>, tensor<8x128xf32>)
// CHECK:             %[[SS:.*]] = tensor.extract_slice %[[S]][%{{.*}}] [128] [1]
// CHECK:             linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[MM]], %[[SS]] : tensor<32x128xf32>, tensor<128xf32>)
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[R]] {{\[}}[0, 1, 2], [3]] output_shape [1, 8, 8, 128] : tensor<64x128xf32> into tensor<1x8x8x128xf32>
// CHECK:         return %[[E]]
func.func @expanded_consumer(%a: tensor<64x8xf32>, %b: tensor<8x128xf32>, %s: tensor<128xf32>) -> tensor<1x8x8x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x8xf32>, tensor<8x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %x = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 8, 8, 128] : tensor<64x128xf32> into tensor<1x8x8x128xf32>
  %e4 = tensor.empty() : tensor<1x8x8x128xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s : tensor<1x8x8x128xf32>, tensor<128xf32>) outs(%e4 : tensor<1x8x8x128xf32>) {
  ^bb0(%in: f32, %sc: f32, %out: f32):
    %p = arith.mulf %in, %sc : f32
    %r = arith.maximumf %p, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x8x128xf32>
  return %y : tensor<1x8x8x128xf32>
}
