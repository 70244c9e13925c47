// RUN: accel-opt %s -split-input-file --accel-rename-vmem='remarks=true vmem-capacity=12288 vmem-page=4096' -verify-diagnostics | FileCheck %s

// VMEM is full (three 4 KiB buffers of 12 KiB), so a reused buffer cannot
// get a fresh allocation; a buffer of the same type that nothing accesses
// any more serves instead, as a register allocator reuses a free register.
// %b held the first tile, whose last access is the WAIT of its store; from
// the stalled load of tile 2 on, %a's uses read %b.

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// CHECK-LABEL: func.func @reuse_dead
// CHECK: %[[A:.*]] = accel.alloc : memref<8x128xf32
// CHECK: %[[B:.*]] = accel.alloc : memref<8x128xf32
// CHECK: accel.dma_start %arg0, %[[B]]
// CHECK: accel.dma_start %arg1, %[[A]]
// CHECK: accel.vexp %[[A]]
// CHECK: accel.dma_start %arg2, %[[B]]
// CHECK: accel.vexp %[[B]]
// CHECK-NOT: accel.renamed
func.func @reuse_dead(%x0: memref<8x128xf32, #hbm>, %x1: memref<8x128xf32, #hbm>, %x2: memref<8x128xf32, #hbm>, %y: memref<8x128xf32, #hbm>) {
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<8x128xf32, #vmem>
  %e = accel.alloc : memref<8x128xf32, #vmem>
  %t0 = accel.dma_start %x0, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t0
  %ts = accel.dma_start %b, %y : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %ts
  %t1 = accel.dma_start %x1, %a : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t1
  accel.vexp %a, %e : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  // expected-remark @+1 {{renamed its VMEM buffer to the one allocated at}}
  %t2 = accel.dma_start %x2, %a {accel.stall_base = 400} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t2
  accel.vexp %a, %e : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// %b's store is still in flight (its WAIT comes after the load of tile 2):
// %b is not free there, and nothing else is: not renamed.
// CHECK-LABEL: func.func @store_in_flight
// CHECK: %[[A:.*]] = accel.alloc : memref<8x128xf32
// CHECK: accel.dma_start %arg2, %[[A]]
func.func @store_in_flight(%x0: memref<8x128xf32, #hbm>, %x1: memref<8x128xf32, #hbm>, %x2: memref<8x128xf32, #hbm>, %y: memref<8x128xf32, #hbm>) {
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<8x128xf32, #vmem>
  %e = accel.alloc : memref<8x128xf32, #vmem>
  %t0 = accel.dma_start %x0, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t0
  %ts = accel.dma_start %b, %y : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  %t1 = accel.dma_start %x1, %a : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t1
  accel.vexp %a, %e : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not renamed: VMEM has no room for another copy (12288 of 12288 bytes allocated)}}
  %t2 = accel.dma_start %x2, %a {accel.stall_base = 400} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %ts
  accel.dma_wait %t2
  accel.vexp %a, %e : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}
