// Issue 10, row 4 (gemm_ab_tiles): a textbook tiled GEMM, C = A B, with
// 128 x 128 tiles: i and j loop over C tiles, the inner K loop DMAs both
// the A tile and the B tile on every step and accumulates into the C tile
// with accel.matmul {accumulate} (the C tile is zero-filled before the K
// loop); C is stored once, after the K loop. The loops step by the tile
// size, so the induction variables are element offsets; both loads are
// issued before either WAIT.
//
// Shapes: A 512 x 512, B 512 x 512, C 512 x 512 f32; 4 x 4 C tiles x 4 K
// steps = 64 matmuls of 128 x 128 x 128 and 128 tile loads of 64 KiB.
// Config: the default machine (no --config).
//
//   accel-replay fdo bench/fdo/kernels/gemm_ab_tiles.mlir -o out --iterations 3
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!vt = memref<128x128xf32, #vmem>
!ht = memref<128x128xf32, strided<[512, 1], offset: ?>, #hbm>
func.func @main(%A: memref<512x512xf32, #hbm>, %B: memref<512x512xf32, #hbm>,
                %C: memref<512x512xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %a = accel.alloc : !vt
  %b = accel.alloc : !vt
  %acc = accel.alloc : !vt
  scf.for %i = %c0 to %c512 step %c128 {
    scf.for %j = %c0 to %c512 step %c128 {
      accel.vfill %acc, 0.0 : !vt
      scf.for %k = %c0 to %c512 step %c128 {
        %as = memref.subview %A[%i, %k] [128, 128] [1, 1] : memref<512x512xf32, #hbm> to !ht
        %bs = memref.subview %B[%k, %j] [128, 128] [1, 1] : memref<512x512xf32, #hbm> to !ht
        %ta = accel.dma_start %as, %a : !ht, !vt
        %tb = accel.dma_start %bs, %b : !ht, !vt
        accel.dma_wait %ta
        accel.dma_wait %tb
        accel.matmul %a, %b, %acc {accumulate} : !vt, !vt, !vt
      }
      %cs = memref.subview %C[%i, %j] [128, 128] [1, 1] : memref<512x512xf32, #hbm> to !ht
      %tc = accel.dma_start %acc, %cs : !vt, !ht
      accel.dma_wait %tc
    }
  }
  return
}
