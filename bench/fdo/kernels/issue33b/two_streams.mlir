// Issue 33, resolving set, kernel F (two_streams): two independent
// streaming nests, one after the other, each long enough that FDO pipelines
// it as a loop (it is not unrolled): y = exp(x) over 128 row tiles, then
// w = tanh(z) + z over 64 row tiles of another tensor. Nothing of the
// second nest depends on the first, so its first loads can be issued while
// the first nest runs (issue 33 item 4), and with ~24-36 VPU cycles per tile
// against a ~530-cycle DMA latency each loop needs ~20 tiles in flight.
//
// Style: two back-to-back loop nests with no data between them, sharing
// their two VMEM tiles (the second nest reuses the first's buffers), long
// trip counts (128 and 64), VPU only, tiles of 8 x 512 (16 KiB).
//
// Shapes: x, y 1024 x 512 f32; z, w 512 x 512 f32. Config: the default
// machine.
//
//   accel-replay fdo bench/fdo/kernels/issue33b/two_streams.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!tile = memref<8x512xf32, #vmem>
!htile = memref<8x512xf32, strided<[512, 1], offset: ?>, #hbm>
func.func @main(%x: memref<1024x512xf32, #hbm>, %z: memref<512x512xf32, #hbm>,
                %y: memref<1024x512xf32, #hbm> {accel.init = "zero"},
                %w: memref<512x512xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %a = accel.alloc : !tile
  %b = accel.alloc : !tile
  scf.for %i = %c0 to %c128 step %c1 {
    %r = arith.muli %i, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 512] [1, 1] : memref<1024x512xf32, #hbm> to !htile
    %t = accel.dma_start %xs, %a : !htile, !tile
    accel.dma_wait %t
    accel.vexp %a, %b : !tile, !tile
    %ys = memref.subview %y[%r, 0] [8, 512] [1, 1] : memref<1024x512xf32, #hbm> to !htile
    %s = accel.dma_start %b, %ys : !tile, !htile
    accel.dma_wait %s
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %r = arith.muli %i, %c8 : index
    %zs = memref.subview %z[%r, 0] [8, 512] [1, 1] : memref<512x512xf32, #hbm> to !htile
    %t = accel.dma_start %zs, %a : !htile, !tile
    accel.dma_wait %t
    accel.vtanh %a, %b : !tile, !tile
    accel.vadd %b, %a, %b : !tile, !tile, !tile
    %ws = memref.subview %w[%r, 0] [8, 512] [1, 1] : memref<512x512xf32, #hbm> to !htile
    %s = accel.dma_start %b, %ws : !tile, !htile
    accel.dma_wait %s
  }
  return
}
