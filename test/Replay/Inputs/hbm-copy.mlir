// A DMA-bound copy: a 64 KiB tile loaded from HBM into VMEM, then stored
// back to another HBM buffer, each waited for at once.
func.func @main(%a: memref<128x128xf32, #accel.space<hbm>>,
                %b: memref<128x128xf32, #accel.space<hbm>> {accel.init = "zero"}) {
  %v = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
  %t0 = accel.dma_start %a, %v : memref<128x128xf32, #accel.space<hbm>>, memref<128x128xf32, #accel.space<vmem>>
  accel.dma_wait %t0
  %t1 = accel.dma_start %v, %b : memref<128x128xf32, #accel.space<vmem>>, memref<128x128xf32, #accel.space<hbm>>
  accel.dma_wait %t1
  return
}
