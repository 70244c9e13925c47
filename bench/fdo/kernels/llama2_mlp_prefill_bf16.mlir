// A Llama-2-7B decoder MLP block at prefill (64 tokens) in bf16, as it is
// served: the bf16 variant of llama2_mlp_prefill.mlir, the same loops and tiles.
//   h   = SiLU(x Wg) * (x Wu)       x: 64x4096, Wg, Wu: 4096x11008 (bf16)
//   out = h Wd                       Wd: 11008x4096 (bf16)
// x, the weights, h and out are bf16; the MXU accumulates in f32 (the
// 128-column accumulators are f32), SiLU runs on the f32 accumulators and
// its product is rounded into h; the output tile is converted to bf16 by
// vpu.copy before it is stored. Every weight DMA moves half the bytes of
// the f32 variant. As there, every DMA is issued right before its WAIT and
// x is re-loaded for every output tile.
//
//   accel-replay fdo bench/fdo/kernels/llama2_mlp_prefill_bf16.mlir -o out
//
// h (64x11008 bf16, 1.3 MiB) stays in VMEM between the two halves.

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

func.func @main(%x: memref<64x4096xbf16, #hbm>,
                %wg: memref<4096x11008xbf16, #hbm>,
                %wu: memref<4096x11008xbf16, #hbm>,
                %wd: memref<11008x4096xbf16, #hbm>,
                %out: memref<64x4096xbf16, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c86 = arith.constant 86 : index
  %c128 = arith.constant 128 : index
  %xv = accel.alloc : memref<64x4096xbf16, #vmem>
  %h = accel.alloc : memref<64x11008xbf16, #vmem>
  %bg = accel.alloc : memref<128x128xbf16, #vmem>
  %bu = accel.alloc : memref<128x128xbf16, #vmem>
  %bd = accel.alloc : memref<128x128xbf16, #vmem>
  %accg = accel.alloc : memref<64x128xf32, #vmem>
  %accu = accel.alloc : memref<64x128xf32, #vmem>
  %acco = accel.alloc : memref<64x128xf32, #vmem>
  %ob = accel.alloc : memref<64x128xbf16, #vmem>
  %tmp = accel.alloc : memref<64x128xf32, #vmem>
  %zeros = accel.alloc : memref<64x128xf32, #vmem>
  %ones = accel.alloc : memref<64x128xf32, #vmem>
  accel.vfill %zeros, 0.0 : memref<64x128xf32, #vmem>
  accel.vfill %ones, 1.0 : memref<64x128xf32, #vmem>

  // Gate and up projections, one 128-column tile of h per iteration.
  scf.for %n = %c0 to %c86 step %c1 {
    %tx = accel.dma_start %x, %xv : memref<64x4096xbf16, #hbm>, memref<64x4096xbf16, #vmem>
    accel.dma_wait %tx
    accel.vfill %accg, 0.0 : memref<64x128xf32, #vmem>
    accel.vfill %accu, 0.0 : memref<64x128xf32, #vmem>
    %n0 = arith.muli %n, %c128 : index
    scf.for %k = %c0 to %c32 step %c1 {
      %k0 = arith.muli %k, %c128 : index
      %xs = memref.subview %xv[0, %k0] [64, 128] [1, 1] : memref<64x4096xbf16, #vmem> to memref<64x128xbf16, strided<[4096, 1], offset: ?>, #vmem>
      %sg = memref.subview %wg[%k0, %n0] [128, 128] [1, 1] : memref<4096x11008xbf16, #hbm> to memref<128x128xbf16, strided<[11008, 1], offset: ?>, #hbm>
      %tg = accel.dma_start %sg, %bg : memref<128x128xbf16, strided<[11008, 1], offset: ?>, #hbm>, memref<128x128xbf16, #vmem>
      accel.dma_wait %tg
      accel.matmul %xs, %bg, %accg {accumulate} : memref<64x128xbf16, strided<[4096, 1], offset: ?>, #vmem>, memref<128x128xbf16, #vmem>, memref<64x128xf32, #vmem>
      %su = memref.subview %wu[%k0, %n0] [128, 128] [1, 1] : memref<4096x11008xbf16, #hbm> to memref<128x128xbf16, strided<[11008, 1], offset: ?>, #hbm>
      %tu = accel.dma_start %su, %bu : memref<128x128xbf16, strided<[11008, 1], offset: ?>, #hbm>, memref<128x128xbf16, #vmem>
      accel.dma_wait %tu
      accel.matmul %xs, %bu, %accu {accumulate} : memref<64x128xbf16, strided<[4096, 1], offset: ?>, #vmem>, memref<128x128xbf16, #vmem>, memref<64x128xf32, #vmem>
    }
    // h[:, n0:n0+128] = SiLU(g) * u
    accel.vsub %zeros, %accg, %tmp : memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>
    accel.vexp %tmp, %tmp : memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>
    accel.vadd %tmp, %ones, %tmp : memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>
    accel.vdiv %accg, %tmp, %tmp : memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>
    %hs = memref.subview %h[0, %n0] [64, 128] [1, 1] : memref<64x11008xbf16, #vmem> to memref<64x128xbf16, strided<[11008, 1], offset: ?>, #vmem>
    accel.vmul %tmp, %accu, %hs : memref<64x128xf32, #vmem>, memref<64x128xf32, #vmem>, memref<64x128xbf16, strided<[11008, 1], offset: ?>, #vmem>
  }

  // Down projection, one 128-column tile of out per iteration.
  scf.for %n = %c0 to %c32 step %c1 {
    accel.vfill %acco, 0.0 : memref<64x128xf32, #vmem>
    %n0 = arith.muli %n, %c128 : index
    scf.for %k = %c0 to %c86 step %c1 {
      %k0 = arith.muli %k, %c128 : index
      %sd = memref.subview %wd[%k0, %n0] [128, 128] [1, 1] : memref<11008x4096xbf16, #hbm> to memref<128x128xbf16, strided<[4096, 1], offset: ?>, #hbm>
      %td = accel.dma_start %sd, %bd : memref<128x128xbf16, strided<[4096, 1], offset: ?>, #hbm>, memref<128x128xbf16, #vmem>
      accel.dma_wait %td
      %hs = memref.subview %h[0, %k0] [64, 128] [1, 1] : memref<64x11008xbf16, #vmem> to memref<64x128xbf16, strided<[11008, 1], offset: ?>, #vmem>
      accel.matmul %hs, %bd, %acco {accumulate} : memref<64x128xbf16, strided<[11008, 1], offset: ?>, #vmem>, memref<128x128xbf16, #vmem>, memref<64x128xf32, #vmem>
    }
    %os = memref.subview %out[0, %n0] [64, 128] [1, 1] : memref<64x4096xbf16, #hbm> to memref<64x128xbf16, strided<[4096, 1], offset: ?>, #hbm>
    accel.vcopy %acco, %ob : memref<64x128xf32, #vmem>, memref<64x128xbf16, #vmem>
    %to = accel.dma_start %ob, %os : memref<64x128xbf16, #vmem>, memref<64x128xbf16, strided<[4096, 1], offset: ?>, #hbm>
    accel.dma_wait %to
  }
  return
}
