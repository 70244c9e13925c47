// RUN: accel-opt %s -split-input-file --convert-linalg-to-accel | FileCheck %s

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Copies between HBM and VMEM become a DMA and its WAIT, in both
// directions, from memref.copy and linalg.copy.
// CHECK-LABEL: func.func @copies
// CHECK-SAME: (%[[A:.*]]: memref<8x128xf32, #accel.space<hbm>>, %[[O:.*]]: memref<8x128xf32, #accel.space<hbm>>)
// CHECK: %[[V:.*]] = accel.alloc
// CHECK-NEXT: %[[T0:.*]] = accel.dma_start %[[A]], %[[V]]
// CHECK-NEXT: accel.dma_wait %[[T0]]
// CHECK-NEXT: %[[T1:.*]] = accel.dma_start %[[V]], %[[O]]
// CHECK-NEXT: accel.dma_wait %[[T1]]
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.copy
func.func @copies(%a: memref<8x128xf32, #hbm>, %o: memref<8x128xf32, #hbm>) {
  %v = accel.alloc : memref<8x128xf32, #vmem>
  memref.copy %a, %v : memref<8x128xf32, #hbm> to memref<8x128xf32, #vmem>
  linalg.copy ins(%v : memref<8x128xf32, #vmem>) outs(%o : memref<8x128xf32, #hbm>)
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A strided HBM view copies as a 2-D tile (the DMA's row stride).
// CHECK-LABEL: func.func @strided_tile
// CHECK: accel.dma_start %{{.*}}, %{{.*}} : memref<8x128xf32, strided<[512, 1], offset: ?>, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
func.func @strided_tile(%a: memref<64x512xf32, #hbm>, %i: index) {
  %v = accel.alloc : memref<8x128xf32, #vmem>
  %s = memref.subview %a[%i, 128] [8, 128] [1, 1] : memref<64x512xf32, #hbm> to memref<8x128xf32, strided<[512, 1], offset: ?>, #hbm>
  memref.copy %s, %v : memref<8x128xf32, strided<[512, 1], offset: ?>, #hbm> to memref<8x128xf32, #vmem>
  return
}

// -----

#vmem = #accel.space<vmem>

// linalg.matmul accumulates (C += A * B); a zero fill right before it is
// folded into a non-accumulating matmul, and the dead f32 constant goes.
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: arith.constant
// CHECK-NOT: accel.vfill
// CHECK: accel.matmul %[[A:.*]], %[[B:.*]], %[[C:.*]] :
// CHECK-NOT: accumulate
// CHECK-NEXT: accel.matmul %[[A]], %[[B]], %[[C]] {accumulate}
func.func @matmul() {
  %zero = arith.constant 0.0 : f32
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<128x128xf32, #vmem>
  %c = accel.alloc : memref<8x128xf32, #vmem>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x128xf32, #vmem>)
  linalg.matmul ins(%a, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>) outs(%c : memref<8x128xf32, #vmem>)
  linalg.matmul ins(%a, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>) outs(%c : memref<8x128xf32, #vmem>)
  return
}

// -----

#vmem = #accel.space<vmem>

// A fill that something reads before the matmul, or a fill with another
// value, stays: the matmul accumulates onto it.
// CHECK-LABEL: func.func @fill_kept
// CHECK: accel.vfill %[[C:.*]], 0.000000e+00
// CHECK-NEXT: accel.vexp %[[C]], %[[T:.*]] :
// CHECK-NEXT: accel.matmul %{{.*}}, %{{.*}}, %[[C]] {accumulate}
// CHECK: accel.vfill %[[C]], 1.000000e+00
// CHECK-NEXT: accel.matmul %{{.*}}, %{{.*}}, %[[C]] {accumulate}
func.func @fill_kept(%t: memref<8x128xf32, #vmem>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<128x128xf32, #vmem>
  %c = accel.alloc : memref<8x128xf32, #vmem>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x128xf32, #vmem>)
  linalg.exp ins(%c : memref<8x128xf32, #vmem>) outs(%t : memref<8x128xf32, #vmem>)
  linalg.matmul ins(%a, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>) outs(%c : memref<8x128xf32, #vmem>)
  linalg.fill ins(%one : f32) outs(%c : memref<8x128xf32, #vmem>)
  linalg.matmul ins(%a, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>) outs(%c : memref<8x128xf32, #vmem>)
  return
}

// -----

#vmem = #accel.space<vmem>

// Elementwise bodies: one VPU op per body op; intermediates get
// temporaries, only the last op writes the output (here also an input:
// it is read first), constants become filled columns, negf a multiply by
// -1, and an Rx1 operand broadcasts along the rows.
// CHECK-LABEL: func.func @bias_relu
// CHECK-SAME: (%[[X:.*]]: memref<8x128xf32, #accel.space<vmem>>, %[[B:.*]]: memref<8x1xf32, #accel.space<vmem>>)
// CHECK: %[[S:.*]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vadd %[[X]], %[[B]], %[[S]]
// CHECK-NEXT: %[[Z:.*]] = accel.alloc : memref<8x1xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vfill %[[Z]], 0.000000e+00
// CHECK-NEXT: accel.vmax %[[S]], %[[Z]], %[[X]]
func.func @bias_relu(%x: memref<8x128xf32, #vmem>, %b: memref<8x1xf32, #vmem>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<8x128xf32, #vmem>, memref<8x1xf32, #vmem>) outs(%x : memref<8x128xf32, #vmem>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %r = arith.maximumf %zero, %s : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: memref<4x256xf32, #accel.space<vmem>>, %[[Y:.*]]: memref<4x256xf32, #accel.space<vmem>>, %[[O:.*]]: memref<4x256xf32, #accel.space<vmem>>)
// CHECK: accel.vsub %[[X]], %[[Y]], %[[D:.*]] :
// CHECK-NOT: accel.vmul %[[X]], %[[X]]
// CHECK: accel.vmul %[[D]], %[[M1:.*]], %[[N:.*]] :
// CHECK: accel.vexp %[[N]], %[[E:.*]] :
// CHECK: accel.vdiv %[[E]], %[[Y]], %[[Q:.*]] :
// CHECK: accel.vsqrt %[[Q]], %[[O]] :
// CHECK-NEXT: return
func.func @chain(%x: memref<4x256xf32, #vmem>, %y: memref<4x256xf32, #vmem>, %o: memref<4x256xf32, #vmem>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<4x256xf32, #vmem>, memref<4x256xf32, #vmem>) outs(%o : memref<4x256xf32, #vmem>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %d = arith.subf %a, %b : f32
    %unused = arith.mulf %a, %a : f32
    %n = arith.negf %d : f32
    %e = math.exp %n : f32
    %q = arith.divf %e, %b : f32
    %r = math.sqrt %q : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// Named elementwise ops (they carry the same body) and the 1-D case.
// CHECK-LABEL: func.func @named
// CHECK: accel.vadd %arg0, %arg1, %arg2 : memref<1024xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vmul %arg2, %arg1, %arg2 :
// CHECK-NEXT: accel.vmax %arg0, %arg2, %arg2 :
func.func @named(%x: memref<1024xf32, #vmem>, %y: memref<1024xf32, #vmem>, %o: memref<1024xf32, #vmem>) {
  linalg.add ins(%x, %y : memref<1024xf32, #vmem>, memref<1024xf32, #vmem>) outs(%o : memref<1024xf32, #vmem>)
  linalg.mul ins(%o, %y : memref<1024xf32, #vmem>, memref<1024xf32, #vmem>) outs(%o : memref<1024xf32, #vmem>)
  linalg.max ins(%x, %o : memref<1024xf32, #vmem>, memref<1024xf32, #vmem>) outs(%o : memref<1024xf32, #vmem>)
  return
}

// -----

#vmem = #accel.space<vmem>

// A body that yields an operand is a copy; one that yields a constant, a fill;
// a non-commutative op on a constant first operand fills a whole tile.
// CHECK-LABEL: func.func @copy_fill_rsub
// CHECK: accel.vcopy %arg0, %arg1
// CHECK-NEXT: accel.vfill %arg1, 2.500000e+00
// CHECK-NEXT: %[[F:.*]] = accel.alloc : memref<4x64xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vfill %[[F]], 1.000000e+00
// CHECK-NEXT: accel.vsub %[[F]], %arg0, %arg1
func.func @copy_fill_rsub(%x: memref<4x64xf32, #vmem>, %o: memref<4x64xf32, #vmem>) {
  %c = arith.constant 2.5 : f32
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x64xf32, #vmem>) outs(%o : memref<4x64xf32, #vmem>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%o : memref<4x64xf32, #vmem>) {
  ^bb0(%b: f32):
    linalg.yield %c : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x64xf32, #vmem>) outs(%o : memref<4x64xf32, #vmem>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.subf %one, %a : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// Softmax over the rows of an 8x128 tile, in upstream's decomposed form:
// max (arith.maximumf: NaN propagates, -inf is its identity) and sum
// reductions into rank-1 buffers (viewed as 8x1 columns), the identity
// fills dropped, the row values broadcast back as columns. %y is
// an argument, which may alias %x: x - max goes to a temporary.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: memref<8x128xf32, #accel.space<vmem>>, %[[Y:.*]]: memref<8x128xf32, #accel.space<vmem>>)
// CHECK-NOT: accel.vfill
// CHECK: %[[M:.*]] = accel.alloc : memref<8xf32, #accel.space<vmem>>
// CHECK: %[[S:.*]] = accel.alloc : memref<8xf32, #accel.space<vmem>>
// CHECK: %[[MC:.*]] = memref.expand_shape %[[M]] {{\[\[}}0, 1]] output_shape [8, 1]
// CHECK-NEXT: accel.vreduce_max %[[X]], %[[MC]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
// CHECK: %[[MC2:.*]] = memref.expand_shape %[[M]]
// CHECK-NEXT: %[[T:.*]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vsub %[[X]], %[[MC2]], %[[T]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vexp %[[T]], %[[Y]]
// CHECK: %[[SC:.*]] = memref.expand_shape %[[S]]
// CHECK-NEXT: accel.vreduce_sum %[[Y]], %[[SC]]
// CHECK: %[[SC2:.*]] = memref.expand_shape %[[S]]
// CHECK-NEXT: accel.vdiv %[[Y]], %[[SC2]], %[[Y]]
// CHECK-NOT: linalg.
func.func @softmax(%x: memref<8x128xf32, #vmem>, %y: memref<8x128xf32, #vmem>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %m = accel.alloc : memref<8xf32, #vmem>
  %s = accel.alloc : memref<8xf32, #vmem>
  linalg.fill ins(%ninf : f32) outs(%m : memref<8xf32, #vmem>)
  linalg.reduce ins(%x : memref<8x128xf32, #vmem>) outs(%m : memref<8xf32, #vmem>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.maximumf %in, %acc : f32
      linalg.yield %r : f32
    }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : memref<8x128xf32, #vmem>, memref<8xf32, #vmem>) outs(%y : memref<8x128xf32, #vmem>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  }
  linalg.fill ins(%zero : f32) outs(%s : memref<8xf32, #vmem>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%y : memref<8x128xf32, #vmem>) outs(%s : memref<8xf32, #vmem>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<8xf32, #vmem>) outs(%y : memref<8x128xf32, #vmem>) {
  ^bb0(%b: f32, %o: f32):
    %d = arith.divf %o, %b : f32
    linalg.yield %d : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// The reduced expression is computed into a temporary tile first (sum of
// squares); a fill that is not the identity stays, and the row sums are
// added to it.
// CHECK-LABEL: func.func @sum_of_squares
// CHECK-SAME: (%[[X:.*]]: memref<8x128xf32, #accel.space<vmem>>, %[[O:.*]]: memref<8x1xf32, #accel.space<vmem>>)
// CHECK: accel.vfill %[[O]], 1.000000e+00
// CHECK: %[[T:.*]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vmul %[[X]], %[[X]], %[[T]]
// CHECK-NEXT: %[[P:.*]] = accel.alloc : memref<8x1xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vreduce_sum %[[T]], %[[P]]
// CHECK-NEXT: accel.vadd %[[O]], %[[P]], %[[O]] : memref<8x1xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
func.func @sum_of_squares(%x: memref<8x128xf32, #vmem>, %o: memref<8x1xf32, #vmem>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%o : memref<8x1xf32, #vmem>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x128xf32, #vmem>) outs(%o : memref<8x1xf32, #vmem>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// A row (i, j) -> (j), rank 1 or 1 x C, is the VPU's row broadcast operand;
// a row minus a tile materializes the row first (vsub is not commutative).
// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[X:.*]]: memref<8x128xf32, #accel.space<vmem>>, %[[G:.*]]: memref<128xf32, #accel.space<vmem>>, %[[B:.*]]: memref<1x128xf32, #accel.space<vmem>>)
// CHECK: %[[T:.*]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vmul %[[X]], %[[G]], %[[T]] : memref<8x128xf32, #accel.space<vmem>>, memref<128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vadd %[[T]], %[[B]], %[[X]] : memref<8x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: %[[F:.*]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vfill %[[F]], 0.000000e+00
// CHECK-NEXT: accel.vadd %[[F]], %[[B]], %[[F]]
// CHECK-NEXT: accel.vsub %[[F]], %[[X]], %[[X]]
func.func @rows(%x: memref<8x128xf32, #vmem>, %g: memref<128xf32, #vmem>, %b: memref<1x128xf32, #vmem>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (0, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %g, %b : memref<8x128xf32, #vmem>, memref<128xf32, #vmem>, memref<1x128xf32, #vmem>) outs(%x : memref<8x128xf32, #vmem>) {
  ^bb0(%a: f32, %s: f32, %c: f32, %o: f32):
    %m = arith.mulf %s, %a : f32
    %r = arith.addf %m, %c : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (0, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<1x128xf32, #vmem>) outs(%x : memref<8x128xf32, #vmem>) {
  ^bb0(%c: f32, %o: f32):
    %r = arith.subf %c, %o : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// A column and a row make a full tile (an outer sum); constants fold.
// CHECK-LABEL: func.func @outer
// CHECK-SAME: (%[[C:.*]]: memref<8x1xf32, #accel.space<vmem>>, %[[R:.*]]: memref<1x128xf32, #accel.space<vmem>>, %[[O:.*]]: memref<8x128xf32, #accel.space<vmem>>)
// CHECK-NEXT: %[[F:.*]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vfill %[[F]], 0.000000e+00
// CHECK-NEXT: accel.vadd %[[F]], %[[C]], %[[F]]
// CHECK-NEXT: %[[S:.*]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vadd %[[F]], %[[R]], %[[S]]
// CHECK-NEXT: %[[K:.*]] = accel.alloc : memref<8x1xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vfill %[[K]], 6.000000e+00
// CHECK-NEXT: accel.vmul %[[S]], %[[K]], %[[O]]
func.func @outer(%c: memref<8x1xf32, #vmem>, %r: memref<1x128xf32, #vmem>, %o: memref<8x128xf32, #vmem>) {
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, 0)>, affine_map<(i, j) -> (0, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c, %r : memref<8x1xf32, #vmem>, memref<1x128xf32, #vmem>) outs(%o : memref<8x128xf32, #vmem>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    %k = arith.mulf %two, %three : f32
    %p = arith.mulf %s, %k : f32
    linalg.yield %p : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// An output allocated here (that no input may share) holds the full-tile
// intermediate results while their values are dead, instead of temporaries.
// CHECK-LABEL: func.func @scratch
// CHECK-SAME: (%[[X:.*]]: memref<8x128xf32, #accel.space<vmem>>, %[[C:.*]]: memref<8x1xf32, #accel.space<vmem>>)
// CHECK-NEXT: %[[Y:.*]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vsub %[[X]], %[[C]], %[[Y]]
// CHECK-NEXT: accel.vexp %[[Y]], %[[Y]]
// CHECK-NEXT: %[[T:.*]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vmul %[[Y]], %[[Y]], %[[T]]
// CHECK-NEXT: accel.vadd %[[T]], %[[Y]], %[[Y]]
// CHECK-NEXT: return
func.func @scratch(%x: memref<8x128xf32, #vmem>, %c: memref<8x1xf32, #vmem>) {
  %y = accel.alloc : memref<8x128xf32, #vmem>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %c : memref<8x128xf32, #vmem>, memref<8x1xf32, #vmem>) outs(%y : memref<8x128xf32, #vmem>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    %sq = arith.mulf %e, %e : f32
    %r = arith.addf %sq, %e : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// arith.maxnumf ignores NaN (docs/isa.md, "NaN"): vreduce_max and vmax get
// ignore_nan. Its identity is NaN, so a NaN fill is dropped; a -inf fill
// is not an identity for it (a row of NaNs must give -inf), so the row
// maximum goes to a column and is combined with the filled buffer.
// CHECK-LABEL: func.func @maxnum_identity_nan
// CHECK-NOT: accel.vfill
// CHECK: accel.vreduce_max %arg0, %{{.*}} {ignore_nan}
// CHECK-NOT: accel.vmax
// CHECK: return
func.func @maxnum_identity_nan(%x: memref<8x128xf32, #vmem>) {
  %nan = arith.constant 0x7FC00000 : f32
  %m = accel.alloc : memref<8xf32, #vmem>
  linalg.fill ins(%nan : f32) outs(%m : memref<8xf32, #vmem>)
  linalg.reduce ins(%x : memref<8x128xf32, #vmem>) outs(%m : memref<8xf32, #vmem>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.maxnumf %in, %acc : f32
      linalg.yield %r : f32
    }
  return
}

// CHECK-LABEL: func.func @maxnum_minus_inf_fill
// CHECK: accel.vfill %[[M:.*]], 0xFF800000
// CHECK: %[[MC:.*]] = memref.expand_shape %[[M]]
// CHECK-NEXT: %[[P:.*]] = accel.alloc : memref<8x1xf32
// CHECK-NEXT: accel.vreduce_max %arg0, %[[P]] {ignore_nan}
// CHECK-NEXT: accel.vmax %[[MC]], %[[P]], %[[MC]] {ignore_nan}
func.func @maxnum_minus_inf_fill(%x: memref<8x128xf32, #vmem>) {
  %ninf = arith.constant 0xFF800000 : f32
  %m = accel.alloc : memref<8xf32, #vmem>
  linalg.fill ins(%ninf : f32) outs(%m : memref<8xf32, #vmem>)
  linalg.reduce ins(%x : memref<8x128xf32, #vmem>) outs(%m : memref<8xf32, #vmem>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.maxnumf %in, %acc : f32
      linalg.yield %r : f32
    }
  return
}

// An elementwise maximumf has no ignore_nan; maxnumf has.
// CHECK-LABEL: func.func @elementwise_max
// CHECK: accel.vmax %arg0, %arg1, %arg2 :
// CHECK: accel.vmax %arg0, %arg1, %arg2 {ignore_nan} :
func.func @elementwise_max(%a: memref<8x128xf32, #vmem>, %b: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>) outs(%c : memref<8x128xf32, #vmem>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.maximumf %p, %q : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>) outs(%c : memref<8x128xf32, #vmem>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.maxnumf %p, %q : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// One element read by every iteration (a rank-0 value of the program,
// accel-expand-rank0): 0 + it into a column by the row broadcast, then the
// column broadcast along the rows.
// CHECK-LABEL: func.func @one_element(
// CHECK-SAME:      %[[X:.*]]: memref<8x128xf32, #accel.space<vmem>>, %[[B:.*]]: memref<1x1xf32, #accel.space<vmem>>
// CHECK:         %[[C:.*]] = accel.alloc : memref<8x1xf32, #accel.space<vmem>>
// CHECK:         accel.vfill %[[C]], 0.000000e+00
// CHECK:         accel.vadd %[[C]], %[[B]], %[[C]] : memref<8x1xf32, #accel.space<vmem>>, memref<1x1xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
// CHECK:         accel.vadd %[[X]], %[[C]], %[[X]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
#vmem = #accel.space<vmem>
func.func @one_element(%x: memref<8x128xf32, #vmem>, %b: memref<1x1xf32, #vmem>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0, 0)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<8x128xf32, #vmem>, memref<1x1xf32, #vmem>) outs(%x : memref<8x128xf32, #vmem>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A reduction over the first loop into a row (a column sum): the rows
// halved, 8 -> 4 -> 2 -> 1, into an f32 temporary, then added to the
// output (not just filled with 0 here).
// CHECK-LABEL: func.func @column_reduction(
// CHECK-SAME:      %[[X:.*]]: memref<8x128xf32, #accel.space<vmem>>, %[[O:.*]]: memref<128xf32, #accel.space<vmem>>
// CHECK:         %[[T:.*]] = accel.alloc : memref<4x128xf32, #accel.space<vmem>>
// CHECK:         accel.vadd {{.*}} : memref<4x128xf32, strided<[128, 1]>, #accel.space<vmem>>, memref<4x128xf32, strided<[128, 1], offset: 512>, #accel.space<vmem>>, memref<4x128xf32, strided<[128, 1]>, #accel.space<vmem>>
// CHECK:         accel.vadd {{.*}} : memref<2x128xf32, strided<[128, 1]>, #accel.space<vmem>>, memref<2x128xf32, strided<[128, 1], offset: 256>, #accel.space<vmem>>, memref<2x128xf32, strided<[128, 1]>, #accel.space<vmem>>
// CHECK:         accel.vadd {{.*}} : memref<1x128xf32, strided<[128, 1]>, #accel.space<vmem>>, memref<1x128xf32, strided<[128, 1], offset: 128>, #accel.space<vmem>>, memref<1x128xf32, strided<[128, 1]>, #accel.space<vmem>>
// CHECK:         accel.vadd %[[O]], %{{.*}}, %[[O]] : memref<128xf32, #accel.space<vmem>>, memref<1x128xf32, strided<[128, 1]>, #accel.space<vmem>>, memref<128xf32, #accel.space<vmem>>
#vmem = #accel.space<vmem>
func.func @column_reduction(%x: memref<8x128xf32, #vmem>, %o: memref<128xf32, #vmem>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<8x128xf32, #vmem>) outs(%o : memref<128xf32, #vmem>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// An operand read transposed ((i, j) -> (j, i)) is transposed into a
// temporary first (docs/isa.md, "Transposes"); a generic that only yields
// it, or linalg.transpose, is one vtranspose into the output.
// CHECK-LABEL: func.func @transposes
// CHECK-SAME: (%[[X:.*]]: memref<8x16xf32, #accel.space<vmem>>, %[[Y:.*]]: memref<16x8xf32, #accel.space<vmem>>, %[[O:.*]]: memref<16x8xf32, #accel.space<vmem>>)
// CHECK-NEXT: %[[T:.*]] = accel.alloc : memref<16x8xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vtranspose %[[X]], %[[T]] : memref<8x16xf32, #accel.space<vmem>>, memref<16x8xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vadd %[[T]], %[[Y]], %[[O]]
// CHECK-NEXT: accel.vtranspose %[[X]], %[[O]] : memref<8x16xf32, #accel.space<vmem>>, memref<16x8xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vtranspose %[[X]], %[[O]] : memref<8x16xf32, #accel.space<vmem>>, memref<16x8xf32, #accel.space<vmem>>
// CHECK-NEXT: return
func.func @transposes(%x: memref<8x16xf32, #vmem>, %y: memref<16x8xf32, #vmem>, %o: memref<16x8xf32, #vmem>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<8x16xf32, #vmem>, memref<16x8xf32, #vmem>) outs(%o : memref<16x8xf32, #vmem>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x16xf32, #vmem>) outs(%o : memref<16x8xf32, #vmem>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  linalg.transpose ins(%x : memref<8x16xf32, #vmem>) outs(%o : memref<16x8xf32, #vmem>) permutation = [1, 0]
  return
}

// -----

#vmem = #accel.space<vmem>

// torch-mlir's ReLU (cmpf ugt, select): the mask is a vcmp against a filled
// column of 0.0, the output starts as the false value (a fill) and vselect
// writes x where the mask is set.
// CHECK-LABEL: func.func @relu_select
// CHECK-SAME: (%[[X:.*]]: memref<8x128xf32, #accel.space<vmem>>, %[[O:.*]]: memref<8x128xf32, #accel.space<vmem>>)
// CHECK: %[[Z:.*]] = accel.alloc : memref<8x1xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vfill %[[Z]], 0.000000e+00
// CHECK-NEXT: %[[M:.*]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.vcmp ugt, %[[X]], %[[Z]], %[[M]]
// CHECK-NEXT: accel.vfill %[[O]], 0.000000e+00
// CHECK-NEXT: accel.vselect %[[M]], %[[X]], %[[O]]
// CHECK-NEXT: return
func.func @relu_select(%x: memref<8x128xf32, #vmem>, %o: memref<8x128xf32, #vmem>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x128xf32, #vmem>) outs(%o : memref<8x128xf32, #vmem>) {
  ^bb0(%a: f32, %out: f32):
    %c = arith.cmpf ugt, %a, %zero : f32
    %s = arith.select %c, %a, %zero : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// linalg.index with the tile's offsets (values defined outside the body):
// the row index is a column iota based at %r0 + 1, the column index a row
// iota based at %c0; cmpi sge compares them as f32 (a full tile from the
// column, the row broadcast). sitofp of 2 * j is a row iota times 2.
// CHECK-LABEL: func.func @causal
// CHECK-SAME: (%[[X:.*]]: memref<8x128xf32, #accel.space<vmem>>, %[[O:.*]]: memref<8x128xf32, #accel.space<vmem>>, %[[R0:.*]]: index, %[[C0:.*]]: index)
// CHECK: %[[RB:.*]] = arith.addi %{{.*}}, %[[R0]] : index
// CHECK: accel.viota %[[RB]], %[[ROWS:.*]] : memref<8x1xf32, #accel.space<vmem>>
// CHECK: %[[CB:.*]] = arith.addi %{{.*}}, %[[C0]] : index
// CHECK: accel.viota %[[CB]], %[[COLS:.*]] {columns} : memref<1x128xf32, #accel.space<vmem>>
// CHECK: accel.vadd %{{.*}}, %[[ROWS]], %[[FULL:.*]] :
// CHECK: accel.vcmp oge, %[[FULL]], %[[COLS]], %[[M:.*]] : memref<8x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.viota %{{.*}}, %[[J:.*]] {columns} : memref<1x128xf32, #accel.space<vmem>>
// CHECK: accel.vmul %[[J]], %{{.*}}, %[[J2:.*]] : memref<1x128xf32, #accel.space<vmem>>
// CHECK: accel.vselect %[[M]], %{{.*}}, %[[O]]
func.func @causal(%x: memref<8x128xf32, #vmem>, %o: memref<8x128xf32, #vmem>, %r0: index, %c0: index) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x128xf32, #vmem>) outs(%o : memref<8x128xf32, #vmem>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    %gi0 = arith.addi %i, %r0 : index
    %gi = arith.addi %gi0, %one : index
    %gj = arith.addi %j, %c0 : index
    %c = arith.cmpi sge, %gi, %gj : index
    %j2 = arith.muli %j, %two : index
    %j2i = arith.index_cast %j2 : index to i32
    %f = arith.sitofp %j2i : i32 to f32
    %s = arith.select %c, %a, %f : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A gather nest (accel.gather, from accel-lower-gathers): its copies are
// DMAs that signal semaphore 255 and are not waited one by one; the nest
// waits once after its end for all 3 x 4 of them. The i32 index loads
// from VMEM are the scalar core's loads.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
// CHECK-LABEL: func.func @gather_nest
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[W:.*]] = accel.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<3x4xi32, #accel.space<vmem>>
// CHECK: arith.index_cast %[[W]] : index to i32
// CHECK: accel.dma_start %{{.*}}, %{{.*}} signal 255 :
// CHECK-NOT: accel.dma_wait
// CHECK: } {accel.gather}
// CHECK-NEXT: %[[N:.*]] = arith.constant 12 : index
// CHECK-NEXT: accel.sem_wait 255, %[[N]]
func.func @gather_nest(%ids: memref<3x4xi32, #vmem>, %t: memref<10x16xf32, #hbm>, %out: memref<12x16xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %id = memref.load %ids[%i, %j] : memref<3x4xi32, #vmem>
      %r = arith.index_cast %id : i32 to index
      %src = memref.subview %t[%r, 0] [1, 16] [1, 1] : memref<10x16xf32, #hbm> to memref<1x16xf32, strided<[16, 1], offset: ?>, #hbm>
      %k = arith.muli %i, %c4 : index
      %at = arith.addi %k, %j : index
      %dst = memref.subview %out[%at, 0] [1, 16] [1, 1] : memref<12x16xf32, #vmem> to memref<1x16xf32, strided<[16, 1], offset: ?>, #vmem>
      memref.copy %src, %dst : memref<1x16xf32, strided<[16, 1], offset: ?>, #hbm> to memref<1x16xf32, strided<[16, 1], offset: ?>, #vmem>
    }
  } {accel.gather}
  return
}
