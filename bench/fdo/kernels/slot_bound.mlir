// Issue 10, row 7 (slot_bound): a strided row gather written as a code
// generator unrolls it: output tile t (16 x 512) takes rows t, t + 32,
// t + 64, ... of a 512 x 512 source (a transpose of the row blocks, as in a
// layout change from row-cyclic to row-block order), and each row is its own
// 2 KiB DMA. The 16 row DMAs of a tile are issued back to back, then the 16
// WAITs follow, then the tile is scaled and stored. On a machine with only
// two DMA slots (slot_bound.json: dma.max_outstanding = 2) every third
// ISSUE waits for a slot, so most cycles are `dma_slots` stalls, not base
// latency or transfer.
//
// Shapes: src, out 512 x 512 f32; 32 output tiles x 16 row DMAs of 1 x 512;
// scale 16 x 512. Config: bench/fdo/kernels/slot_bound.json
//
//   accel-replay fdo bench/fdo/kernels/slot_bound.mlir -o out --iterations 3 \
//       --config bench/fdo/kernels/slot_bound.json
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!hrow = memref<1x512xf32, strided<[512, 1], offset: ?>, #hbm>
func.func @main(%src: memref<512x512xf32, #hbm>, %scale: memref<16x512xf32, #hbm>,
                %out: memref<512x512xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %sv = accel.alloc : memref<16x512xf32, #vmem>
  %tile = accel.alloc : memref<16x512xf32, #vmem>
  %ts = accel.dma_start %scale, %sv : memref<16x512xf32, #hbm>, memref<16x512xf32, #vmem>
  accel.dma_wait %ts
  scf.for %t = %c0 to %c32 step %c1 {
    %s0 = arith.addi %t, %c0 : index
    %s1 = arith.addi %s0, %c32 : index
    %s2 = arith.addi %s1, %c32 : index
    %s3 = arith.addi %s2, %c32 : index
    %s4 = arith.addi %s3, %c32 : index
    %s5 = arith.addi %s4, %c32 : index
    %s6 = arith.addi %s5, %c32 : index
    %s7 = arith.addi %s6, %c32 : index
    %s8 = arith.addi %s7, %c32 : index
    %s9 = arith.addi %s8, %c32 : index
    %s10 = arith.addi %s9, %c32 : index
    %s11 = arith.addi %s10, %c32 : index
    %s12 = arith.addi %s11, %c32 : index
    %s13 = arith.addi %s12, %c32 : index
    %s14 = arith.addi %s13, %c32 : index
    %s15 = arith.addi %s14, %c32 : index
    %h0 = memref.subview %src[%s0, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v0 = memref.subview %tile[0, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 0>, #vmem>
    %d0 = accel.dma_start %h0, %v0 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 0>, #vmem>
    %h1 = memref.subview %src[%s1, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v1 = memref.subview %tile[1, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 512>, #vmem>
    %d1 = accel.dma_start %h1, %v1 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 512>, #vmem>
    %h2 = memref.subview %src[%s2, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v2 = memref.subview %tile[2, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 1024>, #vmem>
    %d2 = accel.dma_start %h2, %v2 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 1024>, #vmem>
    %h3 = memref.subview %src[%s3, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v3 = memref.subview %tile[3, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 1536>, #vmem>
    %d3 = accel.dma_start %h3, %v3 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 1536>, #vmem>
    %h4 = memref.subview %src[%s4, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v4 = memref.subview %tile[4, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 2048>, #vmem>
    %d4 = accel.dma_start %h4, %v4 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 2048>, #vmem>
    %h5 = memref.subview %src[%s5, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v5 = memref.subview %tile[5, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 2560>, #vmem>
    %d5 = accel.dma_start %h5, %v5 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 2560>, #vmem>
    %h6 = memref.subview %src[%s6, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v6 = memref.subview %tile[6, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 3072>, #vmem>
    %d6 = accel.dma_start %h6, %v6 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 3072>, #vmem>
    %h7 = memref.subview %src[%s7, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v7 = memref.subview %tile[7, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 3584>, #vmem>
    %d7 = accel.dma_start %h7, %v7 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 3584>, #vmem>
    %h8 = memref.subview %src[%s8, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v8 = memref.subview %tile[8, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 4096>, #vmem>
    %d8 = accel.dma_start %h8, %v8 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 4096>, #vmem>
    %h9 = memref.subview %src[%s9, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v9 = memref.subview %tile[9, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 4608>, #vmem>
    %d9 = accel.dma_start %h9, %v9 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 4608>, #vmem>
    %h10 = memref.subview %src[%s10, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v10 = memref.subview %tile[10, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 5120>, #vmem>
    %d10 = accel.dma_start %h10, %v10 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 5120>, #vmem>
    %h11 = memref.subview %src[%s11, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v11 = memref.subview %tile[11, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 5632>, #vmem>
    %d11 = accel.dma_start %h11, %v11 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 5632>, #vmem>
    %h12 = memref.subview %src[%s12, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v12 = memref.subview %tile[12, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 6144>, #vmem>
    %d12 = accel.dma_start %h12, %v12 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 6144>, #vmem>
    %h13 = memref.subview %src[%s13, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v13 = memref.subview %tile[13, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 6656>, #vmem>
    %d13 = accel.dma_start %h13, %v13 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 6656>, #vmem>
    %h14 = memref.subview %src[%s14, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v14 = memref.subview %tile[14, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 7168>, #vmem>
    %d14 = accel.dma_start %h14, %v14 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 7168>, #vmem>
    %h15 = memref.subview %src[%s15, 0] [1, 512] [1, 1] : memref<512x512xf32, #hbm> to !hrow
    %v15 = memref.subview %tile[15, 0] [1, 512] [1, 1] : memref<16x512xf32, #vmem> to memref<1x512xf32, strided<[512, 1], offset: 7680>, #vmem>
    %d15 = accel.dma_start %h15, %v15 : !hrow, memref<1x512xf32, strided<[512, 1], offset: 7680>, #vmem>
    accel.dma_wait %d0
    accel.dma_wait %d1
    accel.dma_wait %d2
    accel.dma_wait %d3
    accel.dma_wait %d4
    accel.dma_wait %d5
    accel.dma_wait %d6
    accel.dma_wait %d7
    accel.dma_wait %d8
    accel.dma_wait %d9
    accel.dma_wait %d10
    accel.dma_wait %d11
    accel.dma_wait %d12
    accel.dma_wait %d13
    accel.dma_wait %d14
    accel.dma_wait %d15
    accel.vmul %tile, %sv, %tile : memref<16x512xf32, #vmem>, memref<16x512xf32, #vmem>, memref<16x512xf32, #vmem>
    %o = arith.muli %t, %c16 : index
    %os = memref.subview %out[%o, 0] [16, 512] [1, 1] : memref<512x512xf32, #hbm> to memref<16x512xf32, strided<[512, 1], offset: ?>, #hbm>
    %st = accel.dma_start %tile, %os : memref<16x512xf32, #vmem>, memref<16x512xf32, strided<[512, 1], offset: ?>, #hbm>
    accel.dma_wait %st
  }
  return
}
