// DMA %t writes columns 0..127 of rows 0..7 of %big (row stride 256) while
// the VPU reads columns 64..191 of the same rows: columns 64..127 are shared,
// a race.
func.func @main(%x: memref<8x128xf32, #accel.space<hbm>>) {
  %big = accel.alloc : memref<8x256xf32, #accel.space<vmem>>
  %o = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  %bl = memref.subview %big[0, 0] [8, 128] [1, 1] : memref<8x256xf32, #accel.space<vmem>> to memref<8x128xf32, strided<[256, 1]>, #accel.space<vmem>>
  %bm = memref.subview %big[0, 64] [8, 128] [1, 1] : memref<8x256xf32, #accel.space<vmem>> to memref<8x128xf32, strided<[256, 1], offset: 64>, #accel.space<vmem>>
  %t = accel.dma_start %x, %bl : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, strided<[256, 1]>, #accel.space<vmem>>
  accel.vexp %bm, %o : memref<8x128xf32, strided<[256, 1], offset: 64>, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.dma_wait %t
  return
}
