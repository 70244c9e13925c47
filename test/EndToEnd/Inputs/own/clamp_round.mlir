// jnp.clip(x, -1.5, 2.0), jnp.floor, jnp.round (round half to even) and
// jnp.sign, as the StableHLO conversion emits clamp, floor,
// round_nearest_even and sign (sign: copysign of the x != 0 mask, NaN kept).
#map = affine_map<(d0, d1) -> ()>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
module @jit_clamp_round {
  func.func public @main(%arg0: tensor<16x128xf32>) -> (tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x128xf32>) {
    %cst = arith.constant dense<-1.500000e+00> : tensor<f32>
    %cst_0 = arith.constant dense<2.000000e+00> : tensor<f32>
    %0 = tensor.empty() : tensor<16x128xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst, %arg0, %cst_0 : tensor<f32>, tensor<16x128xf32>, tensor<f32>) outs(%0 : tensor<16x128xf32>) {
    ^bb0(%in: f32, %in_1: f32, %in_2: f32, %out: f32):
      %5 = arith.maximumf %in, %in_1 : f32
      %6 = arith.minimumf %5, %in_2 : f32
      linalg.yield %6 : f32
    } -> tensor<16x128xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<16x128xf32>) outs(%0 : tensor<16x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = math.floor %in : f32
      linalg.yield %5 : f32
    } -> tensor<16x128xf32>
    %3 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<16x128xf32>) outs(%0 : tensor<16x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = math.roundeven %in : f32
      linalg.yield %5 : f32
    } -> tensor<16x128xf32>
    %4 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<16x128xf32>) outs(%0 : tensor<16x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      %cst_1 = arith.constant 0.000000e+00 : f32
      %5 = arith.cmpf one, %in, %cst_1 : f32
      %6 = arith.uitofp %5 : i1 to f32
      %7 = math.copysign %6, %in : f32
      %8 = arith.cmpf uno, %in, %in : f32
      %9 = arith.select %8, %in, %7 : f32
      linalg.yield %9 : f32
    } -> tensor<16x128xf32>
    return %1, %2, %3, %4 : tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x128xf32>
  }
}
