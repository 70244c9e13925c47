// A smaller copy of bench/fdo/kernels/llama2_mlp_prefill.mlir (64 tokens,
// 2048 x 2048 weights: 16 x 16 tiles of 128 x 128), for
// test/accel-replay/fdo-keeps-best.test: with a 1792 KiB VMEM, the second
// FDO iteration's extra hoists and sinks inside the pipelined loops make it
// slightly slower than the first.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

func.func @main(%x: memref<64x2048xf32, #hbm>,
                %wg: memref<2048x2048xf32, #hbm>,
                %wu: memref<2048x2048xf32, #hbm>,
                %wd: memref<2048x2048xf32, #hbm>,
                %out: memref<64x2048xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 16 : index
  %c86 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %xv = accel.alloc : memref<64x2048xf32, #vmem>
  %h = accel.alloc : memref<64x2048xf32, #vmem>
  %bg = accel.alloc : memref<128x128xf32, #vmem>
  %bu = accel.alloc : memref<128x128xf32, #vmem>
  %bd = accel.alloc : memref<128x128xf32, #vmem>
  %accg = accel.alloc : memref<64x128xf32, #vmem>
  %accu = accel.alloc : memref<64x128xf32, #vmem>
  %acco = accel.alloc : memref<64x128xf32, #vmem>
  %tmp = accel.alloc : memref<64x128xf32, #vmem>
  %zeros = accel.alloc : memref<64x128xf32, #vmem>
  %ones = accel.alloc : memref<64x128xf32, #vmem>
  accel.vfill %zeros, 0.0 : memref<64x128xf32, #vmem>
  accel.vfill %ones, 1.0 : memref<64x128xf32, #vmem>

  // Gate and up projections, one 128-column tile of h per iteration.
  scf.for %n = %c0 to %c86 step %c1 {
    %tx = accel.dma_start %x, %xv : memref<64x2048xf32, #hbm>, memref<64x2048xf32, #vmem>
    accel.dma_wait %tx
    accel.vfill %accg, 0.0 : memref<64x128xf32, #vmem>
    accel.vfill %accu, 0.0 : memref<64x128xf32, #vmem>
    %n0 = arith.muli %n, %c128 : index
    scf.for %k = %c0 to %c32 step %c1 {
      %k0 = arith.muli %k, %c128 : index
      %xs = memref.subview %xv[0, %k0] [64, 128] [1, 1] : memref<64x2048xf32, #vmem> to memref<64x128xf32, strided<[2048, 1], offset: ?>, #vmem>
      %sg = memref.subview %wg[%k0, %n0] [128, 128] [1, 1] : memref<2048x2048xf32, #hbm> to memref<128x128xf32, strided<[2048, 1], offset: ?>, #hbm>
      %tg = accel.dma_start %sg, %bg : memref<128x128xf32, strided<[2048, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
      accel.dma_wait %tg
      accel.matmul %xs, %bg, %accg {accumulate} : memref<64x128xf32, strided<[2048, 1], offset: ?>, #vmem>, memref<128x128xf32, #vmem>, memref<64x128xf32, #vmem>
      %su = memref.subview %wu[%k0, %n0] [128, 128] [1, 1] : memref<2048x2048xf32, #hbm> to memref<128x128xf32, strided<[2048, 1], offset: ?>, #hbm>
      %tu = accel.dma_start %su, %bu : memref<128x128xf32, strided<[2048, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
      accel.dma_wait %tu
      accel.matmul %xs, %bu, %accu {accumulate} : memref<64x128xf32, strided<[2048, 1], offset: ?>, #vmem>, memref<128x128xf32, #vmem>, memref<64x128xf32, #vmem>
    }
    // h[:, n0:n0+128] = SiLU(g) * u
    accel.vsub %zeros, %accg, %tmp : memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>
    accel.vexp %tmp, %tmp : memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>
    accel.vadd %tmp, %ones, %tmp : memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>
    accel.vdiv %accg, %tmp, %tmp : memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>
    %hs = memref.subview %h[0, %n0] [64, 128] [1, 1] : memref<64x2048xf32, #vmem> to memref<64x128xf32, strided<[2048, 1], offset: ?>, #vmem>
    accel.vmul %tmp, %accu, %hs : memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>, memref<64x128xf32, strided<[2048, 1], offset: ?>, #vmem>
  }

  // Down projection, one 128-column tile of out per iteration.
  scf.for %n = %c0 to %c32 step %c1 {
    accel.vfill %acco, 0.0 : memref<64x128xf32, #vmem>
    %n0 = arith.muli %n, %c128 : index
    scf.for %k = %c0 to %c86 step %c1 {
      %k0 = arith.muli %k, %c128 : index
      %sd = memref.subview %wd[%k0, %n0] [128, 128] [1, 1] : memref<2048x2048xf32, #hbm> to memref<128x128xf32, strided<[2048, 1], offset: ?>, #hbm>
      %td = accel.dma_start %sd, %bd : memref<128x128xf32, strided<[2048, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
      accel.dma_wait %td
      %hs = memref.subview %h[0, %k0] [64, 128] [1, 1] : memref<64x2048xf32, #vmem> to memref<64x128xf32, strided<[2048, 1], offset: ?>, #vmem>
      accel.matmul %hs, %bd, %acco {accumulate} : memref<64x128xf32, strided<[2048, 1], offset: ?>, #vmem>, memref<128x128xf32, #vmem>, memref<64x128xf32, #vmem>
    }
    %os = memref.subview %out[0, %n0] [64, 128] [1, 1] : memref<64x2048xf32, #hbm> to memref<64x128xf32, strided<[2048, 1], offset: ?>, #hbm>
    %to = accel.dma_start %acco, %os : memref<64x128xf32, #vmem>, memref<64x128xf32, strided<[2048, 1], offset: ?>, #hbm>
    accel.dma_wait %to
  }
  return
}
