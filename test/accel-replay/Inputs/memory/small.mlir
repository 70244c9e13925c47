// One DMA of 512 bytes: a program whose memories are tiny on any machine.
func.func @main(%a: memref<128xf32, #accel.space<hbm>>) {
  %v = accel.alloc : memref<128xf32, #accel.space<vmem>>
  %t = accel.dma_start %a, %v : memref<128xf32, #accel.space<hbm>>, memref<128xf32, #accel.space<vmem>>
  accel.dma_wait %t
  return
}
