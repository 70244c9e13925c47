#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<4x64xf32, #hbm>, %w: memref<16x16xf32, #hbm>,
                %y: memref<4x16xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %xa = accel.alloc : memref<4x16xf32, #vmem>
  %wa = accel.alloc : memref<16x16xf32, #vmem>
  %acc = accel.alloc : memref<4x16xf32, #vmem>
  %tw = accel.dma_start %w, %wa : memref<16x16xf32, #hbm>, memref<16x16xf32, #vmem>
  accel.vfill %acc, 0.0 : memref<4x16xf32, #vmem>
  accel.dma_wait %tw
  scf.for %k = %c0 to %c4 step %c1 {
    %off = arith.muli %k, %c16 : index
    %xt = memref.subview %x[0, %off] [4, 16] [1, 1] : memref<4x64xf32, #hbm> to memref<4x16xf32, strided<[64, 1], offset: ?>, #hbm>
    %t0 = accel.dma_start %xt, %xa : memref<4x16xf32, strided<[64, 1], offset: ?>, #hbm>, memref<4x16xf32, #vmem>
    accel.vexp %acc, %acc : memref<4x16xf32, #vmem>, memref<4x16xf32, #vmem>
    accel.dma_wait %t0
    accel.matmul %xa, %wa, %acc {accumulate} : memref<4x16xf32, #vmem>, memref<16x16xf32, #vmem>, memref<4x16xf32, #vmem>
    accel.vadd %acc, %acc, %acc : memref<4x16xf32, #vmem>, memref<4x16xf32, #vmem>, memref<4x16xf32, #vmem>
  }
  %rs = accel.alloc : memref<4x1xf32, #vmem>
  accel.vreduce_sum %acc, %rs : memref<4x16xf32, #vmem>, memref<4x1xf32, #vmem>
  %to = accel.dma_start %acc, %y : memref<4x16xf32, #vmem>, memref<4x16xf32, #hbm>
  accel.dma_wait %to
  return
}
