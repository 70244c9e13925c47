// A 4096 x 4096 x 4096 f32 matmul C = A * B
// in 128 x 128 tiles, as upstream's
// affine-data-copy-generate="generate-dma fast-mem-space=1" leaves a tiled
// loop nest: every tile is copied into fast memory (space 1) by a DMA that
// is waited for at once, and the compute is scalar affine loops on the
// copies. bench/peer/run.py runs it (P) after upstream's
// -affine-pipeline-data-transfer and (A) through accel-replay fdo.
func.func @matmul(%A: memref<4096x4096xf32>, %B: memref<4096x4096xf32>, %C: memref<4096x4096xf32>) {
  %a = memref.alloc() : memref<128x128xf32, 1>
  %b = memref.alloc() : memref<128x128xf32, 1>
  %c = memref.alloc() : memref<128x128xf32, 1>
  %tag_a = memref.alloc() : memref<1xi32>
  %tag_b = memref.alloc() : memref<1xi32>
  %tag_c = memref.alloc() : memref<1xi32>
  %zero = arith.constant 0 : index
  %num_elts = arith.constant 16384 : index
  %stride = arith.constant 4096 : index
  %elts_per_stride = arith.constant 128 : index
  %f0 = arith.constant 0.0 : f32
  affine.for %i = 0 to 4096 step 128 {
    affine.for %j = 0 to 4096 step 128 {
      affine.for %ii = 0 to 128 {
        affine.for %jj = 0 to 128 {
          affine.store %f0, %c[%ii, %jj] : memref<128x128xf32, 1>
        }
      }
      affine.for %k = 0 to 4096 step 128 {
        affine.dma_start %A[%i, %k], %a[0, 0], %tag_a[%zero], %num_elts, %stride, %elts_per_stride : memref<4096x4096xf32>, memref<128x128xf32, 1>, memref<1xi32>
        affine.dma_wait %tag_a[%zero], %num_elts : memref<1xi32>
        affine.dma_start %B[%k, %j], %b[0, 0], %tag_b[%zero], %num_elts, %stride, %elts_per_stride : memref<4096x4096xf32>, memref<128x128xf32, 1>, memref<1xi32>
        affine.dma_wait %tag_b[%zero], %num_elts : memref<1xi32>
        affine.for %ii = 0 to 128 {
          affine.for %jj = 0 to 128 {
            affine.for %kk = 0 to 128 {
              %x = affine.load %a[%ii, %kk] : memref<128x128xf32, 1>
              %y = affine.load %b[%kk, %jj] : memref<128x128xf32, 1>
              %acc = affine.load %c[%ii, %jj] : memref<128x128xf32, 1>
              %p = arith.mulf %x, %y : f32
              %sum = arith.addf %acc, %p : f32
              affine.store %sum, %c[%ii, %jj] : memref<128x128xf32, 1>
            }
          }
        }
      }
      affine.dma_start %c[0, 0], %C[%i, %j], %tag_c[%zero], %num_elts, %stride, %elts_per_stride : memref<128x128xf32, 1>, memref<4096x4096xf32>, memref<1xi32>
      affine.dma_wait %tag_c[%zero], %num_elts : memref<1xi32>
    }
  }
  return
}
