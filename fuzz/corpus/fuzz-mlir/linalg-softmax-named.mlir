// Softmax over the rows of a 64 x 128 tensor as upstream's named op.
func.func @softmax_named(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %init = tensor.empty() : tensor<64x128xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<64x128xf32>)
         outs(%init : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}
