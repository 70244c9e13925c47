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

// -----

// Batchnorm as the StableHLO conversion writes it (a 1-D scale broadcast to
// 1x1x1xC, then to the full shape, a multiply, a bias add, a ReLU): the
// chain is one generic; the broadcasts are read through the composed maps
// ((d3) on the 1-D vectors) and no intermediate tensor is left.
// CHECK-DAG:   #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG:   #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @elementwise_chain(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4x4x8xf32>, %[[S:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[C]], #[[C]], #[[ID]]], {{.*}}} ins(%[[X]], %[[S]], %[[B]] : tensor<1x4x4x8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:           arith.maximumf
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[Y]]
#v = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#u = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>
func.func @elementwise_chain(%x: tensor<1x4x4x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<1x4x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x1x1x8xf32>
  %e = tensor.empty() : tensor<1x4x4x8xf32>
  %s1 = linalg.generic {indexing_maps = [#v, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<8xf32>) outs(%e1 : tensor<1x1x1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x1x1x8xf32>
  %sb = linalg.generic {indexing_maps = [#u, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s1 : tensor<1x1x1x8xf32>) outs(%e : tensor<1x4x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x4x8xf32>
  %bb = linalg.generic {indexing_maps = [#v, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<8xf32>) outs(%e : tensor<1x4x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x4x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %sb : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) outs(%e : tensor<1x4x4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%m, %bb : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) outs(%e : tensor<1x4x4x8xf32>) {
  ^bb0(%p: f32, %c: f32, %out: f32):
    %r = arith.addf %p, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x4x4x8xf32>) outs(%e : tensor<1x4x4x8xf32>) {
  ^bb0(%p: f32, %out: f32):
    %r = arith.maximumf %p, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4x8xf32>
  return %y : tensor<1x4x4x8xf32>
}

// -----

// What is not fused: an elementwise result read twice (%e2: computed once,
// not per reader), an op read only by a reduction (the row sum keeps its
// input: %ex stays), and an accumulation (its body reads its init) into
// its reader.
// CHECK-LABEL: func.func @not_fused(
// CHECK:         %[[E2:.*]] = linalg.generic
// CHECK:           arith.mulf
// CHECK:         %[[P:.*]] = linalg.generic {{.*}} ins(%[[E2]] : tensor<4x8xf32>)
// CHECK:           arith.addf
// CHECK:         %[[Q:.*]] = linalg.generic {{.*}} ins(%[[E2]] : tensor<4x8xf32>)
// CHECK:           arith.subf
// CHECK:         %[[EX:.*]] = linalg.generic
// CHECK:           math.exp
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[EX]] : tensor<4x8xf32>)
// CHECK:         %[[ACC:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK:           arith.addf %{{.*}}, %{{.*}} : f32
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : tensor<4x8xf32>)
// CHECK:           math.tanh
// CHECK:         return %[[P]], %[[Q]], %[[SUM]]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @not_fused(%x: tensor<4x8xf32>, %init: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %e2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%e2 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %q = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%e2 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.subf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %ex = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %z = tensor.empty() : tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<4x8xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %acc = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%acc : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %p, %q, %sum, %t : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>
}

// -----

// Attention's heads: a transpose of leading dimensions (64 x 4 x 32 rows
// split into 4 heads, the lanes kept last) is read in place by the
// contraction after it, and by a batch matmul (made a generic for it); a
// batch matmul whose only reader puts the heads back writes in that layout
// (its output map composed with the inverse permutation, into a fill of
// the transposed shape). A transpose the function returns stays, and so
// does one that moves the lanes read by a reduction.
// CHECK-DAG:   #[[QS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d3)>
// CHECK-DAG:   #[[VT:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d0, d2)>
// CHECK-DAG:   #[[OB:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2)>
// CHECK-LABEL: func.func @heads(
// CHECK-SAME:    %[[Q:.*]]: tensor<8x2x4xf32>, %[[K:.*]]: tensor<2x8x4xf32>, %[[V:.*]]: tensor<8x2x4xf32>, %[[P:.*]]: tensor<2x8x8xf32>
// CHECK:         %[[S:.*]] = linalg.generic {indexing_maps = [#[[QS]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[Q]], %[[K]] : tensor<8x2x4xf32>, tensor<2x8x4xf32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<8x2x4xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<8x2x4xf32>)
// CHECK:         %[[O:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[VT]], #[[OB]]], {{.*}}} ins(%[[P]], %[[V]] : tensor<2x8x8xf32>, tensor<8x2x4xf32>) outs(%[[F]] : tensor<8x2x4xf32>)
// CHECK:         %[[KEPT:.*]] = linalg.generic {{.*}} ins(%[[Q]] : tensor<8x2x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>)
// CHECK:         %[[LANES:.*]] = linalg.generic {{.*}} ins(%[[Q]] : tensor<8x2x4xf32>) outs(%{{.*}} : tensor<8x4x2xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[LANES]] : tensor<8x4x2xf32>)
// CHECK-NOT:     linalg.batch_matmul
// CHECK:         return %[[S]], %[[O]], %[[KEPT]]
#qk_q = affine_map<(h, s, t, d) -> (h, s, d)>
#qk_k = affine_map<(h, s, t, d) -> (h, t, d)>
#qk_o = affine_map<(h, s, t, d) -> (h, s, t)>
#split = affine_map<(h, s, d) -> (s, h, d)>
#lanes = affine_map<(a, b, c) -> (a, c, b)>
#id3 = affine_map<(h, s, d) -> (h, s, d)>
func.func @heads(%q: tensor<8x2x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<8x2x4xf32>, %p: tensor<2x8x8xf32>) -> (tensor<2x8x8xf32>, tensor<8x2x4xf32>, tensor<2x8x4xf32>, tensor<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x4xf32>
  %qh = linalg.generic {indexing_maps = [#split, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q : tensor<8x2x4xf32>) outs(%e : tensor<2x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x4xf32>
  %es = tensor.empty() : tensor<2x8x8xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%qh, %k : tensor<2x8x4xf32>, tensor<2x8x4xf32>) outs(%fs : tensor<2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %vh = linalg.generic {indexing_maps = [#split, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v : tensor<8x2x4xf32>) outs(%e : tensor<2x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x4xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %o = linalg.batch_matmul ins(%p, %vh : tensor<2x8x8xf32>, tensor<2x8x4xf32>) outs(%fo : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %eb = tensor.empty() : tensor<8x2x4xf32>
  %back = linalg.generic {indexing_maps = [#split, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%o : tensor<2x8x4xf32>) outs(%eb : tensor<8x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x2x4xf32>
  %kept = linalg.generic {indexing_maps = [#split, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q : tensor<8x2x4xf32>) outs(%e : tensor<2x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x4xf32>
  %el = tensor.empty() : tensor<8x4x2xf32>
  %lt = linalg.generic {indexing_maps = [#lanes, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q : tensor<8x2x4xf32>) outs(%el : tensor<8x4x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x4x2xf32>
  %er = tensor.empty() : tensor<8x4xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<8x4xf32>) -> tensor<8x4xf32>
  %ex = linalg.generic {indexing_maps = [#id3, affine_map<(a, b, c) -> (a, b)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%lt : tensor<8x4x2xf32>) outs(%fr : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = arith.addf %in, %out : f32
    linalg.yield %x : f32
  } -> tensor<8x4xf32>
  return %s, %back, %kept, %ex : tensor<2x8x8xf32>, tensor<8x2x4xf32>, tensor<2x8x4xf32>, tensor<8x4xf32>
}

// -----

// JAX's batchnorm vectors: 64 expanded to 1x1x1x64 and read through
// (d0, 0, 0, d3) (d0 a loop of one iteration) are read from the vector
// through (d3); an expand that splits a dimension (64 into 8 x 8) stays.
// CHECK-DAG:   #[[V:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @unexpanded(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4x4x64xf32>, %[[S:.*]]: tensor<64xf32>
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[V]], #{{.*}}], {{.*}}} ins(%[[X]], %[[S]] : tensor<1x4x4x64xf32>, tensor<64xf32>)
// CHECK:         %[[KEPT:.*]] = tensor.expand_shape %[[S]]
// CHECK:         linalg.generic {{.*}} ins(%[[KEPT]] : tensor<8x8xf32>)
func.func @unexpanded(%x: tensor<1x4x4x64xf32>, %s: tensor<64xf32>) -> (tensor<1x4x4x64xf32>, tensor<8x8xf32>) {
  %v = tensor.expand_shape %s [[0, 1, 2, 3]] output_shape [1, 1, 1, 64] : tensor<64xf32> into tensor<1x1x1x64xf32>
  %e = tensor.empty() : tensor<1x4x4x64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %v : tensor<1x4x4x64xf32>, tensor<1x1x1x64xf32>) outs(%e : tensor<1x4x4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4x64xf32>
  %w = tensor.expand_shape %s [[0, 1]] output_shape [8, 8] : tensor<64xf32> into tensor<8x8xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<8x8xf32>) outs(%e2 : tensor<8x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %y, %z : tensor<1x4x4x64xf32>, tensor<8x8xf32>
}

// -----

// A broadcast that is also the init of an elementwise op (an accumulation
// into it) is fused into its other reader, which reads the vector, and
// stays for the init; no op gets a second result.
// CHECK-LABEL: func.func @broadcast_as_init(
// CHECK:         %[[B:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK:         %[[M:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<4x8xf32>) {
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x8xf32>) outs(%[[B]] : tensor<4x8xf32>) {
// CHECK:         return %[[M]], %[[A]] : tensor<4x8xf32>, tensor<4x8xf32>
func.func @broadcast_as_init(%x: tensor<4x8xf32>, %v: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v : tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %acc = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%b : tensor<4x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %m, %acc : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A causal mask (an i1 tensor from iotas, broadcast over the heads) is
// computed again in its reader, the select; the select's f32 result, read
// by both the max and the subtraction of a softmax, is computed once. (The
// mask, still read by its broadcast when fused into the select, is kept as
// a second, i1 result of the select for a while: that result is no reason
// to compute the select again in each of its readers.)

// CHECK-LABEL: func.func @masked_scores(
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x8x8xf32>)
// CHECK-DAG: linalg.index 1
// CHECK-DAG: linalg.index 2
// CHECK: arith.cmpi sge
// CHECK: arith.select
// CHECK: %[[M:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[S]] : tensor<2x8x8xf32>)
// CHECK-NOT: linalg.index
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}} ins(%[[S]], %[[M]]
// CHECK-NOT: linalg.index
// CHECK: arith.subf
func.func @masked_scores(%scores: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
  %zero = arith.constant dense<0> : tensor<i32>
  %ninf = arith.constant dense<0xFF800000> : tensor<f32>
  %ninf_s = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<8x8xi32>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e0 : tensor<8x8xi32>) {
  ^bb0(%out: i32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    linalg.yield %c : i32
  } -> tensor<8x8xi32>
  %e1 = tensor.empty() : tensor<8x8xi32>
  %cols = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e1 : tensor<8x8xi32>) {
  ^bb0(%out: i32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    linalg.yield %c : i32
  } -> tensor<8x8xi32>
  %e2 = tensor.empty() : tensor<8x8xi1>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%rows, %cols : tensor<8x8xi32>, tensor<8x8xi32>) outs(%e2 : tensor<8x8xi1>) {
  ^bb0(%a: i32, %b: i32, %out: i1):
    %c = arith.cmpi sge, %a, %b : i32
    linalg.yield %c : i1
  } -> tensor<8x8xi1>
  %e3 = tensor.empty() : tensor<2x8x8xi1>
  %mask3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mask : tensor<8x8xi1>) outs(%e3 : tensor<2x8x8xi1>) {
  ^bb0(%in: i1, %out: i1):
    linalg.yield %in : i1
  } -> tensor<2x8x8xi1>
  %e4 = tensor.empty() : tensor<2x8x8xf32>
  %fill = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ninf : tensor<f32>) outs(%e4 : tensor<2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x8xf32>
  %e5 = tensor.empty() : tensor<2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mask3, %scores, %fill : tensor<2x8x8xi1>, tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%e5 : tensor<2x8x8xf32>) {
  ^bb0(%m: i1, %s: f32, %f: f32, %out: f32):
    %r = arith.select %m, %s, %f : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %e6 = tensor.empty() : tensor<2x8xf32>
  %init = linalg.fill ins(%ninf_s : f32) outs(%e6 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%masked : tensor<2x8x8xf32>) outs(%init : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %e7 = tensor.empty() : tensor<2x8x8xf32>
  %shifted = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%masked, %max : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%e7 : tensor<2x8x8xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %r = arith.subf %in, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  return %shifted : tensor<2x8x8xf32>
}
