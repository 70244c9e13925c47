// RUN: accel-opt %s -split-input-file --accel-pipeline-dma='all=true remarks=true' -verify-diagnostics | FileCheck %s

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A 4-iteration loop loading tile k of %w into %b and reading it: the
// prologue loads tile 0; the first half, peeled, issues tile 1 into the
// second buffer, waits for tile 0 and computes it; the pair loop (k = 1)
// issues tile k+1 into %b before computing tile k from the second buffer,
// and tile k+2 into the second buffer before computing tile k+1 from %b;
// the epilogue computes tile 3 from the second buffer.
// CHECK-LABEL: func.func @double_buffer
// CHECK: %[[B:.*]] = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
// CHECK-NEXT: %[[B2:.*]] = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
// Prologue and the peeled first half.
// CHECK: %[[T0:.*]] = accel.dma_start %{{.*}}, %[[B]]
// CHECK: %[[T1:.*]] = accel.dma_start %{{.*}}, %[[B2]]
// CHECK-NEXT: accel.dma_wait %[[T0]]
// CHECK-NEXT: accel.matmul %{{.*}}, %[[B]], %{{.*}}
// CHECK-NEXT: accel.dma_wait %[[T1]]
// The pair loop: from 1 to 3 in steps of 2.
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: scf.for %[[K:.*]] = %[[C1]] to %[[C3]] step %[[C2]] {
// CHECK: %[[T2:.*]] = accel.dma_start %{{.*}}, %[[B]]
// CHECK: accel.matmul %{{.*}}, %[[B2]], %{{.*}}
// CHECK-NEXT: accel.dma_wait %[[T2]]
// CHECK: %[[T3:.*]] = accel.dma_start %{{.*}}, %[[B2]]
// CHECK: accel.matmul %{{.*}}, %[[B]], %{{.*}}
// CHECK-NEXT: accel.dma_wait %[[T3]]
// CHECK: } {accel.pipelined}
// Epilogue: tile 3 from the second buffer. Address math that nothing uses
// any more (each staged DMA's subview, cloned with the computation) is gone.
// CHECK-NEXT: accel.matmul %{{.*}}, %[[B2]], %{{.*}}
// CHECK-NEXT: return
func.func @double_buffer(%w: memref<512x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
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

// Refused: a single iteration has nothing to overlap.
func.func @single(%w: memref<8x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not pipelined: the trip count is less than 2}}
  scf.for %k = %c0 to %c1 step %c1 {
    %t = accel.dma_start %w, %a : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the destination is read before the DMA's WAIT.
func.func @read_before_wait(%w: memref<8x128xf32, #hbm>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not pipelined: a DMA's destination is accessed before its WAIT}}
  scf.for %k = %c0 to %c2 step %c1 {
    accel.vexp %b, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %t = accel.dma_start %w, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the staged buffer is read after the loop (its last tile would be
// in the other buffer).
func.func @used_after(%w: memref<8x128xf32, #hbm>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not pipelined: a staged buffer is used outside the loop}}
  scf.for %k = %c0 to %c2 step %c1 {
    %t = accel.dma_start %w, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
  }
  accel.vexp %b, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the loop writes the DMA's source (a VMEM -> VMEM copy whose
// source the vfill rewrites every iteration).
func.func @source_written(%c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %v = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not pipelined: the loop writes a DMA's source}}
  scf.for %k = %c0 to %c2 step %c1 {
    %t = accel.dma_start %v, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    accel.vfill %v, 1.0 : memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the second buffer would not fit in VMEM (two buffers of
// 4100 x 1024 x 4 = 16793600 bytes exceed 32 MiB).
func.func @capacity(%w: memref<4100x1024xf32, #hbm>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = accel.alloc : memref<4100x1024xf32, #vmem>
  // expected-remark @+1 {{not pipelined: the second buffers (16793600 bytes) would exceed the VMEM capacity of 33554432 bytes}}
  scf.for %k = %c0 to %c2 step %c1 {
    %t = accel.dma_start %w, %b : memref<4100x1024xf32, #hbm>, memref<4100x1024xf32, #vmem>
    accel.dma_wait %t
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused (dominance): the DMA's source buffer is defined in the loop, so
// the previous iteration cannot issue it.
func.func @source_in_loop(%a: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not pipelined: a DMA's source buffer is defined in the loop}}
  scf.for %k = %c0 to %c4 step %c1 {
    %src = accel.alloc : memref<8x128xf32, #vmem>
    accel.vfill %src, 1.0 : memref<8x128xf32, #vmem>
    %t = accel.dma_start %src, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    accel.vadd %b, %a, %a : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}
