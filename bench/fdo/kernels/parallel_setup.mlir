// Parallel issue is the win (SnR §5.2.1, All-Gather setup): nine small
// DMAs in three groups, each an initial DMA of an i32 offset table and two
// dependent DMAs whose source offsets are loaded from it. The naive code
// serializes every ISSUE behind the previous WAIT, so each pays the whole
// base latency; the three groups are independent.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%tab0: memref<16xi32, #hbm> {accel.init = "iota"}, %data0: memref<64x128xf32, #hbm>, %tab1: memref<16xi32, #hbm> {accel.init = "iota"}, %data1: memref<64x128xf32, #hbm>, %tab2: memref<16xi32, #hbm> {accel.init = "iota"}, %data2: memref<64x128xf32, #hbm>, %out: memref<8x128xf32, #hbm> {accel.init = "zero"}) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %acc = accel.alloc : memref<8x128xf32, #vmem>
  %tv0 = accel.alloc : memref<16xi32, #vmem>
  %d00 = accel.alloc : memref<1x128xf32, #vmem>
  %d01 = accel.alloc : memref<1x128xf32, #vmem>
  %tv1 = accel.alloc : memref<16xi32, #vmem>
  %d10 = accel.alloc : memref<1x128xf32, #vmem>
  %d11 = accel.alloc : memref<1x128xf32, #vmem>
  %tv2 = accel.alloc : memref<16xi32, #vmem>
  %d20 = accel.alloc : memref<1x128xf32, #vmem>
  %d21 = accel.alloc : memref<1x128xf32, #vmem>
  accel.vfill %acc, 0.0 : memref<8x128xf32, #vmem>
  %ti0 = accel.dma_start %tab0, %tv0 : memref<16xi32, #hbm>, memref<16xi32, #vmem>
  accel.dma_wait %ti0
  %o00 = accel.load %tv0[%c1] : memref<16xi32, #vmem>
  %s00 = memref.subview %data0[%o00, 0] [1, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
  %td00 = accel.dma_start %s00, %d00 : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
  accel.dma_wait %td00
  %o01 = accel.load %tv0[%c2] : memref<16xi32, #vmem>
  %s01 = memref.subview %data0[%o01, 0] [1, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
  %td01 = accel.dma_start %s01, %d01 : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
  accel.dma_wait %td01
  %ti1 = accel.dma_start %tab1, %tv1 : memref<16xi32, #hbm>, memref<16xi32, #vmem>
  accel.dma_wait %ti1
  %o10 = accel.load %tv1[%c1] : memref<16xi32, #vmem>
  %s10 = memref.subview %data1[%o10, 0] [1, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
  %td10 = accel.dma_start %s10, %d10 : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
  accel.dma_wait %td10
  %o11 = accel.load %tv1[%c2] : memref<16xi32, #vmem>
  %s11 = memref.subview %data1[%o11, 0] [1, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
  %td11 = accel.dma_start %s11, %d11 : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
  accel.dma_wait %td11
  %ti2 = accel.dma_start %tab2, %tv2 : memref<16xi32, #hbm>, memref<16xi32, #vmem>
  accel.dma_wait %ti2
  %o20 = accel.load %tv2[%c1] : memref<16xi32, #vmem>
  %s20 = memref.subview %data2[%o20, 0] [1, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
  %td20 = accel.dma_start %s20, %d20 : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
  accel.dma_wait %td20
  %o21 = accel.load %tv2[%c2] : memref<16xi32, #vmem>
  %s21 = memref.subview %data2[%o21, 0] [1, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
  %td21 = accel.dma_start %s21, %d21 : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
  accel.dma_wait %td21
  %r0 = memref.subview %acc[0, 0] [1, 128] [1, 1] : memref<8x128xf32, #vmem> to memref<1x128xf32, strided<[128, 1]>, #vmem>
  accel.vadd %r0, %d00, %r0 : memref<1x128xf32, strided<[128, 1]>, #vmem>, memref<1x128xf32, #vmem>, memref<1x128xf32, strided<[128, 1]>, #vmem>
  accel.vadd %r0, %d01, %r0 : memref<1x128xf32, strided<[128, 1]>, #vmem>, memref<1x128xf32, #vmem>, memref<1x128xf32, strided<[128, 1]>, #vmem>
  accel.vadd %r0, %d10, %r0 : memref<1x128xf32, strided<[128, 1]>, #vmem>, memref<1x128xf32, #vmem>, memref<1x128xf32, strided<[128, 1]>, #vmem>
  accel.vadd %r0, %d11, %r0 : memref<1x128xf32, strided<[128, 1]>, #vmem>, memref<1x128xf32, #vmem>, memref<1x128xf32, strided<[128, 1]>, #vmem>
  accel.vadd %r0, %d20, %r0 : memref<1x128xf32, strided<[128, 1]>, #vmem>, memref<1x128xf32, #vmem>, memref<1x128xf32, strided<[128, 1]>, #vmem>
  accel.vadd %r0, %d21, %r0 : memref<1x128xf32, strided<[128, 1]>, #vmem>, memref<1x128xf32, #vmem>, memref<1x128xf32, strided<[128, 1]>, #vmem>
  %to = accel.dma_start %acc, %out : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %to
  return
}
