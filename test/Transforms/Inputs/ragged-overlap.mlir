// Like ragged-segments.mlir, but the outer loop yields its inner loop's
// upper bound while that loop runs with step 2 over ranges of odd length
// (lens[b] = b tiles, the segments 0, 1, ..., 5 tiles long): the inner
// loop stops past its upper bound and the next segment starts inside the
// last one, rewriting a tile. The segments do not continue one another:
// the coalesced loop runs no iteration and the nest runs as written.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!tile = memref<4x256xf32, #vmem>
!htile = memref<4x256xf32, strided<[256, 1], offset: ?>, #hbm>
func.func @main(%lens: memref<8xi32, #hbm> {accel.init = "iota"},
                %x: memref<64x256xf32, #hbm>,
                %y: memref<64x256xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %lv = accel.alloc : memref<8xi32, #vmem>
  %t = accel.dma_start %lens, %lv : memref<8xi32, #hbm>, memref<8xi32, #vmem>
  accel.dma_wait %t
  %xv = accel.alloc : !tile
  %acc = accel.alloc : !tile
  accel.vfill %acc, 0.0 : !tile
  %total = scf.for %b = %c0 to %c6 step %c1 iter_args(%start = %c0) -> (index) {
    %n = accel.load %lv[%b] : memref<8xi32, #vmem>
    %stop = arith.addi %start, %n : index
    // The step is defined in the outer body (the coalesced loop makes its own).
    %c2 = arith.constant 2 : index
    scf.for %i = %start to %stop step %c2 {
      %row = arith.muli %i, %c4 : index
      %xs = memref.subview %x[%row, 0] [4, 256] [1, 1] : memref<64x256xf32, #hbm> to !htile
      %tx = accel.dma_start %xs, %xv : !htile, !tile
      accel.dma_wait %tx
      accel.vadd %acc, %xv, %acc : !tile, !tile, !tile
      %ys = memref.subview %y[%row, 0] [4, 256] [1, 1] : memref<64x256xf32, #hbm> to !htile
      %ty = accel.dma_start %acc, %ys : !tile, !htile
      accel.dma_wait %ty
    }
    scf.yield %stop : index
  }
  %one = accel.alloc : memref<1x1xf32, #vmem>
  accel.vfill %one, 1.0 : memref<1x1xf32, #vmem>
  %end = arith.muli %total, %c4 : index
  %ye = memref.subview %y[%end, 0] [1, 1] [1, 1] : memref<64x256xf32, #hbm> to memref<1x1xf32, strided<[256, 1], offset: ?>, #hbm>
  %te = accel.dma_start %one, %ye : memref<1x1xf32, #vmem>, memref<1x1xf32, strided<[256, 1], offset: ?>, #hbm>
  accel.dma_wait %te
  return
}
