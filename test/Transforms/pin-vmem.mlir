// RUN: accel-opt %s -split-input-file --accel-pin-vmem='remarks=true' -verify-diagnostics | FileCheck %s

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Two weight tiles stream through one shared buffer every iteration; both
// carry pin suggestions. Each gets a resident buffer loaded once before the
// loop, its readers read that buffer, and the shared buffer, now unused,
// is freed.
// CHECK-LABEL: func.func @shared_buffer
// CHECK-NOT: accel.alloc : memref<128x128xf32, #accel.space<vmem>>{{$}}
// CHECK: %[[P1:.*]] = accel.alloc {accel.pinned} : memref<128x128xf32
// CHECK: %[[P0:.*]] = accel.alloc {accel.pinned} : memref<128x128xf32
// CHECK: %[[T0:.*]] = accel.dma_start %arg1, %[[P0]] {accel.pinned}
// CHECK-NEXT: accel.dma_wait %[[T0]]
// CHECK: %[[T1:.*]] = accel.dma_start %arg2, %[[P1]] {accel.pinned}
// CHECK-NEXT: accel.dma_wait %[[T1]]
// CHECK-NEXT: scf.for
// CHECK-NEXT: accel.matmul %arg0, %[[P0]], %arg3
// CHECK-NEXT: accel.matmul %arg3, %[[P1]], %arg0
// CHECK-NEXT: }
func.func @shared_buffer(%a: memref<8x128xf32, #vmem>, %w0: memref<128x128xf32, #hbm>, %w1: memref<128x128xf32, #hbm>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %wb = accel.alloc : memref<128x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %t0 = accel.dma_start %w0, %wb {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1689, bytes = 65536}]} : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t0
    accel.matmul %a, %wb, %c : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %t1 = accel.dma_start %w1, %wb {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1689, bytes = 65536}]} : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t1
    accel.matmul %c, %wb, %a : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the loop writes the DMA's source (the bytes change).
func.func @source_written(%v: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark-re @+1 {{not pinned: the loop writes its source (a write of argument 0 by 'accel.vfill' at {{.*}})}}
    %t = accel.dma_start %v, %b {accel.suggestions = [{kind = "pin", expected_cycles_saved = 10}]} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    accel.vexp %b, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.vfill %v, 2.0 : memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: an op updates the pinned bytes in place (the resident copy must
// stay unchanged).
func.func @in_place(%w: memref<8x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{not pinned: an op updates the bytes it brings in place}}
    %t = accel.dma_start %w, %b {accel.suggestions = [{kind = "pin", expected_cycles_saved = 10}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    accel.vexp %b, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the resident buffer would not fit (the shared buffer is
// 4100 x 1024 x 4 = 16793600 bytes, and stays: another DMA uses it; two
// exceed 32 MiB).
func.func @capacity(%w: memref<4100x1024xf32, #hbm>, %v: memref<4100x1024xf32, #hbm>, %c: memref<4100x1xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = accel.alloc : memref<4100x1024xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{not pinned: its 16793600 bytes do not fit the VMEM capacity of 33554432 bytes}}
    %t = accel.dma_start %w, %b {accel.suggestions = [{kind = "pin", expected_cycles_saved = 10}]} : memref<4100x1024xf32, #hbm>, memref<4100x1024xf32, #vmem>
    accel.dma_wait %t
    accel.vreduce_sum %b, %c : memref<4100x1024xf32, #vmem>, memref<4100x1xf32, #vmem>
    %tv = accel.dma_start %v, %b : memref<4100x1024xf32, #hbm>, memref<4100x1024xf32, #vmem>
    accel.dma_wait %tv
    accel.vreduce_sum %b, %c : memref<4100x1024xf32, #vmem>, memref<4100x1xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Pinned: the resident buffer takes the shared buffer's place (nothing else
// uses it, so the pin frees it), so one copy of 16793600 bytes fits.
// CHECK-LABEL: func.func @capacity_freed
// CHECK: accel.alloc {accel.pinned} : memref<4100x1024xf32
// CHECK-NOT: accel.alloc
// CHECK: return
func.func @capacity_freed(%w: memref<4100x1024xf32, #hbm>, %c: memref<4100x1xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = accel.alloc : memref<4100x1024xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %t = accel.dma_start %w, %b {accel.suggestions = [{kind = "pin", expected_cycles_saved = 10}]} : memref<4100x1024xf32, #hbm>, memref<4100x1024xf32, #vmem>
    accel.dma_wait %t
    accel.vreduce_sum %b, %c : memref<4100x1024xf32, #vmem>, memref<4100x1xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused (dominance): the source is a tile chosen by the loop index, so a
// load before the loop could not compute it (and the bytes differ per
// iteration).
func.func @source_changes(%w: memref<512x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %wb = accel.alloc : memref<128x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.muli %i, %c128 : index
    %s = memref.subview %w[%r, 0] [128, 128] [1, 1] : memref<512x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    // expected-remark @+1 {{not pinned: its source changes in the loop}}
    %t = accel.dma_start %s, %wb {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1689, bytes = 65536}]} : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    accel.matmul %a, %wb, %c : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused (destination in use): the shared buffer is read between the
// ISSUE and the WAIT (what it held before the DMA).
func.func @destination_in_use(%w: memref<128x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %wb = accel.alloc : memref<128x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{not pinned: its destination is accessed before its WAIT}}
    %t = accel.dma_start %w, %wb {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1689, bytes = 65536}]} : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
    accel.matmul %a, %wb, %c : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    accel.matmul %a, %wb, %c : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// SnR's All-Gather setup (§5.2.1) in small: a directory DMA'd every
// iteration, a node-table row chosen by a scalar load of it, and the node
// read to address the transfer. Pinning the directory makes its scalar
// load (constant index) and the subview built from it loop-invariant, so
// they move before the loop; the row DMA's source then no longer changes
// in the loop, and the pass's next round pins it too. The loop keeps only
// the work that reads the pinned node.
// CHECK-LABEL: func.func @setup_chain
// CHECK-DAG: %[[RD:.*]] = accel.alloc {accel.pinned} : memref<2xi32
// CHECK-DAG: %[[RN:.*]] = accel.alloc {accel.pinned} : memref<4xi32
// CHECK: %[[TD:.*]] = accel.dma_start %arg0, %[[RD]] {accel.pinned}
// CHECK-NEXT: accel.dma_wait %[[TD]]
// CHECK-NEXT: %[[ROW:.*]] = accel.load %[[RD]][%c1]
// CHECK-NEXT: %[[SV:.*]] = memref.subview %arg1[%[[ROW]], 0]
// CHECK-NEXT: %[[TN:.*]] = accel.dma_start %[[SV]], %[[RN]] {accel.pinned}
// CHECK-NEXT: accel.dma_wait %[[TN]]
// CHECK-NEXT: %[[PEER:.*]] = accel.load %[[RN]][%c0]
// CHECK-NEXT: scf.for
// CHECK-NOT: accel.dma_wait
// CHECK: accel.dma_start %arg2, %arg3 dst_chip %[[PEER]]
func.func @setup_chain(%dir: memref<2xi32, #hbm>, %nodes: memref<6x4xi32, #hbm>,
                       %shard: memref<8x128xf32, #hbm>, %slot: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %d = accel.alloc : memref<2xi32, #vmem>
  %n = accel.alloc : memref<4xi32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %td = accel.dma_start %dir, %d {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1500, bytes = 8}]} : memref<2xi32, #hbm>, memref<2xi32, #vmem>
    accel.dma_wait %td
    %row = accel.load %d[%c1] : memref<2xi32, #vmem>
    %sv = memref.subview %nodes[%row, 0] [1, 4] [1, 1] : memref<6x4xi32, #hbm> to memref<4xi32, strided<[1], offset: ?>, #hbm>
    %tn = accel.dma_start %sv, %n {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1500, bytes = 16}]} : memref<4xi32, strided<[1], offset: ?>, #hbm>, memref<4xi32, #vmem>
    accel.dma_wait %tn
    %peer = accel.load %n[%c0] : memref<4xi32, #vmem>
    %tx = accel.dma_start %shard, %slot dst_chip %peer : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %tx
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The directory is pinned, but the loop may run zero times (its bound is
// an argument): its scalar load stays in the loop, so the row DMA's source
// still changes there and it is not pinned.
// CHECK-LABEL: func.func @setup_chain_maybe_empty
// CHECK: accel.dma_start %arg0, %{{.*}} {accel.pinned}
// CHECK: scf.for
// CHECK-NEXT: accel.load
// CHECK-NEXT: memref.subview
func.func @setup_chain_maybe_empty(%dir: memref<2xi32, #hbm>, %nodes: memref<6x4xi32, #hbm>, %ub: index,
                                   %shard: memref<8x128xf32, #hbm>, %slot: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = accel.alloc : memref<2xi32, #vmem>
  %n = accel.alloc : memref<4xi32, #vmem>
  scf.for %i = %c0 to %ub step %c1 {
    %td = accel.dma_start %dir, %d {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1500, bytes = 8}]} : memref<2xi32, #hbm>, memref<2xi32, #vmem>
    accel.dma_wait %td
    %row = accel.load %d[%c1] : memref<2xi32, #vmem>
    %sv = memref.subview %nodes[%row, 0] [1, 4] [1, 1] : memref<6x4xi32, #hbm> to memref<4xi32, strided<[1], offset: ?>, #hbm>
    // expected-remark @+1 {{not pinned: its source changes in the loop}}
    %tn = accel.dma_start %sv, %n {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1500, bytes = 16}]} : memref<4xi32, strided<[1], offset: ?>, #hbm>, memref<4xi32, #vmem>
    accel.dma_wait %tn
    %x = accel.load %n[%c0] : memref<4xi32, #vmem>
    %tx = accel.dma_start %shard, %slot dst_chip %x : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %tx
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The same bytes DMA'd twice per iteration (two unrolled layers) are
// pinned once: the second pin reads the first one's resident buffer (no
// new allocation, no second load).
// CHECK-LABEL: func.func @same_bytes_twice
// CHECK: %[[R:.*]] = accel.alloc {accel.pinned}
// CHECK-NOT: accel.pinned
// CHECK: accel.dma_start %arg0, %[[R]] {accel.pinned}
// CHECK-NOT: accel.pinned
// CHECK: scf.for
// CHECK-NEXT: accel.vcopy %[[R]], %arg1
// CHECK-NEXT: accel.vcopy %[[R]], %arg2
func.func @same_bytes_twice(%w: memref<8x128xf32, #hbm>, %o0: memref<8x128xf32, #vmem>, %o1: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %t0 = accel.dma_start %w, %b {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1500, bytes = 4096}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t0
    accel.vcopy %b, %o0 : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %t1 = accel.dma_start %w, %b {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1500, bytes = 4096}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t1
    accel.vcopy %b, %o1 : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Two loops re-load the same source; between them a DMA writes it, so the
// second loop's pin cannot read the first one's resident copy (stale): it
// gets its own.
// CHECK-LABEL: func.func @source_written_between
// CHECK-COUNT-2: accel.alloc {accel.pinned}
// CHECK: accel.dma_start %arg0, %{{.*}} {accel.pinned}
// CHECK: scf.for
// CHECK: accel.dma_start %arg2, %arg0
// CHECK: accel.dma_start %arg0, %{{.*}} {accel.pinned}
// CHECK: scf.for
func.func @source_written_between(%w: memref<8x128xf32, #hbm>, %o: memref<8x128xf32, #vmem>, %n: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  %b2 = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %t0 = accel.dma_start %w, %b {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1500, bytes = 4096}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t0
    accel.vcopy %b, %o : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  %s = accel.dma_start %n, %w : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %s
  scf.for %i = %c0 to %c4 step %c1 {
    %t1 = accel.dma_start %w, %b2 {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1500, bytes = 4096}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t1
    accel.vcopy %b2, %o : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The source view is taken inside the loop, from values defined outside it
// (a row picked by the chip id and a constant offset): the same bytes every
// iteration. The view and its index arithmetic move before the loop with
// the pinned load; the loop keeps only the reader.
// CHECK-LABEL: func.func @view_taken_in_the_loop
// CHECK: %[[ID:.*]] = accel.chip_id
// CHECK: %[[P:.*]] = accel.alloc {accel.pinned} : memref<1x128xf32
// CHECK: %[[R:.*]] = arith.addi %[[ID]], %{{.*}} : index
// CHECK-NEXT: %[[V:.*]] = memref.subview %arg0[%[[R]], 0] [1, 128] [1, 1]
// CHECK-NEXT: %[[T:.*]] = accel.dma_start %[[V]], %[[P]] {accel.pinned}
// CHECK-NEXT: accel.dma_wait %[[T]]
// CHECK-NEXT: scf.for
// CHECK-NEXT: accel.vexp %[[P]], %arg1
// CHECK-NEXT: }
func.func @view_taken_in_the_loop(%t: memref<8x128xf32, #hbm>, %c: memref<1x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %me = accel.chip_id
  %b = accel.alloc : memref<1x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %row = arith.addi %me, %c1 : index
    %v = memref.subview %t[%row, 0] [1, 128] [1, 1] : memref<8x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %d = accel.dma_start %v, %b {accel.suggestions = [{kind = "pin", expected_cycles_saved = 900}]} : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
    accel.dma_wait %d
    accel.vexp %b, %c : memref<1x128xf32, #vmem>, memref<1x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the row depends on the induction variable (other bytes each
// iteration), or on a division in a loop that may not run (moving it
// before the loop could divide by zero where the program never did).
func.func @view_changes_in_the_loop(%t: memref<8x128xf32, #hbm>, %c: memref<1x128xf32, #vmem>, %n: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = accel.alloc : memref<1x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %row = arith.addi %i, %c1 : index
    %v = memref.subview %t[%row, 0] [1, 128] [1, 1] : memref<8x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
    // expected-remark @+1 {{not pinned: its source changes in the loop}}
    %d = accel.dma_start %v, %b {accel.suggestions = [{kind = "pin", expected_cycles_saved = 900}]} : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
    accel.dma_wait %d
    accel.vexp %b, %c : memref<1x128xf32, #vmem>, memref<1x128xf32, #vmem>
  }
  %b2 = accel.alloc : memref<1x128xf32, #vmem>
  scf.for %i = %c0 to %n step %c1 {
    %row = arith.divui %c4, %k : index
    %v = memref.subview %t[%row, 0] [1, 128] [1, 1] : memref<8x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
    // expected-remark @+1 {{not pinned: its source is computed in the loop by arith.divui, which may not run before a loop that may run zero times}}
    %d = accel.dma_start %v, %b2 {accel.suggestions = [{kind = "pin", expected_cycles_saved = 900}]} : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
    accel.dma_wait %d
    accel.vexp %b2, %c : memref<1x128xf32, #vmem>, memref<1x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// One buffer filled twice per iteration: first from %x (which changes, so
// it stays), then from %w (pinned). The read before the second DMA sees
// the first DMA's bytes of the same iteration, never the second's of the
// previous one, so pinning the second is legal: its reader reads the
// resident copy, the first DMA and its reader keep the shared buffer.
// CHECK-LABEL: func.func @filled_twice
// CHECK: %[[B:.*]] = accel.alloc : memref<8x128xf32
// CHECK-NEXT: %[[P:.*]] = accel.alloc {accel.pinned} : memref<8x128xf32
// CHECK: %[[T:.*]] = accel.dma_start %arg1, %[[P]] {accel.pinned}
// CHECK-NEXT: accel.dma_wait %[[T]]
// CHECK-NEXT: scf.for
// CHECK: accel.dma_start %{{.*}}, %[[B]]
// CHECK-NEXT: accel.dma_wait
// CHECK-NEXT: accel.vexp %[[B]], %arg2
// CHECK-NEXT: accel.vadd %arg2, %[[P]], %arg2
// CHECK-NEXT: }
func.func @filled_twice(%x: memref<4x8x128xf32, #hbm>, %w: memref<8x128xf32, #hbm>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %xv = memref.subview %x[%i, 0, 0] [1, 8, 128] [1, 1, 1] : memref<4x8x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t0 = accel.dma_start %xv, %b : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t0
    accel.vexp %b, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %t1 = accel.dma_start %w, %b {accel.suggestions = [{kind = "pin", expected_cycles_saved = 900}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t1
    accel.vadd %c, %b, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the read before the DMA comes before the other DMA refills the
// buffer, so it sees the pinned DMA's bytes of the previous iteration.
func.func @read_before_refill(%x: memref<4x8x128xf32, #hbm>, %w: memref<8x128xf32, #hbm>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    accel.vexp %b, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %xv = memref.subview %x[%i, 0, 0] [1, 8, 128] [1, 1, 1] : memref<4x8x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t0 = accel.dma_start %xv, %b : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t0
    // expected-remark @+1 {{not pinned: the loop reads its destination before the DMA, where it still holds the previous iteration's copy}}
    %t1 = accel.dma_start %w, %b {accel.suggestions = [{kind = "pin", expected_cycles_saved = 900}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t1
    accel.vadd %c, %b, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused across the step loop too: the step loop stores into the weight
// table the K loop reads (a pin before it would keep stale tiles).
func.func @stacked_source_written(%w: memref<4x8x128xf32, #hbm>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %s = %c0 to %c4 step %c1 {
    scf.for %k = %c0 to %c4 step %c1 {
      %wk = memref.subview %w[%k, 0, 0] [1, 8, 128] [1, 1, 1] : memref<4x8x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
      // expected-remark-re @+1 {{not pinned: its source changes in the loop; not across the loop around it either: the loop writes its source (a write of argument 0 by 'accel.dma_start' at {{.*}})}}
      %t = accel.dma_start %wk, %b {accel.suggestions = [{kind = "pin", expected_cycles_saved = 900}]} : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
      accel.dma_wait %t
      accel.vadd %c, %b, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    }
    %w0 = memref.subview %w[0, 0, 0] [1, 8, 128] [1, 1, 1] : memref<4x8x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1]>, #hbm>
    %ts = accel.dma_start %c, %w0 : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1]>, #hbm>
    accel.dma_wait %ts
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the K loop's trip count is a run-time value, so the size of the
// stack is not known.
func.func @stacked_dynamic_trips(%w: memref<4x8x128xf32, #hbm>, %c: memref<8x128xf32, #vmem>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %s = %c0 to %c4 step %c1 {
    scf.for %k = %c0 to %n step %c1 {
      %wk = memref.subview %w[%k, 0, 0] [1, 8, 128] [1, 1, 1] : memref<4x8x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
      // expected-remark @+1 {{not pinned: its source changes in the loop; no outer loop: its loop's bounds are not constants}}
      %t = accel.dma_start %wk, %b {accel.suggestions = [{kind = "pin", expected_cycles_saved = 900}]} : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
      accel.dma_wait %t
      accel.vadd %c, %b, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    }
  }
  return
}
