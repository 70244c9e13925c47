// RUN: accel-opt %s -split-input-file --accel-hoist-dma='remarks=true' -verify-diagnostics | FileCheck %s
// RUN: accel-opt %s -split-input-file --accel-hoist-dma='all=true' 2>/dev/null | FileCheck %s --check-prefix=ALL

// Hints come from hand-written attributes (accel.stall_base/stall_transfer),
// so these tests pin the pass without running the simulator.

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A stalled weight DMA moves above the previous WAIT and matmul, up to the
// preceding ISSUE (FIFO order kept).
// CHECK-LABEL: func.func @chain
// CHECK: %[[T0:.*]] = accel.dma_start %arg1, %[[B0:.*]] :
// CHECK-NEXT: %[[T1:.*]] = accel.dma_start %arg2, %[[B1:.*]] {accel.hoisted = 2 : i64, accel.stall_base = 499 : i64, accel.stall_transfer = 64 : i64}
// CHECK-NEXT: accel.dma_wait %[[T0]]
// CHECK-NEXT: accel.matmul
// CHECK-NEXT: accel.dma_wait %[[T1]]
func.func @chain(%a: memref<8x128xf32, #vmem>, %w0: memref<128x128xf32, #hbm>, %w1: memref<128x128xf32, #hbm>, %c: memref<8x128xf32, #vmem>) {
  %b0 = accel.alloc : memref<128x128xf32, #vmem>
  %b1 = accel.alloc : memref<128x128xf32, #vmem>
  // expected-remark @+2 {{not hoisted: its metrics show no stall}}
  // expected-note @+1 {{blocking op}}
  %t0 = accel.dma_start %w0, %b0 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t0
  accel.matmul %a, %b0, %c : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  // expected-remark @+1 {{hoisted across 2 op(s); stopped by another DMA ISSUE (the link FIFO order is kept)}}
  %t1 = accel.dma_start %w1, %b1 {accel.stall_base = 499, accel.stall_transfer = 64} : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t1
  accel.matmul %a, %b1, %c {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the source is written in between (a store to the same HBM buffer).
// CHECK-LABEL: func.func @source_written
// CHECK: accel.dma_wait
// CHECK-NEXT: accel.dma_start %arg0, %{{.*}} {accel.stall_base = 100 : i64}
func.func @source_written(%buf: memref<8x128xf32, #hbm>, %v: memref<8x128xf32, #vmem>) {
  %w = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not hoisted: its metrics show no stall}}
  %ts = accel.dma_start %v, %buf : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  // expected-note @+1 {{blocking op}}
  accel.dma_wait %ts
  // expected-remark-re @+1 {{not hoisted: blocked by the WAIT of a DMA that writes the source (a flow dependence on argument 0: written by 'accel.dma_wait' at {{.*}}hoist-dma.mlir:{{[0-9]+}}:3, read by 'accel.dma_start' at {{.*}})}}
  %tl = accel.dma_start %buf, %w {accel.stall_base = 100} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tl
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the destination is still being read by a matmul in between.
// CHECK-LABEL: func.func @destination_in_use
// CHECK: accel.matmul
// CHECK-NEXT: accel.dma_start %arg1
func.func @destination_in_use(%a: memref<8x128xf32, #vmem>, %w1: memref<128x128xf32, #hbm>, %b: memref<128x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  // expected-note @+1 {{blocking op}}
  accel.matmul %a, %b, %c : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  // expected-remark-re @+1 {{not hoisted: blocked by an access to the DMA's destination (an anti dependence on argument 2: read by 'accel.matmul' at {{.*}}, written by 'accel.dma_start' at {{.*}})}}
  %t = accel.dma_start %w1, %b {accel.stall_transfer = 7} : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the source buffer's address is computed by an op that reads
// memory-free but the DMA's source subview depends on a loop-carried index,
// so it cannot leave the loop; inside the body it is already first.
// CHECK-LABEL: func.func @loop_variant
// CHECK: scf.for %[[I:.*]] =
// CHECK-NEXT: arith.muli %[[I]]
// CHECK-NEXT: memref.subview
// CHECK-NEXT: accel.dma_start
func.func @loop_variant(%w: memref<1024x128xf32, #hbm>, %b: memref<128x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  // expected-note @+1 {{blocking op}}
  scf.for %i = %c0 to %c8 step %c1 {
    %r = arith.muli %i, %c128 : index
    %s = memref.subview %w[%r, 0] [128, 128] [1, 1] : memref<1024x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    // expected-remark @+1 {{not hoisted: blocked by an operand that changes in the loop}}
    %t = accel.dma_start %s, %b {accel.stall_base = 3} : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Leaves the loop: loop-invariant operands, the destination is only read in
// the loop; the WAIT stays inside. The pure subview moves with it. Crossed:
// the loop (1) and the three constants above it (3).
// CHECK-LABEL: func.func @loop_invariant
// CHECK-NEXT: %[[S:.*]] = memref.subview %arg0[0, 0]
// CHECK-NEXT: %[[T:.*]] = accel.dma_start %[[S]], %arg1 {accel.hoisted = 4 : i64
// CHECK: scf.for
// CHECK-NEXT: accel.dma_wait %[[T]]
// CHECK-NEXT: accel.vexp %arg1
func.func @loop_invariant(%x: memref<8x256xf32, #hbm>, %xv: memref<8x128xf32, #vmem>, %o: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %s = memref.subview %x[0, 0] [8, 128] [1, 1] : memref<8x256xf32, #hbm> to memref<8x128xf32, strided<[256, 1]>, #hbm>
    // expected-remark @+1 {{hoisted across 4 op(s) and out of a loop to the top of its block}}
    %t = accel.dma_start %s, %xv {accel.stall_base = 500} : memref<8x128xf32, strided<[256, 1]>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    accel.vexp %xv, %o : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused to leave the loop: the destination is written in the loop.
// CHECK-LABEL: func.func @destination_written_in_loop
// CHECK: scf.for
// CHECK-NEXT: accel.dma_start
func.func @destination_written_in_loop(%x: memref<8x128xf32, #hbm>, %xv: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{not hoisted: blocked by an access to the DMA's destination}}
    %t = accel.dma_start %x, %xv {accel.stall_base = 500} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    // expected-note @+1 {{blocking op}}
    accel.vexp %xv, %xv : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused to leave a loop that may run zero times.
// CHECK-LABEL: func.func @maybe_empty_loop
// CHECK: scf.for
// CHECK-NEXT: accel.dma_start
func.func @maybe_empty_loop(%x: memref<8x128xf32, #hbm>, %xv: memref<8x128xf32, #vmem>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{blocking op}}
  scf.for %i = %c0 to %n step %c1 {
    // expected-remark @+1 {{not hoisted: blocked by a loop that may run zero times}}
    %t = accel.dma_start %x, %xv {accel.stall_base = 500} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the function's VMEM allocations exceed the capacity.
func.func @vmem_capacity(%x: memref<8x128xf32, #hbm>) {
  %big = accel.alloc : memref<8192x1024xf32, #vmem>
  %v = accel.alloc : memref<8x128xf32, #vmem>
  accel.vfill %big, 0.0 : memref<8192x1024xf32, #vmem>
  // expected-remark @+1 {{not hoisted: VMEM allocations (33558528 bytes) exceed the capacity of 33554432 bytes}}
  %t = accel.dma_start %x, %v {accel.stall_base = 500} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t
  return
}

// With all=true the unstalled %t0 moves too (above the second alloc).
// ALL-LABEL: func.func @chain
// ALL: accel.dma_start %arg1, %{{.*}} {accel.hoisted = 1 : i64}
// ALL-NEXT: accel.alloc
// ALL-NEXT: accel.dma_start %arg2

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A row id read from a table with accel.load moves up with the DMA that
// uses it (as the pure address math does): nothing it crosses writes the
// table.
// CHECK-LABEL: func.func @load_moves_with_dma
// CHECK: accel.load
// CHECK-NEXT: memref.subview
// CHECK-NEXT: accel.dma_start
// CHECK-NEXT: accel.vfill
func.func @load_moves_with_dma(%w: memref<64x128xf32, #hbm>, %tab: memref<16xi32, #vmem>,
                               %b: memref<1x128xf32, #vmem>, %o: memref<8x128xf32, #vmem>) {
  %c3 = arith.constant 3 : index
  accel.vfill %o, 0.0 : memref<8x128xf32, #vmem>
  %r = accel.load %tab[%c3] : memref<16xi32, #vmem>
  %s = memref.subview %w[%r, 0] [1, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
  // expected-remark @+1 {{hoisted across 1 op(s) to the top of its block}}
  %t = accel.dma_start %s, %b {accel.stall_base = 499} : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
  accel.dma_wait %t
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The load cannot pass the WAIT of the DMA that brings the table in (a
// gather: table DMA -> accel.load -> row DMA).
// CHECK-LABEL: func.func @table_wait
// CHECK: accel.dma_wait
// CHECK-NEXT: accel.load
// CHECK-NEXT: memref.subview
// CHECK-NEXT: accel.dma_start
// CHECK-NEXT: accel.vfill
func.func @table_wait(%w: memref<64x128xf32, #hbm>, %tabh: memref<16xi32, #hbm>,
                      %tab: memref<16xi32, #vmem>, %b: memref<1x128xf32, #vmem>,
                      %o: memref<8x128xf32, #vmem>) {
  %c3 = arith.constant 3 : index
  // expected-remark @+1 {{not hoisted: its metrics show no stall}}
  %tt = accel.dma_start %tabh, %tab : memref<16xi32, #hbm>, memref<16xi32, #vmem>
  // expected-note @+1 {{blocking op}}
  accel.dma_wait %tt
  accel.vfill %o, 0.0 : memref<8x128xf32, #vmem>
  %r = accel.load %tab[%c3] : memref<16xi32, #vmem>
  %s = memref.subview %w[%r, 0] [1, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
  // expected-remark @+1 {{hoisted across 1 op(s); stopped by the WAIT of a DMA that writes memory its address is loaded from}}
  %t = accel.dma_start %s, %b {accel.stall_base = 499} : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
  accel.dma_wait %t
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused for dominance: the row comes from a loop's result (an op with a
// region never moves with the DMA).
// CHECK-LABEL: func.func @dominance
// CHECK: scf.for
// CHECK: memref.subview
// CHECK-NEXT: accel.dma_start
func.func @dominance(%w: memref<64x128xf32, #hbm>, %b: memref<1x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-note @+1 {{blocking op}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %c0) -> (index) {
    %y = arith.addi %x, %c1 : index
    scf.yield %y : index
  }
  %s = memref.subview %w[%r, 0] [1, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
  // expected-remark @+1 {{not hoisted: blocked by the definition of an operand (dominance)}}
  %t = accel.dma_start %s, %b {accel.stall_base = 499} : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
  accel.dma_wait %t
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A small DMA (a 64-byte offset table, at most reorder-bytes = 1024 by
// default) may pass another ISSUE: only that DMA's memory effects stop it.
// Here it reaches the top of the block (crossing the ISSUE, its WAIT and
// two allocations; its own allocation moves with it); a 4 KiB one stops
// at the ISSUE.
// CHECK-LABEL: func.func @small_passes_issues
// CHECK: %[[TT:.*]] = accel.dma_start %arg1, %{{.*}} {accel.hoisted = 4 : i64
// CHECK: accel.dma_start %arg0
// CHECK-NEXT: accel.dma_start %arg2, %{{.*}} {accel.hoisted = 2 : i64
// CHECK-NEXT: accel.dma_wait
func.func @small_passes_issues(%w: memref<8x128xf32, #hbm>, %tab: memref<16xi32, #hbm>, %w2: memref<8x128xf32, #hbm>) {
  %vw = accel.alloc : memref<8x128xf32, #vmem>
  %vt = accel.alloc : memref<16xi32, #vmem>
  %vw2 = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+2 {{not hoisted: its metrics show no stall}}
  // expected-note @+1 {{blocking op}}
  %tw = accel.dma_start %w, %vw : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tw
  // expected-remark @+1 {{hoisted across 4 op(s) to the top of its block}}
  %tt = accel.dma_start %tab, %vt {accel.stall_base = 499} : memref<16xi32, #hbm>, memref<16xi32, #vmem>
  accel.dma_wait %tt
  // expected-remark @+1 {{hoisted across 2 op(s); stopped by another DMA ISSUE (the link FIFO order is kept)}}
  %tw2 = accel.dma_start %w2, %vw2 {accel.stall_base = 499} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tw2
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Links are separate FIFOs (docs/isa.md): a stalled HBM->VMEM load passes a
// VMEM->HBM store's ISSUE freely. On its own link it passes an ISSUE only
// while that DMA's slack (accel.min_slack, 40 cycles) absorbs its transfer
// (accel.transfer_cycles, 16): %t2 passes %t0 (slack 40 -> 24) to the top;
// %t3 passes %t0 too (24 -> 8) but not %t2, which stalled (no slack);
// %t4 passes the store and stops at %t0 (8 < 16). Crossed allocations
// count (each DMA's own allocation moves with it).
// CHECK-LABEL: func.func @link_fifo_and_slack
// CHECK: accel.dma_start %arg3, %{{.*}} {accel.hoisted = 5
// CHECK-NEXT: accel.alloc
// CHECK-NEXT: accel.dma_start %arg4, %{{.*}} {accel.hoisted = 4
// CHECK: accel.dma_start %arg0
// CHECK-NEXT: accel.dma_start %arg5, %{{.*}} {accel.hoisted
// CHECK-NEXT: accel.dma_start %{{.*}}, %arg2
func.func @link_fifo_and_slack(%w0: memref<8x512xf32, #hbm>, %x: memref<8x512xf32, #vmem>,
                               %out: memref<8x512xf32, #hbm>, %w2: memref<8x512xf32, #hbm>,
                               %w3: memref<8x512xf32, #hbm>, %w4: memref<8x512xf32, #hbm>) {
  %b0 = accel.alloc : memref<8x512xf32, #vmem>
  %b2 = accel.alloc : memref<8x512xf32, #vmem>
  %b3 = accel.alloc : memref<8x512xf32, #vmem>
  %b4 = accel.alloc : memref<8x512xf32, #vmem>
  // expected-remark @+2 {{not hoisted: its metrics show no stall}}
  // expected-note @+1 {{blocking op}}
  %t0 = accel.dma_start %w0, %b0 {accel.min_slack = 40 : i64, accel.transfer_cycles = 16 : i64} : memref<8x512xf32, #hbm>, memref<8x512xf32, #vmem>
  // expected-remark @+1 {{not hoisted: its metrics show no stall}}
  %ts = accel.dma_start %x, %out {accel.min_slack = 0 : i64, accel.transfer_cycles = 16 : i64} : memref<8x512xf32, #vmem>, memref<8x512xf32, #hbm>
  // expected-remark @+2 {{hoisted across 5 op(s) to the top of its block}}
  // expected-note @+1 {{blocking op}}
  %t2 = accel.dma_start %w2, %b2 {accel.stall_base = 300 : i64, accel.transfer_cycles = 16 : i64} : memref<8x512xf32, #hbm>, memref<8x512xf32, #vmem>
  // expected-remark @+1 {{hoisted across 4 op(s); stopped by another DMA ISSUE (the link FIFO order is kept)}}
  %t3 = accel.dma_start %w3, %b3 {accel.stall_base = 300 : i64, accel.transfer_cycles = 16 : i64} : memref<8x512xf32, #hbm>, memref<8x512xf32, #vmem>
  // expected-remark @+1 {{hoisted across 1 op(s); stopped by another DMA ISSUE (the link FIFO order is kept)}}
  %t4 = accel.dma_start %w4, %b4 {accel.stall_base = 300 : i64, accel.transfer_cycles = 16 : i64} : memref<8x512xf32, #hbm>, memref<8x512xf32, #vmem>
  accel.dma_wait %t0
  accel.dma_wait %ts
  accel.dma_wait %t2
  accel.dma_wait %t3
  accel.dma_wait %t4
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!htile = memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>

// Tokens carried in iter_args (a loop whose store WAITs were deferred to
// the next iteration, and the WAIT on its last store after it): a load
// hoists above the WAIT on the loop's result and above the loop, as no DMA
// the tokens may come from touches its source or destination.
// CHECK-LABEL: func.func @across_carried_waits
// CHECK: accel.alloc
// CHECK-NEXT: accel.dma_start %arg2, %{{.*}} {accel.hoisted = 7 : i64, accel.stall_base = 400 : i64}
// CHECK-NEXT: arith.constant
// CHECK: scf.for
// CHECK: accel.dma_wait %{{.*}}#0
// CHECK-NEXT: accel.dma_wait
// CHECK-NEXT: accel.vadd
func.func @across_carried_waits(%v: memref<8x128xf32, #vmem>, %y: memref<64x128xf32, #hbm>, %z: memref<8x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %w = accel.alloc : memref<8x128xf32, #vmem>
  %s0 = memref.subview %y[%c0, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to !htile
  // expected-remark @+1 {{not hoisted: its metrics show no stall}}
  %t0 = accel.dma_start %v, %s0 : memref<8x128xf32, #vmem>, !htile
  %last:2 = scf.for %i = %c1 to %c8 step %c1 iter_args(%t = %t0, %u = %t0) -> (!accel.token, !accel.token) {
    %r = arith.muli %i, %c8 : index
    %s = memref.subview %y[%r, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to !htile
    // expected-remark @+1 {{not hoisted: its metrics show no stall}}
    %n = accel.dma_start %v, %s : memref<8x128xf32, #vmem>, !htile
    accel.dma_wait %t
    scf.yield %n, %t : !accel.token, !accel.token
  }
  accel.dma_wait %last#0
  // expected-remark @+1 {{hoisted across 7 op(s) to the top of its block}}
  %tl = accel.dma_start %z, %w {accel.stall_base = 400} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tl
  accel.vadd %w, %w, %w : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!htile = memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>

// Refused: a DMA the carried token may come from (the loop's stores, or
// the one before it) writes the rows the load reads.
// CHECK-LABEL: func.func @carried_writes_source
// CHECK: scf.yield
// CHECK: accel.dma_wait
// CHECK-NEXT: arith.constant 56
// CHECK-NEXT: memref.subview
// CHECK-NEXT: accel.dma_start %{{.*}}, %{{.*}} {accel.stall_base = 400 : i64}
func.func @carried_writes_source(%v: memref<8x128xf32, #vmem>, %y: memref<64x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %w = accel.alloc : memref<8x128xf32, #vmem>
  %s0 = memref.subview %y[%c0, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to !htile
  // expected-remark @+1 {{not hoisted: its metrics show no stall}}
  %t0 = accel.dma_start %v, %s0 : memref<8x128xf32, #vmem>, !htile
  %last = scf.for %i = %c1 to %c8 step %c1 iter_args(%t = %t0) -> (!accel.token) {
    %r = arith.muli %i, %c8 : index
    %s = memref.subview %y[%r, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to !htile
    // expected-remark @+1 {{not hoisted: its metrics show no stall}}
    %n = accel.dma_start %v, %s : memref<8x128xf32, #vmem>, !htile
    accel.dma_wait %t
    scf.yield %n : !accel.token
  }
  // expected-note @+1 {{blocking op}}
  accel.dma_wait %last
  %c56 = arith.constant 56 : index
  %s7 = memref.subview %y[%c56, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to !htile
  // expected-remark-re @+1 {{not hoisted: blocked by the WAIT of a DMA that writes the source (a flow dependence on argument 1: written by 'accel.dma_wait' at {{.*}}, read by 'accel.dma_start' at {{.*}})}}
  %tl = accel.dma_start %s7, %w {accel.stall_base = 400} : !htile, memref<8x128xf32, #vmem>
  accel.dma_wait %tl
  accel.vadd %w, %w, %w : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!htile = memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>

// Refused: in the loop that carries the token, the WAIT ends a DMA of an
// earlier iteration, whose views name other rows than this iteration's.
// CHECK-LABEL: func.func @carried_in_same_loop
// CHECK: accel.dma_wait %arg
// CHECK-NEXT: memref.subview
// CHECK-NEXT: accel.dma_start %{{.*}}, %{{.*}} {accel.stall_base = 400 : i64}
func.func @carried_in_same_loop(%v: memref<8x128xf32, #vmem>, %x: memref<64x128xf32, #hbm>, %y: memref<64x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %w = accel.alloc : memref<8x128xf32, #vmem>
  %s0 = memref.subview %y[%c0, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to !htile
  // expected-remark @+1 {{not hoisted: its metrics show no stall}}
  %t0 = accel.dma_start %v, %s0 : memref<8x128xf32, #vmem>, !htile
  %last = scf.for %i = %c1 to %c8 step %c1 iter_args(%t = %t0) -> (!accel.token) {
    %r = arith.muli %i, %c8 : index
    %s = memref.subview %y[%r, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to !htile
    // expected-remark @+1 {{not hoisted: its metrics show no stall}}
    %n = accel.dma_start %v, %s : memref<8x128xf32, #vmem>, !htile
    // expected-note @+1 {{blocking op}}
    accel.dma_wait %t
    %xs = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to !htile
    // expected-remark @+1 {{not hoisted: blocked by a WAIT on a DMA issued elsewhere}}
    %tl = accel.dma_start %xs, %w {accel.stall_base = 400} : !htile, memref<8x128xf32, #vmem>
    accel.dma_wait %tl
    accel.vadd %w, %w, %w : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    scf.yield %n : !accel.token
  }
  accel.dma_wait %last
  return
}
