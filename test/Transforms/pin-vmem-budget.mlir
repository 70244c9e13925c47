// RUN: accel-opt %s -split-input-file --accel-pin-vmem='remarks=true vmem-capacity=1048576 vmem-page=1' -verify-diagnostics | FileCheck %s

// One VMEM budget for pins and for the buffer copies of the loops
// --accel-pipeline-dma pipelines (issue 33, item 5; issue 36): the exact
// solver keeps room for a loop only if that pass, run on a copy of the
// function, pipelines it, and then for all of the copies it adds; it
// chooses by cycles (a pin's expected cycles saved; a loop's stall
// cycles, which pipelining hides), measuring each plan with the
// pipelining that follows its pins. W shares %bw with V, so %bw stays and
// a pin costs its resident buffer's 12288 bytes; %pad sets the free VMEM.

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
// W and V share %bw in a loop --accel-pipeline-dma refuses (both vexps
// write %cw); the next loop streams %x, stalling 3000 cycles, and
// pipelining it adds two copies of %bx (8192 bytes). 1048576 - (1019904 +
// 12288 + 4096) = 12288 bytes are free: the pin (12288 bytes, 1000 cycles)
// or the pipelining, not both; the pipelining hides more.
// CHECK-LABEL: func.func @pipelining_first
// CHECK-NOT: accel.pinned
func.func @pipelining_first(%w: memref<8x384xf32, #hbm>, %v: memref<8x384xf32, #hbm>, %x: memref<32x128xf32, #hbm>, %cw: memref<8x384xf32, #vmem>, %cx: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = accel.alloc : memref<498x512xf32, #vmem>
  %bw = accel.alloc : memref<8x384xf32, #vmem>
  %bx = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{not pinned: its 12288 bytes do not fit the VMEM capacity of 1048576 bytes with the 8192 bytes kept for the buffer copies of the loops --accel-pipeline-dma pipelines (they hide more stall cycles)}}
    %tw = accel.dma_start %w, %bw {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1000, bytes = 12288}]} : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tw
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %tv = accel.dma_start %v, %bw : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tv
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
  }
  scf.for %j = %c0 to %c4 step %c1 {
    %r = arith.muli %j, %c8 : index
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
// The same with a stream that stalled 999 cycles: the pin's 1000 cycles
// are worth more.
// CHECK-LABEL: func.func @pin_first
// CHECK: accel.alloc {accel.pinned} : memref<8x384xf32
func.func @pin_first(%w: memref<8x384xf32, #hbm>, %v: memref<8x384xf32, #hbm>, %x: memref<32x128xf32, #hbm>, %cw: memref<8x384xf32, #vmem>, %cx: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = accel.alloc : memref<498x512xf32, #vmem>
  %bw = accel.alloc : memref<8x384xf32, #vmem>
  %bx = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %tw = accel.dma_start %w, %bw {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1000, bytes = 12288}]} : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tw
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %tv = accel.dma_start %v, %bw : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tv
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
  }
  scf.for %j = %c0 to %c4 step %c1 {
    %r = arith.muli %j, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<32x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tx = accel.dma_start %xs, %bx {accel.stall_base = 999} : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %tx
    accel.vexp %bx, %cx : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
// And at 1001 cycles, the pipelining again.
// CHECK-LABEL: func.func @stall_1001
// CHECK-NOT: accel.pinned
func.func @stall_1001(%w: memref<8x384xf32, #hbm>, %v: memref<8x384xf32, #hbm>, %x: memref<32x128xf32, #hbm>, %cw: memref<8x384xf32, #vmem>, %cx: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = accel.alloc : memref<498x512xf32, #vmem>
  %bw = accel.alloc : memref<8x384xf32, #vmem>
  %bx = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{with the 8192 bytes kept}}
    %tw = accel.dma_start %w, %bw {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1000, bytes = 12288}]} : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tw
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %tv = accel.dma_start %v, %bw : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tv
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
  }
  scf.for %j = %c0 to %c4 step %c1 {
    %r = arith.muli %j, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<32x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tx = accel.dma_start %xs, %bx {accel.stall_base = 1001} : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %tx
    accel.vexp %bx, %cx : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// W, V and the stream %x in one loop, 1048576 - (1003520 + 12288 + 4096)
// = 28672 bytes free. Before any pin, pipelining adds two copies of %bw
// and one of %bx (28672 bytes), leaving no room for the pin; with W
// pinned, only V writes %bw in the loop, which then needs one copy of each
// (16384 bytes): the pin and the pipelining fit together, which measuring
// the plan after its pins finds.
// CHECK-LABEL: func.func @pin_shrinks_the_loop
// CHECK: accel.alloc {accel.pinned} : memref<8x384xf32
func.func @pin_shrinks_the_loop(%w: memref<8x384xf32, #hbm>, %v: memref<8x384xf32, #hbm>, %x: memref<32x128xf32, #hbm>, %cw: memref<8x384xf32, #vmem>, %cv: memref<8x384xf32, #vmem>, %cx: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = accel.alloc : memref<490x512xf32, #vmem>
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
    %tx = accel.dma_start %xs, %bx {accel.stall_base = 3000} : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
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
  %pad = accel.alloc : memref<498x512xf32, #vmem>
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
  %pad = accel.alloc : memref<498x512xf32, #vmem>
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
