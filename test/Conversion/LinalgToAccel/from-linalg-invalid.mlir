// RUN: accel-opt %s -split-input-file --accel-from-linalg -verify-diagnostics

// What the frontend cannot turn into tiles is one error at the op.

func.func @half(%a: tensor<8x128xf16>) -> tensor<8x128xf16> {
  // expected-error @below {{cannot stage 'memref<8x128xf16>' through VMEM: accel's tiles hold f32 or bf16 (or i32 index tables), not 'f16'}}
  %e = linalg.exp ins(%a : tensor<8x128xf16>) outs(%a : tensor<8x128xf16>) -> tensor<8x128xf16>
  return %e : tensor<8x128xf16>
}

// -----

func.func @dynamic(%a: memref<?x128xf32>, %b: memref<?x128xf32>) {
  // expected-error @below {{cannot convert 'linalg.exp' to accel: its loop bounds are dynamic; tiles have static shapes}}
  linalg.exp ins(%a : memref<?x128xf32>) outs(%b : memref<?x128xf32>)
  return
}

// -----

// Leading dimensions out of order are loops around 2-D tiles (see
// tile-linalg.mlir); the last two swapped are a transpose of each tile,
// which the VPU cannot do.
func.func @swap_last(%a: tensor<2x8x128xf32>) -> tensor<2x128x8xf32> {
  %e = tensor.empty() : tensor<2x128x8xf32>
  // expected-error @below {{cannot convert 'linalg.generic' to accel: operand #0 is read transposed (its indexing map swaps rows and columns)}}
  %t = linalg.transpose ins(%a : tensor<2x8x128xf32>) outs(%e : tensor<2x128x8xf32>) permutation = [0, 2, 1]
  return %t : tensor<2x128x8xf32>
}

// -----

// A rank-0 tensor in an op accel-expand-rank0 does not rewrite: one error at
// that op.
func.func @rank0_insert(%x: tensor<f32>, %v: f32) -> tensor<f32> {
  // expected-error @below {{'tensor.insert' on a rank-0 tensor: accel's tiles have rank 1 or 2, and rank-0 values are supported in linalg.generic, linalg.fill, tensor.empty, tensor.extract and reshapes only}}
  %r = tensor.insert %v into %x[] : tensor<f32>
  return %r : tensor<f32>
}

// -----

// A called function with a rank-0 argument: its signature cannot change
// under its callers.
// expected-error @below {{@scale takes or returns a rank-0 tensor and is called: only an entry function's rank-0 arguments and results become one element}}
func.func private @scale(%x: tensor<8x128xf32>, %s: tensor<f32>) -> tensor<8x128xf32> {
  return %x : tensor<8x128xf32>
}
func.func @caller(%x: tensor<8x128xf32>, %s: tensor<f32>) -> tensor<8x128xf32> {
  %r = func.call @scale(%x, %s) : (tensor<8x128xf32>, tensor<f32>) -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// A contraction with a transposed operand (x @ w.T): named as such.
func.func @transposed_b(%x: tensor<128x256xf32>, %w: tensor<512x256xf32>) -> tensor<128x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x512xf32>) -> tensor<128x512xf32>
  // expected-error @below {{cannot stage a contraction whose operands are not in matmul form ((m, k) x (k, n) -> (m, n)): the MXU computes A x B, and a transposed operand (x @ w.T, an einsum contracting the last dimensions of both sides) is not supported yet; store the operand transposed instead}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<128x256xf32>, tensor<512x256xf32>) outs(%f : tensor<128x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<128x512xf32>
  return %r : tensor<128x512xf32>
}
