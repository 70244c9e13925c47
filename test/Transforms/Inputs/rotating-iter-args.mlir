// Loops whose iter_args only rotate. The first swaps two accumulators every
// step (a ping-pong pair, 26 steps): step i writes acc_old - x_i into the
// other buffer and stores it. The second rotates three row buffers (31
// steps, not a multiple of 3): step i loads x_i into the buffer that held
// x_(i-3)... and adds the two it loaded before, so each step reads what
// the two steps before it wrote.
func.func @main(%x: memref<40x128xf32, #accel.space<hbm>>,
                %sums: memref<40x128xf32, #accel.space<hbm>> {accel.init = "zero"},
                %final: memref<1x128xf32, #accel.space<hbm>> {accel.init = "zero"},
                %mix: memref<40x128xf32, #accel.space<hbm>> {accel.init = "zero"}) {
  %a = accel.alloc : memref<1x128xf32, #accel.space<vmem>>
  %b = accel.alloc : memref<1x128xf32, #accel.space<vmem>>
  %vx = accel.alloc : memref<1x128xf32, #accel.space<vmem>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c26 = arith.constant 26 : index
  accel.vfill %a, 0.0 : memref<1x128xf32, #accel.space<vmem>>
  %r:2 = scf.for %i = %c0 to %c26 step %c1 iter_args(%cur = %a, %next = %b) -> (memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<vmem>>) {
    %xs = memref.subview %x[%i, 0] [1, 128] [1, 1] : memref<40x128xf32, #accel.space<hbm>> to memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    %d = accel.dma_start %xs, %vx : memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>, memref<1x128xf32, #accel.space<vmem>>
    accel.dma_wait %d
    accel.vsub %cur, %vx, %next : memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<vmem>>
    %ss = memref.subview %sums[%i, 0] [1, 128] [1, 1] : memref<40x128xf32, #accel.space<hbm>> to memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    %e = accel.dma_start %next, %ss : memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    accel.dma_wait %e
    scf.yield %next, %cur : memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<vmem>>
  }
  %f = accel.dma_start %r#0, %final : memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<hbm>>
  accel.dma_wait %f
  // Three buffers: p holds x_(i-2), q x_(i-1); x_i goes into r, then
  // r + p + q is stored, and (q, r, p) are the next step's (p, q, r).
  %p = accel.alloc : memref<1x128xf32, #accel.space<vmem>>
  %q = accel.alloc : memref<1x128xf32, #accel.space<vmem>>
  %s = accel.alloc : memref<1x128xf32, #accel.space<vmem>>
  %vo = accel.alloc : memref<1x128xf32, #accel.space<vmem>>
  %x0 = memref.subview %x[0, 0] [1, 128] [1, 1] : memref<40x128xf32, #accel.space<hbm>> to memref<1x128xf32, strided<[128, 1]>, #accel.space<hbm>>
  %x1 = memref.subview %x[1, 0] [1, 128] [1, 1] : memref<40x128xf32, #accel.space<hbm>> to memref<1x128xf32, strided<[128, 1], offset: 128>, #accel.space<hbm>>
  %t0 = accel.dma_start %x0, %p : memref<1x128xf32, strided<[128, 1]>, #accel.space<hbm>>, memref<1x128xf32, #accel.space<vmem>>
  accel.dma_wait %t0
  %t1 = accel.dma_start %x1, %q : memref<1x128xf32, strided<[128, 1], offset: 128>, #accel.space<hbm>>, memref<1x128xf32, #accel.space<vmem>>
  accel.dma_wait %t1
  %c33 = arith.constant 33 : index
  %w:3 = scf.for %i = %c2 to %c33 step %c1 iter_args(%pp = %p, %qq = %q, %rr = %s) -> (memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<vmem>>) {
    %xs = memref.subview %x[%i, 0] [1, 128] [1, 1] : memref<40x128xf32, #accel.space<hbm>> to memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    %d = accel.dma_start %xs, %rr : memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>, memref<1x128xf32, #accel.space<vmem>>
    accel.dma_wait %d
    accel.vadd %rr, %pp, %vo : memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<vmem>>
    accel.vmax %vo, %qq, %vo : memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<vmem>>
    %ms = memref.subview %mix[%i, 0] [1, 128] [1, 1] : memref<40x128xf32, #accel.space<hbm>> to memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    %e = accel.dma_start %vo, %ms : memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    accel.dma_wait %e
    scf.yield %qq, %rr, %pp : memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<vmem>>, memref<1x128xf32, #accel.space<vmem>>
  }
  return
}
