// Column sums and maxima of a 37 x 200 input (an odd row count: the
// halving copies a middle row), in the StableHLO conversion's form: the
// input read transposed, the reduced loop last.
#t = affine_map<(d0, d1) -> (d1, d0)>
#o = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<37x200xf32>) -> (tensor<200xf32>, tensor<200xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<200xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e : tensor<200xf32>) -> tensor<200xf32>
  %sum = linalg.generic {indexing_maps = [#t, #o], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<37x200xf32>) outs(%f0 : tensor<200xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %acc, %in : f32
    linalg.yield %r : f32
  } -> tensor<200xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e : tensor<200xf32>) -> tensor<200xf32>
  %max = linalg.generic {indexing_maps = [#t, #o], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<37x200xf32>) outs(%f1 : tensor<200xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %r = arith.maximumf %acc, %sq : f32
    linalg.yield %r : f32
  } -> tensor<200xf32>
  return %sum, %max : tensor<200xf32>, tensor<200xf32>
}
