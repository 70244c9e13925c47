func.func @main(%a: memref<8x128xf32, #accel.space<hbm>>) {
  %v = accel.alloc : memref<8x256xf32, #accel.space<vmem>>
  %t = accel.dma_start %a, %v : memref<8x128xf32, #accel.space<hbm>>, memref<8x256xf32, #accel.space<vmem>>
  accel.dma_wait %t
  return
}
