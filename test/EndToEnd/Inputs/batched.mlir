// A batch of rows (rank 3) in linalg on tensors: y = exp(x + b), b
// broadcast over the batch and the rows; the frontend folds the batch
// into rows.
func.func @batched(%a: tensor<2x8x128xf32>, %b: tensor<128xf32>) -> tensor<2x8x128xf32> {
  %e = tensor.empty() : tensor<2x8x128xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b : tensor<2x8x128xf32>, tensor<128xf32>) outs(%e : tensor<2x8x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = math.exp %s : f32
    linalg.yield %t : f32
  } -> tensor<2x8x128xf32>
  return %r : tensor<2x8x128xf32>
}
