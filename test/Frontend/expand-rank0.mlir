// Rank-0 tensors become one element of rank 1 (Passes.td,
// accel-expand-rank0).
// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-expand-rank0)' -split-input-file | FileCheck %s

// A rank-0 argument and result, a reduction to a scalar, a 0-loop generic
// and a broadcast of the scalars: the signature lists them in accel.rank0
// (argument 1 and result 0, i.e. HBM argument 1 + 2 = 3).
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ONE:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[ELEM:.*]] = affine_map<(d0, d1) -> (0)>
// CHECK-LABEL: func.func @main(
// CHECK-SAME:      %{{.*}}: tensor<16x256xf32>, %[[S:.*]]: tensor<1xf32>) -> (tensor<16x256xf32>, tensor<1xf32>)
// CHECK-SAME:      attributes {accel.rank0 = array<i64: 1, 3>}
// CHECK:         %[[N:.*]] = arith.constant dense<4.096000e+03> : tensor<1xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<1xf32>
// CHECK:         %[[F:.*]] = linalg.fill {{.*}} outs(%[[E]] : tensor<1xf32>) -> tensor<1xf32>
// The sum of the row sums: a row reduction of one row.
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[COL]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:        outs(%[[F]] : tensor<1xf32>)
// The division had no loops: one loop of one iteration.
// CHECK:         %[[MEAN:.*]] = linalg.generic {indexing_maps = [#[[ONE]], #[[ONE]], #[[ONE]]], iterator_types = ["parallel"]}
// CHECK-SAME:        ins(%[[SUM]], %[[N]] : tensor<1xf32>, tensor<1xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[ID]], #[[ELEM]], #[[ELEM]], #[[ID]]]
// CHECK-SAME:        ins(%{{.*}}, %[[MEAN]], %[[S]] : tensor<16x256xf32>, tensor<1xf32>, tensor<1xf32>)
// CHECK:         return %{{.*}}, %[[MEAN]] : tensor<16x256xf32>, tensor<1xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @main(%x: tensor<16x256xf32>, %s: tensor<f32>) -> (tensor<16x256xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant dense<4096.0> : tensor<f32>
  %e0 = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %e1 = tensor.empty() : tensor<16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %rows = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x256xf32>) outs(%f1 : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%rows : tensor<16xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %mean = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%sum, %n : tensor<f32>, tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %e = tensor.empty() : tensor<16x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #scalar, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mean, %s : tensor<16x256xf32>, tensor<f32>, tensor<f32>) outs(%e : tensor<16x256xf32>) {
  ^bb0(%a: f32, %m: f32, %k: f32, %o: f32):
    %q = arith.divf %a, %m : f32
    %r = arith.mulf %q, %k : f32
    linalg.yield %r : f32
  } -> tensor<16x256xf32>
  return %y, %mean : tensor<16x256xf32>, tensor<f32>
}

// -----

// No rank-0 tensor: nothing changes, no attribute.
// CHECK-LABEL: func.func @none(
// CHECK-NOT:     accel.rank0
// CHECK:         return %{{.*}} : tensor<8xf32>
func.func @none(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// Reshapes to and from rank 0 and an extract of the scalar follow.
// CHECK-LABEL: func.func @reshapes(
// CHECK-SAME:      %[[X:.*]]: tensor<1x1xf32>) -> (tensor<1x1xf32>, f32)
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<1x1xf32> into tensor<1xf32>
// CHECK:         %[[I:.*]] = arith.constant 0 : index
// CHECK:         %[[V:.*]] = tensor.extract %[[C]][%[[I]]] : tensor<1xf32>
// CHECK:         tensor.expand_shape %[[C]] {{\[\[}}0, 1]] output_shape [1, 1] : tensor<1xf32> into tensor<1x1xf32>
func.func @reshapes(%x: tensor<1x1xf32>) -> (tensor<1x1xf32>, f32) {
  %c = tensor.collapse_shape %x [] : tensor<1x1xf32> into tensor<f32>
  %v = tensor.extract %c[] : tensor<f32>
  %e = tensor.expand_shape %c [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  return %e, %v : tensor<1x1xf32>, f32
}
