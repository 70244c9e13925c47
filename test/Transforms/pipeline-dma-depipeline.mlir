// RUN: accel-opt %s -split-input-file --accel-pipeline-dma='remarks=true' -verify-diagnostics | FileCheck %s

// accel-pipeline-dma on loops pipelined by hand (issue 33, item 3): each
// is rewritten as the plain loop (a DMA issued where it is waited for)
// when that is legal, and the plain loop is pipelined at the distance the
// metrics ask for. Hand-written metrics: a DMA of 532 cycles (T_b 500 plus
// a transfer of 32) in each of 64 iterations.

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!slot = memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
!htile = memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>

// A ring of 3 slots, distance 2: the prologue loads tiles 0 and 1, the
// loop loads tile i + 2 into slot (i + 2) mod 3 and reads slot i mod 3,
// the epilogue finishes tiles 64 and 65 (slots 1 and 2). Rewritten: no
// DMA before the loop, the slot gets an allocation of its own (copies of
// it rotate in the pipelined loop), and the loop's last two DMAs are
// issued after it into the ring's slots 1 and 2, which the epilogue reads.
// CHECK-LABEL: func.func @ring
// CHECK: %[[RING:.*]] = accel.alloc : memref<24x128xf32, #accel.space<vmem>>
// CHECK-NEXT: accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK-NOT: arith.remui
// CHECK: scf.for
// CHECK-NOT: arith.remui
// CHECK: scf.yield
// CHECK: arith.constant 62 : index
// CHECK: %[[V1:.*]] = memref.subview %[[RING]]
// CHECK-NEXT: %[[T64:.*]] = accel.dma_start %{{.*}}, %[[V1]]
// CHECK-NEXT: arith.constant 63 : index
// CHECK: %[[V2:.*]] = memref.subview %[[RING]]
// CHECK-NEXT: %[[T65:.*]] = accel.dma_start %{{.*}}, %[[V2]]
// CHECK-NEXT: accel.dma_wait %[[T64]]
// CHECK-NEXT: memref.subview %[[RING]][%c8,
// CHECK-NEXT: accel.vadd
// CHECK-NEXT: accel.dma_wait %[[T65]]
func.func @ring(%x: memref<528x128xf32, #hbm>, %y: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %ring = accel.alloc : memref<24x128xf32, #vmem>
  %x0 = memref.subview %x[%c0, 0] [8, 128] [1, 1] : memref<528x128xf32, #hbm> to !htile
  %s0 = memref.subview %ring[%c0, 0] [8, 128] [1, 1] : memref<24x128xf32, #vmem> to !slot
  %p0 = accel.dma_start %x0, %s0 : !htile, !slot
  %x1 = memref.subview %x[%c8, 0] [8, 128] [1, 1] : memref<528x128xf32, #hbm> to !htile
  %s1 = memref.subview %ring[%c8, 0] [8, 128] [1, 1] : memref<24x128xf32, #vmem> to !slot
  %p1 = accel.dma_start %x1, %s1 : !htile, !slot
  // expected-remark @+1 {{pipelined by hand (DMAs issued 2 iteration(s) ahead), rewritten as the plain loop and pipelined}}
  %last:2 = scf.for %i = %c0 to %c64 step %c1 iter_args(%a = %p0, %b = %p1) -> (!accel.token, !accel.token) {
    accel.dma_wait %a
    %i2 = arith.addi %i, %c2 : index
    %r2 = arith.muli %i2, %c8 : index
    %k2 = arith.remui %i2, %c3 : index
    %o2 = arith.muli %k2, %c8 : index
    %xs = memref.subview %x[%r2, 0] [8, 128] [1, 1] : memref<528x128xf32, #hbm> to !htile
    %ss = memref.subview %ring[%o2, 0] [8, 128] [1, 1] : memref<24x128xf32, #vmem> to !slot
    %n = accel.dma_start %xs, %ss {accel.executions = 64, accel.dma_cycles = 532, accel.transfer_cycles = 32, accel.stall_base = 6400} : !htile, !slot
    %k = arith.remui %i, %c3 : index
    %o = arith.muli %k, %c8 : index
    %cur = memref.subview %ring[%o, 0] [8, 128] [1, 1] : memref<24x128xf32, #vmem> to !slot
    accel.vadd %cur, %y, %y {accel.busy_cycles = 3200, accel.executions = 64} : !slot, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    scf.yield %b, %n : !accel.token, !accel.token
  }
  accel.dma_wait %last#0
  %e1 = memref.subview %ring[%c8, 0] [8, 128] [1, 1] : memref<24x128xf32, #vmem> to !slot
  accel.vadd %e1, %y, %y : !slot, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.dma_wait %last#1
  %e2 = memref.subview %ring[%c16, 0] [8, 128] [1, 1] : memref<24x128xf32, #vmem> to !slot
  accel.vadd %e2, %y, %y : !slot, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!slot = memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
!htile = memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>

// Refused: the prologue loads tile 5 where the loop's DMA of iteration -1
// would load tile 0 (the loop then pipelines as written).
// CHECK-LABEL: func.func @prologue_differs
func.func @prologue_differs(%x: memref<528x128xf32, #hbm>, %y: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c40 = arith.constant 40 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %ring = accel.alloc : memref<16x128xf32, #vmem>
  %x0 = memref.subview %x[%c40, 0] [8, 128] [1, 1] : memref<528x128xf32, #hbm> to !htile
  %s0 = memref.subview %ring[%c0, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
  %p0 = accel.dma_start %x0, %s0 : !htile, !slot
  // expected-remark @+2 {{pipelined by hand, not rewritten as the plain loop: the DMA issued before the loop for iteration 0 is not the loop's DMA of -1}}
  // expected-remark @+1 {{not pipelined: no DMA of the body is waited for in a later stage}}
  %last = scf.for %i = %c0 to %c64 step %c1 iter_args(%a = %p0) -> (!accel.token) {
    accel.dma_wait %a
    %i1 = arith.addi %i, %c1 : index
    %r1 = arith.muli %i1, %c8 : index
    %k1 = arith.remui %i1, %c2 : index
    %o1 = arith.muli %k1, %c8 : index
    %xs = memref.subview %x[%r1, 0] [8, 128] [1, 1] : memref<528x128xf32, #hbm> to !htile
    %ss = memref.subview %ring[%o1, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
    %n = accel.dma_start %xs, %ss {accel.executions = 64, accel.dma_cycles = 532, accel.transfer_cycles = 32, accel.stall_base = 6400} : !htile, !slot
    %k = arith.remui %i, %c2 : index
    %o = arith.muli %k, %c8 : index
    %cur = memref.subview %ring[%o, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
    accel.vadd %cur, %y, %y {accel.busy_cycles = 3200, accel.executions = 64} : !slot, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    scf.yield %n : !accel.token
  }
  accel.dma_wait %last
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!slot = memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
!htile = memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>

// Refused: a double buffer (slot i mod 2, distance 1) whose loop writes
// the slot in flight before its WAIT (a vfill of slot (i + 1) mod 2, the
// one the DMA issued in the previous iteration is filling): issuing that
// DMA at its WAIT would move it past the vfill.
// CHECK-LABEL: func.func @window_dependence
func.func @window_dependence(%x: memref<528x128xf32, #hbm>, %y: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %ring = accel.alloc : memref<16x128xf32, #vmem>
  %x0 = memref.subview %x[%c0, 0] [8, 128] [1, 1] : memref<528x128xf32, #hbm> to !htile
  %s0 = memref.subview %ring[%c0, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
  %p0 = accel.dma_start %x0, %s0 : !htile, !slot
  // expected-remark-re @+2 {{pipelined by hand, not rewritten as the plain loop: the DMA's window holds a dependence (an output dependence on the buffer allocated at {{.*}}: written by 'accel.dma_start' at {{.*}}, written by 'accel.vfill' at {{.*}} one iteration later)}}
  // expected-remark @+1 {{not pipelined: no DMA of the body is waited for in a later stage}}
  %last = scf.for %i = %c0 to %c64 step %c1 iter_args(%a = %p0) -> (!accel.token) {
    %k = arith.remui %i, %c2 : index
    %o = arith.muli %k, %c8 : index
    %cur = memref.subview %ring[%o, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
    accel.vfill %cur, 0.0 : !slot
    accel.dma_wait %a
    %i1 = arith.addi %i, %c1 : index
    %r1 = arith.muli %i1, %c8 : index
    %k1 = arith.remui %i1, %c2 : index
    %o1 = arith.muli %k1, %c8 : index
    %xs = memref.subview %x[%r1, 0] [8, 128] [1, 1] : memref<528x128xf32, #hbm> to !htile
    %ss = memref.subview %ring[%o1, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
    %n = accel.dma_start %xs, %ss {accel.executions = 64, accel.dma_cycles = 532, accel.transfer_cycles = 32, accel.stall_base = 6400} : !htile, !slot
    accel.vadd %cur, %y, %y {accel.busy_cycles = 3200, accel.executions = 64} : !slot, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    scf.yield %n : !accel.token
  }
  accel.dma_wait %last
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!slot = memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
!htile = memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>

// Refused: after the loop, slot 1 (tile 63, loaded in the loop) is read
// again without being loaded after the loop (only slot 0 is: tile 64);
// the slot cannot be given an allocation of its own in the loop.
// CHECK-LABEL: func.func @ring_read_after_loop
func.func @ring_read_after_loop(%x: memref<528x128xf32, #hbm>, %y: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %ring = accel.alloc : memref<16x128xf32, #vmem>
  %x0 = memref.subview %x[%c0, 0] [8, 128] [1, 1] : memref<528x128xf32, #hbm> to !htile
  %s0 = memref.subview %ring[%c0, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
  %p0 = accel.dma_start %x0, %s0 : !htile, !slot
  // expected-remark @+2 {{not pipelined: no DMA of the body is waited for in a later stage}}
  // expected-remark-re @+1 {{pipelined by hand, not rewritten as the plain loop: as a plain loop, the ring is read after the loop before it is written again (a read of the buffer allocated at {{.*}} by 'accel.vadd' at {{.*}})}}
  %last = scf.for %i = %c0 to %c64 step %c1 iter_args(%a = %p0) -> (!accel.token) {
    accel.dma_wait %a
    %i1 = arith.addi %i, %c1 : index
    %r1 = arith.muli %i1, %c8 : index
    %k1 = arith.remui %i1, %c2 : index
    %o1 = arith.muli %k1, %c8 : index
    %xs = memref.subview %x[%r1, 0] [8, 128] [1, 1] : memref<528x128xf32, #hbm> to !htile
    %ss = memref.subview %ring[%o1, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
    %n = accel.dma_start %xs, %ss {accel.executions = 64, accel.dma_cycles = 532, accel.transfer_cycles = 32, accel.stall_base = 6400} : !htile, !slot
    %k = arith.remui %i, %c2 : index
    %o = arith.muli %k, %c8 : index
    %cur = memref.subview %ring[%o, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
    accel.vadd %cur, %y, %y {accel.busy_cycles = 3200, accel.executions = 64} : !slot, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    scf.yield %n : !accel.token
  }
  accel.dma_wait %last
  %e0 = memref.subview %ring[%c8, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
  accel.vadd %e0, %y, %y : !slot, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!slot = memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
!htile = memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>

// Refused: after the loop, slot 0 is cleared before the WAIT of the DMA
// that fills it (issued in the loop's last iteration): issued after the
// loop, that DMA would come after the vfill.
// CHECK-LABEL: func.func @epilogue_dependence
func.func @epilogue_dependence(%x: memref<528x128xf32, #hbm>, %y: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %ring = accel.alloc : memref<16x128xf32, #vmem>
  %x0 = memref.subview %x[%c0, 0] [8, 128] [1, 1] : memref<528x128xf32, #hbm> to !htile
  %s0 = memref.subview %ring[%c0, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
  %p0 = accel.dma_start %x0, %s0 : !htile, !slot
  // expected-remark @+2 {{not pipelined: no DMA of the body is waited for in a later stage}}
  // expected-remark-re @+1 {{pipelined by hand, not rewritten as the plain loop: the DMA of iteration 63 has a dependence after the loop, before its WAIT (a write of the buffer allocated at {{.*}} by 'accel.vfill' at {{.*}})}}
  %last = scf.for %i = %c0 to %c64 step %c1 iter_args(%a = %p0) -> (!accel.token) {
    accel.dma_wait %a
    %i1 = arith.addi %i, %c1 : index
    %r1 = arith.muli %i1, %c8 : index
    %k1 = arith.remui %i1, %c2 : index
    %o1 = arith.muli %k1, %c8 : index
    %xs = memref.subview %x[%r1, 0] [8, 128] [1, 1] : memref<528x128xf32, #hbm> to !htile
    %ss = memref.subview %ring[%o1, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
    %n = accel.dma_start %xs, %ss {accel.executions = 64, accel.dma_cycles = 532, accel.transfer_cycles = 32, accel.stall_base = 6400} : !htile, !slot
    %k = arith.remui %i, %c2 : index
    %o = arith.muli %k, %c8 : index
    %cur = memref.subview %ring[%o, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
    accel.vadd %cur, %y, %y {accel.busy_cycles = 3200, accel.executions = 64} : !slot, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    scf.yield %n : !accel.token
  }
  %e0 = memref.subview %ring[%c0, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
  accel.vfill %e0, 0.0 : !slot
  accel.dma_wait %last
  accel.vadd %e0, %y, %y : !slot, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!slot = memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
!htile = memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>

// Refused: in an outer loop, slot 1 is read before the inner loop: the
// previous outer iteration's loop left its data there, which a slot of its
// own would no longer hold.
// CHECK-LABEL: func.func @ring_read_before_loop
func.func @ring_read_before_loop(%x: memref<528x128xf32, #hbm>, %y: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %ring = accel.alloc : memref<16x128xf32, #vmem>
  // expected-remark @+1 {{not pipelined: its DMAs' metrics show no stall}}
  scf.for %j = %c0 to %c2 step %c1 {
    %e1 = memref.subview %ring[%c8, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
    accel.vadd %e1, %y, %y : !slot, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %x0 = memref.subview %x[%c0, 0] [8, 128] [1, 1] : memref<528x128xf32, #hbm> to !htile
    %s0 = memref.subview %ring[%c0, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
    %p0 = accel.dma_start %x0, %s0 : !htile, !slot
    // expected-remark @+2 {{not pipelined: no DMA of the body is waited for in a later stage}}
    // expected-remark-re @+1 {{pipelined by hand, not rewritten as the plain loop: as a plain loop, the ring is read before the loop (a read of the buffer allocated at {{.*}} by 'accel.vadd' at {{.*}})}}
    %last = scf.for %i = %c0 to %c64 step %c1 iter_args(%a = %p0) -> (!accel.token) {
      accel.dma_wait %a
      %i1 = arith.addi %i, %c1 : index
      %r1 = arith.muli %i1, %c8 : index
      %k1 = arith.remui %i1, %c2 : index
      %o1 = arith.muli %k1, %c8 : index
      %xs = memref.subview %x[%r1, 0] [8, 128] [1, 1] : memref<528x128xf32, #hbm> to !htile
      %ss = memref.subview %ring[%o1, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
      %n = accel.dma_start %xs, %ss {accel.executions = 128, accel.dma_cycles = 532, accel.transfer_cycles = 32, accel.stall_base = 12800} : !htile, !slot
      %k = arith.remui %i, %c2 : index
      %o = arith.muli %k, %c8 : index
      %cur = memref.subview %ring[%o, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
      accel.vadd %cur, %y, %y {accel.busy_cycles = 6400, accel.executions = 128} : !slot, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
      scf.yield %n : !accel.token
    }
    accel.dma_wait %last
    %e0 = memref.subview %ring[%c0, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !slot
    accel.vadd %e0, %y, %y : !slot, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}
