// Issue 33 kernel 10 (repeated_weight): a 6-layer tanh network applied to
// two activations (two requests of a batch of 2 x 8 tokens, handled one
// after the other by code written for one request):
//   for layer s = 0 .. 5:  a <- tanh(a W_s);  b <- tanh(b W_s)
// W is a stack of six 256 x 256 layers in HBM. In each step the kernel
// loads W_s for request a into %wa (DMA, WAIT, matmul, tanh) and then loads
// the SAME W_s bytes again, with a second DMA op, into %wb for request b.
// The two DMAs of a step read identical bytes (the same subview of W); the
// weights differ between steps, so this is not a pinning case across the
// step loop: it is a duplicate load within an iteration.
//
// Style: "10. repeated_weight" (the same weight bytes loaded by two
// different DMA ops in a step loop, once for each of two activations).
//
// Shapes: a, b (x_a, x_b) 8 x 256 f32; W 1536 x 256 f32 (6 layers of
// 256 KiB); out 16 x 256 (a in rows 0..7, b in rows 8..15); per step two
// 256 KiB DMAs, two matmuls of 8 x 256 x 256 (773 cycles each), two vtanh.
// Config: the default machine (no --config).
//
// Ideal schedule: one load of W_s per step (the second matmul reads %wa,
// or the second DMA is a VMEM-local copy), and W_{s+1} prefetched during
// step s's matmuls: then the run is the 12 matmuls back to back, the HBM
// traffic halved (6 x 256 KiB instead of 12).
//
//   accel-replay fdo bench/fdo/kernels/issue33/repeated_weight.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!hw = memref<256x256xf32, strided<[256, 1], offset: ?>, #hbm>
!wv = memref<256x256xf32, #vmem>
!act = memref<8x256xf32, #vmem>
func.func @main(%xa: memref<8x256xf32, #hbm>, %xb: memref<8x256xf32, #hbm>,
                %W: memref<1536x256xf32, #hbm>,
                %out: memref<16x256xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c256 = arith.constant 256 : index
  %a = accel.alloc : !act
  %b = accel.alloc : !act
  %ya = accel.alloc : !act
  %yb = accel.alloc : !act
  %wa = accel.alloc : !wv
  %wb = accel.alloc : !wv
  %ta = accel.dma_start %xa, %a : memref<8x256xf32, #hbm>, !act
  %tb = accel.dma_start %xb, %b : memref<8x256xf32, #hbm>, !act
  accel.dma_wait %ta
  accel.dma_wait %tb
  scf.for %s = %c0 to %c6 step %c1 {
    %r = arith.muli %s, %c256 : index
    %ws = memref.subview %W[%r, 0] [256, 256] [1, 1] : memref<1536x256xf32, #hbm> to !hw
    // Request a.
    %t1 = accel.dma_start %ws, %wa : !hw, !wv
    accel.dma_wait %t1
    accel.matmul %a, %wa, %ya : !act, !wv, !act
    accel.vtanh %ya, %a : !act, !act
    // Request b: the same layer, loaded again.
    %t2 = accel.dma_start %ws, %wb : !hw, !wv
    accel.dma_wait %t2
    accel.matmul %b, %wb, %yb : !act, !wv, !act
    accel.vtanh %yb, %b : !act, !act
  }
  %oa = memref.subview %out[0, 0] [8, 256] [1, 1] : memref<16x256xf32, #hbm> to memref<8x256xf32, strided<[256, 1]>, #hbm>
  %ob = memref.subview %out[8, 0] [8, 256] [1, 1] : memref<16x256xf32, #hbm> to memref<8x256xf32, strided<[256, 1], offset: 2048>, #hbm>
  %sa = accel.dma_start %a, %oa : !act, memref<8x256xf32, strided<[256, 1]>, #hbm>
  %sb = accel.dma_start %b, %ob : !act, memref<8x256xf32, strided<[256, 1], offset: 2048>, #hbm>
  accel.dma_wait %sa
  accel.dma_wait %sb
  return
}
