// Attention scores in the forms the frontends emit (issue 32): q @ k.T as a
// contraction reading k transposed (vpu.transpose), a causal mask from
// linalg.index (vpu.iota, cmpi sge -> vpu.cmp) and a select with -inf
// (vpu.select), then torch's ReLU (cmpf ugt + select).
#q = affine_map<(m, n, k) -> (m, k)>
#k = affine_map<(m, n, k) -> (n, k)>
#s = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @main(%q: tensor<16x32xf32>, %k: tensor<24x32xf32>) -> tensor<16x24xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<16x24xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
  %scores = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "reduction"]} ins(%q, %k : tensor<16x32xf32>, tensor<24x32xf32>) outs(%f : tensor<16x24xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %o, %p : f32
    linalg.yield %r : f32
  } -> tensor<16x24xf32>
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%scores : tensor<16x24xf32>) outs(%e : tensor<16x24xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = arith.cmpi sge, %i, %j : index
    %r = arith.select %c, %a, %ninf : f32
    %pos = arith.cmpf ugt, %r, %zero : f32
    %relu = arith.select %pos, %r, %zero : f32
    linalg.yield %relu : f32
  } -> tensor<16x24xf32>
  return %masked : tensor<16x24xf32>
}
