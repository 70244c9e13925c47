#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
memref.global "private" constant @scale : memref<1x16xf32, #hbm> = dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, -1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0]]>
memref.global "private" constant @rows : memref<2xi32, #hbm> = dense<[3, 1]>
func.func @main(%x: memref<4x16xf32, #hbm>, %y: memref<4x16xf32, #hbm> {accel.init = "zero"}) {
  %s = memref.get_global @scale : memref<1x16xf32, #hbm>
  %xa = accel.alloc : memref<4x16xf32, #vmem>
  %sa = accel.alloc : memref<1x16xf32, #vmem>
  %t0 = accel.dma_start %x, %xa : memref<4x16xf32, #hbm>, memref<4x16xf32, #vmem>
  %t1 = accel.dma_start %s, %sa : memref<1x16xf32, #hbm>, memref<1x16xf32, #vmem>
  accel.dma_wait %t0
  accel.dma_wait %t1
  accel.vmul %xa, %sa, %xa : memref<4x16xf32, #vmem>, memref<1x16xf32, #vmem>, memref<4x16xf32, #vmem>
  %t2 = accel.dma_start %xa, %y : memref<4x16xf32, #vmem>, memref<4x16xf32, #hbm>
  accel.dma_wait %t2
  return
}
