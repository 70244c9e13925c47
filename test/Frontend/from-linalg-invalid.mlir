// RUN: accel-opt %s -split-input-file --accel-from-linalg -verify-diagnostics

// What the frontend cannot turn into tiles is one error at the op.

func.func @half(%a: tensor<8x128xf16>) -> tensor<8x128xf16> {
  // expected-error @below {{cannot stage 'memref<8x128xf16>' through VMEM: accel's tiles hold f32 or bf16 (or i32 index tables), not 'f16'}}
  %e = linalg.exp ins(%a : tensor<8x128xf16>) outs(%a : tensor<8x128xf16>) -> tensor<8x128xf16>
  return %e : tensor<8x128xf16>
}

// -----

// A size no argument's shape fixes (accel-bind-shapes fixes those).
func.func @dynamic(%a: memref<64x128xf32>, %b: memref<64x128xf32>, %n: index) {
  %sa = memref.subview %a[0, 0] [%n, 128] [1, 1] : memref<64x128xf32> to memref<?x128xf32, strided<[128, 1]>>
  %sb = memref.subview %b[0, 0] [%n, 128] [1, 1] : memref<64x128xf32> to memref<?x128xf32, strided<[128, 1]>>
  // expected-error @below {{cannot convert 'linalg.exp' to accel: its loop bounds are dynamic; tiles have static shapes}}
  linalg.exp ins(%sa : memref<?x128xf32, strided<[128, 1]>>) outs(%sb : memref<?x128xf32, strided<[128, 1]>>)
  return
}

// -----

// A dynamic argument nothing binds: one error naming it.
// expected-error @below {{argument 0 ('memref<?x128xf32>') has a dynamic dimension 0 and nothing fixes it: give its contents (accel-replay --input 0=FILE.npy) or its shape (--bind 0=Nx128)}}
func.func @dynamic_argument(%a: memref<?x128xf32>, %b: memref<?x128xf32>) {
  linalg.exp ins(%a : memref<?x128xf32>) outs(%b : memref<?x128xf32>)
  return
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

// A recursive function with a rank-0 argument: the inliner leaves its
// calls, and its signature cannot change under its callers.
// expected-error @below {{@scale takes or returns a rank-0 tensor and is called: only an entry function's rank-0 arguments and results become one element}}
func.func private @scale(%x: tensor<8x128xf32>, %s: tensor<f32>) -> tensor<8x128xf32> {
  %r = func.call @scale(%x, %s) : (tensor<8x128xf32>, tensor<f32>) -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}
func.func @caller(%x: tensor<8x128xf32>, %s: tensor<f32>) -> tensor<8x128xf32> {
  %r = func.call @scale(%x, %s) : (tensor<8x128xf32>, tensor<f32>) -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// A contraction reading B transposed with a dynamic M: named as dynamic,
// not by its loop count.
func.func @dynamic_transposed(%xs: memref<64x64xf32>, %w: memref<32x64xf32>, %cs: memref<64x32xf32>, %n: index) {
  %x = memref.subview %xs[0, 0] [%n, 64] [1, 1] : memref<64x64xf32> to memref<?x64xf32, strided<[64, 1]>>
  %c = memref.subview %cs[0, 0] [%n, 32] [1, 1] : memref<64x32xf32> to memref<?x32xf32, strided<[32, 1]>>
  // expected-error @below {{cannot convert 'linalg.generic' to accel: its loop bounds are dynamic; tiles have static shapes}}
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x64xf32, strided<[64, 1]>>, memref<32x64xf32>) outs(%c : memref<?x32xf32, strided<[32, 1]>>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A negative pad (a crop) is refused at the pad, not miscomputed.
func.func @crop(%x: tensor<1x6x6x2xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x3x4x4xf32> {
  %z = arith.constant 0.0 : f32
  // expected-error @below {{cannot convert a 'tensor.pad' with a negative pad (-1, a crop) to accel: write the crop as a 'tensor.extract_slice'}}
  %p = tensor.pad %x low[0, -1, 0, 0] high[0, 0, 0, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x6x6x2xf32> to tensor<1x5x6x2xf32>
  %e = tensor.empty() : tensor<1x3x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x5x6x2xf32>, tensor<3x3x2x4xf32>) outs(%f : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}
