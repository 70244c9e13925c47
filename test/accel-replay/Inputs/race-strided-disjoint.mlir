// Strided row tiles of one row band whose bounding spans overlap. While DMA
// %t1 writes columns 0..127 of rows 0..127 of %out (row stride 512), DMA %t2
// reads columns 128..255 of the same rows: disjoint rows segments, no race.
// Then (VMEM, the core): DMA %t3 writes columns 0..127 of %big (row stride
// 256) while the VPU reads columns 128..255 of the same rows.
func.func @main(%a: memref<128x128xf32, #accel.space<hbm>>, %out: memref<128x512xf32, #accel.space<hbm>>, %x: memref<8x128xf32, #accel.space<hbm>>) {
  %v = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
  %w = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
  %t0 = accel.dma_start %a, %v : memref<128x128xf32, #accel.space<hbm>>, memref<128x128xf32, #accel.space<vmem>>
  accel.dma_wait %t0
  %left = memref.subview %out[0, 0] [128, 128] [1, 1] : memref<128x512xf32, #accel.space<hbm>> to memref<128x128xf32, strided<[512, 1]>, #accel.space<hbm>>
  %right = memref.subview %out[0, 128] [128, 128] [1, 1] : memref<128x512xf32, #accel.space<hbm>> to memref<128x128xf32, strided<[512, 1], offset: 128>, #accel.space<hbm>>
  %t1 = accel.dma_start %v, %left : memref<128x128xf32, #accel.space<vmem>>, memref<128x128xf32, strided<[512, 1]>, #accel.space<hbm>>
  %t2 = accel.dma_start %right, %w : memref<128x128xf32, strided<[512, 1], offset: 128>, #accel.space<hbm>>, memref<128x128xf32, #accel.space<vmem>>
  accel.dma_wait %t1
  accel.dma_wait %t2
  %big = accel.alloc : memref<8x256xf32, #accel.space<vmem>>
  %o = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  %bl = memref.subview %big[0, 0] [8, 128] [1, 1] : memref<8x256xf32, #accel.space<vmem>> to memref<8x128xf32, strided<[256, 1]>, #accel.space<vmem>>
  %br = memref.subview %big[0, 128] [8, 128] [1, 1] : memref<8x256xf32, #accel.space<vmem>> to memref<8x128xf32, strided<[256, 1], offset: 128>, #accel.space<vmem>>
  %t3 = accel.dma_start %x, %bl : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, strided<[256, 1]>, #accel.space<vmem>>
  accel.vexp %br, %o : memref<8x128xf32, strided<[256, 1], offset: 128>, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.dma_wait %t3
  return
}
