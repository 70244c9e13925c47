// Operands read transposed, in several spellings: x @ w.T as a linalg.matmul
// with indexing maps (the MLIR 22 form of matmul_transpose_b), q @ k.T per
// head as an einsum generic with a batch loop, u.T @ v (A transposed), an
// elementwise a + b.T, and linalg.transpose of a 2-D and of a 3-D tensor
// (its last two dimensions swapped). Shapes no tile divides, and a K past
// one tile.
#bmk = affine_map<(h, s, t, d) -> (h, s, d)>
#bnk = affine_map<(h, s, t, d) -> (h, t, d)>
#bmn = affine_map<(h, s, t, d) -> (h, s, t)>
#id3 = affine_map<(h, s, t) -> (h, s, t)>
#id = affine_map<(i, j) -> (i, j)>
#tr = affine_map<(i, j) -> (j, i)>
func.func @main(%x: tensor<300x600xf32>, %w: tensor<130x600xf32>,
                %q: tensor<2x40x64xf32>, %k: tensor<2x50x64xf32>,
                %a: tensor<30x20xf32>, %b: tensor<20x30xf32>,
                %u: tensor<200x96xf32>, %v: tensor<200x72xf32>)
    -> (tensor<300x130xf32>, tensor<2x40x50xf32>, tensor<30x20xf32>,
        tensor<20x30xf32>, tensor<96x72xf32>, tensor<2x64x50xf32>) {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %e0 = tensor.empty() : tensor<300x130xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<300x130xf32>) -> tensor<300x130xf32>
  %r0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
          ins(%x, %w : tensor<300x600xf32>, tensor<130x600xf32>) outs(%f0 : tensor<300x130xf32>) -> tensor<300x130xf32>

  %e1 = tensor.empty() : tensor<2x40x50xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x40x50xf32>) -> tensor<2x40x50xf32>
  %s1 = linalg.generic {indexing_maps = [#bmk, #bnk, #bmn], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
          ins(%q, %k : tensor<2x40x64xf32>, tensor<2x50x64xf32>) outs(%f1 : tensor<2x40x50xf32>) {
  ^bb0(%qi: f32, %ki: f32, %acc: f32):
    %p = arith.mulf %qi, %ki : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x40x50xf32>
  %r1 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
          ins(%s1 : tensor<2x40x50xf32>) outs(%e1 : tensor<2x40x50xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %scale : f32
    linalg.yield %m : f32
  } -> tensor<2x40x50xf32>

  %e2 = tensor.empty() : tensor<30x20xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #tr, #id], iterator_types = ["parallel", "parallel"]}
          ins(%a, %b : tensor<30x20xf32>, tensor<20x30xf32>) outs(%e2 : tensor<30x20xf32>) {
  ^bb0(%ai: f32, %bi: f32, %out: f32):
    %s = arith.addf %ai, %bi : f32
    linalg.yield %s : f32
  } -> tensor<30x20xf32>

  %e3 = tensor.empty() : tensor<20x30xf32>
  %r3 = linalg.transpose ins(%a : tensor<30x20xf32>) outs(%e3 : tensor<20x30xf32>) permutation = [1, 0]

  %e4 = tensor.empty() : tensor<96x72xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<96x72xf32>) -> tensor<96x72xf32>
  %r4 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%u, %v : tensor<200x96xf32>, tensor<200x72xf32>) outs(%f4 : tensor<96x72xf32>) {
  ^bb0(%ui: f32, %vi: f32, %acc: f32):
    %p = arith.mulf %ui, %vi : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<96x72xf32>

  %e5 = tensor.empty() : tensor<2x64x50xf32>
  %r5 = linalg.transpose ins(%k : tensor<2x50x64xf32>) outs(%e5 : tensor<2x64x50xf32>) permutation = [0, 2, 1]
  return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<300x130xf32>, tensor<2x40x50xf32>, tensor<30x20xf32>, tensor<20x30xf32>, tensor<96x72xf32>, tensor<2x64x50xf32>
}
