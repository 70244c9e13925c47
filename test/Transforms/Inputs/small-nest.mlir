// A 3 x 2 nest of 8x32 tiles (generator seed 38779's statement 0): six
// loads, six VPU pairs, six stores, each DMA waited right after its ISSUE.
module {
  func.func @main(%arg0: memref<56x64xf32, #accel.space<hbm>>, %arg1: memref<56x64xf32, #accel.space<hbm>> {accel.init = "zero"}) {
    %0 = accel.alloc : memref<8x32xf32, #accel.space<vmem>>
    %1 = accel.alloc : memref<8x32xf32, #accel.space<vmem>>
    %2 = accel.alloc : memref<8x32xf32, #accel.space<vmem>>
    %c0 = arith.constant 0 : index
    %c9 = arith.constant 9 : index
    %c3 = arith.constant 3 : index
    scf.for %arg2 = %c0 to %c9 step %c3 {
      %c8 = arith.constant 8 : index
      %3 = arith.muli %arg2, %c8 : index
      %c0_0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %c32 = arith.constant 32 : index
      scf.for %arg3 = %c0_0 to %c64 step %c32 {
        %subview = memref.subview %arg0[%3, %arg3] [8, 32] [1, 1] : memref<56x64xf32, #accel.space<hbm>> to memref<8x32xf32, strided<[64, 1], offset: ?>, #accel.space<hbm>>
        %4 = accel.dma_start %subview, %0 : memref<8x32xf32, strided<[64, 1], offset: ?>, #accel.space<hbm>>, memref<8x32xf32, #accel.space<vmem>>
        accel.dma_wait %4
        accel.vcopy %0, %1 : memref<8x32xf32, #accel.space<vmem>>, memref<8x32xf32, #accel.space<vmem>>
        accel.vmul %1, %0, %2 : memref<8x32xf32, #accel.space<vmem>>, memref<8x32xf32, #accel.space<vmem>>, memref<8x32xf32, #accel.space<vmem>>
        %subview_1 = memref.subview %arg1[%3, %arg3] [8, 32] [1, 1] : memref<56x64xf32, #accel.space<hbm>> to memref<8x32xf32, strided<[64, 1], offset: ?>, #accel.space<hbm>>
        %5 = accel.dma_start %2, %subview_1 : memref<8x32xf32, #accel.space<vmem>>, memref<8x32xf32, strided<[64, 1], offset: ?>, #accel.space<hbm>>
        accel.dma_wait %5
      }
    }
    return
  }
}
