// RUN: accel-opt %s -split-input-file --accel-pin-vmem='remarks=true vmem-capacity=1048576 vmem-page=1' -verify-diagnostics | FileCheck %s

// One VMEM budget for pins and for the second copies --accel-pipeline-dma
// needs to double-buffer the stalled DMAs of loops (issue 33, item 5): the
// exact solver chooses among both, by cycles (a pin's expected cycles
// saved; a buffer's stall cycles, which pipelining hides) within the bytes
// free. Each pin candidate shares its buffer with another DMA, so the
// buffer stays and a pin costs its resident buffer's bytes. %pad sets the
// free VMEM: 1048576 - (1019904 + 12288 + 4096) = 12288 bytes.

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The pin (12288 bytes, 1000 cycles) and the second copy of %bx (4096
// bytes; its load stalled 3000 cycles) do not fit together: the copy
// hides more, and W stays in the loop.
// CHECK-LABEL: func.func @double_buffer_first
// CHECK-NOT: accel.pinned
func.func @double_buffer_first(%w: memref<8x384xf32, #hbm>, %v: memref<8x384xf32, #hbm>, %x: memref<32x128xf32, #hbm>, %cw: memref<8x384xf32, #vmem>, %cx: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = accel.alloc : memref<498x512xf32, #vmem>
  %bw = accel.alloc : memref<8x384xf32, #vmem>
  %bx = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{not pinned: its 12288 bytes do not fit the VMEM capacity of 1048576 bytes with the 4096 bytes kept for the second copies of the buffers pipelining double-buffers}}
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

// The same with a load that stalled 500 cycles: the pin saves more.
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

// A pin and the second copy of its own buffer are alternatives (pinned,
// its DMA leaves the loop): 24576 bytes free (%pad 999424 bytes), W
// (12288 bytes, 1000 cycles; its load stalled 800, the only stalled DMA on
// %bw), S (8192 bytes, 400 cycles) and %bx's copy (4096 bytes, 300). Counted
// as independent, W with %bw's copy (1800 cycles) would fill the budget;
// chosen jointly, W, S and %bx's copy fit (1700 cycles): both pins.
// CHECK-LABEL: func.func @pin_or_copy
// CHECK: accel.alloc {accel.pinned} : memref<8x384xf32
// CHECK: accel.alloc {accel.pinned} : memref<8x256xf32
func.func @pin_or_copy(%w: memref<8x384xf32, #hbm>, %s: memref<8x256xf32, #hbm>, %v: memref<8x384xf32, #hbm>, %u: memref<8x256xf32, #hbm>, %x: memref<32x128xf32, #hbm>, %cw: memref<8x384xf32, #vmem>, %cs: memref<8x256xf32, #vmem>, %cx: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %pad = accel.alloc : memref<488x512xf32, #vmem>
  %bw = accel.alloc : memref<8x384xf32, #vmem>
  %bs = accel.alloc : memref<8x256xf32, #vmem>
  %bx = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %tw = accel.dma_start %w, %bw {accel.stall_base = 800, accel.suggestions = [{kind = "pin", expected_cycles_saved = 1000, bytes = 12288}]} : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tw
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %tv = accel.dma_start %v, %bw : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tv
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %ts = accel.dma_start %s, %bs {accel.suggestions = [{kind = "pin", expected_cycles_saved = 400, bytes = 8192}]} : memref<8x256xf32, #hbm>, memref<8x256xf32, #vmem>
    accel.dma_wait %ts
    accel.vexp %bs, %cs : memref<8x256xf32, #vmem>, memref<8x256xf32, #vmem>
    %tu = accel.dma_start %u, %bs : memref<8x256xf32, #hbm>, memref<8x256xf32, #vmem>
    accel.dma_wait %tu
    accel.vexp %bs, %cs : memref<8x256xf32, #vmem>, memref<8x256xf32, #vmem>
    %r = arith.muli %i, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<32x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tx = accel.dma_start %xs, %bx {accel.stall_base = 300} : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %tx
    accel.vexp %bx, %cx : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}
