// Softmax over the rows of a 64x128 matrix in linalg on tensors, in the
// form upstream's decomposition of linalg.softmax produces: a max
// reduction, exp(x - max), a sum reduction, a division.
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @softmax(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %r0 = tensor.empty() : tensor<64xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<64xf32>) -> tensor<64xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x128xf32>) outs(%m0 : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maxnumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %e0 = tensor.empty() : tensor<64x128xf32>
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<64x128xf32>, tensor<64xf32>) outs(%e0 : tensor<64x128xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<64x128xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%r0 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<64x128xf32>) outs(%s0 : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<64x128xf32>, tensor<64xf32>) outs(%e0 : tensor<64x128xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}
