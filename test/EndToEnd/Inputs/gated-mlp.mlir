// A Llama-style gated MLP block in linalg on tensors:
// y = (silu(x * wg) . (x * wu)) * wd, silu(g) = g / (1 + exp(-g)).
func.func @gated_mlp(%x: tensor<32x256xf32>, %wg: tensor<256x512xf32>,
                     %wu: tensor<256x512xf32>, %wd: tensor<512x256xf32>) -> tensor<32x256xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<32x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x512xf32>) -> tensor<32x512xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<32x256xf32>, tensor<256x512xf32>) outs(%f : tensor<32x512xf32>) -> tensor<32x512xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<32x256xf32>, tensor<256x512xf32>) outs(%f : tensor<32x512xf32>) -> tensor<32x512xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<32x512xf32>, tensor<32x512xf32>) outs(%e : tensor<32x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %n = arith.negf %a : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %x1, %one : f32
    %s = arith.divf %a, %d : f32
    %r = arith.mulf %s, %b : f32
    linalg.yield %r : f32
  } -> tensor<32x512xf32>
  %e2 = tensor.empty() : tensor<32x256xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %y = linalg.matmul ins(%h, %wd : tensor<32x512xf32>, tensor<512x256xf32>) outs(%f2 : tensor<32x256xf32>) -> tensor<32x256xf32>
  return %y : tensor<32x256xf32>
}
