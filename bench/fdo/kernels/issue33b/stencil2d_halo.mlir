// Issue 33, resolving set, kernel C (stencil2d_halo): a 5-point Jacobi
// step on a 128 x 256 grid stored with a one-cell halo (130 x 258 f32):
//   y[i, j] = 0.5 x[i, j] + 0.125 (x[i-1, j] + x[i+1, j] + x[i, j-1] + x[i, j+1])
// over 8 output tiles of 32 x 128 (a 4 x 2 grid, row-major, the tile loop
// flattened: one loop of 8 with the tile's row and column computed by
// divui and remui). Each tile loads its 34 x 130 halo window (overlapping
// its neighbours' windows by two rows or columns), then reads five
// shifted 32 x 128 views of the window (VMEM subviews with constant
// offsets, row stride 130), combines them on the VPU and stores the tile.
//
// Style: 2-D halo windows overlapping in both dimensions, a flattened 2-D
// tile loop (div/rem on the induction variable), constant-offset views of
// a VMEM buffer as the VPU's operands. VPU only.
//
// Shapes: x 130 x 258 f32, y 128 x 256 f32; window 34 x 130 (17.3 KiB);
// 8 tiles, 6 VPU ops of 32 x 128 each. Config: the default machine.
//
//   accel-replay fdo bench/fdo/kernels/issue33b/stencil2d_halo.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!win = memref<34x130xf32, #vmem>
!hwin = memref<34x130xf32, strided<[258, 1], offset: ?>, #hbm>
!view = memref<32x128xf32, strided<[130, 1], offset: ?>, #vmem>
!tile = memref<32x128xf32, #vmem>
!htile = memref<32x128xf32, strided<[256, 1], offset: ?>, #hbm>
func.func @main(%x: memref<130x258xf32, #hbm>,
                %y: memref<128x256xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %w = accel.alloc : !win
  %acc = accel.alloc : !tile
  %sum = accel.alloc : !tile
  %half = accel.alloc : memref<32x1xf32, #vmem>
  %eighth = accel.alloc : memref<32x1xf32, #vmem>
  accel.vfill %half, 0.5 : memref<32x1xf32, #vmem>
  accel.vfill %eighth, 0.125 : memref<32x1xf32, #vmem>
  scf.for %t = %c0 to %c8 step %c1 {
    %ti = arith.divui %t, %c2 : index
    %tj = arith.remui %t, %c2 : index
    %r = arith.muli %ti, %c32 : index
    %c = arith.muli %tj, %c128 : index
    %xs = memref.subview %x[%r, %c] [34, 130] [1, 1] : memref<130x258xf32, #hbm> to !hwin
    %tw = accel.dma_start %xs, %w : !hwin, !win
    accel.dma_wait %tw
    %up = memref.subview %w[%c0, %c1] [32, 128] [1, 1] : !win to !view
    %down = memref.subview %w[%c2, %c1] [32, 128] [1, 1] : !win to !view
    %left = memref.subview %w[%c1, %c0] [32, 128] [1, 1] : !win to !view
    %right = memref.subview %w[%c1, %c2] [32, 128] [1, 1] : !win to !view
    %mid = memref.subview %w[%c1, %c1] [32, 128] [1, 1] : !win to !view
    accel.vadd %up, %down, %sum : !view, !view, !tile
    accel.vadd %sum, %left, %sum : !tile, !view, !tile
    accel.vadd %sum, %right, %sum : !tile, !view, !tile
    accel.vmul %sum, %eighth, %sum : !tile, memref<32x1xf32, #vmem>, !tile
    accel.vmul %mid, %half, %acc : !view, memref<32x1xf32, #vmem>, !tile
    accel.vadd %acc, %sum, %acc : !tile, !tile, !tile
    %ys = memref.subview %y[%r, %c] [32, 128] [1, 1] : memref<128x256xf32, #hbm> to !htile
    %ty = accel.dma_start %acc, %ys : !tile, !htile
    accel.dma_wait %ty
  }
  return
}
