// ELU (jax.nn.elu: where(x > 0, x, expm1(x))) and softplus
// (jax.nn.softplus = logaddexp(x, 0): max(x, 0) + log1p(exp(-|x|))).
#map = affine_map<(d0, d1) -> ()>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
module @jit_elu_softplus {
  func.func public @main(%arg0: tensor<32x256xf32>) -> (tensor<32x256xf32>, tensor<32x256xf32>) {
    %cst = arith.constant dense<0.000000e+00> : tensor<f32>
    %0 = tensor.empty() : tensor<32x256xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst : tensor<f32>) outs(%0 : tensor<32x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<32x256xf32>
    %2 = tensor.empty() : tensor<32x256xi1>
    %3 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0, %1 : tensor<32x256xf32>, tensor<32x256xf32>) outs(%2 : tensor<32x256xi1>) {
    ^bb0(%in: f32, %in_0: f32, %out: i1):
      %9 = arith.cmpf ogt, %in, %in_0 : f32
      linalg.yield %9 : i1
    } -> tensor<32x256xi1>
    %4 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<32x256xf32>) outs(%0 : tensor<32x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = math.expm1 %in : f32
      linalg.yield %9 : f32
    } -> tensor<32x256xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%3, %arg0, %4 : tensor<32x256xi1>, tensor<32x256xf32>, tensor<32x256xf32>) outs(%0 : tensor<32x256xf32>) {
    ^bb0(%in: i1, %in_0: f32, %in_1: f32, %out: f32):
      %9 = arith.select %in, %in_0, %in_1 : f32
      linalg.yield %9 : f32
    } -> tensor<32x256xf32>
    %6 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0, %1 : tensor<32x256xf32>, tensor<32x256xf32>) outs(%0 : tensor<32x256xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %9 = arith.maximumf %in, %in_0 : f32
      %10 = math.absf %in : f32
      %11 = arith.negf %10 : f32
      %12 = math.exp %11 : f32
      %13 = math.log1p %12 : f32
      %14 = arith.addf %9, %13 : f32
      linalg.yield %14 : f32
    } -> tensor<32x256xf32>
    return %5, %6 : tensor<32x256xf32>, tensor<32x256xf32>
  }
}
