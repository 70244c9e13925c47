// A loop of 4 trips: load a weight tile, multiply, store (the kernel of
// pipeline_sweep.py). accel-pipeline-dma adds a prologue and an epilogue.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%w: memref<512x128xf32, #hbm>, %x: memref<8x128xf32, #hbm>,
                %out: memref<32x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cT = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<128x128xf32, #vmem>
  %c = accel.alloc : memref<8x128xf32, #vmem>
  %tx = accel.dma_start %x, %a : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tx
  scf.for %k = %c0 to %cT step %c1 {
    %r = arith.muli %k, %c128 : index
    %s = memref.subview %w[%r, 0] [128, 128] [1, 1] : memref<512x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %b : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    accel.matmul %a, %b, %c : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %o = arith.muli %k, %c8 : index
    %os = memref.subview %out[%o, 0] [8, 128] [1, 1] : memref<32x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %ts = accel.dma_start %c, %os : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    accel.dma_wait %ts
  }
  return
}

