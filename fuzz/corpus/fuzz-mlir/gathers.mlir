// Gathers (accel-lower-gathers): a row gather with a wrap and a mask of the
// ids in range, a lane flip, and an NCHW convolution (its transposes are
// made by the frontend: linalg.transpose text is not in the seed; MLIR 22's
// parser of its `permutation =` crashes on a malformed list, which the
// tools refuse before parsing, accel/Support/Nesting.h).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#flip = affine_map<(d0, d1) -> (d0, -d1 + 7)>
func.func @main(%ids: tensor<4xi32>, %t: tensor<10x8xf32>, %x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<1x2x2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c9 = arith.constant 9 : index
  %n = arith.constant 10 : i32
  %zero = arith.constant 0 : i32
  %nan = arith.constant 0x7FC00000 : f32
  %f0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%i: i32, %o: f32):
    %k = linalg.index 1 : index
    %neg = arith.cmpi slt, %i, %zero : i32
    %up = arith.addi %i, %n : i32
    %wr = arith.select %neg, %up, %i : i32
    %r = arith.index_cast %wr : i32 to index
    %lo = arith.maxsi %r, %c0 : index
    %hi = arith.minsi %lo, %c9 : index
    %v = tensor.extract %t[%hi, %k] : tensor<10x8xf32>
    %ok = arith.cmpi ult, %wr, %n : i32
    %s = arith.select %ok, %v, %nan : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %f = linalg.generic {indexing_maps = [#flip, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x8xf32>
  %ce = tensor.empty() : tensor<1x2x2x2xf32>
  %cf = linalg.fill ins(%f0 : f32) outs(%ce : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) outs(%cf : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %g, %f, %conv : tensor<4x8xf32>, tensor<4x8xf32>, tensor<1x2x2x2xf32>
}
