// A 1x1 convolution (NHWC, HWCF), a per-channel scale broadcast through
// unit dimensions ((0, 0, 0, d3) on 1x1x1xF; the StableHLO conversion
// writes (d0, 0, 0, d3) for a batch of 1) and relu6 (maximum with 0,
// minimum with 6, rank-0 constants).
#b = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#s = affine_map<(d0, d1, d2, d3) -> ()>
func.func @main(%x: tensor<2x8x12x24xf32>, %w: tensor<1x1x24x40xf32>, %g: tensor<40xf32>) -> tensor<2x8x12x40xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant dense<0.0> : tensor<f32>
  %c6 = arith.constant dense<6.0> : tensor<f32>
  %e = tensor.empty() : tensor<2x8x12x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x12x40xf32>) -> tensor<2x8x12x40xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x8x12x24xf32>, tensor<1x1x24x40xf32>) outs(%f : tensor<2x8x12x40xf32>) -> tensor<2x8x12x40xf32>
  %g4 = tensor.expand_shape %g [[0, 1, 2, 3]] output_shape [1, 1, 1, 40] : tensor<40xf32> into tensor<1x1x1x40xf32>
  %gb = linalg.generic {indexing_maps = [#b, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g4 : tensor<1x1x1x40xf32>) outs(%e : tensor<2x8x12x40xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x12x40xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %gb : tensor<2x8x12x40xf32>, tensor<2x8x12x40xf32>) outs(%e : tensor<2x8x12x40xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x12x40xf32>
  %lo = linalg.generic {indexing_maps = [#id, #s, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%m, %c0 : tensor<2x8x12x40xf32>, tensor<f32>) outs(%e : tensor<2x8x12x40xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.maximumf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x12x40xf32>
  %hi = linalg.generic {indexing_maps = [#id, #s, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%lo, %c6 : tensor<2x8x12x40xf32>, tensor<f32>) outs(%e : tensor<2x8x12x40xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.minimumf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x12x40xf32>
  return %hi : tensor<2x8x12x40xf32>
}
