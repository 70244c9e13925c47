// A PyTorch block in the form torch-mlir's TorchToLinalg emits (NCHW):
// nn.Conv2d(8, 16, 3, padding=1) (tensor.pad, then
// linalg.conv_2d_nchw_fchw into a broadcast of the bias), ReLU,
// nn.MaxPool2d(2) (linalg.pooling_nchw_max from -inf), a strided
// nn.Conv2d(16, 8, 3, stride=2) and x.permute(0, 2, 3, 1)
// (linalg.transpose).
#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  func.func @forward(%x: tensor<2x8x12x10xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>, %w2: tensor<8x16x3x3xf32>) -> (tensor<2x16x6x5xf32>, tensor<2x8x5x4xf32>, tensor<2x12x10x8xf32>) {
    %zero = arith.constant 0.000000e+00 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
      tensor.yield %zero : f32
    } : tensor<2x8x12x10xf32> to tensor<2x8x14x12xf32>
    %e = tensor.empty() : tensor<2x16x12x10xf32>
    %bb = linalg.generic {indexing_maps = [#bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<16xf32>) outs(%e : tensor<2x16x12x10xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x16x12x10xf32>
    %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %w : tensor<2x8x14x12xf32>, tensor<16x8x3x3xf32>) outs(%bb : tensor<2x16x12x10xf32>) -> tensor<2x16x12x10xf32>
    %relu = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv : tensor<2x16x12x10xf32>) outs(%e : tensor<2x16x12x10xf32>) {
    ^bb0(%in: f32, %out: f32):
      %c = arith.cmpf ugt, %in, %zero : f32
      %s = arith.select %c, %in, %zero : f32
      linalg.yield %s : f32
    } -> tensor<2x16x12x10xf32>
    %pe = tensor.empty() : tensor<2x16x6x5xf32>
    %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<2x16x6x5xf32>) -> tensor<2x16x6x5xf32>
    %win = tensor.empty() : tensor<2x2xf32>
    %pool = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%relu, %win : tensor<2x16x12x10xf32>, tensor<2x2xf32>) outs(%pf : tensor<2x16x6x5xf32>) -> tensor<2x16x6x5xf32>
    %ce = tensor.empty() : tensor<2x8x5x4xf32>
    %cf = linalg.fill ins(%zero : f32) outs(%ce : tensor<2x8x5x4xf32>) -> tensor<2x8x5x4xf32>
    %conv2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%relu, %w2 : tensor<2x16x12x10xf32>, tensor<8x16x3x3xf32>) outs(%cf : tensor<2x8x5x4xf32>) -> tensor<2x8x5x4xf32>
    %te = tensor.empty() : tensor<2x12x10x8xf32>
    %perm = linalg.transpose ins(%x : tensor<2x8x12x10xf32>) outs(%te : tensor<2x12x10x8xf32>) permutation = [0, 2, 3, 1]
    return %pool, %conv2, %perm : tensor<2x16x6x5xf32>, tensor<2x8x5x4xf32>, tensor<2x12x10x8xf32>
  }
}
