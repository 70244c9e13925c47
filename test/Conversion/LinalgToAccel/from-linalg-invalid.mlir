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

func.func @swap_leading(%a: tensor<2x8x128xf32>) -> tensor<8x2x128xf32> {
  %e = tensor.empty() : tensor<8x2x128xf32>
  // expected-error @below {{cannot stage an op with 3 loops: accel's tiles have rank 1 or 2, and its leading loops could not be folded into rows (an operand reads them out of order, or one is a reduction)}}
  %t = linalg.transpose ins(%a : tensor<2x8x128xf32>) outs(%e : tensor<8x2x128xf32>) permutation = [1, 0, 2]
  return %t : tensor<8x2x128xf32>
}

// -----

// A rank-0 value that is not a constant: a reduction to a scalar (a loss),
// refused at the first op that writes it (here the fill of its initial
// value), with what to do instead.
func.func @reduce_to_scalar(%a: tensor<64xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  // expected-error @below {{cannot hold a rank-0 value ('memref<f32, #accel.space<vmem>>') in VMEM for this op: accel's tiles have rank 1 or 2, and only rank-0 constants are supported (they fold into the ops that read them); pass or compute the value as a 1-element tensor (tensor<1xf32>) instead}}
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%a : tensor<64xf32>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A rank-0 argument read by every iteration: refused at the op that reads
// it (a rank-0 constant would fold, test/Conversion/LinalgToAccel/fold-scalars.mlir).
func.func @rank0_argument(%x: tensor<8x128xf32>, %s: tensor<f32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  // expected-error @below {{cannot hold a rank-0 value ('memref<f32, #accel.space<vmem>>') in VMEM for this op}}
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<8x128xf32>, tensor<f32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%y: f32, %a: f32, %o: f32):
    %r = arith.mulf %y, %a : f32
    linalg.yield %r : f32
  } -> tensor<8x128xf32>
  return %m : tensor<8x128xf32>
}
