// Softmax on integers: upstream's decomposition has no integer form.
func.func @main(%x: tensor<8x128xi32>) -> tensor<8x128xi32> {
  %init = tensor.empty() : tensor<8x128xi32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<8x128xi32>) outs(%init : tensor<8x128xi32>) -> tensor<8x128xi32>
  return %y : tensor<8x128xi32>
}
