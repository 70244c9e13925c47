#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<8x256xf32, #hbm>, %w: memref<256x128xf32, #hbm>,
                %y: memref<8x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %xa = accel.alloc : memref<8x128xf32, #vmem>
  %wa = accel.alloc : memref<128x128xf32, #vmem>
  %acc = accel.alloc : memref<8x128xf32, #vmem>
  accel.vfill %acc, 0.0 : memref<8x128xf32, #vmem>
  scf.for %k = %c0 to %c2 step %c1 {
    %off = arith.muli %k, %c128 : index
    %xt = memref.subview %x[0, %off] [8, 128] [1, 1] : memref<8x256xf32, #hbm> to memref<8x128xf32, strided<[256, 1], offset: ?>, #hbm>
    %wt = memref.subview %w[%off, 0] [128, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t0 = accel.dma_start %xt, %xa : memref<8x128xf32, strided<[256, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    %t1 = accel.dma_start %wt, %wa : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t0
    accel.dma_wait %t1
    accel.matmul %xa, %wa, %acc {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  accel.vexp %acc, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %to = accel.dma_start %acc, %y : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %to
  return
}
