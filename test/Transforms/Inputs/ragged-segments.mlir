// A ragged batch (issue 33, item 3): 6 segments of lens[b] tiles (an iota
// table: 0, 1, ..., 5 tiles, the first empty) packed back to back, the
// outer loop carrying the tile where the next segment starts. The inner
// loop counts tiles with step 1; each 4 x 256 tile is loaded, exp'd and
// stored. The segments continue one another: one loop of 15 tiles.
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
  %total = scf.for %b = %c0 to %c6 step %c1 iter_args(%start = %c0) -> (index) {
    %n = accel.load %lv[%b] : memref<8xi32, #vmem>
    %stop = arith.addi %start, %n : index
    scf.for %i = %start to %stop step %c1 {
      %row = arith.muli %i, %c4 : index
      %xs = memref.subview %x[%row, 0] [4, 256] [1, 1] : memref<64x256xf32, #hbm> to !htile
      %tx = accel.dma_start %xs, %xv : !htile, !tile
      accel.dma_wait %tx
      accel.vexp %xv, %xv : !tile, !tile
      %ys = memref.subview %y[%row, 0] [4, 256] [1, 1] : memref<64x256xf32, #hbm> to !htile
      %ty = accel.dma_start %xv, %ys : !tile, !htile
      accel.dma_wait %ty
    }
    scf.yield %stop : index
  }
  // The total (15 tiles) marks the row after the last: y[60, 0] = 1.
  %one = accel.alloc : memref<1x1xf32, #vmem>
  accel.vfill %one, 1.0 : memref<1x1xf32, #vmem>
  %end = arith.muli %total, %c4 : index
  %ye = memref.subview %y[%end, 0] [1, 1] [1, 1] : memref<64x256xf32, #hbm> to memref<1x1xf32, strided<[256, 1], offset: ?>, #hbm>
  %te = accel.dma_start %one, %ye : memref<1x1xf32, #vmem>, memref<1x1xf32, strided<[256, 1], offset: ?>, #hbm>
  accel.dma_wait %te
  return
}
