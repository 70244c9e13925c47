// IEEE special values (0, -0, +-1, +-inf, NaN, tiny, huge) through each VPU
// math function: column k of the 16 x 8 result is function k of column k of
// the input (every column of the input holds the same values).
func.func @main(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<16x1xf32>
  %c0 = tensor.extract_slice %x[0, 0] [16, 1] [1, 1] : tensor<16x8xf32> to tensor<16x1xf32>
  %tanh = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c0 : tensor<16x1xf32>) outs(%e : tensor<16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<16x1xf32>
  %log = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c0 : tensor<16x1xf32>) outs(%e : tensor<16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.log %a : f32
    linalg.yield %r : f32
  } -> tensor<16x1xf32>
  %log1p = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c0 : tensor<16x1xf32>) outs(%e : tensor<16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.log1p %a : f32
    linalg.yield %r : f32
  } -> tensor<16x1xf32>
  %rsqrt = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c0 : tensor<16x1xf32>) outs(%e : tensor<16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.rsqrt %a : f32
    linalg.yield %r : f32
  } -> tensor<16x1xf32>
  %erf = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c0 : tensor<16x1xf32>) outs(%e : tensor<16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.erf %a : f32
    linalg.yield %r : f32
  } -> tensor<16x1xf32>
  %abs = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c0 : tensor<16x1xf32>) outs(%e : tensor<16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.absf %a : f32
    linalg.yield %r : f32
  } -> tensor<16x1xf32>
  %min = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c0 : tensor<16x1xf32>) outs(%e : tensor<16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.minimumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<16x1xf32>
  %minnum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c0 : tensor<16x1xf32>) outs(%e : tensor<16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.minnumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<16x1xf32>
  %out = tensor.empty() : tensor<16x8xf32>
  %r0 = tensor.insert_slice %tanh into %out[0, 0] [16, 1] [1, 1] : tensor<16x1xf32> into tensor<16x8xf32>
  %r1 = tensor.insert_slice %log into %r0[0, 1] [16, 1] [1, 1] : tensor<16x1xf32> into tensor<16x8xf32>
  %r2 = tensor.insert_slice %log1p into %r1[0, 2] [16, 1] [1, 1] : tensor<16x1xf32> into tensor<16x8xf32>
  %r3 = tensor.insert_slice %rsqrt into %r2[0, 3] [16, 1] [1, 1] : tensor<16x1xf32> into tensor<16x8xf32>
  %r4 = tensor.insert_slice %erf into %r3[0, 4] [16, 1] [1, 1] : tensor<16x1xf32> into tensor<16x8xf32>
  %r5 = tensor.insert_slice %abs into %r4[0, 5] [16, 1] [1, 1] : tensor<16x1xf32> into tensor<16x8xf32>
  %r6 = tensor.insert_slice %min into %r5[0, 6] [16, 1] [1, 1] : tensor<16x1xf32> into tensor<16x8xf32>
  %r7 = tensor.insert_slice %minnum into %r6[0, 7] [16, 1] [1, 1] : tensor<16x1xf32> into tensor<16x8xf32>
  return %r7 : tensor<16x8xf32>
}
