// A weight tile re-DMA'd from unchanged HBM bytes on every iteration: the
// analyzer suggests pinning it.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<8x128xf32, #hbm>, %w: memref<128x128xf32, #hbm>,
                %out: memref<8x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %xv = accel.alloc : memref<8x128xf32, #vmem>
  %wv = accel.alloc : memref<128x128xf32, #vmem>
  %acc = accel.alloc : memref<8x128xf32, #vmem>
  %tx = accel.dma_start %x, %xv : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tx
  accel.vfill %acc, 0.0 : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %tw = accel.dma_start %w, %wv : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %tw
    accel.matmul %xv, %wv, %acc {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  %to = accel.dma_start %acc, %out : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %to
  return
}
