// The VPU reads the DMA's destination before the WAIT: a data race.
func.func @main(%a: memref<8x128xf32, #accel.space<hbm>>) {
  %v = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  %o = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  %t = accel.dma_start %a, %v : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vexp %v, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.dma_wait %t
  return
}
