// RUN: accel-opt %s -split-input-file --accel-from-linalg -verify-diagnostics
// RUN: not accel-opt %s -split-input-file --accel-from-linalg 2>&1 | FileCheck %s --check-prefix=EXIT

// The frontend hands upstream's helpers (softmax's decomposition,
// buffer-results-to-out-params) only what they support (issue 31): each
// of these crashed inside upstream; now each is one located error.
// EXIT-COUNT-7: error:

func.func @softmax_i32(%x: tensor<8x128xi32>) -> tensor<8x128xi32> {
  %init = tensor.empty() : tensor<8x128xi32>
  // expected-error @below {{'linalg.softmax' on i32 elements: only floating-point softmax is supported}}
  %y = linalg.softmax dimension(1) ins(%x : tensor<8x128xi32>) outs(%init : tensor<8x128xi32>) -> tensor<8x128xi32>
  return %y : tensor<8x128xi32>
}

// -----

func.func @softmax_index(%x: tensor<4x2x8x16x128xindex>) -> tensor<4x2x8x16x128xindex> {
  %init = tensor.empty() : tensor<4x2x8x16x128xindex>
  // expected-error @below {{'linalg.softmax' on index elements: only floating-point softmax is supported}}
  %y = linalg.softmax dimension(4) ins(%x : tensor<4x2x8x16x128xindex>) outs(%init : tensor<4x2x8x16x128xindex>) -> tensor<4x2x8x16x128xindex>
  return %y : tensor<4x2x8x16x128xindex>
}

// -----

func.func @softmax_complex(%x: tensor<16x128xcomplex<f32>>, %init: tensor<16x128xcomplex<f32>>) -> tensor<16x128xcomplex<f32>> {
  // expected-error @below {{'linalg.softmax' on complex<f32> elements: only floating-point softmax is supported}}
  %y = linalg.softmax dimension(1) ins(%x : tensor<16x128xcomplex<f32>>) outs(%init : tensor<16x128xcomplex<f32>>) -> tensor<16x128xcomplex<f32>>
  return %y : tensor<16x128xcomplex<f32>>
}

// -----

func.func @softmax_vector(%x: tensor<8x128xvector<4xf32>>) -> tensor<8x128xvector<4xf32>> {
  %init = tensor.empty() : tensor<8x128xvector<4xf32>>
  // expected-error @below {{'linalg.softmax' on vector<4xf32> elements: only floating-point softmax is supported}}
  %y = linalg.softmax dimension(1) ins(%x : tensor<8x128xvector<4xf32>>) outs(%init : tensor<8x128xvector<4xf32>>) -> tensor<8x128xvector<4xf32>>
  return %y : tensor<8x128xvector<4xf32>>
}

// -----

// On buffers upstream's decomposition has no result to give: an i32
// softmax on buffers crashed, an f32 one failed without a reason.
func.func @softmax_buffers(%x: memref<8x128xi32>, %y: memref<8x128xi32>) {
  // expected-error @below {{'linalg.softmax' on buffers: only its form on tensors is decomposed (write it on tensors, before bufferization)}}
  linalg.softmax dimension(1) ins(%x : memref<8x128xi32>) outs(%y : memref<8x128xi32>)
  return
}

// -----

// One tensor returned twice bufferizes to one allocation returned twice,
// which buffer-results-to-out-params (hoisting static allocations) freed
// and then used.
func.func @same_result_twice(%a: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  %init = tensor.empty() : tensor<8x128xf32>
  %y = linalg.exp ins(%a : tensor<8x128xf32>) outs(%init : tensor<8x128xf32>) -> tensor<8x128xf32>
  // expected-error @below {{returns the same buffer as results 0 and 1: each result becomes its own output argument, and one allocation cannot be two (return it once, or return a copy)}}
  return %y, %y : tensor<8x128xf32>, tensor<8x128xf32>
}

// -----

func.func @same_alloc_twice(%a: memref<8x128xf32>) -> (memref<8x128xf32>, memref<8x128xf32>, memref<8x128xf32>) {
  %m = memref.alloc() : memref<8x128xf32>
  linalg.exp ins(%a : memref<8x128xf32>) outs(%m : memref<8x128xf32>)
  // expected-error @below {{returns the same buffer as results 0 and 2}}
  return %m, %a, %m : memref<8x128xf32>, memref<8x128xf32>, memref<8x128xf32>
}

// -----

// Still accepted: a floating-point softmax (bf16 here), and an argument
// returned twice (upstream copies it into each output argument).
func.func @softmax_bf16(%x: tensor<8x128xbf16>) -> tensor<8x128xbf16> {
  %init = tensor.empty() : tensor<8x128xbf16>
  %y = linalg.softmax dimension(1) ins(%x : tensor<8x128xbf16>) outs(%init : tensor<8x128xbf16>) -> tensor<8x128xbf16>
  return %y : tensor<8x128xbf16>
}

// -----

func.func @argument_twice(%a: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  return %a, %a : tensor<8x128xf32>, tensor<8x128xf32>
}
