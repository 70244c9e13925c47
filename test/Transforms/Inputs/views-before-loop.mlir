#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
// A 1-D stencil over row blocks (issue 33, miscompile 2): out block i =
// x block i + x block i + 1,
// through a window buffer whose halves are views taken before the loop.
func.func @main(%x: memref<136x128xf32, #hbm>, %y: memref<128x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %win = accel.alloc : memref<16x128xf32, #vmem>
  %lo = memref.subview %win[0, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to memref<8x128xf32, strided<[128, 1]>, #vmem>
  %hi = memref.subview %win[8, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to memref<8x128xf32, strided<[128, 1], offset: 1024>, #vmem>
  %o = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c16 step %c1 {
    %r = arith.muli %i, %c8 : index
    %src = memref.subview %x[%r, 0] [16, 128] [1, 1] : memref<136x128xf32, #hbm> to memref<16x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %src, %win : memref<16x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<16x128xf32, #vmem>
    accel.dma_wait %t
    accel.vadd %lo, %hi, %o : memref<8x128xf32, strided<[128, 1]>, #vmem>, memref<8x128xf32, strided<[128, 1], offset: 1024>, #vmem>, memref<8x128xf32, #vmem>
    %dst = memref.subview %y[%r, 0] [8, 128] [1, 1] : memref<128x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %ts = accel.dma_start %o, %dst : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    accel.dma_wait %ts
  }
  return
}
