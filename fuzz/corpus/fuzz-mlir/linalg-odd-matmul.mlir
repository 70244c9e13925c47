// A matmul whose sizes are not multiples of the tile sizes (with
// Inputs/small-mxu.json: 128-column, 128-deep tiles; 200 = 128 + 72 and
// 300 = 2 x 128 + 44): the peeled remainder tiles are static.
func.func @odd_matmul(%a: tensor<100x300xf32>, %b: tensor<300x200xf32>) -> tensor<100x200xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x200xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<100x200xf32>) -> tensor<100x200xf32>
  %c = linalg.matmul ins(%a, %b : tensor<100x300xf32>, tensor<300x200xf32>) outs(%f : tensor<100x200xf32>) -> tensor<100x200xf32>
  return %c : tensor<100x200xf32>
}
