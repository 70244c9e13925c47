// Scalar, splat and rank-0 constants read by linalg ops become scalars of
// their bodies (Passes.td, accel-fold-scalars).
// RUN: accel-opt %s --pass-pipeline='builtin.module(func.func(accel-fold-scalars))' -split-input-file | FileCheck %s

// A rank-0 constant broadcast by a generic with no other input (the
// StableHLO conversion's form of a scalar): the broadcast is fused into its
// consumer, which reads the scalar.
// CHECK-LABEL: func.func @rank0_broadcast(
// CHECK-SAME:      %[[X:.*]]: tensor<8x128xf32>
// CHECK-NOT:     tensor<f32>
// CHECK:         %[[C:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:         linalg.generic
// CHECK-SAME:        ins(%[[X]] : tensor<8x128xf32>)
// CHECK:           arith.mulf %{{.*}}, %[[C]] : f32
// CHECK-NOT:     linalg.generic
// CHECK:         return
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @rank0_broadcast(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %c = arith.constant dense<0.5> : tensor<f32>
  %e = tensor.empty() : tensor<8x128xf32>
  %b = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<f32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8x128xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%b, %x : tensor<8x128xf32>, tensor<8x128xf32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: f32, %y: f32, %o: f32):
    %r = arith.mulf %a, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x128xf32>
  return %m : tensor<8x128xf32>
}

// -----

// A broadcast of a constant read by two ops is fused into both (it
// recomputes a constant, never a load), and is gone.
// CHECK-LABEL: func.func @two_users(
// CHECK-SAME:      %[[X:.*]]: tensor<8x128xf32>
// CHECK:         %[[C:.*]] = arith.constant 3.000000e+00 : f32
// CHECK:         linalg.generic
// CHECK-SAME:        ins(%[[X]] : tensor<8x128xf32>)
// CHECK:           arith.mulf %{{.*}}, %[[C]] : f32
// CHECK:         linalg.generic
// CHECK-SAME:        ins(%[[X]] : tensor<8x128xf32>)
// CHECK:           arith.subf %{{.*}}, %[[C]] : f32
// CHECK-NOT:     linalg.generic
// CHECK:         return
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @two_users(%x: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  %c = arith.constant dense<3.0> : tensor<f32>
  %e = tensor.empty() : tensor<8x128xf32>
  %b = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<f32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8x128xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%b, %x : tensor<8x128xf32>, tensor<8x128xf32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: f32, %y: f32, %o: f32):
    %r = arith.mulf %a, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x128xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<8x128xf32>, tensor<8x128xf32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%y: f32, %a: f32, %o: f32):
    %r = arith.subf %y, %a : f32
    linalg.yield %r : f32
  } -> tensor<8x128xf32>
  return %m, %s : tensor<8x128xf32>, tensor<8x128xf32>
}

// -----

// A splat tensor constant read as a full tensor is a scalar too.
// CHECK-LABEL: func.func @splat(
// CHECK-NOT:     dense<
// CHECK:         %[[C:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         linalg.generic
// CHECK-SAME:        ins(%{{.*}} : tensor<8x128xf32>)
// CHECK:           arith.addf %{{.*}}, %[[C]] : f32
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @splat(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %c = arith.constant dense<2.0> : tensor<8x128xf32>
  %e = tensor.empty() : tensor<8x128xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %c : tensor<8x128xf32>, tensor<8x128xf32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%y: f32, %a: f32, %o: f32):
    %r = arith.addf %y, %a : f32
    linalg.yield %r : f32
  } -> tensor<8x128xf32>
  return %m : tensor<8x128xf32>
}

// -----

// A rank-0 value that is not a constant (here an argument) is left as it
// is: the op still reads it through the map with no results.
// CHECK-LABEL: func.func @rank0_argument(
// CHECK-SAME:      %[[X:.*]]: tensor<8x128xf32>, %[[S:.*]]: tensor<f32>
// CHECK:         linalg.generic
// CHECK-SAME:        ins(%[[X]], %[[S]] : tensor<8x128xf32>, tensor<f32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @rank0_argument(%x: tensor<8x128xf32>, %s: tensor<f32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  %m = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<8x128xf32>, tensor<f32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%y: f32, %a: f32, %o: f32):
    %r = arith.mulf %y, %a : f32
    linalg.yield %r : f32
  } -> tensor<8x128xf32>
  return %m : tensor<8x128xf32>
}

// -----

// A mask (i1) made by one generic and read by another is computed in the
// reader's body: no tile holds i1. (jax.nn.elu's where(x > 0, x, ...).)
// CHECK-LABEL: func.func @mask_fused
// CHECK-NOT:     tensor<32x64xi1>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%arg0, %arg1 : tensor<32x64xf32>, tensor<32x64xf32>)
// CHECK:           %[[M:.*]] = arith.cmpf ogt
// CHECK:           arith.select %[[M]]
// CHECK-NOT:     linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mask_fused(%x: tensor<32x64xf32>, %y: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xi1>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<32x64xf32>) outs(%e : tensor<32x64xi1>) {
  ^bb0(%a: f32, %o: i1):
    %c = arith.cmpf ogt, %a, %zero : f32
    linalg.yield %c : i1
  } -> tensor<32x64xi1>
  %f = tensor.empty() : tensor<32x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %x, %y : tensor<32x64xi1>, tensor<32x64xf32>, tensor<32x64xf32>) outs(%f : tensor<32x64xf32>) {
  ^bb0(%c: i1, %a: f32, %b: f32, %o: f32):
    %s = arith.select %c, %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}
