// Batched work in the forms the StableHLO conversion emits: heads split
// out of a 64 x 128 activation (expand_shape, then a transpose of the
// leading dimensions as a generic), a linalg.batch_matmul per head with a
// weight, and a per-head row maximum broadcast back through a unit
// dimension ((d0, d1, 0)).
#perm = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red = affine_map<(d0, d1, d2) -> (d0, d1)>
#to3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#unit = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
func.func @main(%x: tensor<64x128xf32>, %w: tensor<4x32x48xf32>) -> tensor<4x64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %xs = tensor.expand_shape %x [[0], [1, 2]] output_shape [64, 4, 32] : tensor<64x128xf32> into tensor<64x4x32xf32>
  %eh = tensor.empty() : tensor<4x64x32xf32>
  %h = linalg.generic {indexing_maps = [#perm, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%xs : tensor<64x4x32xf32>) outs(%eh : tensor<4x64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x64x32xf32>
  %e = tensor.empty() : tensor<4x64x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x48xf32>) -> tensor<4x64x48xf32>
  %p = linalg.batch_matmul ins(%h, %w : tensor<4x64x32xf32>, tensor<4x32x48xf32>) outs(%f : tensor<4x64x48xf32>) -> tensor<4x64x48xf32>
  %em = tensor.empty() : tensor<4x64xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%em : tensor<4x64xf32>) -> tensor<4x64xf32>
  %m = linalg.generic {indexing_maps = [#id3, #red], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p : tensor<4x64x48xf32>) outs(%fm : tensor<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<4x64xf32>
  %e1 = tensor.empty() : tensor<4x64x1xf32>
  %m1 = linalg.generic {indexing_maps = [#red, #to3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%m : tensor<4x64xf32>) outs(%e1 : tensor<4x64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x64x1xf32>
  %r = linalg.generic {indexing_maps = [#id3, #unit, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%p, %m1 : tensor<4x64x48xf32>, tensor<4x64x1xf32>) outs(%e : tensor<4x64x48xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x64x48xf32>
  return %r : tensor<4x64x48xf32>
}
