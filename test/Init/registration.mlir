// accel-opt parses programs from upstream frontends and runs the upstream
// passes a frontend pipeline needs (accel/InitAccel.h): linalg on tensors
// through one-shot bufferization, affine loops through DMA copy generation
// (transform-dialect tiling: transform-tile.mlir).

// RUN: accel-opt %s -split-input-file --one-shot-bufferize="bufferize-function-boundaries" --buffer-results-to-out-params --canonicalize | FileCheck %s --check-prefix=BUF
// RUN: accel-opt %s -split-input-file --affine-data-copy-generate="generate-dma fast-mem-space=1 fast-mem-capacity=64" | FileCheck %s --check-prefix=DMA

// BUF-LABEL: func.func @bias_relu
// BUF-SAME: memref<64x256xf32
// BUF: linalg.matmul
// BUF: linalg.generic
// BUF: arith.maximumf
// BUF-NOT: tensor.
// BUF: return
func.func @bias_relu(%x: tensor<64x128xf32>, %w: tensor<128x256xf32>,
                     %b: tensor<256xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %m = linalg.matmul ins(%x, %w : tensor<64x128xf32>, tensor<128x256xf32>)
                     outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<64x256xf32>, tensor<256xf32>)
      outs(%e : tensor<64x256xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %z = arith.maximumf %s, %zero : f32
    linalg.yield %z : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// DMA-LABEL: func.func @square
// DMA: affine.for
// DMA: memref.alloc() : memref<32x256xf32, 1>
// DMA: affine.dma_start %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<256x256xf32>, memref<32x256xf32, 1>, memref<1xi32>
// DMA: affine.dma_wait
// DMA: affine.dma_start %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<32x256xf32, 1>, memref<256x256xf32>, memref<1xi32>
func.func @square(%A: memref<256x256xf32>, %B: memref<256x256xf32>) {
  affine.for %i = 0 to 256 step 32 {
    affine.for %j = 0 to 256 step 32 {
      affine.for %ii = affine_map<(d) -> (d)>(%i) to affine_map<(d) -> (d + 32)>(%i) {
        affine.for %jj = affine_map<(d) -> (d)>(%j) to affine_map<(d) -> (d + 32)>(%j) {
          %v = affine.load %A[%ii, %jj] : memref<256x256xf32>
          %w = arith.mulf %v, %v : f32
          affine.store %w, %B[%ii, %jj] : memref<256x256xf32>
        }
      }
    }
  }
  return
}
