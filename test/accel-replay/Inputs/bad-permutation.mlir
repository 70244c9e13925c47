// linalg.transpose and linalg.broadcast whose integer list is not a list:
// MLIR 22's parsers of the two ops crash on it (a null attribute), so the
// tools refuse the text before parsing.
func.func @main(%x: tensor<2x3xf32>, %e: tensor<3x2xf32>, %b: tensor<2x3x4xf32>) -> (tensor<3x2xf32>, tensor<2x3x4xf32>) {
  %p = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = accel.vsub1]
  %q = linalg.broadcast ins(%x : tensor<2x3xf32>) outs(%b : tensor<2x3x4xf32>) dimensions = 2
  return %p, %q : tensor<3x2xf32>, tensor<2x3x4xf32>
}
