// A loss-style program with rank-0 values: the mean of x (row sums, then a
// reduction of the 16 sums to a scalar, then a 0-loop division), x / mean * s
// with s a rank-0 argument, and the mean returned as a rank-0 result.
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @main(%x: tensor<16x256xf32>, %s: tensor<f32>) -> (tensor<16x256xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant dense<4096.0> : tensor<f32>
  %e0 = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %e1 = tensor.empty() : tensor<16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %rows = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x256xf32>) outs(%f1 : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%rows : tensor<16xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %mean = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%sum, %n : tensor<f32>, tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %e = tensor.empty() : tensor<16x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #scalar, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mean, %s : tensor<16x256xf32>, tensor<f32>, tensor<f32>) outs(%e : tensor<16x256xf32>) {
  ^bb0(%a: f32, %m: f32, %k: f32, %o: f32):
    %q = arith.divf %a, %m : f32
    %r = arith.mulf %q, %k : f32
    linalg.yield %r : f32
  } -> tensor<16x256xf32>
  return %y, %mean : tensor<16x256xf32>, tensor<f32>
}
