// RUN: accel-opt %s -split-input-file --accel-pin-vmem='remarks=true vmem-capacity=1048576 vmem-page=1' -verify-diagnostics | FileCheck %s

// One VMEM budget for pins and for the buffer copies of the loops
// --accel-pipeline-dma pipelines (issue 33, item 5; issue 36): the exact
// solver keeps room for a loop only if that pass, run on a copy of the
// function, pipelines it, and then for all of the copies it adds;
// it chooses the pins and the loops by cycles (a pin's expected cycles
// saved; a loop's stall cycles, which pipelining hides) within the bytes
// free. W shares %bw with V, so %bw stays and a pin costs its resident
// buffer's 12288 bytes. %pad sets the free VMEM: 1048576 - (999424 +
// 12288 + 4096) = 32768 bytes.

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The pin (12288 bytes, 1000 cycles) and the copies pipelining the loop
// adds (28672 bytes: two of %bw, one of %bx) do not fit together; the
// loop's stalls (3000 cycles on %x) are worth more, so W stays in it.
// CHECK-LABEL: func.func @pipelining_first
// CHECK-NOT: accel.pinned
func.func @pipelining_first(%w: memref<8x384xf32, #hbm>, %v: memref<8x384xf32, #hbm>, %x: memref<32x128xf32, #hbm>, %cw: memref<8x384xf32, #vmem>, %cv: memref<8x384xf32, #vmem>, %cx: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = accel.alloc : memref<488x512xf32, #vmem>
  %bw = accel.alloc : memref<8x384xf32, #vmem>
  %bx = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{not pinned: its 12288 bytes do not fit the VMEM capacity of 1048576 bytes with the 28672 bytes kept for the buffer copies of the loops --accel-pipeline-dma pipelines (they hide more stall cycles)}}
    %tw = accel.dma_start %w, %bw {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1000, bytes = 12288}]} : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tw
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %tv = accel.dma_start %v, %bw : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tv
    accel.vexp %bw, %cv : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %r = arith.muli %i, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<32x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tx = accel.dma_start %xs, %bx {accel.stall_base = 3000} : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %tx
    accel.vexp %bx, %cx : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The same with a load that stalled 500 cycles: the pin saves more, and
// no room is kept for the loop.
// CHECK-LABEL: func.func @pin_first
// CHECK: accel.alloc {accel.pinned} : memref<8x384xf32
func.func @pin_first(%w: memref<8x384xf32, #hbm>, %v: memref<8x384xf32, #hbm>, %x: memref<32x128xf32, #hbm>, %cw: memref<8x384xf32, #vmem>, %cv: memref<8x384xf32, #vmem>, %cx: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = accel.alloc : memref<488x512xf32, #vmem>
  %bw = accel.alloc : memref<8x384xf32, #vmem>
  %bx = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %tw = accel.dma_start %w, %bw {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1000, bytes = 12288}]} : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tw
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %tv = accel.dma_start %v, %bw : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tv
    accel.vexp %bw, %cv : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %r = arith.muli %i, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<32x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tx = accel.dma_start %xs, %bx {accel.stall_base = 500} : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %tx
    accel.vexp %bx, %cx : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// W's own load stalls 800 cycles, which the pipelining hides as well:
// kept, the loop hides 800 + 300 cycles; the pin alone saves 1000.
// CHECK-LABEL: func.func @pin_hidden_by_pipelining
// CHECK-NOT: accel.pinned
func.func @pin_hidden_by_pipelining(%w: memref<8x384xf32, #hbm>, %v: memref<8x384xf32, #hbm>, %x: memref<32x128xf32, #hbm>, %cw: memref<8x384xf32, #vmem>, %cv: memref<8x384xf32, #vmem>, %cx: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = accel.alloc : memref<488x512xf32, #vmem>
  %bw = accel.alloc : memref<8x384xf32, #vmem>
  %bx = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{not pinned: its 12288 bytes do not fit the VMEM capacity of 1048576 bytes with the 28672 bytes kept}}
    %tw = accel.dma_start %w, %bw {accel.stall_base = 800, accel.suggestions = [{kind = "pin", expected_cycles_saved = 1000, bytes = 12288}]} : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tw
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %tv = accel.dma_start %v, %bw : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tv
    accel.vexp %bw, %cv : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %r = arith.muli %i, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<32x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tx = accel.dma_start %xs, %bx {accel.stall_base = 300} : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %tx
    accel.vexp %bx, %cx : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Both vexps write %cw, so --accel-pipeline-dma refuses the loop (a
// buffer not private to an iteration, accessed in two stages): no room
// is kept for it, whatever its stalls, and W is pinned.
// CHECK-LABEL: func.func @refused_loop_keeps_no_room
// CHECK: accel.alloc {accel.pinned} : memref<8x384xf32
func.func @refused_loop_keeps_no_room(%w: memref<8x384xf32, #hbm>, %v: memref<8x384xf32, #hbm>, %x: memref<32x128xf32, #hbm>, %cw: memref<8x384xf32, #vmem>, %cv: memref<8x384xf32, #vmem>, %cx: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = accel.alloc : memref<488x512xf32, #vmem>
  %bw = accel.alloc : memref<8x384xf32, #vmem>
  %bx = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %tw = accel.dma_start %w, %bw {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1000, bytes = 12288}]} : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tw
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %tv = accel.dma_start %v, %bw : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tv
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %r = arith.muli %i, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<32x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tx = accel.dma_start %xs, %bx {accel.stall_base = 3000} : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %tx
    accel.vexp %bx, %cx : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The profile says the loop ran 4 iterations in all (accel.executions):
// --accel-pipeline-dma unrolls such a small nest fully rather than
// pipelining it, so no room is kept for it, and W is pinned.
// CHECK-LABEL: func.func @unrolled_loop_keeps_no_room
// CHECK: accel.alloc {accel.pinned} : memref<8x384xf32
func.func @unrolled_loop_keeps_no_room(%w: memref<8x384xf32, #hbm>, %v: memref<8x384xf32, #hbm>, %x: memref<32x128xf32, #hbm>, %cw: memref<8x384xf32, #vmem>, %cv: memref<8x384xf32, #vmem>, %cx: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = accel.alloc : memref<488x512xf32, #vmem>
  %bw = accel.alloc : memref<8x384xf32, #vmem>
  %bx = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %tw = accel.dma_start %w, %bw {accel.executions = 4, accel.suggestions = [{kind = "pin", expected_cycles_saved = 1000, bytes = 12288}]} : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tw
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %tv = accel.dma_start %v, %bw : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tv
    accel.vexp %bw, %cv : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %r = arith.muli %i, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<32x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tx = accel.dma_start %xs, %bx {accel.executions = 4, accel.stall_base = 3000} : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %tx
    accel.vexp %bx, %cx : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}
