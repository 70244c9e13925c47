// Issue 10, row 3 (stream_triad): a STREAM-style triad, out = a * b + c, over
// three 512 x 1024 f32 arrays in 64 row tiles of 8 x 1024 (32 KiB). The loop
// steps over rows directly (the induction variable is the row offset, step
// 8), issues all three loads before waiting on any of them, and waits on the
// store at the end of the iteration, as one writes it by hand. Memory-bound:
// 96 KiB in and 32 KiB out per iteration against two 16-cycle VPU ops.
//
// Shapes: a, b, c, out 512 x 1024 f32; 64 iterations. Config: the default
// machine (no --config).
//
//   accel-replay fdo bench/fdo/kernels/stream_triad.mlir -o out --iterations 3
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!tile = memref<8x1024xf32, #vmem>
!hbm_tile = memref<8x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
func.func @main(%a: memref<512x1024xf32, #hbm>, %b: memref<512x1024xf32, #hbm>,
                %c: memref<512x1024xf32, #hbm>,
                %out: memref<512x1024xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %rows = arith.constant 512 : index
  %va = accel.alloc : !tile
  %vb = accel.alloc : !tile
  %vc = accel.alloc : !tile
  %vo = accel.alloc : !tile
  scf.for %r = %c0 to %rows step %c8 {
    %sa = memref.subview %a[%r, 0] [8, 1024] [1, 1] : memref<512x1024xf32, #hbm> to !hbm_tile
    %sb = memref.subview %b[%r, 0] [8, 1024] [1, 1] : memref<512x1024xf32, #hbm> to !hbm_tile
    %sc = memref.subview %c[%r, 0] [8, 1024] [1, 1] : memref<512x1024xf32, #hbm> to !hbm_tile
    %ta = accel.dma_start %sa, %va : !hbm_tile, !tile
    %tb = accel.dma_start %sb, %vb : !hbm_tile, !tile
    %tc = accel.dma_start %sc, %vc : !hbm_tile, !tile
    accel.dma_wait %ta
    accel.dma_wait %tb
    accel.vmul %va, %vb, %vo : !tile, !tile, !tile
    accel.dma_wait %tc
    accel.vadd %vo, %vc, %vo : !tile, !tile, !tile
    %so = memref.subview %out[%r, 0] [8, 1024] [1, 1] : memref<512x1024xf32, #hbm> to !hbm_tile
    %to = accel.dma_start %vo, %so : !tile, !hbm_tile
    accel.dma_wait %to
  }
  return
}
