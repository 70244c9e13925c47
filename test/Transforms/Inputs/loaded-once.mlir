#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
// The activations are loaded once, before the loop (where accel-hoist-dma
// puts a load of unchanged bytes), and waited for in every iteration; each
// iteration multiplies them by its weight tile, adds them to the product
// (a VPU op reading them a stage after the MXU), and stores the sum.
func.func @main(%x: memref<8x128xf32, #hbm>, %w: memref<1024x128xf32, #hbm>,
                %out: memref<64x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %xv = accel.alloc : memref<8x128xf32, #vmem>
  %wt = accel.alloc : memref<128x128xf32, #vmem>
  %acc = accel.alloc : memref<8x128xf32, #vmem>
  %tx = accel.dma_start %x, %xv : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  scf.for %n = %c0 to %c8 step %c1 {
    accel.dma_wait %tx
    %r = arith.muli %n, %c128 : index
    %src = memref.subview %w[%r, 0] [128, 128] [1, 1] : memref<1024x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tw = accel.dma_start %src, %wt : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %tw
    accel.matmul %xv, %wt, %acc : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.vadd %acc, %xv, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %o = arith.muli %n, %c8 : index
    %dst = memref.subview %out[%o, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %ts = accel.dma_start %acc, %dst : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    accel.dma_wait %ts
  }
  return
}
