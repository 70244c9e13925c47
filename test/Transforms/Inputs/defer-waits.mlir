// A hand-pipelined ring (prefetch distance 2, three slots chosen by
// remui) whose load WAITs are carried in from earlier iterations: with 3
// iterations, fewer than two periods of its tokens' shift, so
// accel-pipeline-dma refuses it; the store of each result tile stalls
// (accel.stall_base, as a profile would say) and its WAIT ends every
// iteration.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!slot = memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
!htile = memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
!tile = memref<8x128xf32, #vmem>
func.func @main(%x: memref<144x128xf32, #hbm>, %y: memref<128x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c3i = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %ring = accel.alloc : memref<24x128xf32, #vmem>
  %e = accel.alloc : !tile
  %o = accel.alloc : !tile
  %x0 = memref.subview %x[%c0, 0] [8, 128] [1, 1] : memref<144x128xf32, #hbm> to !htile
  %s0 = memref.subview %ring[%c0, 0] [8, 128] [1, 1] : memref<24x128xf32, #vmem> to !slot
  %p0 = accel.dma_start %x0, %s0 : !htile, !slot
  %x1 = memref.subview %x[%c8, 0] [8, 128] [1, 1] : memref<144x128xf32, #hbm> to !htile
  %s1 = memref.subview %ring[%c8, 0] [8, 128] [1, 1] : memref<24x128xf32, #vmem> to !slot
  %p1 = accel.dma_start %x1, %s1 : !htile, !slot
  %last:2 = scf.for %i = %c0 to %c3i step %c1 iter_args(%tcur = %p0, %tnext = %p1) -> (!accel.token, !accel.token) {
    accel.dma_wait %tcur
    %i2 = arith.addi %i, %c2 : index
    %sl2 = arith.remui %i2, %c3 : index
    %r2 = arith.muli %i2, %c8 : index
    %v2 = arith.muli %sl2, %c8 : index
    %xs2 = memref.subview %x[%r2, 0] [8, 128] [1, 1] : memref<144x128xf32, #hbm> to !htile
    %ss2 = memref.subview %ring[%v2, 0] [8, 128] [1, 1] : memref<24x128xf32, #vmem> to !slot
    %tpre = accel.dma_start %xs2, %ss2 : !htile, !slot
    %sl = arith.remui %i, %c3 : index
    %v = arith.muli %sl, %c8 : index
    %cur = memref.subview %ring[%v, 0] [8, 128] [1, 1] : memref<24x128xf32, #vmem> to !slot
    accel.vexp %cur, %e : !slot, !tile
    accel.vlog1p %e, %e : !tile, !tile
    accel.vadd %e, %e, %o : !tile, !tile, !tile
    %r = arith.muli %i, %c8 : index
    %ys = memref.subview %y[%r, 0] [8, 128] [1, 1] : memref<128x128xf32, #hbm> to !htile
    %ts = accel.dma_start %o, %ys {accel.stall_base = 400} : !tile, !htile
    accel.dma_wait %ts
    scf.yield %tnext, %tpre : !accel.token, !accel.token
  }
  accel.dma_wait %last#0
  accel.dma_wait %last#1
  return
}
