// A pure DMA stream: a 1024 x 1024 f32 matrix copied tile by tile (32 x 32
// tiles, strided DMAs) through fast memory (space 1) into another, each
// DMA waited for at once: nothing but data movement.
// bench/peer/run.py runs it (P) after upstream's
// -affine-pipeline-data-transfer and (A) through accel-replay fdo.
func.func @dma_stream(%src: memref<1024x1024xf32>, %dst: memref<1024x1024xf32>) {
  %buf = memref.alloc() : memref<32x32xf32, 1>
  %tag_in = memref.alloc() : memref<1xi32>
  %tag_out = memref.alloc() : memref<1xi32>
  %zero = arith.constant 0 : index
  %num_elts = arith.constant 1024 : index
  %stride = arith.constant 1024 : index
  %elts_per_stride = arith.constant 32 : index
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      affine.dma_start %src[%i * 32, %j * 32], %buf[0, 0], %tag_in[%zero], %num_elts, %stride, %elts_per_stride : memref<1024x1024xf32>, memref<32x32xf32, 1>, memref<1xi32>
      affine.dma_wait %tag_in[%zero], %num_elts : memref<1xi32>
      affine.dma_start %buf[0, 0], %dst[%i * 32, %j * 32], %tag_out[%zero], %num_elts, %stride, %elts_per_stride : memref<32x32xf32, 1>, memref<1024x1024xf32>, memref<1xi32>
      affine.dma_wait %tag_out[%zero], %num_elts : memref<1xi32>
    }
  }
  return
}
