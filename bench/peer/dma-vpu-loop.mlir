// One DMA per iteration and a VPU body: rows of a 4096 x 256 f32 matrix
// are brought into fast memory (space 1) 64 at a time, scaled and shifted
// (y = 0.5 * x + 1) and exponentiated by scalar affine loops into a
// second buffer, and written back; each DMA is waited for at once.
// bench/peer/run.py runs it (P) after upstream's
// -affine-pipeline-data-transfer and (A) through accel-replay fdo.
func.func @dma_vpu_loop(%x: memref<4096x256xf32>, %y: memref<4096x256xf32>) {
  %in = memref.alloc() : memref<64x256xf32, 1>
  %out = memref.alloc() : memref<64x256xf32, 1>
  %tag_in = memref.alloc() : memref<1xi32>
  %tag_out = memref.alloc() : memref<1xi32>
  %zero = arith.constant 0 : index
  %num_elts = arith.constant 16384 : index
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  affine.for %t = 0 to 64 {
    affine.dma_start %x[%t * 64, 0], %in[0, 0], %tag_in[%zero], %num_elts : memref<4096x256xf32>, memref<64x256xf32, 1>, memref<1xi32>
    affine.dma_wait %tag_in[%zero], %num_elts : memref<1xi32>
    affine.for %r = 0 to 64 {
      affine.for %c = 0 to 256 {
        %v = affine.load %in[%r, %c] : memref<64x256xf32, 1>
        %s = arith.mulf %v, %half : f32
        %a = arith.addf %s, %one : f32
        %e = math.exp %a : f32
        affine.store %e, %out[%r, %c] : memref<64x256xf32, 1>
      }
    }
    affine.dma_start %out[0, 0], %y[%t * 64, 0], %tag_out[%zero], %num_elts : memref<64x256xf32, 1>, memref<4096x256xf32>, memref<1xi32>
    affine.dma_wait %tag_out[%zero], %num_elts : memref<1xi32>
  }
  return
}
