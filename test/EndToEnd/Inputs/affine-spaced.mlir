// Affine DMAs on memrefs that already have accel memory spaces (the tag
// too): the frontend still runs, since affine ops are no accel program.
func.func @spaced(%A: memref<256xf32, #accel.space<hbm>>, %B: memref<256xf32, #accel.space<hbm>>) {
  %buf = accel.alloc : memref<32xf32, #accel.space<vmem>>
  %tag = memref.alloc() : memref<1xi32, #accel.space<hbm>>
  %c0 = arith.constant 0 : index
  %n = arith.constant 32 : index
  affine.for %i = 0 to 8 {
    affine.dma_start %A[%i * 32], %buf[%c0], %tag[%c0], %n : memref<256xf32, #accel.space<hbm>>, memref<32xf32, #accel.space<vmem>>, memref<1xi32, #accel.space<hbm>>
    affine.dma_wait %tag[%c0], %n : memref<1xi32, #accel.space<hbm>>
    affine.dma_start %buf[%c0], %B[%i * 32], %tag[%c0], %n : memref<32xf32, #accel.space<vmem>>, memref<256xf32, #accel.space<hbm>>, memref<1xi32, #accel.space<hbm>>
    affine.dma_wait %tag[%c0], %n : memref<1xi32, #accel.space<hbm>>
  }
  return
}
