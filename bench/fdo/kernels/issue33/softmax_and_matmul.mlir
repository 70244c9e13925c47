// Issue 33 kernel 7 (softmax_and_matmul): two INDEPENDENT loop nests in one
// function, as a fused "layer" of a graph compiler emits them side by side:
//   nest 1 (VPU): P = softmax(S) over the rows of S, 8 row tiles of
//                 8 x 1024 (load, row max, subtract, exp, row sum, divide,
//                 store; every DMA waited on at once);
//   nest 2 (MXU): C = A B, two 128-column output tiles n, each accumulated
//                 over four 128 x 128 K tiles k (A and B tiles DMA'd in the
//                 k loop, both issued, then both waited on), then stored.
// Neither nest reads anything the other writes (distinct HBM arguments and
// distinct VMEM buffers), so they may run in either order or interleaved.
//
// Style: "7. softmax_and_matmul" (two independent loop nests, VPU softmax
// and MXU matmul, neither reads the other's outputs).
//
// Shapes: S, P 64 x 1024 f32; A 128 x 512, B 512 x 256, C 128 x 256 f32;
// 8 softmax tiles (~250 VPU cycles each) and 8 matmuls of 128 x 128 x 128
// (509 cycles each), accumulated into a zero-filled C tile. Config: the
// default machine (no --config).
//
// Ideal schedule: the softmax tiles run on the VPU while the matmuls run on
// the MXU (the two nests interleaved or the softmax DMAs hoisted under the
// matmul nest), every tile's DMA in flight ahead of its use; the run is
// then about max(MXU work, VPU work) plus one base latency.
//
//   accel-replay fdo bench/fdo/kernels/issue33/softmax_and_matmul.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!srow = memref<8x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
!srow_v = memref<8x1024xf32, #vmem>
!at = memref<128x128xf32, strided<[512, 1], offset: ?>, #hbm>
!bt = memref<128x128xf32, strided<[256, 1], offset: ?>, #hbm>
!vt = memref<128x128xf32, #vmem>
func.func @main(%S: memref<64x1024xf32, #hbm>,
                %A: memref<128x512xf32, #hbm>, %B: memref<512x256xf32, #hbm>,
                %P: memref<64x1024xf32, #hbm> {accel.init = "zero"},
                %C: memref<128x256xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %sb = accel.alloc : !srow_v
  %mx = accel.alloc : memref<8x1xf32, #vmem>
  %sm = accel.alloc : memref<8x1xf32, #vmem>
  %ab = accel.alloc : !vt
  %bb = accel.alloc : !vt
  %cb = accel.alloc : !vt
  // Nest 1: row softmax on the VPU.
  scf.for %r = %c0 to %c64 step %c8 {
    %ss = memref.subview %S[%r, 0] [8, 1024] [1, 1] : memref<64x1024xf32, #hbm> to !srow
    %ts = accel.dma_start %ss, %sb : !srow, !srow_v
    accel.dma_wait %ts
    accel.vreduce_max %sb, %mx : !srow_v, memref<8x1xf32, #vmem>
    accel.vsub %sb, %mx, %sb : !srow_v, memref<8x1xf32, #vmem>, !srow_v
    accel.vexp %sb, %sb : !srow_v, !srow_v
    accel.vreduce_sum %sb, %sm : !srow_v, memref<8x1xf32, #vmem>
    accel.vdiv %sb, %sm, %sb : !srow_v, memref<8x1xf32, #vmem>, !srow_v
    %ps = memref.subview %P[%r, 0] [8, 1024] [1, 1] : memref<64x1024xf32, #hbm> to !srow
    %tp = accel.dma_start %sb, %ps : !srow_v, !srow
    accel.dma_wait %tp
  }
  // Nest 2: C = A B on the MXU.
  scf.for %n = %c0 to %c2 step %c1 {
    %n0 = arith.muli %n, %c128 : index
    accel.vfill %cb, 0.0 : !vt
    scf.for %k = %c0 to %c4 step %c1 {
      %k0 = arith.muli %k, %c128 : index
      %as = memref.subview %A[0, %k0] [128, 128] [1, 1] : memref<128x512xf32, #hbm> to !at
      %bs = memref.subview %B[%k0, %n0] [128, 128] [1, 1] : memref<512x256xf32, #hbm> to !bt
      %ta = accel.dma_start %as, %ab : !at, !vt
      %tb = accel.dma_start %bs, %bb : !bt, !vt
      accel.dma_wait %ta
      accel.dma_wait %tb
      accel.matmul %ab, %bb, %cb {accumulate} : !vt, !vt, !vt
    }
    %cs = memref.subview %C[0, %n0] [128, 128] [1, 1] : memref<128x256xf32, #hbm> to !bt
    %tc = accel.dma_start %cb, %cs : !vt, !bt
    accel.dma_wait %tc
  }
  return
}
