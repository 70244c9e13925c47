// Convolutions as the frontends write them: SAME padding through
// tensor.pad then a 3x3 conv with bias and ReLU (the ResNet form), a
// strided 3x3 VALID conv, a dilated 2x2 conv, and a depthwise 3x3 conv with
// stride 2. accel-decompose-linalg turns each into one op per kernel tap (a
// sum of shifted matmuls on the MXU; shifted products on the VPU for the
// depthwise one).
#bias = affine_map<(n, h, w, f) -> (f)>
#id = affine_map<(n, h, w, f) -> (n, h, w, f)>
func.func @main(%x: tensor<2x10x12x8xf32>, %w: tensor<3x3x8x16xf32>, %b: tensor<16xf32>, %w2: tensor<2x2x8x16xf32>, %wd: tensor<3x3x8xf32>)
    -> (tensor<2x10x12x16xf32>, tensor<2x4x5x16xf32>, tensor<2x8x10x16xf32>, tensor<2x4x5x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<2x10x12x8xf32> to tensor<2x12x14x8xf32>
  %e0 = tensor.empty() : tensor<2x10x12x16xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x10x12x16xf32>) -> tensor<2x10x12x16xf32>
  %c0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %w : tensor<2x12x14x8xf32>, tensor<3x3x8x16xf32>) outs(%f0 : tensor<2x10x12x16xf32>) -> tensor<2x10x12x16xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c0, %b : tensor<2x10x12x16xf32>, tensor<16xf32>) outs(%e0 : tensor<2x10x12x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x10x12x16xf32>

  %e1 = tensor.empty() : tensor<2x4x5x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x5x16xf32>) -> tensor<2x4x5x16xf32>
  %r1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<2x10x12x8xf32>, tensor<3x3x8x16xf32>) outs(%f1 : tensor<2x4x5x16xf32>) -> tensor<2x4x5x16xf32>

  %e2 = tensor.empty() : tensor<2x8x10x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x8x10x16xf32>) -> tensor<2x8x10x16xf32>
  %r2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w2 : tensor<2x10x12x8xf32>, tensor<2x2x8x16xf32>) outs(%f2 : tensor<2x8x10x16xf32>) -> tensor<2x8x10x16xf32>

  %e3 = tensor.empty() : tensor<2x4x5x8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x4x5x8xf32>) -> tensor<2x4x5x8xf32>
  %r3 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %wd : tensor<2x10x12x8xf32>, tensor<3x3x8xf32>) outs(%f3 : tensor<2x4x5x8xf32>) -> tensor<2x4x5x8xf32>
  return %r0, %r1, %r2, %r3 : tensor<2x10x12x16xf32>, tensor<2x4x5x16xf32>, tensor<2x8x10x16xf32>, tensor<2x4x5x8xf32>
}
