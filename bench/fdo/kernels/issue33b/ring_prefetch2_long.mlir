// Issue 33, resolving set, kernel G (ring_prefetch2_long): the hand-pipelined
// ring of issue 33 kernel 5 (bench/fdo/kernels/issue33/ring_prefetch2.mlir)
// at 8x the length: 257 row tiles of 8 x 1024 instead of 32, so the main
// loop (i = 0 .. 254) is too long for FDO to unroll it fully. The ring keeps
// its 3 slots (24 x 1024), the prefetch distance the programmer chose (2),
// the tokens carried in iter_args and the slots from arith.remui; the
// epilogue finishes tiles 255 and 256 from slots 0 and 1.
//
// Style: a long hand-pipelined ring (not unrollable), VPU only. Raising the
// prefetch distance needs more slots than the programmer allocated.
//
// Shapes: x, y 2056 x 1024 f32; g 8 x 1024 f32; tiles 32 KiB. Config: the
// default machine.
//
//   accel-replay fdo bench/fdo/kernels/issue33b/ring_prefetch2_long.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!slot = memref<8x1024xf32, strided<[1024, 1], offset: ?>, #vmem>
!htile = memref<8x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
!tile = memref<8x1024xf32, #vmem>
func.func @main(%x: memref<2056x1024xf32, #hbm>, %g: memref<8x1024xf32, #hbm>,
                %y: memref<2056x1024xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c255 = arith.constant 255 : index
  %ring = accel.alloc : memref<24x1024xf32, #vmem>
  %gv = accel.alloc : !tile
  %e = accel.alloc : !tile
  %o = accel.alloc : !tile
  %tg = accel.dma_start %g, %gv : memref<8x1024xf32, #hbm>, !tile
  accel.dma_wait %tg
  // Prologue: tiles 0 and 1 into slots 0 and 1.
  %x0 = memref.subview %x[%c0, 0] [8, 1024] [1, 1] : memref<2056x1024xf32, #hbm> to !htile
  %s0 = memref.subview %ring[%c0, 0] [8, 1024] [1, 1] : memref<24x1024xf32, #vmem> to !slot
  %p0 = accel.dma_start %x0, %s0 : !htile, !slot
  %x1 = memref.subview %x[%c8, 0] [8, 1024] [1, 1] : memref<2056x1024xf32, #hbm> to !htile
  %s1 = memref.subview %ring[%c8, 0] [8, 1024] [1, 1] : memref<24x1024xf32, #vmem> to !slot
  %p1 = accel.dma_start %x1, %s1 : !htile, !slot
  %last:2 = scf.for %i = %c0 to %c255 step %c1 iter_args(%tcur = %p0, %tnext = %p1) -> (!accel.token, !accel.token) {
    accel.dma_wait %tcur
    // Prefetch tile i + 2 into slot (i + 2) mod 3.
    %i2 = arith.addi %i, %c2 : index
    %sl2 = arith.remui %i2, %c3 : index
    %r2 = arith.muli %i2, %c8 : index
    %v2 = arith.muli %sl2, %c8 : index
    %xs2 = memref.subview %x[%r2, 0] [8, 1024] [1, 1] : memref<2056x1024xf32, #hbm> to !htile
    %ss2 = memref.subview %ring[%v2, 0] [8, 1024] [1, 1] : memref<24x1024xf32, #vmem> to !slot
    %tpre = accel.dma_start %xs2, %ss2 : !htile, !slot
    // Compute tile i from slot i mod 3.
    %sl = arith.remui %i, %c3 : index
    %v = arith.muli %sl, %c8 : index
    %cur = memref.subview %ring[%v, 0] [8, 1024] [1, 1] : memref<24x1024xf32, #vmem> to !slot
    accel.vexp %cur, %e : !slot, !tile
    accel.vlog1p %e, %e : !tile, !tile
    accel.vmul %e, %gv, %o : !tile, !tile, !tile
    %r = arith.muli %i, %c8 : index
    %ys = memref.subview %y[%r, 0] [8, 1024] [1, 1] : memref<2056x1024xf32, #hbm> to !htile
    %ts = accel.dma_start %o, %ys : !tile, !htile
    accel.dma_wait %ts
    scf.yield %tnext, %tpre : !accel.token, !accel.token
  }
  // Epilogue: tile 255 (slot 0) and tile 256 (slot 1).
  accel.dma_wait %last#0
  %c2040 = arith.constant 2040 : index
  %c2048 = arith.constant 2048 : index
  %c16 = arith.constant 16 : index
  %e255 = memref.subview %ring[%c0, 0] [8, 1024] [1, 1] : memref<24x1024xf32, #vmem> to !slot
  accel.vexp %e255, %e : !slot, !tile
  accel.vlog1p %e, %e : !tile, !tile
  accel.vmul %e, %gv, %o : !tile, !tile, !tile
  %y255 = memref.subview %y[%c2040, 0] [8, 1024] [1, 1] : memref<2056x1024xf32, #hbm> to !htile
  %t255 = accel.dma_start %o, %y255 : !tile, !htile
  accel.dma_wait %t255
  accel.dma_wait %last#1
  %e256 = memref.subview %ring[%c8, 0] [8, 1024] [1, 1] : memref<24x1024xf32, #vmem> to !slot
  accel.vexp %e256, %e : !slot, !tile
  accel.vlog1p %e, %e : !tile, !tile
  accel.vmul %e, %gv, %o : !tile, !tile, !tile
  %y256 = memref.subview %y[%c2048, 0] [8, 1024] [1, 1] : memref<2056x1024xf32, #hbm> to !htile
  %t256 = accel.dma_start %o, %y256 : !tile, !htile
  accel.dma_wait %t256
  return
}
