// RUN: accel-opt %s -split-input-file --accel-rename-vmem='remarks=true' -verify-diagnostics | FileCheck %s

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The store of tile 0 stalled; its WAIT cannot sink past the vmul that
// overwrites %r with tile 1. From that vmul on, %r is a new allocation, so
// the store of tile 0 reads the old one.
// CHECK-LABEL: func.func @store_then_reuse
// CHECK: %[[R:.*]] = accel.alloc {accel.op_id = 1
// CHECK: accel.vmul %{{.*}}, %{{.*}}, %[[R]]
// CHECK: %[[T0:.*]] = accel.dma_start %[[R]]
// CHECK: accel.dma_wait %[[T0]]
// CHECK: %[[R2:.*]] = accel.alloc {accel.renamed = 1
// CHECK-NEXT: accel.vmul %{{.*}}, %{{.*}}, %[[R2]]
// CHECK: accel.dma_start %[[R2]]
func.func @store_then_reuse(%x: memref<8x128xf32, #vmem>, %out: memref<16x128xf32, #hbm>) {
  %r = accel.alloc {accel.op_id = 1 : i64} : memref<8x128xf32, #vmem>
  %o0 = memref.subview %out[0, 0] [8, 128] [1, 1] : memref<16x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1]>, #hbm>
  %o1 = memref.subview %out[8, 0] [8, 128] [1, 1] : memref<16x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 1024>, #hbm>
  accel.vmul %x, %x, %r : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t0 = accel.dma_start %r, %o0 {accel.stall_base = 400} : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1]>, #hbm>
  accel.dma_wait %t0
  // expected-remark @+1 {{renamed its VMEM buffer (4096 bytes): the DMA's WAIT may now move past its reuse}}
  accel.vmul %x, %x, %r : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t1 = accel.dma_start %r, %o1 : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: 1024>, #hbm>
  accel.dma_wait %t1
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The reuse reads the old contents (an in-place vadd): it is a true
// dependence, nothing is renamed.
// CHECK-LABEL: func.func @reuse_reads_old
// CHECK-NOT: accel.renamed
func.func @reuse_reads_old(%x: memref<8x128xf32, #vmem>, %out: memref<8x128xf32, #hbm>) {
  %r = accel.alloc : memref<8x128xf32, #vmem>
  accel.vmul %x, %x, %r : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t0 = accel.dma_start %r, %out {accel.stall_base = 400} : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %t0
  accel.vadd %r, %x, %r : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Near-critical without a stall: the WAIT came 3 cycles after completion,
// less than the 4-cycle transfer, so the store's buffer is renamed too.
// Without either (slack 50), nothing happens.
// CHECK-LABEL: func.func @near_critical
// CHECK-COUNT-1: accel.renamed
// CHECK-NOT: accel.renamed
func.func @near_critical(%x: memref<8x128xf32, #vmem>, %out: memref<32x128xf32, #hbm>) {
  %r = accel.alloc : memref<8x128xf32, #vmem>
  %o0 = memref.subview %out[0, 0] [8, 128] [1, 1] : memref<32x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1]>, #hbm>
  %o1 = memref.subview %out[8, 0] [8, 128] [1, 1] : memref<32x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 1024>, #hbm>
  %o2 = memref.subview %out[16, 0] [8, 128] [1, 1] : memref<32x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 2048>, #hbm>
  accel.vmul %x, %x, %r : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t0 = accel.dma_start %r, %o0 {accel.min_slack = 3 : i64, accel.transfer_cycles = 4 : i64} : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1]>, #hbm>
  accel.dma_wait %t0
  // expected-remark @+1 {{renamed its VMEM buffer}}
  accel.vadd %x, %x, %r : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t1 = accel.dma_start %r, %o1 {accel.min_slack = 50 : i64, accel.transfer_cycles = 4 : i64} : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: 1024>, #hbm>
  accel.dma_wait %t1
  accel.vsub %x, %x, %r : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t2 = accel.dma_start %r, %o2 : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: 2048>, #hbm>
  accel.dma_wait %t2
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A stalled load into %b cannot be issued before the vadd that reads the
// tile it replaces; from the load on, %b is a new allocation, and the
// WAIT-free region before it keeps the old one.
// CHECK-LABEL: func.func @load_after_last_read
// CHECK: %[[B:.*]] = accel.alloc
// CHECK: accel.vadd %[[B]]
// CHECK: %[[B2:.*]] = accel.alloc {accel.renamed = 1
// CHECK-NEXT: accel.dma_start %{{.*}}, %[[B2]]
// CHECK: accel.vmul %[[B2]]
func.func @load_after_last_read(%in: memref<16x128xf32, #hbm>, %x: memref<8x128xf32, #vmem>) {
  %b = accel.alloc : memref<8x128xf32, #vmem>
  %i0 = memref.subview %in[0, 0] [8, 128] [1, 1] : memref<16x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1]>, #hbm>
  %i1 = memref.subview %in[8, 0] [8, 128] [1, 1] : memref<16x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 1024>, #hbm>
  %t0 = accel.dma_start %i0, %b : memref<8x128xf32, strided<[128, 1]>, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t0
  accel.vadd %b, %x, %x : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  // expected-remark @+1 {{renamed its VMEM buffer (4096 bytes): the DMA may now be issued before the last reads of the tile it replaces}}
  %t1 = accel.dma_start %i1, %b {accel.stall_base = 450} : memref<8x128xf32, strided<[128, 1], offset: 1024>, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t1
  accel.vmul %b, %x, %x : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// In a loop body the next iteration may read what the last one left, so
// the buffer is not renamed; a function argument is not an allocation.
// CHECK-LABEL: func.func @refusals
// CHECK-NOT: accel.renamed
func.func @refusals(%x: memref<8x128xf32, #vmem>, %arg: memref<8x128xf32, #vmem>,
                    %out: memref<8x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    accel.vmul %x, %x, %r : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %t = accel.dma_start %r, %out {accel.stall_base = 400} : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
    // expected-remark @+1 {{not renamed: it is not in a function body (a loop may read the old contents in its next iteration)}}
    accel.dma_wait %t
    accel.vadd %x, %x, %r : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %u = accel.dma_start %r, %out : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
    accel.dma_wait %u
  }
  accel.vmul %x, %x, %arg : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t2 = accel.dma_start %arg, %out {accel.stall_base = 400} : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  // expected-remark @+1 {{not renamed: its buffer is not an accel.alloc}}
  accel.dma_wait %t2
  accel.vadd %x, %x, %arg : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#vmem = #accel.space<vmem>

// Compute overlap: the second matmul (MXU) overwrites the scores %s that
// the VPU's vexp still reads; renamed, the list scheduler may start the
// matmul while the VPU works. The vadd after it (VPU, like the last reader
// of %e) is not renamed.
// CHECK-LABEL: func.func @mxu_after_vpu_reader
// CHECK: %[[S:.*]] = accel.alloc : memref<64x64xf32
// CHECK: accel.matmul %{{.*}}, %{{.*}}, %[[S]]
// CHECK: accel.vexp %[[S]], %[[E:[^ ]*]]
// CHECK: %[[S2:.*]] = accel.alloc {accel.renamed = 1
// CHECK-NEXT: accel.matmul %{{.*}}, %{{.*}}, %[[S2]]
// CHECK: accel.vadd %[[S2]], %[[E]], %[[E]]
// CHECK-NOT: accel.renamed = 2
func.func @mxu_after_vpu_reader(%q: memref<64x64xf32, #vmem>, %k0: memref<64x64xf32, #vmem>, %k1: memref<64x64xf32, #vmem>) {
  %s = accel.alloc : memref<64x64xf32, #vmem>
  %e = accel.alloc : memref<64x64xf32, #vmem>
  accel.matmul %q, %k0, %s {accel.busy_cycles = 500} : memref<64x64xf32, #vmem>, memref<64x64xf32, #vmem>, memref<64x64xf32, #vmem>
  accel.vexp %s, %e {accel.busy_cycles = 300} : memref<64x64xf32, #vmem>, memref<64x64xf32, #vmem>
  // expected-remark @+1 {{renamed its VMEM buffer (16384 bytes): the op may now run on its unit while the other unit still reads the old contents}}
  accel.matmul %q, %k1, %s {accel.busy_cycles = 500} : memref<64x64xf32, #vmem>, memref<64x64xf32, #vmem>, memref<64x64xf32, #vmem>
  accel.vadd %s, %e, %e {accel.busy_cycles = 300} : memref<64x64xf32, #vmem>, memref<64x64xf32, #vmem>, memref<64x64xf32, #vmem>
  return
}
