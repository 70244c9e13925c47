// Issue 33 kernel 11 (invariant_inner_src): a token-block projection with
// ReLU, out[s] = relu(X[s] W), for 8 blocks s of 16 tokens each (a prefill
// processed in steps). The outer loop runs over the steps s; an inner loop
// runs over the four 128-row K tiles of W, stepping by the tile size (the
// induction variable is the element offset k). In the inner loop the
// kernel DMAs the step's 16 x 128 slice X[s][:, k] and W's K tile
// W[k, :] (128 x 128), both issued, then both waited on, and accumulates
// into a 16 x 128 tile; after the K loop, ReLU (vmax with a zero tile) and
// the store (waited on at once). W's source subview is indexed by the
// inner induction variable only: the outer loop re-reads the same four
// tiles (the same 256 KiB) on each of its 8 iterations.
//
// Style: "11. invariant_inner_src" (weight DMA source indexed only by the
// inner loop's induction variable: a pinning candidate across the outer
// loop).
//
// Shapes: X 128 x 512 f32 (8 steps x 16 rows); W 512 x 128 f32 (4 tiles of
// 64 KiB); out 128 x 128 f32; 32 matmuls of 16 x 128 x 128 (397 cycles).
// Config: the default machine (no --config).
//
// Ideal schedule: W's four tiles loaded once (pinned in four VMEM buffers,
// 256 KiB, all four issued together before the step loop), leaving only the
// 8 KiB X slices to stream (prefetched a tile ahead) and the stores to
// drain behind the next step: about 32 back-to-back matmuls.
//
//   accel-replay fdo bench/fdo/kernels/issue33/invariant_inner_src.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!hx = memref<16x128xf32, strided<[512, 1], offset: ?>, #hbm>
!hw = memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
!ho = memref<16x128xf32, strided<[128, 1], offset: ?>, #hbm>
!xv = memref<16x128xf32, #vmem>
!wv = memref<128x128xf32, #vmem>
func.func @main(%X: memref<128x512xf32, #hbm>, %W: memref<512x128xf32, #hbm>,
                %out: memref<128x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %xb = accel.alloc : !xv
  %wb = accel.alloc : !wv
  %acc = accel.alloc : !xv
  %zero = accel.alloc : !xv
  accel.vfill %zero, 0.0 : !xv
  scf.for %s = %c0 to %c8 step %c1 {
    %row = arith.muli %s, %c16 : index
    accel.vfill %acc, 0.0 : !xv
    scf.for %k = %c0 to %c512 step %c128 {
      %xs = memref.subview %X[%row, %k] [16, 128] [1, 1] : memref<128x512xf32, #hbm> to !hx
      %ws = memref.subview %W[%k, 0] [128, 128] [1, 1] : memref<512x128xf32, #hbm> to !hw
      %tx = accel.dma_start %xs, %xb : !hx, !xv
      %tw = accel.dma_start %ws, %wb : !hw, !wv
      accel.dma_wait %tx
      accel.dma_wait %tw
      accel.matmul %xb, %wb, %acc {accumulate} : !xv, !wv, !xv
    }
    accel.vmax %acc, %zero, %acc : !xv, !xv, !xv
    %os = memref.subview %out[%row, 0] [16, 128] [1, 1] : memref<128x128xf32, #hbm> to !ho
    %to = accel.dma_start %acc, %os : !xv, !ho
    accel.dma_wait %to
  }
  return
}
