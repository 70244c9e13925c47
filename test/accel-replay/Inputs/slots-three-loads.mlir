// Three independent loads issued back to back on a machine with two DMA
// slots (slots-two.json): the third ISSUE waits for the first DMA to
// complete (dma_slots), and its WAIT then stalls on base latency. Hoisting
// the third ISSUE cannot save that stall: both slots are taken over every
// cycle it would move across.
func.func @main(%a0: memref<8x128xf32, #accel.space<hbm>>, %a1: memref<8x128xf32, #accel.space<hbm>>, %a2: memref<8x128xf32, #accel.space<hbm>>) {
  %v0 = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  %v1 = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  %v2 = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  %t0 = accel.dma_start %a0, %v0 : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  %t1 = accel.dma_start %a1, %v1 : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  %t2 = accel.dma_start %a2, %v2 : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  accel.dma_wait %t0
  accel.dma_wait %t1
  accel.dma_wait %t2
  return
}
