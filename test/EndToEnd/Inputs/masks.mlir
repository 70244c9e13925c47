// Masks and index arithmetic as the frontends write them, on shapes past one
// tile in both dimensions (the tile offsets reach the indices):
//   r0: a causal mask in JAX's form (iota generics, an i32 add of a
//       broadcast 0, cmpi sge, the i1 mask broadcast, select with -inf);
//   r1: ReLU as torch-mlir writes it (cmpf ugt, select);
//   r2: torch.where(x > y, 2 * x, y) with y a column broadcast;
//   r3: a band |i - j| <= 2 (two cmpi combined by andi), positions
//       float(3 * i + j - 5) where it holds and 0 elsewhere;
//   r4: a 1-D op scaling x by float(j) (the loop of a 1 x C tile).
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#scalar = affine_map<(i, j) -> ()>
#id1 = affine_map<(j) -> (j)>
func.func @main(%x: tensor<150x600xf32>, %y: tensor<150xf32>, %v: tensor<700xf32>)
    -> (tensor<150x600xf32>, tensor<150x600xf32>, tensor<150x600xf32>,
        tensor<150x600xf32>, tensor<700xf32>) {
  %ninf = arith.constant dense<0xFF800000> : tensor<f32>
  %zi = arith.constant dense<0> : tensor<i32>
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %ei = tensor.empty() : tensor<150x600xi32>
  %rows = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%ei : tensor<150x600xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    linalg.yield %c : i32
  } -> tensor<150x600xi32>
  %zb = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%zi : tensor<i32>) outs(%ei : tensor<150x600xi32>) {
  ^bb0(%in: i32, %o: i32):
    linalg.yield %in : i32
  } -> tensor<150x600xi32>
  %shifted = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%rows, %zb : tensor<150x600xi32>, tensor<150x600xi32>) outs(%ei : tensor<150x600xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %s = arith.addi %a, %b : i32
    linalg.yield %s : i32
  } -> tensor<150x600xi32>
  %cols = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%ei : tensor<150x600xi32>) {
  ^bb0(%o: i32):
    %j = linalg.index 1 : index
    %c = arith.index_cast %j : index to i32
    linalg.yield %c : i32
  } -> tensor<150x600xi32>
  %eb = tensor.empty() : tensor<150x600xi1>
  %causal = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%shifted, %cols : tensor<150x600xi32>, tensor<150x600xi32>) outs(%eb : tensor<150x600xi1>) {
  ^bb0(%a: i32, %b: i32, %o: i1):
    %c = arith.cmpi sge, %a, %b : i32
    linalg.yield %c : i1
  } -> tensor<150x600xi1>
  %e = tensor.empty() : tensor<150x600xf32>
  %ninfb = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%ninf : tensor<f32>) outs(%e : tensor<150x600xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<150x600xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%causal, %x, %ninfb : tensor<150x600xi1>, tensor<150x600xf32>, tensor<150x600xf32>) outs(%e : tensor<150x600xf32>) {
  ^bb0(%m: i1, %a: f32, %b: f32, %o: f32):
    %s = arith.select %m, %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<150x600xf32>

  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<150x600xf32>) outs(%e : tensor<150x600xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.cmpf ugt, %a, %zero : f32
    %s = arith.select %c, %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<150x600xf32>

  %r2 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<150x600xf32>, tensor<150xf32>) outs(%e : tensor<150x600xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    %d = arith.mulf %a, %two : f32
    %s = arith.select %c, %d, %b : f32
    linalg.yield %s : f32
  } -> tensor<150x600xf32>

  %r3 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<150x600xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %d = arith.subi %i, %j : index
    %c2 = arith.constant 2 : index
    %cm2 = arith.constant -2 : index
    %lo = arith.cmpi sge, %d, %cm2 : index
    %hi = arith.cmpi sle, %d, %c2 : index
    %band = arith.andi %lo, %hi : i1
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %i3 = arith.muli %i, %c3 : index
    %p = arith.addi %i3, %j : index
    %q = arith.subi %p, %c5 : index
    %qi = arith.index_cast %q : index to i64
    %f = arith.sitofp %qi : i64 to f32
    %s = arith.select %band, %f, %zero : f32
    linalg.yield %s : f32
  } -> tensor<150x600xf32>

  %e1 = tensor.empty() : tensor<700xf32>
  %r4 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v : tensor<700xf32>) outs(%e1 : tensor<700xf32>) {
  ^bb0(%a: f32, %o: f32):
    %j = linalg.index 0 : index
    %ji = arith.index_cast %j : index to i32
    %f = arith.sitofp %ji : i32 to f32
    %s = arith.mulf %a, %f : f32
    linalg.yield %s : f32
  } -> tensor<700xf32>
  return %r0, %r1, %r2, %r3, %r4 : tensor<150x600xf32>, tensor<150x600xf32>, tensor<150x600xf32>, tensor<150x600xf32>, tensor<700xf32>
}
