// Layer norm over the rows of a 64x384 matrix in linalg on tensors:
// y = (x - mean) / sqrt(var + eps) * gamma + beta, per row, with the
// statistics as 1-D tensors and gamma, beta broadcast over rows.
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @layernorm(%x: tensor<64x384xf32>, %gamma: tensor<384xf32>,
                     %beta: tensor<384xf32>) -> tensor<64x384xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.00260416674 : f32  // 1 / 384
  %eps = arith.constant 1.0e-5 : f32
  %s0 = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%s0 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.reduce ins(%x : tensor<64x384xf32>) outs(%z : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %mean = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%sum : tensor<64xf32>) outs(%s0 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %inv : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<64x384xf32>, tensor<64xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %d = arith.subf %a, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %r = arith.addf %d2, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %e = tensor.empty() : tensor<64x384xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %sq, %gamma, %beta : tensor<64x384xf32>, tensor<64xf32>, tensor<64xf32>, tensor<384xf32>, tensor<384xf32>)
      outs(%e : tensor<64x384xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f32, %g: f32, %b: f32, %o: f32):
    %var = arith.mulf %s, %inv : f32
    %ve = arith.addf %var, %eps : f32
    %sd = math.sqrt %ve : f32
    %d = arith.subf %a, %m : f32
    %n = arith.divf %d, %sd : f32
    %sc = arith.mulf %n, %g : f32
    %r = arith.addf %sc, %b : f32
    linalg.yield %r : f32
  } -> tensor<64x384xf32>
  return %y : tensor<64x384xf32>
}
