// RUN: accel-opt %s -split-input-file --accel-sink-dma-wait='remarks=true' -verify-diagnostics | FileCheck %s
// RUN: accel-opt %s -split-input-file --accel-sink-dma-wait='all=true' 2>/dev/null | FileCheck %s --check-prefix=ALL

// Hints come from hand-written attributes (accel.stall_base/stall_transfer).

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A stalled load's WAIT moves past independent work (a VPU op on other
// buffers) and another DMA's ISSUE, to just before the first read of its
// destination; that DMA's base latency now overlaps the other one's.
// CHECK-LABEL: func.func @overlap
// CHECK: %[[T0:.*]] = accel.dma_start %arg0
// CHECK-NEXT: accel.vexp
// CHECK-NEXT: %[[T1:.*]] = accel.dma_start %arg1
// CHECK-NEXT: accel.dma_wait %[[T0]] {accel.sunk = 2 : i64}
// CHECK-NEXT: accel.vadd
// CHECK-NEXT: accel.dma_wait %[[T1]]
func.func @overlap(%a: memref<8x128xf32, #hbm>, %b: memref<8x128xf32, #hbm>, %x: memref<8x128xf32, #vmem>) {
  %va = accel.alloc : memref<8x128xf32, #vmem>
  %vb = accel.alloc : memref<8x128xf32, #vmem>
  %ta = accel.dma_start %a, %va {accel.stall_base = 499} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  // expected-remark @+1 {{sunk past 2 op(s); stopped by an access to the DMA's destination}}
  accel.dma_wait %ta
  accel.vexp %x, %x : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %tb = accel.dma_start %b, %vb : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  // expected-note @+1 {{blocking op}}
  accel.vadd %va, %x, %x : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not sunk: its DMA's metrics show no stall}}
  accel.dma_wait %tb
  accel.vadd %vb, %x, %x : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: a store's source is written right after its WAIT (an in-place
// update of the stored tile must wait for the store).
// CHECK-LABEL: func.func @source_written
// CHECK: accel.dma_start
// CHECK-NEXT: accel.dma_wait
// CHECK-NEXT: accel.vexp
func.func @source_written(%out: memref<8x128xf32, #hbm>, %v: memref<8x128xf32, #vmem>) {
  %ts = accel.dma_start %v, %out {accel.stall_base = 499} : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  // expected-remark @+1 {{not sunk: blocked by a write to the DMA's source}}
  accel.dma_wait %ts
  // expected-note @+1 {{blocking op}}
  accel.vexp %v, %v : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A loop that does not touch the DMA's buffers is crossed; one that reads
// the destination stops the WAIT (ops inside regions are checked).
// CHECK-LABEL: func.func @loops
// CHECK: accel.dma_start
// CHECK-NEXT: scf.for
// CHECK: accel.dma_wait %{{.*}} {accel.sunk = 1 : i64}
// CHECK-NEXT: scf.for
// CHECK: return
func.func @loops(%a: memref<8x128xf32, #hbm>, %x: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %va = accel.alloc : memref<8x128xf32, #vmem>
  %ta = accel.dma_start %a, %va {accel.stall_base = 499} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  // expected-remark @+1 {{sunk past 1 op(s); stopped by an access to the DMA's destination}}
  accel.dma_wait %ta
  scf.for %i = %c0 to %c4 step %c1 {
    accel.vexp %x, %x : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-note @+1 {{blocking op}}
    accel.vadd %va, %x, %x : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Nothing to cross: the WAIT is already last in its block (it never
// leaves the block); with all=true WAITs of DMAs without metrics move too.
// CHECK-LABEL: func.func @end_of_block
// CHECK: accel.dma_start %arg1
// CHECK-NEXT: accel.dma_wait
// CHECK-NEXT: return
// ALL-LABEL: func.func @end_of_block
// ALL: %[[T:.*]] = accel.dma_start %arg0
// ALL-NEXT: %[[U:.*]] = accel.dma_start %arg1
// ALL-NEXT: accel.dma_wait %[[T]] {accel.sunk = 1 : i64}
// ALL-NEXT: accel.dma_wait %[[U]]
func.func @end_of_block(%a: memref<8x128xf32, #hbm>, %b: memref<8x128xf32, #hbm>) {
  %va = accel.alloc : memref<8x128xf32, #vmem>
  %vb = accel.alloc : memref<8x128xf32, #vmem>
  %ta = accel.dma_start %a, %va : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not sunk: its DMA's metrics show no stall}}
  accel.dma_wait %ta
  %tb = accel.dma_start %b, %vb {accel.stall_base = 10} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  // expected-remark @+2 {{not sunk: blocked by the end of its block}}
  // expected-note @+2 {{blocking op}}
  accel.dma_wait %tb
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Two stores into rows 8k and 8(k+1) of one HBM buffer (offsets that differ
// by a constant >= the 8-row tile) do not overlap: the first store's WAIT
// passes the second store. A third store to rows 8k+4 overlaps the first
// and stops it.
// CHECK-LABEL: func.func @disjoint_rows
// CHECK: %[[S0:.*]] = accel.dma_start %arg1, %{{.*}} {accel.stall_base
// CHECK-NEXT: accel.dma_start %arg2
// CHECK-NEXT: accel.dma_wait %[[S0]] {accel.sunk = 1 : i64}
// CHECK-NEXT: accel.dma_start %arg3
func.func @disjoint_rows(%out: memref<64x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>, %b: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>, %k: index) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %r0 = arith.muli %k, %c8 : index
  %k1 = arith.addi %k, %c1 : index
  %r1 = arith.muli %k1, %c8 : index
  %r2 = arith.addi %r0, %c4 : index
  %o0 = memref.subview %out[%r0, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
  %o1 = memref.subview %out[%r1, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
  %o2 = memref.subview %out[%r2, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
  %t0 = accel.dma_start %a, %o0 {accel.stall_base = 499} : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
  // expected-remark @+1 {{sunk past 1 op(s); stopped by an access to the DMA's destination}}
  accel.dma_wait %t0
  %t1 = accel.dma_start %b, %o1 : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
  // expected-note @+1 {{blocking op}}
  %t2 = accel.dma_start %c, %o2 : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
  // expected-remark @+1 {{not sunk: its DMA's metrics show no stall}}
  accel.dma_wait %t1
  // expected-remark @+1 {{not sunk: its DMA's metrics show no stall}}
  accel.dma_wait %t2
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Near-critical: no stall, but the WAIT came 2 cycles after completion,
// less than one 16-cycle transfer; any speedup before it would make it
// stall, so it sinks too. With a slack of a whole transfer it stays.
// CHECK-LABEL: func.func @near_critical
// CHECK: %[[T0:.*]] = accel.dma_start %arg0
// CHECK-NEXT: %[[T1:.*]] = accel.dma_start %arg1
// CHECK-NEXT: accel.dma_wait %[[T1]]
// CHECK-NEXT: accel.vexp
// CHECK-NEXT: accel.dma_wait %[[T0]] {accel.sunk = 1 : i64}
func.func @near_critical(%a: memref<8x128xf32, #hbm>, %b: memref<8x128xf32, #hbm>, %x: memref<8x128xf32, #vmem>) {
  %va = accel.alloc : memref<8x128xf32, #vmem>
  %vb = accel.alloc : memref<8x128xf32, #vmem>
  %t0 = accel.dma_start %a, %va {accel.min_slack = 2 : i64, accel.transfer_cycles = 16 : i64} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  %t1 = accel.dma_start %b, %vb {accel.min_slack = 16 : i64, accel.transfer_cycles = 16 : i64} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  // expected-remark @+1 {{sunk past 1 op(s); stopped by the end of its block}}
  accel.dma_wait %t0
  // expected-remark @+1 {{not sunk: its DMA's metrics show no stall and a slack of at least one transfer}}
  accel.dma_wait %t1
  accel.vexp %x, %x : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  // expected-note @+1 {{blocking op}}
  return
}
