// dot_general forms with a vector operand, as the StableHLO conversion
// emits them: matrix-vector (linalg.matvec), vector-matrix (linalg.vecmat),
// a dot to a scalar (linalg.dot, rank-0 result) and an outer product
// (broadcasts and a multiply).
#map = affine_map<(d0, d1) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
module @jit_matvec {
  func.func public @main(%arg0: tensor<64x128xf32>, %arg1: tensor<128xf32>, %arg2: tensor<64xf32>) -> (tensor<64xf32>, tensor<128xf32>, tensor<f32>, tensor<64x128xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<64xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64xf32>) -> tensor<64xf32>
    %2 = linalg.matvec ins(%arg0, %arg1 : tensor<64x128xf32>, tensor<128xf32>) outs(%1 : tensor<64xf32>) -> tensor<64xf32>
    %3 = tensor.empty() : tensor<128xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<128xf32>) -> tensor<128xf32>
    %5 = linalg.vecmat ins(%arg2, %arg0 : tensor<64xf32>, tensor<64x128xf32>) outs(%4 : tensor<128xf32>) -> tensor<128xf32>
    %6 = tensor.empty() : tensor<f32>
    %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<f32>) -> tensor<f32>
    %8 = linalg.dot ins(%arg1, %5 : tensor<128xf32>, tensor<128xf32>) outs(%7 : tensor<f32>) -> tensor<f32>
    %9 = tensor.empty() : tensor<64x128xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel"]} ins(%arg2, %arg1 : tensor<64xf32>, tensor<128xf32>) outs(%9 : tensor<64x128xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %11 = arith.mulf %in, %in_0 : f32
      linalg.yield %11 : f32
    } -> tensor<64x128xf32>
    return %2, %5, %8, %10 : tensor<64xf32>, tensor<128xf32>, tensor<f32>, tensor<64x128xf32>
  }
}
