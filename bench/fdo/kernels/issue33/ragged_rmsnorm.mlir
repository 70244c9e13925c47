// Issue 33 kernel 3 (ragged_rmsnorm): RMSNorm of a ragged batch of 4
// sequences packed back to back in one activation,
//   y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * g
// The sequence lengths (in 8-row tiles) are run-time data: a 16-entry i32
// table `lens` is DMA'd from HBM into VMEM first, and sequence b has
// lens[b + 3] tiles (the table is an iota, so 3, 4, 5 and 6 tiles: 18 tiles,
// 144 rows). The outer loop over sequences carries the sequence's first row
// in an iter_arg; the inner loop's bounds are both run-time values: it runs
// from that first row to first row + 8 * accel.load(lens[b + 3]), step 8,
// the induction variable being the row offset. Each tile is loaded, waited
// on, normalized on the VPU (square, row sum, / C, + eps, rsqrt, scale by
// the row, scale by the gain row g broadcast along rows) and stored, waited
// on at once. Rows past the last sequence stay zero in y.
//
// Style: "3. ragged_rmsnorm" (trip count accel.load'ed from a DMA'd i32
// table, loop bounds not constants).
//
// Shapes: lens 16 x i32 (iota); x, y 256 x 1024 f32; g 1 x 1024 f32;
// tiles 8 x 1024 (32 KiB); 18 tiles in all. Config: the default machine.
//
// Ideal schedule: every tile's load is independent of the data (only its
// address depends on the table), so the loads can run ahead by a tile or
// two, across the sequence boundaries too, and the stores drain behind the
// VPU work; the trip count is known once lens is in VMEM, at the very start.
// The 7 VPU ops of a tile take ~90 cycles against the 500-cycle base
// latency of each load and store.
//
//   accel-replay fdo bench/fdo/kernels/issue33/ragged_rmsnorm.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!tile = memref<8x1024xf32, #vmem>
!htile = memref<8x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
!col = memref<8x1xf32, #vmem>
func.func @main(%lens: memref<16xi32, #hbm> {accel.init = "iota"},
                %x: memref<256x1024xf32, #hbm>, %g: memref<1x1024xf32, #hbm>,
                %y: memref<256x1024xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %lv = accel.alloc : memref<16xi32, #vmem>
  %gv = accel.alloc : memref<1x1024xf32, #vmem>
  %xv = accel.alloc : !tile
  %sq = accel.alloc : !tile
  %ss = accel.alloc : !col
  %n = accel.alloc : !col
  %eps = accel.alloc : !col
  %tl = accel.dma_start %lens, %lv : memref<16xi32, #hbm>, memref<16xi32, #vmem>
  accel.dma_wait %tl
  %tg = accel.dma_start %g, %gv : memref<1x1024xf32, #hbm>, memref<1x1024xf32, #vmem>
  accel.dma_wait %tg
  accel.vfill %n, 1024.0 : !col
  accel.vfill %eps, 1.0e-6 : !col
  %rows_done = scf.for %b = %c0 to %c4 step %c1 iter_args(%first = %c0) -> (index) {
    %e = arith.addi %b, %c3 : index
    %ntiles = accel.load %lv[%e] : memref<16xi32, #vmem>
    %nrows = arith.muli %ntiles, %c8 : index
    %end = arith.addi %first, %nrows : index
    scf.for %r = %first to %end step %c8 {
      %xs = memref.subview %x[%r, 0] [8, 1024] [1, 1] : memref<256x1024xf32, #hbm> to !htile
      %tx = accel.dma_start %xs, %xv : !htile, !tile
      accel.dma_wait %tx
      accel.vmul %xv, %xv, %sq : !tile, !tile, !tile
      accel.vreduce_sum %sq, %ss : !tile, !col
      accel.vdiv %ss, %n, %ss : !col, !col, !col
      accel.vadd %ss, %eps, %ss : !col, !col, !col
      accel.vrsqrt %ss, %ss : !col, !col
      accel.vmul %xv, %ss, %xv : !tile, !col, !tile
      accel.vmul %xv, %gv, %xv : !tile, memref<1x1024xf32, #vmem>, !tile
      %ys = memref.subview %y[%r, 0] [8, 1024] [1, 1] : memref<256x1024xf32, #hbm> to !htile
      %ty = accel.dma_start %xv, %ys : !tile, !htile
      accel.dma_wait %ty
    }
    scf.yield %end : index
  }
  return
}
