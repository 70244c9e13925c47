// Gathers and masks from integer data (issue 32, item 5), written as
// linalg on tensors by hand in several styles:
//  @main results
//   arg4 = emb[wrap(ids)] where ids is in range, NaN elsewhere (JAX's
//          gather: negative ids count from the end, out of range is NaN),
//          rows of 96 floats (not a multiple of the VPU's 128 lanes);
//   arg5 = cols[j, clamp(pos[i])]: a column gather, one element per DMA;
//   arg6 = one-hot of cls (i32) over 24 classes, by arith.cmpi eq with the
//          column index and uitofp;
//   arg7 = vec[clamp(pos[i] * 2 + 1)]: a 1-D gather;
//   arg8 = vec[k(pos[i])] with k from an i32 multiply that wraps, unsigned
//          and signed compares, ori, xori and maxui/minsi.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#pre3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>
func.func @main(%ids: tensor<8x12xi32>, %emb: tensor<40x96xf32>,
                %pos: tensor<20xi32>, %vec: tensor<64xf32>)
    -> (tensor<8x12x96xf32>, tensor<20x16xf32>, tensor<20x24xf32>,
        tensor<20xf32>, tensor<20xf32>) {
  %c0 = arith.constant 0 : index
  %c29 = arith.constant 29 : index
  %c63 = arith.constant 63 : index
  %c39 = arith.constant 39 : index
  %n = arith.constant 40 : i32
  %zero = arith.constant 0 : i32
  %nan = arith.constant 0x7FC00000 : f32
  %cols = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0]]> : tensor<1x30xf32>
  // Negative ids wrap; a mask of those in range.
  %e0 = tensor.empty() : tensor<8x12xi32>
  %wrapped = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<8x12xi32>) outs(%e0 : tensor<8x12xi32>) {
  ^bb0(%i: i32, %o: i32):
    %neg = arith.cmpi slt, %i, %zero : i32
    %up = arith.addi %i, %n : i32
    %w = arith.select %neg, %up, %i : i32
    linalg.yield %w : i32
  } -> tensor<8x12xi32>
  %e1 = tensor.empty() : tensor<8x12x96xf32>
  %g = linalg.generic {indexing_maps = [#pre3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wrapped : tensor<8x12xi32>) outs(%e1 : tensor<8x12x96xf32>) {
  ^bb0(%w: i32, %o: f32):
    %k = linalg.index 2 : index
    %r = arith.index_cast %w : i32 to index
    %lo = arith.maxsi %r, %c0 : index
    %hi = arith.minsi %lo, %c39 : index
    %v = tensor.extract %emb[%hi, %k] : tensor<40x96xf32>
    %ok0 = arith.cmpi sge, %w, %zero : i32
    %ok1 = arith.cmpi slt, %w, %n : i32
    %ok = arith.andi %ok0, %ok1 : i1
    %s = arith.select %ok, %v, %nan : f32
    linalg.yield %s : f32
  } -> tensor<8x12x96xf32>
  // A column gather: the index is the first of the source's.
  %e2 = tensor.empty() : tensor<20x16xf32>
  %colg = linalg.generic {indexing_maps = [#row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%pos : tensor<20xi32>) outs(%e2 : tensor<20x16xf32>) {
  ^bb0(%p: i32, %o: f32):
    %j = linalg.index 1 : index
    %r = arith.index_cast %p : i32 to index
    %lo = arith.maxsi %r, %c0 : index
    %hi = arith.minsi %lo, %c29 : index
    %v = tensor.extract %cols[%c0, %hi] : tensor<1x30xf32>
    %jf = arith.index_cast %j : index to i32
    %jx = arith.sitofp %jf : i32 to f32
    %s = arith.addf %v, %jx : f32
    linalg.yield %s : f32
  } -> tensor<20x16xf32>
  // One-hot: compare with the column index.
  %e3 = tensor.empty() : tensor<20x24xf32>
  %hot = linalg.generic {indexing_maps = [#row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%pos : tensor<20xi32>) outs(%e3 : tensor<20x24xf32>) {
  ^bb0(%p: i32, %o: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %eq = arith.cmpi eq, %p, %ji : i32
    %f = arith.uitofp %eq : i1 to f32
    linalg.yield %f : f32
  } -> tensor<20x24xf32>
  // A 1-D gather at a computed index.
  %e4 = tensor.empty() : tensor<20xf32>
  %g1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%pos : tensor<20xi32>) outs(%e4 : tensor<20xf32>) {
  ^bb0(%p: i32, %o: f32):
    %two = arith.constant 2 : i32
    %one = arith.constant 1 : i32
    %m = arith.muli %p, %two : i32
    %a = arith.addi %m, %one : i32
    %r = arith.index_cast %a : i32 to index
    %lo = arith.maxsi %r, %c0 : index
    %hi = arith.minsi %lo, %c63 : index
    %v = tensor.extract %vec[%hi] : tensor<64xf32>
    linalg.yield %v : f32
  } -> tensor<20xf32>
  // Integer corner cases of the scalar core.
  %g2 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%pos : tensor<20xi32>) outs(%e4 : tensor<20xf32>) {
  ^bb0(%p: i32, %o: f32):
    %k30 = arith.constant 1073741824 : i32
    %ten = arith.constant 10 : i32
    %five = arith.constant 5 : i32
    %three = arith.constant 3 : index
    %seven = arith.constant 7 : index
    %twenty = arith.constant 20 : index
    %zero2 = arith.constant 0 : index
    %a = arith.muli %p, %k30 : i32
    %b = arith.cmpi slt, %a, %zero : i32
    %c = arith.cmpi ult, %p, %ten : i32
    %d = arith.ori %b, %c : i1
    %ne = arith.cmpi ne, %p, %five : i32
    %e = arith.xori %d, %ne : i1
    %base = arith.select %e, %three, %seven : index
    %extra = arith.select %d, %twenty, %zero2 : index
    %sum = arith.addi %base, %extra : index
    %pi = arith.index_cast %p : i32 to index
    %big = arith.maxui %sum, %pi : index
    %small = arith.minsi %big, %c63 : index
    %idx = arith.maxsi %small, %zero2 : index
    %v = tensor.extract %vec[%idx] : tensor<64xf32>
    linalg.yield %v : f32
  } -> tensor<20xf32>
  return %g, %colg, %hot, %g1, %g2 : tensor<8x12x96xf32>, tensor<20x16xf32>, tensor<20x24xf32>, tensor<20xf32>, tensor<20xf32>
}
