// Issue 33 kernel 5 (ring_prefetch2): a hand-pipelined softplus with a
// gain, y = g * log1p(exp(x)), over 32 row tiles (8 x 1024) of a
// 256 x 1024 activation. The programmer already pipelined the loads: one
// VMEM ring buffer of 3 tile slots (24 x 1024), prefetch distance 2. A
// prologue issues tiles 0 and 1 into slots 0 and 1; the main loop (i = 0 ..
// 29) carries the two tokens in flight in iter_args, WAITs on the oldest
// (tile i, issued two iterations earlier or in the prologue), ISSUEs tile
// i+2 into slot (i+2) mod 3 (computed with arith.remui), computes tile i
// from slot i mod 3 and stores it (store waited on at once), and yields the
// tokens (tile i+1's, tile i+2's). An unrolled epilogue WAITs on the two
// carried tokens and finishes tiles 30 and 31. The slot being written by
// the DMA for i+2 is never the slot read for tile i or the one in flight
// for tile i+1.
//
// Style: "5. ring_prefetch2" (hand-pipelined ring of 3 VMEM slots,
// prefetch distance 2, tokens carried in iter_args, slot by arith.remui).
// FDO is expected to do worse here than on a naive version of the loop.
//
// Shapes: x, y 256 x 1024 f32; g 8 x 1024 f32; 32 tiles of 32 KiB; 4 VPU
// ops of 8 x 1024 per tile (exp, log1p, mul: ~100 cycles). Config: the
// default machine (no --config).
//
// Ideal schedule: with ~100 VPU cycles per tile a prefetch distance of 2
// does not cover the 500-cycle base latency; loads ~6 tiles ahead (or all
// issued at once) and the stores' WAITs deferred would make the loop
// VPU/bandwidth-bound (~32 x (32 + 32) cycles of HBM traffic).
//
//   accel-replay fdo bench/fdo/kernels/issue33/ring_prefetch2.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!slot = memref<8x1024xf32, strided<[1024, 1], offset: ?>, #vmem>
!htile = memref<8x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
!tile = memref<8x1024xf32, #vmem>
func.func @main(%x: memref<256x1024xf32, #hbm>, %g: memref<8x1024xf32, #hbm>,
                %y: memref<256x1024xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c30 = arith.constant 30 : index
  %c31 = arith.constant 31 : index
  %ring = accel.alloc : memref<24x1024xf32, #vmem>
  %gv = accel.alloc : !tile
  %e = accel.alloc : !tile
  %o = accel.alloc : !tile
  %tg = accel.dma_start %g, %gv : memref<8x1024xf32, #hbm>, !tile
  accel.dma_wait %tg
  // Prologue: tiles 0 and 1 into slots 0 and 1.
  %x0 = memref.subview %x[%c0, 0] [8, 1024] [1, 1] : memref<256x1024xf32, #hbm> to !htile
  %s0 = memref.subview %ring[%c0, 0] [8, 1024] [1, 1] : memref<24x1024xf32, #vmem> to !slot
  %p0 = accel.dma_start %x0, %s0 : !htile, !slot
  %x1 = memref.subview %x[%c8, 0] [8, 1024] [1, 1] : memref<256x1024xf32, #hbm> to !htile
  %s1 = memref.subview %ring[%c8, 0] [8, 1024] [1, 1] : memref<24x1024xf32, #vmem> to !slot
  %p1 = accel.dma_start %x1, %s1 : !htile, !slot
  %last:2 = scf.for %i = %c0 to %c30 step %c1 iter_args(%tcur = %p0, %tnext = %p1) -> (!accel.token, !accel.token) {
    accel.dma_wait %tcur
    // Prefetch tile i + 2 into slot (i + 2) mod 3.
    %i2 = arith.addi %i, %c2 : index
    %sl2 = arith.remui %i2, %c3 : index
    %r2 = arith.muli %i2, %c8 : index
    %v2 = arith.muli %sl2, %c8 : index
    %xs2 = memref.subview %x[%r2, 0] [8, 1024] [1, 1] : memref<256x1024xf32, #hbm> to !htile
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
    %ys = memref.subview %y[%r, 0] [8, 1024] [1, 1] : memref<256x1024xf32, #hbm> to !htile
    %ts = accel.dma_start %o, %ys : !tile, !htile
    accel.dma_wait %ts
    scf.yield %tnext, %tpre : !accel.token, !accel.token
  }
  // Epilogue: tile 30 (slot 0) and tile 31 (slot 1).
  accel.dma_wait %last#0
  %c240 = arith.constant 240 : index
  %c248 = arith.constant 248 : index
  %e30 = memref.subview %ring[%c0, 0] [8, 1024] [1, 1] : memref<24x1024xf32, #vmem> to !slot
  accel.vexp %e30, %e : !slot, !tile
  accel.vlog1p %e, %e : !tile, !tile
  accel.vmul %e, %gv, %o : !tile, !tile, !tile
  %y30 = memref.subview %y[%c240, 0] [8, 1024] [1, 1] : memref<256x1024xf32, #hbm> to !htile
  %t30 = accel.dma_start %o, %y30 : !tile, !htile
  accel.dma_wait %t30
  accel.dma_wait %last#1
  %e31 = memref.subview %ring[%c8, 0] [8, 1024] [1, 1] : memref<24x1024xf32, #vmem> to !slot
  accel.vexp %e31, %e : !slot, !tile
  accel.vlog1p %e, %e : !tile, !tile
  accel.vmul %e, %gv, %o : !tile, !tile, !tile
  %y31 = memref.subview %y[%c248, 0] [8, 1024] [1, 1] : memref<256x1024xf32, #hbm> to !htile
  %t31 = accel.dma_start %o, %y31 : !tile, !htile
  accel.dma_wait %t31
  return
}
