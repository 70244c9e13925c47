// jnp.flip along the last axis (stablehlo.reverse: a generic reading
// (d0, 127 - d1)), jnp.pad with a constant (stablehlo.pad: tensor.pad), a
// strided slice x[:, ::2] (stablehlo.slice: tensor.extract_slice), a flip
// of the rows added to x (x + x[::-1, :]) and a flip of both axes of the
// transpose (x.T[::-1, ::-1]).
module @jit_reverse_pad {
  func.func public @main(%arg0: tensor<32x128xf32>) -> (tensor<32x128xf32>, tensor<34x136xf32>, tensor<32x64xf32>, tensor<32x128xf32>, tensor<128x32xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<32x128xf32>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, -d1 + 127)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<32x128xf32>) outs(%0 : tensor<32x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<32x128xf32>
    %padded = tensor.pad %arg0 low[1, 4] high[1, 4] {
    ^bb0(%i: index, %j: index):
      tensor.yield %cst : f32
    } : tensor<32x128xf32> to tensor<34x136xf32>
    %2 = tensor.extract_slice %arg0[0, 0] [32, 64] [1, 2] : tensor<32x128xf32> to tensor<32x64xf32>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (-d0 + 31, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg0 : tensor<32x128xf32>, tensor<32x128xf32>) outs(%0 : tensor<32x128xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.addf %in, %in_0 : f32
      linalg.yield %5 : f32
    } -> tensor<32x128xf32>
    %t = tensor.empty() : tensor<128x32xf32>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (-d1 + 31, -d0 + 127)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<32x128xf32>) outs(%t : tensor<128x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<128x32xf32>
    return %1, %padded, %2, %3, %4 : tensor<32x128xf32>, tensor<34x136xf32>, tensor<32x64xf32>, tensor<32x128xf32>, tensor<128x32xf32>
  }
}
