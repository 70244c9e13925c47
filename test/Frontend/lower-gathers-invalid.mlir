// RUN: accel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(accel-lower-gathers))'

// An index computed from float values: no unit holds both.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @float_index(%x: tensor<4xf32>, %t: tensor<9x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{cannot lower this gather: an index of its tensor.extract is computed from float values; compute indices from integer data}}
  %r = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %k = linalg.index 1 : index
    %i = arith.fptosi %a : f32 to i32
    %r = arith.index_cast %i : i32 to index
    %v = tensor.extract %t[%r, %k] : tensor<9x8xf32>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// An i32 value (not a mask) converted to float: the VPU holds no integers.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @int_to_float(%n: tensor<4x8xi32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{cannot compute 'arith.sitofp' on the VPU: its operand of type 'i32' is computed from integer data, which the VPU does not hold (only i1 masks made by the scalar core are supported)}}
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%n : tensor<4x8xi32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: i32, %o: f32):
    %f = arith.sitofp %a : i32 to f32
    linalg.yield %f : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A mask that needs a reduction over more than one element per value.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @reduction(%x: tensor<4x8xf32>, %n: tensor<4x3xi32>) -> tensor<4x8xf32> {
  %true = arith.constant true
  %zero = arith.constant 0 : i32
  %f0 = arith.constant 0.0 : f32
  %eb = tensor.empty() : tensor<4xi1>
  %init = linalg.fill ins(%true : i1) outs(%eb : tensor<4xi1>) -> tensor<4xi1>
  %all = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%n : tensor<4x3xi32>) outs(%init : tensor<4xi1>) {
  ^bb0(%v: i32, %o: i1):
    %p = arith.cmpi sgt, %v, %zero : i32
    %a = arith.andi %o, %p : i1
    linalg.yield %a : i1
  } -> tensor<4xi1>
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{cannot lower this gather: a value read from a reduction over 3 elements}}
  %r = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %all : tensor<4x8xf32>, tensor<4xi1>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %m: i1, %o: f32):
    %s = arith.select %m, %a, %f0 : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Scalar code loads i32 words only: an index read from f32 data.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @f32_index_data(%w: tensor<4xf32>, %t: tensor<9x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{cannot lower this gather: the scalar core reads i32 data only, and this reads 'tensor<4xf32>'}}
  %r = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %f = tensor.extract %w[%i] : tensor<4xf32>
    %n = arith.fptosi %f : f32 to i32
    %r = arith.index_cast %n : i32 to index
    %v = tensor.extract %t[%r, %k] : tensor<9x8xf32>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Dynamic loop bounds: the loop nest needs them (--bind fixes them).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @dynamic(%ids: tensor<?xi32>, %t: tensor<9x8xf32>, %e: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{cannot lower a gather with dynamic loop bounds; pass the shapes (--bind)}}
  %r = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<?xi32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%a: i32, %o: f32):
    %k = linalg.index 1 : index
    %r = arith.index_cast %a : i32 to index
    %v = tensor.extract %t[%r, %k] : tensor<9x8xf32>
    linalg.yield %v : f32
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}
