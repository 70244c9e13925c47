// Issue 33 kernel 8 (producer_consumer): two phases that communicate
// through an HBM intermediate, as when a producer kernel and a consumer
// kernel are concatenated without fusing them:
//   phase 1 (VPU): H[:, k] = tanh(X[:, k]) * X[:, k]     k = 0 .. 3
//   phase 2 (MXU): out = H W                              K tiles k = 0 .. 3
// Phase 1 loads each 128 x 128 column tile of X, computes it into a VMEM
// tile and DMAs it OUT to its tile of the HBM argument H (waited on at
// once). Phase 2 then DMAs each tile of H back IN (with W's matching
// 128 x 128 row tile, both issued then both waited on) and accumulates
// H[:, k] W[k, :] into one 128 x 128 accumulator, stored to out at the end.
// H is both written and read through HBM: phase 2's load of H tile k must
// stay after phase 1's store of H tile k has completed (a read after write
// through HBM, which the simulator's VMEM hazard checks do not see).
// H is zero-initialized and is also a result (the fdo loop compares it).
//
// Style: "8. producer_consumer" (phase 1 computes tiles into an HBM
// intermediate, phase 2 reads them back and does a matmul).
//
// Shapes: X, H 128 x 512 f32; W 512 x 128 f32; out 128 x 128 f32; 4 tiles
// of 64 KiB per phase; 4 matmuls of 128 x 128 x 128 (509 cycles each).
// Config: the default machine (no --config).
//
// Ideal schedule: phase 2's W tiles do not depend on phase 1 at all and can
// be loaded during phase 1 (all four at once); H tile k can be re-loaded as
// soon as its store completes, i.e. while phase 1 works on tile k+1 (or be
// forwarded from VMEM). Phase 1's X loads can all be in flight together.
//
//   accel-replay fdo bench/fdo/kernels/issue33/producer_consumer.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!vt = memref<128x128xf32, #vmem>
!ht = memref<128x128xf32, strided<[512, 1], offset: ?>, #hbm>
!wt = memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
func.func @main(%X: memref<128x512xf32, #hbm>, %W: memref<512x128xf32, #hbm>,
                %H: memref<128x512xf32, #hbm> {accel.init = "zero"},
                %out: memref<128x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %xb = accel.alloc : !vt
  %hb = accel.alloc : !vt
  %hin = accel.alloc : !vt
  %wb = accel.alloc : !vt
  %acc = accel.alloc : !vt
  // Phase 1: produce H tile by tile into HBM.
  scf.for %k = %c0 to %c512 step %c128 {
    %xs = memref.subview %X[0, %k] [128, 128] [1, 1] : memref<128x512xf32, #hbm> to !ht
    %tx = accel.dma_start %xs, %xb : !ht, !vt
    accel.dma_wait %tx
    accel.vtanh %xb, %hb : !vt, !vt
    accel.vmul %hb, %xb, %hb : !vt, !vt, !vt
    %hs = memref.subview %H[0, %k] [128, 128] [1, 1] : memref<128x512xf32, #hbm> to !ht
    %th = accel.dma_start %hb, %hs : !vt, !ht
    accel.dma_wait %th
  }
  // Phase 2: consume H from HBM: out = H W.
  accel.vfill %acc, 0.0 : !vt
  scf.for %k = %c0 to %c512 step %c128 {
    %hs = memref.subview %H[0, %k] [128, 128] [1, 1] : memref<128x512xf32, #hbm> to !ht
    %ws = memref.subview %W[%k, 0] [128, 128] [1, 1] : memref<512x128xf32, #hbm> to !wt
    %th = accel.dma_start %hs, %hin : !ht, !vt
    %tw = accel.dma_start %ws, %wb : !wt, !vt
    accel.dma_wait %th
    accel.dma_wait %tw
    accel.matmul %hin, %wb, %acc {accumulate} : !vt, !vt, !vt
  }
  %to = accel.dma_start %acc, %out : !vt, memref<128x128xf32, #hbm>
  accel.dma_wait %to
  return
}
