// Stride-1 windows as torch-mlir's TorchToLinalg writes them (in NHWC): a
// conv whose init is the bias broadcast (not a fill), on two images with
// dilation 2 and no padding; a SAME depthwise conv; a SAME 3x3 max pool
// whose halo is -inf. All three run over flattened rows.
#bias = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module @stride1 {
  func.func @forward(%x: tensor<2x11x13x8xf32>, %w: tensor<3x3x8x24xf32>, %b: tensor<24xf32>, %wd: tensor<3x3x8xf32>) -> (tensor<2x7x9x24xf32>, tensor<2x11x13x8xf32>, tensor<2x11x13x8xf32>) {
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %e0 = tensor.empty() : tensor<2x7x9x24xf32>
    %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<24xf32>) outs(%e0 : tensor<2x7x9x24xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x7x9x24xf32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<2x11x13x8xf32>, tensor<3x3x8x24xf32>) outs(%init : tensor<2x7x9x24xf32>) -> tensor<2x7x9x24xf32>
    %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
      tensor.yield %zero : f32
    } : tensor<2x11x13x8xf32> to tensor<2x13x15x8xf32>
    %e1 = tensor.empty() : tensor<2x11x13x8xf32>
    %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x11x13x8xf32>) -> tensor<2x11x13x8xf32>
    %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%p, %wd : tensor<2x13x15x8xf32>, tensor<3x3x8xf32>) outs(%f1 : tensor<2x11x13x8xf32>) -> tensor<2x11x13x8xf32>
    %q = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
      tensor.yield %ninf : f32
    } : tensor<2x11x13x8xf32> to tensor<2x13x15x8xf32>
    %f2 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<2x11x13x8xf32>) -> tensor<2x11x13x8xf32>
    %k = tensor.empty() : tensor<3x3xf32>
    %m = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%q, %k : tensor<2x13x15x8xf32>, tensor<3x3xf32>) outs(%f2 : tensor<2x11x13x8xf32>) -> tensor<2x11x13x8xf32>
    return %c, %d, %m : tensor<2x7x9x24xf32>, tensor<2x11x13x8xf32>, tensor<2x11x13x8xf32>
  }
}
