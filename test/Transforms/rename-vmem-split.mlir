// RUN: accel-opt %s -split-input-file --accel-rename-vmem='remarks=true' -verify-diagnostics | FileCheck %s

// A ring of VMEM slots after its loop was fully unrolled (issue 33: a
// hand-pipelined ring): every view of the ring has a constant offset, once
// `(i + 2) mod 2` is folded with i known. The ring is split into one
// buffer per slot, and the stalled load of tile 2 into slot 0 then gets a
// new buffer of its own: it no longer waits for tile 0's last read.

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!slot = memref<8x64xf32, strided<[64, 1], offset: ?>, #vmem>
!htile = memref<8x64xf32, strided<[64, 1], offset: ?>, #hbm>

// CHECK-LABEL: func.func @unrolled_ring
// CHECK: %[[S0:.*]] = accel.alloc : memref<8x64xf32, #accel.space<vmem>>
// CHECK-NEXT: %[[S1:.*]] = accel.alloc : memref<8x64xf32, #accel.space<vmem>>
// CHECK-NOT: memref<16x64xf32, #accel.space<vmem>>
// CHECK: accel.dma_start %{{.*}}, %[[S0]]
// CHECK: accel.dma_start %{{.*}}, %[[S1]]
// CHECK: accel.vexp %[[S0]]
// CHECK: %[[R:.*]] = accel.alloc {accel.renamed = 1
// CHECK: accel.dma_start %{{.*}}, %[[R]]
// CHECK: accel.vexp %[[S1]]
// CHECK: accel.vexp %[[R]]
func.func @unrolled_ring(%x: memref<24x64xf32, #hbm>, %y: memref<8x64xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  // expected-remark @+1 {{split into 2 VMEM buffers, one per constant view, so that each may be renamed}}
  %ring = accel.alloc : memref<16x64xf32, #vmem>
  %e = accel.alloc : memref<8x64xf32, #vmem>
  %x0 = memref.subview %x[%c0, 0] [8, 64] [1, 1] : memref<24x64xf32, #hbm> to !htile
  %s0 = memref.subview %ring[%c0, 0] [8, 64] [1, 1] : memref<16x64xf32, #vmem> to !slot
  %t0 = accel.dma_start %x0, %s0 : !htile, !slot
  %x1 = memref.subview %x[%c8, 0] [8, 64] [1, 1] : memref<24x64xf32, #hbm> to !htile
  %s1 = memref.subview %ring[%c8, 0] [8, 64] [1, 1] : memref<16x64xf32, #vmem> to !slot
  %t1 = accel.dma_start %x1, %s1 : !htile, !slot
  accel.dma_wait %t0
  %r0 = memref.subview %ring[%c0, 0] [8, 64] [1, 1] : memref<16x64xf32, #vmem> to !slot
  accel.vexp %r0, %e : !slot, memref<8x64xf32, #vmem>
  // Tile 2 into slot (0 + 2) mod 2 = 0.
  %i2 = arith.addi %c0, %c2 : index
  %sl = arith.remui %i2, %c2 : index
  %off = arith.muli %sl, %c8 : index
  %x2 = memref.subview %x[%c16, 0] [8, 64] [1, 1] : memref<24x64xf32, #hbm> to !htile
  %s2 = memref.subview %ring[%off, 0] [8, 64] [1, 1] : memref<16x64xf32, #vmem> to !slot
  // expected-remark @+1 {{renamed its VMEM buffer (2048 bytes): the DMA may now be issued before the last reads of the tile it replaces}}
  %t2 = accel.dma_start %x2, %s2 {accel.stall_base = 400} : !htile, !slot
  accel.dma_wait %t1
  %r1 = memref.subview %ring[%c8, 0] [8, 64] [1, 1] : memref<16x64xf32, #vmem> to !slot
  accel.vexp %r1, %e : !slot, memref<8x64xf32, #vmem>
  accel.dma_wait %t2
  accel.vexp %s2, %e : !slot, memref<8x64xf32, #vmem>
  %to = accel.dma_start %e, %y : memref<8x64xf32, #vmem>, memref<8x64xf32, #hbm>
  accel.dma_wait %to
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!slot = memref<8x64xf32, strided<[64, 1], offset: ?>, #vmem>
!htile = memref<8x64xf32, strided<[64, 1], offset: ?>, #hbm>

// Views that overlap (rows 0-7 and 4-11) are not independent buffers: the
// ring stays whole, and nothing is renamed.
// CHECK-LABEL: func.func @overlapping_views
// CHECK: accel.alloc : memref<16x64xf32, #accel.space<vmem>>
// CHECK-NOT: accel.renamed
func.func @overlapping_views(%x: memref<24x64xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %ring = accel.alloc : memref<16x64xf32, #vmem>
  %e = accel.alloc : memref<8x64xf32, #vmem>
  %s0 = memref.subview %ring[%c0, 0] [8, 64] [1, 1] : memref<16x64xf32, #vmem> to !slot
  %x0 = memref.subview %x[%c0, 0] [8, 64] [1, 1] : memref<24x64xf32, #hbm> to !htile
  %t0 = accel.dma_start %x0, %s0 : !htile, !slot
  accel.dma_wait %t0
  accel.vexp %s0, %e : !slot, memref<8x64xf32, #vmem>
  %s4 = memref.subview %ring[%c4, 0] [8, 64] [1, 1] : memref<16x64xf32, #vmem> to !slot
  // expected-remark @+1 {{not renamed: its buffer is not an accel.alloc}}
  %t1 = accel.dma_start %x0, %s4 {accel.stall_base = 400} : !htile, !slot
  accel.dma_wait %t1
  accel.vexp %s4, %e : !slot, memref<8x64xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!slot = memref<8x64xf32, strided<[64, 1], offset: ?>, #vmem>
!htile = memref<8x64xf32, strided<[64, 1], offset: ?>, #hbm>

// A slot chosen at run time (an argument) may be either: not split.
// CHECK-LABEL: func.func @slot_at_run_time
// CHECK: accel.alloc : memref<16x64xf32, #accel.space<vmem>>
// CHECK-NOT: accel.renamed
func.func @slot_at_run_time(%x: memref<24x64xf32, #hbm>, %k: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %ring = accel.alloc : memref<16x64xf32, #vmem>
  %e = accel.alloc : memref<8x64xf32, #vmem>
  %s0 = memref.subview %ring[%c0, 0] [8, 64] [1, 1] : memref<16x64xf32, #vmem> to !slot
  %x0 = memref.subview %x[%c0, 0] [8, 64] [1, 1] : memref<24x64xf32, #hbm> to !htile
  %t0 = accel.dma_start %x0, %s0 : !htile, !slot
  accel.dma_wait %t0
  accel.vexp %s0, %e : !slot, memref<8x64xf32, #vmem>
  %off = arith.muli %k, %c8 : index
  %sk = memref.subview %ring[%off, 0] [8, 64] [1, 1] : memref<16x64xf32, #vmem> to !slot
  // expected-remark @+1 {{not renamed: its buffer is not an accel.alloc}}
  %t1 = accel.dma_start %x0, %sk {accel.stall_base = 400} : !htile, !slot
  accel.dma_wait %t1
  accel.vexp %sk, %e : !slot, memref<8x64xf32, #vmem>
  return
}
