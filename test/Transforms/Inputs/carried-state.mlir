// A decode-style step loop (issue 33, miscompile 1): each step multiplies
// the state xv by the weights, K tile by K tile (a nested loop reading
// column views of xv taken in it), applies tanh, and copies the result
// back into xv at its end (a VPU copy), which the next step reads.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x0: memref<8x256xf32, #hbm>, %w: memref<256x256xf32, #hbm>,
                %out: memref<8x256xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %c128 = arith.constant 128 : index
  %xv = accel.alloc : memref<8x256xf32, #vmem>
  %t0 = accel.dma_start %x0, %xv : memref<8x256xf32, #hbm>, memref<8x256xf32, #vmem>
  accel.dma_wait %t0
  scf.for %s = %c0 to %c6 step %c1 {
    %acc = accel.alloc : memref<8x256xf32, #vmem>
    accel.vfill %acc, 0.0 : memref<8x256xf32, #vmem>
    scf.for %k = %c0 to %c2 step %c1 {
      %off = arith.muli %k, %c128 : index
      %xs = memref.subview %xv[0, %off] [8, 128] [1, 1] : memref<8x256xf32, #vmem> to memref<8x128xf32, strided<[256, 1], offset: ?>, #vmem>
      %src = memref.subview %w[%off, 0] [128, 256] [1, 1] : memref<256x256xf32, #hbm> to memref<128x256xf32, strided<[256, 1], offset: ?>, #hbm>
      %wt = accel.alloc : memref<128x256xf32, #vmem>
      %t = accel.dma_start %src, %wt : memref<128x256xf32, strided<[256, 1], offset: ?>, #hbm>, memref<128x256xf32, #vmem>
      accel.dma_wait %t
      accel.matmul %xs, %wt, %acc {accumulate} : memref<8x128xf32, strided<[256, 1], offset: ?>, #vmem>, memref<128x256xf32, #vmem>, memref<8x256xf32, #vmem>
    }
    accel.vtanh %acc, %acc : memref<8x256xf32, #vmem>, memref<8x256xf32, #vmem>
    accel.vcopy %acc, %xv : memref<8x256xf32, #vmem>, memref<8x256xf32, #vmem>
  }
  %t1 = accel.dma_start %xv, %out : memref<8x256xf32, #vmem>, memref<8x256xf32, #hbm>
  accel.dma_wait %t1
  return
}
