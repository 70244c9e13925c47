// RUN: accel-opt %s --accel-from-linalg | FileCheck %s

// JAX exported without --inline: a jitted helper reached by func.call,
// twice. The frontend inlines it and drops it once unused: one function,
// no call, both ReLUs on the VPU.
// CHECK-LABEL: func.func public @main
// CHECK-NOT:     func.call
// CHECK-COUNT-2: accel.vmax
// CHECK-NOT:     func.func private @relu
#id = affine_map<(d0, d1) -> (d0, d1)>
#s = affine_map<(d0, d1) -> ()>
module @jit_f {
  func.func public @main(%arg0: tensor<16x128xf32>) -> (tensor<16x128xf32> {jax.result_info = "result"}) {
    %0 = call @relu(%arg0) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    %1 = call @relu(%0) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %1 : tensor<16x128xf32>
  }
  func.func private @relu(%arg0: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %cst = arith.constant dense<0.000000e+00> : tensor<f32>
    %0 = tensor.empty() : tensor<16x128xf32>
    %1 = linalg.generic {indexing_maps = [#s, #id], iterator_types = ["parallel", "parallel"]} ins(%cst : tensor<f32>) outs(%0 : tensor<16x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<16x128xf32>
    %2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0, %1 : tensor<16x128xf32>, tensor<16x128xf32>) outs(%0 : tensor<16x128xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.maximumf %in, %in_0 : f32
      linalg.yield %3 : f32
    } -> tensor<16x128xf32>
    return %2 : tensor<16x128xf32>
  }
}
