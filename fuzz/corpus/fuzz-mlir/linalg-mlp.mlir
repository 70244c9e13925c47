// A 2-layer MLP in linalg on tensors, as torch-mlir or IREE hand it over:
// y = relu(x * w1 + b1) * w2, the bias a 1-D tensor broadcast over rows.
func.func @mlp(%x: tensor<64x256xf32>, %w1: tensor<256x512xf32>, %b1: tensor<512xf32>,
               %w2: tensor<512x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x512xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<64x256xf32>, tensor<256x512xf32>) outs(%f1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h, %b1 : tensor<64x512xf32>, tensor<512xf32>) outs(%e1 : tensor<64x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x512xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<64x512xf32>, tensor<512x128xf32>) outs(%f2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}
