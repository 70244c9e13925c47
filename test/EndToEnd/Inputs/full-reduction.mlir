// jnp.sum(x) and jnp.max(x) of a 300 x 700 input, as the StableHLO
// conversion writes a reduction over every dimension: both loops reduced
// into a rank-0 result. The input spans several tiles (partial in both dimensions),
// each reduced into the same element.
#id = affine_map<(d0, d1) -> (d0, d1)>
#s = affine_map<(d0, d1) -> ()>
func.func @main(%x: tensor<300x700xf32>) -> (tensor<f32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<f32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [#id, #s], iterator_types = ["reduction", "reduction"]} ins(%x : tensor<300x700xf32>) outs(%f0 : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %acc, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %max = linalg.generic {indexing_maps = [#id, #s], iterator_types = ["reduction", "reduction"]} ins(%x : tensor<300x700xf32>) outs(%f1 : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %acc, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %sum, %max : tensor<f32>, tensor<f32>
}
