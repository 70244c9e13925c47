// Issue 33, resolving set, kernel A (colsum_reverse): column statistics of
// a tall activation, s[c] = sum_r |x[r, c]| and m[c] = max_r x[r, c], over
// 512 x 512 f32, computed per column block of 128 with the row tiles walked
// BACKWARDS (the last rows first, as a reverse scan would): the inner
// loop's induction variable counts up, the row is (15 - t) * 32, so the
// tile address DEcreases with the trip. Each 32 x 128 tile is loaded,
// |x| is summed and x maxed into two accumulator tiles (VPU), and after
// the 16 row tiles the two 32 x 128 partials are stored (the column block's
// two stores).
//
// Style: column-block outer loop (strided HBM tiles, row stride 512),
// reverse traversal of the inner loop, accumulators initialized per outer
// iteration by vfill and carried in VMEM (no iter_args), two stores per
// outer iteration. VPU only.
//
// Shapes: x 512 x 512 f32; tiles 32 x 128 (16 KiB); 4 column blocks x 16
// row tiles = 64 loads; 3 VPU ops per tile. Config: the default machine.
//
//   accel-replay fdo bench/fdo/kernels/issue33b/colsum_reverse.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!tile = memref<32x128xf32, #vmem>
!htile = memref<32x128xf32, strided<[512, 1], offset: ?>, #hbm>
func.func @main(%x: memref<512x512xf32, #hbm>,
                %s: memref<32x512xf32, #hbm> {accel.init = "zero"},
                %m: memref<32x512xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %xv = accel.alloc : !tile
  %ab = accel.alloc : !tile
  %sum = accel.alloc : !tile
  %mx = accel.alloc : !tile
  scf.for %cb = %c0 to %c4 step %c1 {
    %col = arith.muli %cb, %c128 : index
    accel.vfill %sum, 0.0 : !tile
    accel.vfill %mx, -1.0e30 : !tile
    scf.for %t = %c0 to %c16 step %c1 {
      %back = arith.subi %c15, %t : index
      %row = arith.muli %back, %c32 : index
      %xs = memref.subview %x[%row, %col] [32, 128] [1, 1] : memref<512x512xf32, #hbm> to !htile
      %tx = accel.dma_start %xs, %xv : !htile, !tile
      accel.dma_wait %tx
      accel.vabs %xv, %ab : !tile, !tile
      accel.vadd %sum, %ab, %sum : !tile, !tile, !tile
      accel.vmax %mx, %xv, %mx : !tile, !tile, !tile
    }
    %ss = memref.subview %s[0, %col] [32, 128] [1, 1] : memref<32x512xf32, #hbm> to !htile
    %ts = accel.dma_start %sum, %ss : !tile, !htile
    accel.dma_wait %ts
    %ms = memref.subview %m[0, %col] [32, 128] [1, 1] : memref<32x512xf32, #hbm> to !htile
    %tm = accel.dma_start %mx, %ms : !tile, !htile
    accel.dma_wait %tm
  }
  return
}
