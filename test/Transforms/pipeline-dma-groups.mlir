// RUN: accel-opt %s -split-input-file --accel-pipeline-dma='all=true group=2' | FileCheck %s --check-prefix=G2
// RUN: accel-opt %s -split-input-file --accel-pipeline-dma='all=true' | FileCheck %s --check-prefix=AUTO
// RUN: accel-opt %s -split-input-file --accel-pipeline-dma='all=true vmem-capacity=266240' | FileCheck %s --check-prefix=CAP

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Groups of 2 tiles (group=2) over 8 iterations: 4 buffers B0-B3. The
// prologue loads tiles 0 and 1 together; the first half, peeled, issues
// tiles 2 and 3 and waits for each of tiles 0 and 1 just before computing
// it; each half of the loop over pairs of groups (one pair: k = 2) issues
// the next group's two tiles, computes its own two, then waits for the
// next group; the epilogue computes the last group, tiles 6 and 7.
// G2-LABEL: func.func @groups
// G2: %[[B0:.*]] = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
// G2-NEXT: %[[B1:.*]] = accel.alloc
// G2-NEXT: %[[B2:.*]] = accel.alloc
// G2-NEXT: %[[B3:.*]] = accel.alloc
// G2-NOT: accel.alloc
// G2: %[[P0:.*]] = accel.dma_start %{{.*}}, %[[B0]]
// G2: %[[P1:.*]] = accel.dma_start %{{.*}}, %[[B1]]
// G2: %[[N0:.*]] = accel.dma_start %{{.*}}, %[[B2]]
// G2: %[[N1:.*]] = accel.dma_start %{{.*}}, %[[B3]]
// G2-NEXT: accel.dma_wait %[[P0]]
// G2: accel.matmul %{{.*}}, %[[B0]], %{{.*}}
// G2-NEXT: accel.dma_wait %[[P1]]
// G2: accel.matmul %{{.*}}, %[[B1]], %{{.*}}
// G2-NEXT: accel.dma_wait %[[N0]]
// G2-NEXT: accel.dma_wait %[[N1]]
// G2: %[[C4:.*]] = arith.constant 4 : index
// G2-NEXT: %[[C6:.*]] = arith.constant 6 : index
// G2-NEXT: %[[C2:.*]] = arith.constant 2 : index
// G2-NEXT: scf.for %{{.*}} = %[[C2]] to %[[C6]] step %[[C4]] {
// G2: %[[M0:.*]] = accel.dma_start %{{.*}}, %[[B0]]
// G2: %[[M1:.*]] = accel.dma_start %{{.*}}, %[[B1]]
// G2: accel.matmul %{{.*}}, %[[B2]], %{{.*}}
// G2: accel.matmul %{{.*}}, %[[B3]], %{{.*}}
// G2-NEXT: accel.dma_wait %[[M0]]
// G2-NEXT: accel.dma_wait %[[M1]]
// G2: %[[E0:.*]] = accel.dma_start %{{.*}}, %[[B2]]
// G2: %[[E1:.*]] = accel.dma_start %{{.*}}, %[[B3]]
// G2: accel.matmul %{{.*}}, %[[B0]], %{{.*}}
// G2: accel.matmul %{{.*}}, %[[B1]], %{{.*}}
// G2-NEXT: accel.dma_wait %[[E0]]
// G2-NEXT: accel.dma_wait %[[E1]]
// G2: } {accel.pipelined}
// G2-NOT: accel.dma
// G2: accel.matmul %{{.*}}, %[[B2]], %{{.*}}
// G2: accel.matmul %{{.*}}, %[[B3]], %{{.*}}
// G2-NEXT: return
func.func @groups(%w: memref<1024x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %b = accel.alloc : memref<128x128xf32, #vmem>
  scf.for %k = %c0 to %c8 step %c1 {
    %r = arith.muli %k, %c128 : index
    %s = memref.subview %w[%r, 0] [128, 128] [1, 1] : memref<1024x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %b : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The group size from the metrics: each of the 12 DMAs stalled L = 564
// cycles (6000 base + 768 transfer over 12 executions; X = 64 of transfer)
// against W = 264 cycles of work per iteration (3168 busy cycles over 12).
// Estimated stall L + r X + ((12 - r) / G - 1) max(0, L + (G-1) X - G W),
// with r = 12 mod G leftover tiles loading with the first group, before it:
// G = 1: 564 + 11 * 300 = 3864; G = 2: 564 + 5 * 100 = 1064; G = 3:
// 564 + 3 * 0 = 564; G = 4 and 6 tie (r = 0), G = 5 leaves r = 2 (692),
// and the smallest wins: 3 tiles per group, 6 buffers. With a VMEM capacity of 266240 bytes (the 8 KiB of
// %a and %c are not allocations) only 4 buffers of 64 KiB fit: groups of 2.
// With 12 = 2 * 2 * 3 iterations neither leaves iterations over.
// AUTO-LABEL: func.func @from_metrics
// AUTO-COUNT-6: accel.alloc : memref<128x128xf32
// AUTO-NOT: accel.alloc
// The prologue's group and the peeled half's, then the first tile's WAIT.
// AUTO-COUNT-6: accel.dma_start
// AUTO-NEXT: accel.dma_wait
// AUTO: accel.matmul
// AUTO: scf.for
// AUTO-COUNT-3: accel.dma_start
// AUTO: } {accel.pipelined}
// CAP-LABEL: func.func @from_metrics
// CAP-COUNT-4: accel.alloc : memref<128x128xf32
// CAP-NOT: accel.alloc
// CAP-COUNT-4: accel.dma_start
// CAP-NEXT: accel.dma_wait
// CAP: accel.matmul
// CAP: scf.for
// CAP-COUNT-2: accel.dma_start
// CAP: } {accel.pipelined}
func.func @from_metrics(%w: memref<1536x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %c128 = arith.constant 128 : index
  %b = accel.alloc : memref<128x128xf32, #vmem>
  scf.for %k = %c0 to %c12 step %c1 {
    %r = arith.muli %k, %c128 : index
    %s = memref.subview %w[%r, 0] [128, 128] [1, 1] : memref<1536x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %b {accel.executions = 12 : i64, accel.stall_base = 6000 : i64, accel.stall_transfer = 768 : i64} : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    accel.matmul %a, %b, %c {accumulate, accel.busy_cycles = 3168 : i64} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// 5 iterations in groups of 1 (no metrics): five groups, an odd number.
// The peeled first half computes tile 0 and issues tile 1 into the second
// buffer; the loop over pairs (k = 1) computes tiles 1 and 2; one more half
// computes tile 3 from the second buffer and issues tile 4 (row 512) into
// the first; the epilogue computes tile 4 from it.
// AUTO-LABEL: func.func @odd_trips
// AUTO: %[[B:.*]] = accel.alloc
// AUTO-NEXT: %[[B1:.*]] = accel.alloc
// AUTO: %[[T0:.*]] = accel.dma_start %{{.*}}, %[[B]] {accel.pipelined}
// AUTO: %[[T1:.*]] = accel.dma_start %{{.*}}, %[[B1]] :
// AUTO-NEXT: accel.dma_wait %[[T0]]
// AUTO-NEXT: accel.matmul %{{.*}}, %[[B]], %{{.*}}
// AUTO-NEXT: accel.dma_wait %[[T1]]
// AUTO: %[[STEP:.*]] = arith.constant 2 : index
// AUTO-NEXT: %[[UB:.*]] = arith.constant 3 : index
// AUTO-NEXT: %[[LB:.*]] = arith.constant 1 : index
// AUTO-NEXT: scf.for %{{.*}} = %[[LB]] to %[[UB]] step %[[STEP]]
// AUTO: } {accel.pipelined}
// AUTO: %[[K4:.*]] = arith.addi
// AUTO-NEXT: %[[R4:.*]] = arith.muli %[[K4]]
// AUTO-NEXT: %[[S4:.*]] = memref.subview %{{.*}}[%[[R4]], 0]
// AUTO-NEXT: %[[T4:.*]] = accel.dma_start %[[S4]], %[[B]] :
// AUTO: accel.matmul %{{.*}}, %[[B1]], %{{.*}}
// AUTO-NEXT: accel.dma_wait %[[T4]]
// AUTO-NEXT: accel.matmul %{{.*}}, %[[B]], %{{.*}}
// AUTO-NEXT: return
func.func @odd_trips(%w: memref<640x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c128 = arith.constant 128 : index
  %b = accel.alloc : memref<128x128xf32, #vmem>
  scf.for %k = %c0 to %c5 step %c1 {
    %r = arith.muli %k, %c128 : index
    %s = memref.subview %w[%r, 0] [128, 128] [1, 1] : memref<640x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %b : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// 7 iterations in groups of 2: the leftover iteration (7 mod 2 = 1, tile 0)
// loads into the second set (B2) with the first group (tiles 1 and 2 into
// B0, B1); then three groups: the peeled first half computes tiles 1-2 and
// issues tiles 3-4 into B2, B3; an odd number of groups leaves no loop over
// pairs but one more half, which computes tiles 3-4 and issues tiles 5-6
// into B0, B1; the epilogue computes those from the first set.
// G2-LABEL: func.func @odd_groups
// G2: %[[B0:.*]] = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
// G2-NEXT: %[[B1:.*]] = accel.alloc
// G2-NEXT: %[[B2:.*]] = accel.alloc
// G2-NEXT: %[[B3:.*]] = accel.alloc
// G2-NOT: scf.for
// G2: %[[R:.*]] = accel.dma_start %{{.*}}, %[[B2]] {accel.pipelined}
// G2: %[[P0:.*]] = accel.dma_start %{{.*}}, %[[B0]]
// G2: %[[P1:.*]] = accel.dma_start %{{.*}}, %[[B1]]
// G2-NEXT: accel.dma_wait %[[R]]
// G2-NEXT: accel.matmul %{{.*}}, %[[B2]], %{{.*}}
// G2: %[[N0:.*]] = accel.dma_start %{{.*}}, %[[B2]]
// G2: %[[N1:.*]] = accel.dma_start %{{.*}}, %[[B3]]
// G2-NEXT: accel.dma_wait %[[P0]]
// G2-NEXT: accel.matmul %{{.*}}, %[[B0]], %{{.*}}
// G2-NEXT: accel.dma_wait %[[P1]]
// G2-NEXT: accel.matmul %{{.*}}, %[[B1]], %{{.*}}
// G2-NEXT: accel.dma_wait %[[N0]]
// G2-NEXT: accel.dma_wait %[[N1]]
// G2: %[[M0:.*]] = accel.dma_start %{{.*}}, %[[B0]]
// G2: %[[M1:.*]] = accel.dma_start %{{.*}}, %[[B1]]
// G2: accel.matmul %{{.*}}, %[[B2]], %{{.*}}
// G2: accel.matmul %{{.*}}, %[[B3]], %{{.*}}
// G2-NEXT: accel.dma_wait %[[M0]]
// G2-NEXT: accel.dma_wait %[[M1]]
// G2-NOT: accel.dma
// G2: accel.matmul %{{.*}}, %[[B0]], %{{.*}}
// G2: accel.matmul %{{.*}}, %[[B1]], %{{.*}}
// G2-NEXT: return
func.func @odd_groups(%w: memref<896x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c128 = arith.constant 128 : index
  %b = accel.alloc : memref<128x128xf32, #vmem>
  scf.for %k = %c0 to %c7 step %c1 {
    %r = arith.muli %k, %c128 : index
    %s = memref.subview %w[%r, 0] [128, 128] [1, 1] : memref<896x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %b : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Two groups in all (4 iterations, group=2): no loop over pairs remains;
// the prologue's first DMA carries accel.pipelined.
// G2-LABEL: func.func @two_groups
// G2: %[[P0:.*]] = accel.dma_start %{{.*}} {accel.pipelined}
// G2-NOT: scf.for
// G2-COUNT-4: accel.matmul
// G2-NEXT: return
func.func @two_groups(%w: memref<512x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %b = accel.alloc : memref<128x128xf32, #vmem>
  scf.for %k = %c0 to %c4 step %c1 {
    %r = arith.muli %k, %c128 : index
    %s = memref.subview %w[%r, 0] [128, 128] [1, 1] : memref<512x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %b : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// An outer loop whose body holds a nested loop (its ops are checked like
// the others) and a second DMA into the staged buffer after the buffer was
// read: only the first DMA is a stage; the second stays in each copy of the
// body, into that copy's buffer.
// G2-LABEL: func.func @nested_and_second_load
// G2: %[[B0:.*]] = accel.alloc : memref<128x128xf32
// G2-COUNT-3: accel.alloc : memref<128x128xf32
// G2-NOT: accel.alloc
// G2: accel.dma_start %{{.*}}, %[[B0]] {accel.pipelined}
// G2: scf.for
// G2: scf.for
// G2: accel.matmul %{{.*}}, %[[B0]], %{{.*}}
// G2: accel.dma_start %{{.*}}, %[[B0]] :
// G2: } {accel.pipelined}
func.func @nested_and_second_load(%w: memref<1024x128xf32, #hbm>, %v: memref<128x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %b = accel.alloc : memref<128x128xf32, #vmem>
  scf.for %n = %c0 to %c8 step %c1 {
    %r = arith.muli %n, %c128 : index
    %s = memref.subview %w[%r, 0] [128, 128] [1, 1] : memref<1024x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %b : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    scf.for %k = %c0 to %c2 step %c1 {
      accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
    }
    %t2 = accel.dma_start %v, %b : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t2
    accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}
