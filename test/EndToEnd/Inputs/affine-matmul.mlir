// relu(A * B + bias) for A 192 x 256, B 256 x 128, in 64 x 64 tiles: an
// affine loop nest with explicit DMAs into fast memory (space 1), each
// waited for at once, and scalar loop nests as the compute (the zero fill
// of the C tile, the matmul, the epilogue).
func.func @affine_matmul(%A: memref<192x256xf32>, %B: memref<256x128xf32>,
                         %C: memref<192x128xf32>, %bias: memref<128xf32>) {
  %a = memref.alloc() : memref<64x64xf32, 1>
  %b = memref.alloc() : memref<64x64xf32, 1>
  %c = memref.alloc() : memref<64x64xf32, 1>
  %bt = memref.alloc() : memref<64xf32, 1>
  %ta = memref.alloc() : memref<1xi32>
  %tb = memref.alloc() : memref<1xi32>
  %tc = memref.alloc() : memref<1xi32>
  %tbias = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c4096 = arith.constant 4096 : index
  %c256 = arith.constant 256 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 2 {
      affine.dma_start %bias[%j * 64], %bt[%c0], %tbias[%c0], %c64 : memref<128xf32>, memref<64xf32, 1>, memref<1xi32>
      affine.dma_wait %tbias[%c0], %c64 : memref<1xi32>
      affine.for %r = 0 to 64 {
        affine.for %s = 0 to 64 {
          affine.store %zero, %c[%r, %s] : memref<64x64xf32, 1>
        }
      }
      affine.for %k = 0 to 256 step 64 {
        affine.dma_start %A[%i * 64, %k], %a[%c0, %c0], %ta[%c0], %c4096, %c256, %c64 : memref<192x256xf32>, memref<64x64xf32, 1>, memref<1xi32>
        affine.dma_wait %ta[%c0], %c4096 : memref<1xi32>
        affine.dma_start %B[%k, %j * 64], %b[%c0, %c0], %tb[%c0], %c4096, %c128, %c64 : memref<256x128xf32>, memref<64x64xf32, 1>, memref<1xi32>
        affine.dma_wait %tb[%c0], %c4096 : memref<1xi32>
        affine.for %r = 0 to 64 {
          affine.for %s = 0 to 64 {
            affine.for %t = 0 to 64 {
              %x = affine.load %a[%r, %t] : memref<64x64xf32, 1>
              %y = affine.load %b[%t, %s] : memref<64x64xf32, 1>
              %acc = affine.load %c[%r, %s] : memref<64x64xf32, 1>
              %p = arith.mulf %x, %y : f32
              %q = arith.addf %acc, %p : f32
              affine.store %q, %c[%r, %s] : memref<64x64xf32, 1>
            }
          }
        }
      }
      affine.for %r = 0 to 64 {
        affine.for %s = 0 to 64 {
          %v = affine.load %c[%r, %s] : memref<64x64xf32, 1>
          %w = affine.load %bt[%s] : memref<64xf32, 1>
          %sum = arith.addf %v, %w : f32
          %relu = arith.maximumf %sum, %zero : f32
          affine.store %relu, %c[%r, %s] : memref<64x64xf32, 1>
        }
      }
      affine.dma_start %c[%c0, %c0], %C[%i * 64, %j * 64], %tc[%c0], %c4096, %c128, %c64 : memref<64x64xf32, 1>, memref<192x128xf32>, memref<1xi32>
      affine.dma_wait %tc[%c0], %c4096 : memref<1xi32>
    }
  }
  return
}
