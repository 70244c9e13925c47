// y = x * x - x over a flat vector of 8192 elements, 1024 at a time: each
// DMA fills the 8 rows of 128 of a fast-memory buffer (space 1) from the
// flat input (re-rowed), the loop nest is written columns-outer, and the
// result goes to a 64 x 128 matrix.
func.func @affine_rows(%x: memref<8192xf32>, %y: memref<64x128xf32>) {
  %in = memref.alloc() : memref<8x128xf32, 1>
  %out = memref.alloc() : memref<8x128xf32, 1>
  %tags = memref.alloc() : memref<2xi32>
  %n = arith.constant 1024 : index
  affine.for %t = 0 to 8 {
    affine.dma_start %x[%t * 1024], %in[0, 0], %tags[0], %n : memref<8192xf32>, memref<8x128xf32, 1>, memref<2xi32>
    affine.dma_wait %tags[0], %n : memref<2xi32>
    affine.for %col = 0 to 128 {
      affine.for %row = 0 to 8 {
        %v = affine.load %in[%row, %col] : memref<8x128xf32, 1>
        %sq = arith.mulf %v, %v : f32
        %d = arith.subf %sq, %v : f32
        affine.store %d, %out[%row, %col] : memref<8x128xf32, 1>
      }
    }
    affine.dma_start %out[0, 0], %y[%t * 8, 0], %tags[1], %n : memref<8x128xf32, 1>, memref<64x128xf32>, memref<2xi32>
    affine.dma_wait %tags[1], %n : memref<2xi32>
  }
  return
}
