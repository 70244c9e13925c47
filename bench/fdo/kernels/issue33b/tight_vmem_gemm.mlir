// Issue 33, resolving set, kernel B (tight_vmem_gemm): C = A B with the
// weight B (256 x 256 f32, 256 KiB) re-read for every row block of A, on a
// machine whose VMEM (448 KiB, tight_vmem_gemm.json) cannot hold all of B
// pinned AND the double buffers of the streaming A tiles and the C
// stores: the pins and the pipelining compete for one VMEM budget.
// Loop nest: m over 4 row blocks of 64 rows; k over 2 K tiles of 128; the
// B tile (128 x 256, 128 KiB) of step k is loaded in the k loop, the A
// tile (64 x 128) too; matmul accumulates into C (64 x 256); C is stored
// after the k loop. B's two tiles do not change with m (pin candidates:
// 256 KiB); each A tile and each C store changes (double-buffer
// candidates).
//
// Style: a weight-stationary GEMM under a VMEM-tight config (a machine
// config file), weights indexed by the inner loop only, f32, MXU-bound.
//
// Shapes: A 256 x 256, B 256 x 256, C 256 x 256 f32. VMEM: B tile 128 KiB,
// A tile 32 KiB, C 64 KiB: 224 KiB as written.
//
//   accel-replay fdo bench/fdo/kernels/issue33b/tight_vmem_gemm.mlir \
//     --config bench/fdo/kernels/issue33b/tight_vmem_gemm.json -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%A: memref<256x256xf32, #hbm>, %B: memref<256x256xf32, #hbm>,
                %C: memref<256x256xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %av = accel.alloc : memref<64x128xf32, #vmem>
  %bv = accel.alloc : memref<128x256xf32, #vmem>
  %cv = accel.alloc : memref<64x256xf32, #vmem>
  scf.for %m = %c0 to %c4 step %c1 {
    %r = arith.muli %m, %c64 : index
    accel.vfill %cv, 0.0 : memref<64x256xf32, #vmem>
    scf.for %k = %c0 to %c2 step %c1 {
      %kk = arith.muli %k, %c128 : index
      %as = memref.subview %A[%r, %kk] [64, 128] [1, 1] : memref<256x256xf32, #hbm> to memref<64x128xf32, strided<[256, 1], offset: ?>, #hbm>
      %ta = accel.dma_start %as, %av : memref<64x128xf32, strided<[256, 1], offset: ?>, #hbm>, memref<64x128xf32, #vmem>
      %bs = memref.subview %B[%kk, 0] [128, 256] [1, 1] : memref<256x256xf32, #hbm> to memref<128x256xf32, strided<[256, 1], offset: ?>, #hbm>
      %tb = accel.dma_start %bs, %bv : memref<128x256xf32, strided<[256, 1], offset: ?>, #hbm>, memref<128x256xf32, #vmem>
      accel.dma_wait %ta
      accel.dma_wait %tb
      accel.matmul %av, %bv, %cv {accumulate} : memref<64x128xf32, #vmem>, memref<128x256xf32, #vmem>, memref<64x256xf32, #vmem>
    }
    %cs = memref.subview %C[%r, 0] [64, 256] [1, 1] : memref<256x256xf32, #hbm> to memref<64x256xf32, strided<[256, 1], offset: ?>, #hbm>
    %tc = accel.dma_start %cv, %cs : memref<64x256xf32, #vmem>, memref<64x256xf32, strided<[256, 1], offset: ?>, #hbm>
    accel.dma_wait %tc
  }
  return
}
