// Issue 33 kernel 9 (two_layers): two dense layers back to back,
//   Y1 = relu(X W1)          layer 1, Y1 kept in VMEM (64 x 512)
//   Y  = tanh(Y1 W2)         layer 2, stored to HBM (64 x 256)
// X is loaded once. Layer 1 is output-stationary: for each 128-column tile
// n of Y1 it streams W1's four K tiles (128 x 128, DMA then WAIT then
// matmul) and accumulates into Y1's tile, then applies the ReLU in place
// (vmax with a zero tile). Layer 2 is written K-outer instead: for each K
// tile k of Y1 it streams W2's two tiles W2[k, n] (n = 0, 1) and
// accumulates into the matching 64 x 128 column of a 64 x 256 accumulator
// (zero-filled before the nest), then tanh and one store at the end. Layer
// 2 streams its own weights from HBM; none of its weight DMAs depends on
// layer 1.
//
// Style: "9. two_layers" (two layer loop nests back to back, layer 2 with
// its own streamed weights whose first tiles could load during layer 1).
//
// Shapes: X 64 x 512, W1 512 x 512, W2 512 x 256 f32 (16 + 8 tiles of
// 64 KiB); out 64 x 256; 24 matmuls of 64 x 128 x 128 (445 cycles each).
// Config: the default machine (no --config).
//
// Ideal schedule: every weight tile is read-only and independent of the
// activations, so its DMA can be in flight well before its matmul: layer
// 1's next tile during the current matmul, and layer 2's first W2 tiles
// during layer 1's last matmuls (across the nest boundary); the run is then
// the 24 matmuls back to back plus the first tile's latency.
//
//   accel-replay fdo bench/fdo/kernels/issue33/two_layers.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!w1t = memref<128x128xf32, strided<[512, 1], offset: ?>, #hbm>
!w2t = memref<128x128xf32, strided<[256, 1], offset: ?>, #hbm>
!wv = memref<128x128xf32, #vmem>
!y1c = memref<64x128xf32, strided<[512, 1], offset: ?>, #vmem>
!y2c = memref<64x128xf32, strided<[256, 1], offset: ?>, #vmem>
func.func @main(%X: memref<64x512xf32, #hbm>, %W1: memref<512x512xf32, #hbm>,
                %W2: memref<512x256xf32, #hbm>,
                %out: memref<64x256xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %xv = accel.alloc : memref<64x512xf32, #vmem>
  %y1 = accel.alloc : memref<64x512xf32, #vmem>
  %y2 = accel.alloc : memref<64x256xf32, #vmem>
  %w1b = accel.alloc : !wv
  %w2b = accel.alloc : !wv
  %zero = accel.alloc : memref<64x128xf32, #vmem>
  %tx = accel.dma_start %X, %xv : memref<64x512xf32, #hbm>, memref<64x512xf32, #vmem>
  accel.dma_wait %tx
  accel.vfill %zero, 0.0 : memref<64x128xf32, #vmem>
  // Layer 1: Y1 = relu(X W1), output tile by output tile.
  scf.for %n = %c0 to %c512 step %c128 {
    %yt = memref.subview %y1[0, %n] [64, 128] [1, 1] : memref<64x512xf32, #vmem> to !y1c
    accel.vfill %yt, 0.0 : !y1c
    scf.for %k = %c0 to %c512 step %c128 {
      %ws = memref.subview %W1[%k, %n] [128, 128] [1, 1] : memref<512x512xf32, #hbm> to !w1t
      %tw = accel.dma_start %ws, %w1b : !w1t, !wv
      accel.dma_wait %tw
      %xk = memref.subview %xv[0, %k] [64, 128] [1, 1] : memref<64x512xf32, #vmem> to !y1c
      accel.matmul %xk, %w1b, %yt {accumulate} : !y1c, !wv, !y1c
    }
    accel.vmax %yt, %zero, %yt : !y1c, memref<64x128xf32, #vmem>, !y1c
  }
  // Layer 2: Y = tanh(Y1 W2), K-outer.
  accel.vfill %y2, 0.0 : memref<64x256xf32, #vmem>
  scf.for %k = %c0 to %c512 step %c128 {
    %yk = memref.subview %y1[0, %k] [64, 128] [1, 1] : memref<64x512xf32, #vmem> to !y1c
    scf.for %n = %c0 to %c256 step %c128 {
      %ws = memref.subview %W2[%k, %n] [128, 128] [1, 1] : memref<512x256xf32, #hbm> to !w2t
      %tw = accel.dma_start %ws, %w2b : !w2t, !wv
      accel.dma_wait %tw
      %yn = memref.subview %y2[0, %n] [64, 128] [1, 1] : memref<64x256xf32, #vmem> to !y2c
      accel.matmul %yk, %w2b, %yn {accumulate} : !y1c, !wv, !y2c
    }
  }
  accel.vtanh %y2, %y2 : memref<64x256xf32, #vmem>, memref<64x256xf32, #vmem>
  %to = accel.dma_start %y2, %out : memref<64x256xf32, #vmem>, memref<64x256xf32, #hbm>
  accel.dma_wait %to
  return
}
