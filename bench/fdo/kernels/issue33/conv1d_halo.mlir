// Issue 33 kernel 2 (conv1d_halo): a depthwise 1-D convolution over rows
// with a 3-tap filter, one filter per column (channel):
//   y[r, :] = w[0, :] * x[r, :] + w[1, :] * x[r + 1, :] + w[2, :] * x[r + 2, :]
// where x carries the one-row halo on each side already (x is 258 rows for
// 256 output rows). The kernel walks 32 output tiles of 8 rows; each
// iteration DMAs the 10-row window x[r .. r+10) (tile plus halo) into ONE
// window buffer and WAITs at once. The three shifted 8-row views of that
// window (rows 0..8, 1..9, 2..10) and the three 1 x 1024 filter rows are
// taken ONCE, BEFORE the loop, and used inside it: the loop body names no
// subview of the window at all. The filter rows broadcast along the tile's
// rows (a 1 x C row operand of the VPU). The result is stored per tile and
// waited on at once.
//
// Style: "2. conv1d_halo" (halo window buffer whose views are taken before
// the loop; each iteration DMAs the next window in).
//
// Shapes: x 258 x 1024 f32, w 3 x 1024 f32, y 256 x 1024 f32; window
// 10 x 1024 (40 KiB) per iteration, 32 iterations, 5 VPU ops of 8 x 1024
// each. Config: the default machine (no --config).
//
// Ideal schedule: the next window's DMA (and the previous tile's store)
// overlaps the current tile's VPU work: that needs a second window buffer
// AND a second set of the three views (the views point into the one
// buffer), or, better, a ring that reuses the 2 halo rows already in VMEM.
// The loop is latency-bound: every window pays the 500-cycle base latency
// serially, ~80 VPU cycles per tile.
//
//   accel-replay fdo bench/fdo/kernels/issue33/conv1d_halo.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!win = memref<10x1024xf32, #vmem>
!tap = memref<8x1024xf32, strided<[1024, 1], offset: ?>, #vmem>
!wrow = memref<1x1024xf32, strided<[1024, 1], offset: ?>, #vmem>
!hwin = memref<10x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
!hout = memref<8x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
!tile = memref<8x1024xf32, #vmem>
func.func @main(%x: memref<258x1024xf32, #hbm>, %w: memref<3x1024xf32, #hbm>,
                %y: memref<256x1024xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  %wv = accel.alloc : memref<3x1024xf32, #vmem>
  %win = accel.alloc : !win
  %acc = accel.alloc : !tile
  %tmp = accel.alloc : !tile
  %tw = accel.dma_start %w, %wv : memref<3x1024xf32, #hbm>, memref<3x1024xf32, #vmem>
  accel.dma_wait %tw
  // Views taken once, before the loop.
  %w0 = memref.subview %wv[%c0, 0] [1, 1024] [1, 1] : memref<3x1024xf32, #vmem> to !wrow
  %w1 = memref.subview %wv[%c1, 0] [1, 1024] [1, 1] : memref<3x1024xf32, #vmem> to !wrow
  %w2 = memref.subview %wv[%c2, 0] [1, 1024] [1, 1] : memref<3x1024xf32, #vmem> to !wrow
  %xm = memref.subview %win[%c0, 0] [8, 1024] [1, 1] : !win to !tap
  %xc = memref.subview %win[%c1, 0] [8, 1024] [1, 1] : !win to !tap
  %xp = memref.subview %win[%c2, 0] [8, 1024] [1, 1] : !win to !tap
  scf.for %r = %c0 to %c256 step %c8 {
    %src = memref.subview %x[%r, 0] [10, 1024] [1, 1] : memref<258x1024xf32, #hbm> to !hwin
    %tin = accel.dma_start %src, %win : !hwin, !win
    accel.dma_wait %tin
    accel.vmul %xm, %w0, %acc : !tap, !wrow, !tile
    accel.vmul %xc, %w1, %tmp : !tap, !wrow, !tile
    accel.vadd %acc, %tmp, %acc : !tile, !tile, !tile
    accel.vmul %xp, %w2, %tmp : !tap, !wrow, !tile
    accel.vadd %acc, %tmp, %acc : !tile, !tile, !tile
    %dst = memref.subview %y[%r, 0] [8, 1024] [1, 1] : memref<256x1024xf32, #hbm> to !hout
    %tout = accel.dma_start %acc, %dst : !tile, !hout
    accel.dma_wait %tout
  }
  return
}
