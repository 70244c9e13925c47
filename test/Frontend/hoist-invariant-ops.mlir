// Loop-invariant ops on the loop's own buffers move in front of the loop
// (Passes.td, accel-hoist-invariant-ops).
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-hoist-invariant-ops))' | FileCheck %s

!v64 = memref<64x64xf32, #accel.space<vmem>>
!col = memref<64x1xf32, #accel.space<vmem>>
!row = memref<1x64xf32, #accel.space<vmem>>
!hbm = memref<4x64x64xf32, #accel.space<hbm>>

// A causal mask (iotas, a broadcast, a compare) and a scale's broadcast are
// the same tiles for every head: they and their buffers leave the loop. The
// scale multiply reads the head's tile; the -inf fill's buffer is written
// by the select too: both stay.

// CHECK-LABEL: func.func @mask
// CHECK: %[[ROWS:.*]] = accel.alloc : memref<64x1xf32
// CHECK: %[[ROW:.*]] = accel.alloc : memref<64x64xf32
// CHECK: %[[COLS:.*]] = accel.alloc : memref<1x64xf32
// CHECK: %[[MASK:.*]] = accel.alloc : memref<64x64xf32
// CHECK: %[[SCALE:.*]] = accel.alloc : memref<64x1xf32
// CHECK: accel.viota %{{.*}}, %[[ROWS]]
// CHECK: accel.vfill %[[ROW]], 0.0
// CHECK: accel.vadd %[[ROW]], %[[ROWS]], %[[ROW]]
// CHECK: accel.viota %{{.*}}, %[[COLS]]
// CHECK: accel.vcmp oge, %[[ROW]], %[[COLS]], %[[MASK]]
// CHECK: accel.vfill %[[SCALE]], 1.250000e-01
// CHECK: scf.for
// CHECK-NOT: accel.viota
// CHECK-NOT: accel.vcmp
// CHECK: accel.dma_start
// CHECK: accel.dma_wait
// CHECK: accel.vmul %{{.*}}, %[[SCALE]], %{{.*}}
// CHECK: %[[NINF:.*]] = accel.alloc : memref<64x64xf32
// CHECK: accel.vfill %[[NINF]], 0xFF800000
// CHECK: accel.vselect %[[MASK]], %{{.*}}, %[[NINF]]
// CHECK: }
func.func @mask(%scores: !hbm, %out: !hbm) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %h = %c0 to %c4 step %c1 {
    %src = memref.subview %scores[%h, 0, 0] [1, 64, 64] [1, 1, 1] : !hbm to memref<64x64xf32, strided<[64, 1], offset: ?>, #accel.space<hbm>>
    %x = accel.alloc : !v64
    %t = accel.dma_start %src, %x : memref<64x64xf32, strided<[64, 1], offset: ?>, #accel.space<hbm>>, !v64
    accel.dma_wait %t
    %rows = accel.alloc : !col
    accel.viota %c0, %rows : !col
    %row = accel.alloc : !v64
    accel.vfill %row, 0.0 : !v64
    accel.vadd %row, %rows, %row : !v64, !col, !v64
    %cols = accel.alloc : !row
    accel.viota %c0, %cols : !row
    %mask = accel.alloc : !v64
    accel.vcmp oge, %row, %cols, %mask : !v64, !row, !v64
    %scale = accel.alloc : !col
    accel.vfill %scale, 0.125 : !col
    accel.vmul %x, %scale, %x : !v64, !col, !v64
    %ninf = accel.alloc : !v64
    accel.vfill %ninf, 0xFF800000 : !v64
    accel.vselect %mask, %x, %ninf : !v64, !v64, !v64
    %dst = memref.subview %out[%h, 0, 0] [1, 64, 64] [1, 1, 1] : !hbm to memref<64x64xf32, strided<[64, 1], offset: ?>, #accel.space<hbm>>
    %t2 = accel.dma_start %ninf, %dst : !v64, memref<64x64xf32, strided<[64, 1], offset: ?>, #accel.space<hbm>>
    accel.dma_wait %t2
  }
  return
}

// -----

!v = memref<8x128xf32, #accel.space<vmem>>
!h = memref<8x128xf32, #accel.space<hbm>>

// What stays: a buffer read before it is written in the body (the value
// read is the previous iteration's), one an op with an index argument of
// the loop writes, one with a view, one a nested loop writes, and anything
// in a loop that may not run.

// CHECK-LABEL: func.func @kept
// CHECK: scf.for
// CHECK-NEXT: accel.alloc
// CHECK-NEXT: accel.vadd
// CHECK-NEXT: accel.vfill %{{.*}}, 1.0
// CHECK: scf.for
// CHECK-NEXT: accel.alloc
// CHECK-NEXT: accel.viota %{{.*}}
// CHECK: scf.for
// CHECK-NEXT: accel.alloc
// CHECK-NEXT: accel.vfill %{{.*}}, 3.0
// CHECK-NEXT: memref.subview
// CHECK: scf.for
// CHECK-NEXT: accel.alloc
// CHECK-NEXT: accel.vfill %{{.*}}, 4.0
// CHECK-NEXT: scf.for
// CHECK: scf.for
// CHECK-NEXT: accel.alloc
// CHECK-NEXT: accel.vfill %{{.*}}, 5.0
func.func @kept(%o: !h, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %acc = accel.alloc : !v
  accel.vfill %acc, 0.0 : !v
  scf.for %i = %c0 to %c4 step %c1 {
    %a = accel.alloc : !v
    accel.vadd %acc, %a, %acc : !v, !v, !v
    accel.vfill %a, 1.0 : !v
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %b = accel.alloc : !v
    accel.viota %i, %b : !v
    accel.vadd %acc, %b, %acc : !v, !v, !v
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %c = accel.alloc : !v
    accel.vfill %c, 3.0 : !v
    %s = memref.subview %c[0, 0] [8, 64] [1, 1] : !v to memref<8x64xf32, strided<[128, 1]>, #accel.space<vmem>>
    %t = accel.dma_start %s, %s : memref<8x64xf32, strided<[128, 1]>, #accel.space<vmem>>, memref<8x64xf32, strided<[128, 1]>, #accel.space<vmem>>
    accel.dma_wait %t
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %d = accel.alloc : !v
    accel.vfill %d, 4.0 : !v
    scf.for %j = %c0 to %c4 step %c1 {
      accel.vadd %d, %d, %d : !v, !v, !v
    }
    accel.vadd %acc, %d, %acc : !v, !v, !v
  }
  scf.for %i = %c0 to %n step %c1 {
    %e = accel.alloc : !v
    accel.vfill %e, 5.0 : !v
    accel.vadd %acc, %e, %acc : !v, !v, !v
  }
  %t = accel.dma_start %acc, %o : !v, !h
  accel.dma_wait %t
  return
}

// -----

!v = memref<8x128xf32, #accel.space<vmem>>

// Inner loops first: a fill leaves the inner loop, then the outer one,
// where the inner loop only reads its buffer. An allocation nothing uses
// stays where it is.

// CHECK-LABEL: func.func @nested
// CHECK: accel.alloc
// CHECK: %[[K:.*]] = accel.alloc
// CHECK-NEXT: accel.vfill %[[K]], 2.0
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: accel.alloc
// CHECK-NEXT: accel.vadd %{{.*}}, %[[K]]
func.func @nested() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %acc = accel.alloc : !v
  accel.vfill %acc, 0.0 : !v
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %unused = accel.alloc : !v
      %k = accel.alloc : !v
      accel.vfill %k, 2.0 : !v
      accel.vadd %acc, %k, %acc : !v, !v, !v
    }
  }
  return
}

// -----

!v = memref<8x128xf32, #accel.space<vmem>>

// A fill read by a nested loop leaves the outer loop too.

// CHECK-LABEL: func.func @nested_reader
// CHECK: accel.vfill %{{.*}}, 0.0
// CHECK-NEXT: %[[D:.*]] = accel.alloc
// CHECK-NEXT: accel.vfill %[[D]], 4.0
// CHECK-NEXT: scf.for
func.func @nested_reader() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %acc = accel.alloc : !v
  accel.vfill %acc, 0.0 : !v
  scf.for %i = %c0 to %c4 step %c1 {
    %d = accel.alloc : !v
    accel.vfill %d, 4.0 : !v
    scf.for %j = %c0 to %c4 step %c1 {
      accel.vadd %acc, %d, %acc : !v, !v, !v
    }
  }
  return
}
