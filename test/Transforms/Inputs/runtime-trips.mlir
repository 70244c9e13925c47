// Loops whose trip counts are known only at run time: each count is read
// from an i32 iota table (table[k] == k) in VMEM. @main runs the same
// RMS-style row loop for 13, 5, 16 and 0 rows, then a loop from a loaded
// lower bound with step 2 that carries its row offset in iter_args and
// returns it.
func.func @main(%x: memref<160x128xf32, #accel.space<hbm>>,
                %y: memref<160x128xf32, #accel.space<hbm>> {accel.init = "zero"},
                %table: memref<40xi32, #accel.space<hbm>> {accel.init = "iota"},
                %last: memref<1x128xf32, #accel.space<hbm>> {accel.init = "zero"}) {
  %t = accel.alloc : memref<40xi32, #accel.space<vmem>>
  %vx = accel.alloc : memref<4x128xf32, #accel.space<vmem>>
  %sq = accel.alloc : memref<4x128xf32, #accel.space<vmem>>
  %s = accel.alloc : memref<4x1xf32, #accel.space<vmem>>
  %vo = accel.alloc : memref<4x128xf32, #accel.space<vmem>>
  %vr = accel.alloc : memref<1x128xf32, #accel.space<vmem>>
  %tt = accel.dma_start %table, %t : memref<40xi32, #accel.space<hbm>>, memref<40xi32, #accel.space<vmem>>
  accel.dma_wait %tt
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c13 = arith.constant 13 : index
  %c16 = arith.constant 16 : index
  %c34 = arith.constant 34 : index
  // Rows 0.., 13 tiles; rows 52.., 5 tiles; rows 72.., 16 tiles; none.
  %counts13 = accel.load %t[%c13] : memref<40xi32, #accel.space<vmem>>
  %counts5 = accel.load %t[%c5] : memref<40xi32, #accel.space<vmem>>
  %counts16 = accel.load %t[%c16] : memref<40xi32, #accel.space<vmem>>
  %counts0 = accel.load %t[%c0] : memref<40xi32, #accel.space<vmem>>
  %b5 = arith.constant 13 : index
  %b16 = arith.constant 18 : index
  scf.for %i = %c0 to %counts13 step %c1 {
    %row = arith.muli %i, %c4 : index
    %xs = memref.subview %x[%row, 0] [4, 128] [1, 1] : memref<160x128xf32, #accel.space<hbm>> to memref<4x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    %d = accel.dma_start %xs, %vx : memref<4x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>, memref<4x128xf32, #accel.space<vmem>>
    accel.dma_wait %d
    accel.vmul %vx, %vx, %sq : memref<4x128xf32, #accel.space<vmem>>, memref<4x128xf32, #accel.space<vmem>>, memref<4x128xf32, #accel.space<vmem>>
    accel.vreduce_sum %sq, %s : memref<4x128xf32, #accel.space<vmem>>, memref<4x1xf32, #accel.space<vmem>>
    accel.vmul %vx, %s, %vo : memref<4x128xf32, #accel.space<vmem>>, memref<4x1xf32, #accel.space<vmem>>, memref<4x128xf32, #accel.space<vmem>>
    %ys = memref.subview %y[%row, 0] [4, 128] [1, 1] : memref<160x128xf32, #accel.space<hbm>> to memref<4x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    %e = accel.dma_start %vo, %ys : memref<4x128xf32, #accel.space<vmem>>, memref<4x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    accel.dma_wait %e
  }
  // 5 tiles from row 52: the bounds are b5 .. b5 + n.
  %ub5 = arith.addi %b5, %counts5 : index
  scf.for %i = %b5 to %ub5 step %c1 {
    %row = arith.muli %i, %c4 : index
    %xs = memref.subview %x[%row, 0] [4, 128] [1, 1] : memref<160x128xf32, #accel.space<hbm>> to memref<4x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    %d = accel.dma_start %xs, %vx : memref<4x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>, memref<4x128xf32, #accel.space<vmem>>
    accel.dma_wait %d
    accel.vexp %vx, %vo : memref<4x128xf32, #accel.space<vmem>>, memref<4x128xf32, #accel.space<vmem>>
    %ys = memref.subview %y[%row, 0] [4, 128] [1, 1] : memref<160x128xf32, #accel.space<hbm>> to memref<4x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    %e = accel.dma_start %vo, %ys : memref<4x128xf32, #accel.space<vmem>>, memref<4x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    accel.dma_wait %e
  }
  // 16 tiles from row 72, the row offset the induction variable (step 4).
  %lb16 = arith.muli %b16, %c4 : index
  %n16 = arith.muli %counts16, %c4 : index
  %ub16 = arith.addi %lb16, %n16 : index
  scf.for %row = %lb16 to %ub16 step %c4 {
    %xs = memref.subview %x[%row, 0] [4, 128] [1, 1] : memref<160x128xf32, #accel.space<hbm>> to memref<4x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    %d = accel.dma_start %xs, %vx : memref<4x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>, memref<4x128xf32, #accel.space<vmem>>
    accel.dma_wait %d
    accel.vadd %vx, %vx, %vo : memref<4x128xf32, #accel.space<vmem>>, memref<4x128xf32, #accel.space<vmem>>, memref<4x128xf32, #accel.space<vmem>>
    %ys = memref.subview %y[%row, 0] [4, 128] [1, 1] : memref<160x128xf32, #accel.space<hbm>> to memref<4x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    %e = accel.dma_start %vo, %ys : memref<4x128xf32, #accel.space<vmem>>, memref<4x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    accel.dma_wait %e
  }
  // No tiles: table[0] == 0.
  scf.for %i = %c0 to %counts0 step %c1 {
    %xs = memref.subview %x[%i, 0] [1, 128] [1, 1] : memref<160x128xf32, #accel.space<hbm>> to memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    %d = accel.dma_start %xs, %vr : memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>, memref<1x128xf32, #accel.space<vmem>>
    accel.dma_wait %d
    %e = accel.dma_start %vr, %last : memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<hbm>>
    accel.dma_wait %e
  }
  // From a loaded 1 to 35 step 2 (17 iterations), the row carried in
  // iter_args (one row further each time) and returned.
  %lb = accel.load %t[%c1] : memref<40xi32, #accel.space<vmem>>
  %ub = accel.load %t[%c34] : memref<40xi32, #accel.space<vmem>>
  %c2 = arith.constant 2 : index
  %r0 = arith.constant 136 : index
  %end = scf.for %i = %lb to %ub step %c2 iter_args(%r = %r0) -> (index) {
    %xs = memref.subview %x[%r, 0] [1, 128] [1, 1] : memref<160x128xf32, #accel.space<hbm>> to memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    %d = accel.dma_start %xs, %vr : memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>, memref<1x128xf32, #accel.space<vmem>>
    accel.dma_wait %d
    accel.vexp %vr, %vr : memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<vmem>>
    %ys = memref.subview %y[%r, 0] [1, 128] [1, 1] : memref<160x128xf32, #accel.space<hbm>> to memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    %e = accel.dma_start %vr, %ys : memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    accel.dma_wait %e
    %next = arith.addi %r, %c1 : index
    scf.yield %next : index
  }
  // The returned row (136 + 17 = 153) gets 1s.
  accel.vfill %vr, 1.0 : memref<1x128xf32, #accel.space<vmem>>
  %ye = memref.subview %y[%end, 0] [1, 128] [1, 1] : memref<160x128xf32, #accel.space<hbm>> to memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
  %f = accel.dma_start %vr, %ye : memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
  accel.dma_wait %f
  return
}
