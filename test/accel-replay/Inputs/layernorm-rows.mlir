// A VPU-heavy kernel: layer norm of 32 row tiles (8 x 1024 each) of a
// 256 x 1024 activation, loaded, normalized and stored tile by tile. Each
// tile's load depends on the loop index and its store on the computation,
// so there is little for the schedule-level passes to move.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<256x1024xf32, #hbm>, %out: memref<256x1024xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %xv = accel.alloc : memref<8x1024xf32, #vmem>
  %t = accel.alloc : memref<8x1024xf32, #vmem>
  %s = accel.alloc : memref<8x1xf32, #vmem>
  %n = accel.alloc : memref<8x1xf32, #vmem>
  %eps = accel.alloc : memref<8x1xf32, #vmem>
  accel.vfill %n, 1024.0 : memref<8x1xf32, #vmem>
  accel.vfill %eps, 1.0e-5 : memref<8x1xf32, #vmem>
  scf.for %i = %c0 to %c32 step %c1 {
    %r = arith.muli %i, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 1024] [1, 1] : memref<256x1024xf32, #hbm> to memref<8x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    %tl = accel.dma_start %xs, %xv : memref<8x1024xf32, strided<[1024, 1], offset: ?>, #hbm>, memref<8x1024xf32, #vmem>
    accel.dma_wait %tl
    accel.vreduce_sum %xv, %s : memref<8x1024xf32, #vmem>, memref<8x1xf32, #vmem>
    accel.vdiv %s, %n, %s : memref<8x1xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x1xf32, #vmem>
    accel.vsub %xv, %s, %xv : memref<8x1024xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x1024xf32, #vmem>
    accel.vmul %xv, %xv, %t : memref<8x1024xf32, #vmem>, memref<8x1024xf32, #vmem>, memref<8x1024xf32, #vmem>
    accel.vreduce_sum %t, %s : memref<8x1024xf32, #vmem>, memref<8x1xf32, #vmem>
    accel.vdiv %s, %n, %s : memref<8x1xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x1xf32, #vmem>
    accel.vadd %s, %eps, %s : memref<8x1xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x1xf32, #vmem>
    accel.vsqrt %s, %s : memref<8x1xf32, #vmem>, memref<8x1xf32, #vmem>
    accel.vdiv %xv, %s, %xv : memref<8x1024xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x1024xf32, #vmem>
    %os = memref.subview %out[%r, 0] [8, 1024] [1, 1] : memref<256x1024xf32, #hbm> to memref<8x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    %ts = accel.dma_start %xv, %os : memref<8x1024xf32, #vmem>, memref<8x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    accel.dma_wait %ts
  }
  return
}
