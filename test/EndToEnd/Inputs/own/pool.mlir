// reduce_window max 2x2/2 and avg 2x2/2 (sum then divide), NHWC, as the
// StableHLO conversion emits them for jax.lax.reduce_window / flax pooling.
module @jit_pool {
  func.func public @main(%arg0: tensor<2x16x16x32xf32>) -> (tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>) {
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense<4.000000e+00> : tensor<f32>
    %0 = tensor.empty() : tensor<2x8x8x32xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
    %2 = tensor.empty() : tensor<2x2xf32>
    %3 = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%arg0, %2 : tensor<2x16x16x32xf32>, tensor<2x2xf32>) outs(%1 : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
    %4 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
    %5 = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%arg0, %2 : tensor<2x16x16x32xf32>, tensor<2x2xf32>) outs(%4 : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
    %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_1 : tensor<f32>) outs(%0 : tensor<2x8x8x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x8x8x32xf32>
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%5, %6 : tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>) outs(%0 : tensor<2x8x8x32xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %8 = arith.divf %in, %in_2 : f32
      linalg.yield %8 : f32
    } -> tensor<2x8x8x32xf32>
    return %3, %7 : tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>
  }
}
