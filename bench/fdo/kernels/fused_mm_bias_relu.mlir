// Issue 10, row 6 (fused_mm_bias_relu): one fused dense layer,
// Y = relu(W X + b), in the feature-major layout (features are rows, tokens
// are columns), so the bias is a column that the VPU broadcasts along each
// row. Y is 512 x 512 with row stride 512 and is computed in 128 x 128 tiles
// of one 128 x 512 row band at a time: the four tiles of a band sit side by
// side, in HBM (Y, and X's tiles) and in the VMEM band buffer, so their
// bounding spans overlap although no two of them share an element.
//
// Loop nest: row band i (output features) loads its 128 x 1 bias slice;
// column tile j (tokens) accumulates straight into its tile of the VMEM
// band buffer over the K loop, whose first step is peeled (a plain matmul
// initializes the tile, the rest accumulate); then the bias add and the
// ReLU (vmax with a zero tile) run in place on that strided tile, and the
// tile is stored to Y and waited on at once.
//
// Shapes: W 512 x 256, X 256 x 512, b 512 x 1, Y 512 x 512 f32; 4 x 4 Y
// tiles x 2 K steps = 32 matmuls of 128 x 128 x 128. Config: the default
// machine (no --config).
//
// Today FDO may fault with a false "data race" once a store's WAIT is moved
// past the next tile's writes: the simulator compares the bounding spans of
// side-by-side tiles instead of their strided rows.
//
//   accel-replay fdo bench/fdo/kernels/fused_mm_bias_relu.mlir -o out --iterations 3
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!vt = memref<128x128xf32, #vmem>
!bt = memref<128x128xf32, strided<[512, 1], offset: ?>, #vmem>
!wt = memref<128x128xf32, strided<[256, 1], offset: ?>, #hbm>
!xt = memref<128x128xf32, strided<[512, 1], offset: ?>, #hbm>
func.func @main(%W: memref<512x256xf32, #hbm>, %X: memref<256x512xf32, #hbm>,
                %bias: memref<512x1xf32, #hbm>,
                %Y: memref<512x512xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %wv = accel.alloc : !vt
  %xv = accel.alloc : !vt
  %band = accel.alloc : memref<128x512xf32, #vmem>
  %zero = accel.alloc : !vt
  %bv = accel.alloc : memref<128x1xf32, #vmem>
  accel.vfill %zero, 0.0 : !vt
  scf.for %i = %c0 to %c4 step %c1 {
    %row = arith.muli %i, %c128 : index
    %bs = memref.subview %bias[%row, 0] [128, 1] [1, 1] : memref<512x1xf32, #hbm> to memref<128x1xf32, strided<[1, 1], offset: ?>, #hbm>
    %tbias = accel.dma_start %bs, %bv : memref<128x1xf32, strided<[1, 1], offset: ?>, #hbm>, memref<128x1xf32, #vmem>
    accel.dma_wait %tbias
    scf.for %j = %c0 to %c4 step %c1 {
      %col = arith.muli %j, %c128 : index
      %yt = memref.subview %band[0, %col] [128, 128] [1, 1] : memref<128x512xf32, #vmem> to !bt
      // K step 0, peeled: Y[i, j] = W[i, 0] X[0, j].
      %w0 = memref.subview %W[%row, 0] [128, 128] [1, 1] : memref<512x256xf32, #hbm> to !wt
      %x0 = memref.subview %X[0, %col] [128, 128] [1, 1] : memref<256x512xf32, #hbm> to !xt
      %tw0 = accel.dma_start %w0, %wv : !wt, !vt
      %tx0 = accel.dma_start %x0, %xv : !xt, !vt
      accel.dma_wait %tw0
      accel.dma_wait %tx0
      accel.matmul %wv, %xv, %yt : !vt, !vt, !bt
      // K steps 1..: Y[i, j] += W[i, k] X[k, j].
      scf.for %k = %c1 to %c2 step %c1 {
        %kk = arith.muli %k, %c128 : index
        %wk = memref.subview %W[%row, %kk] [128, 128] [1, 1] : memref<512x256xf32, #hbm> to !wt
        %xk = memref.subview %X[%kk, %col] [128, 128] [1, 1] : memref<256x512xf32, #hbm> to !xt
        %twk = accel.dma_start %wk, %wv : !wt, !vt
        %txk = accel.dma_start %xk, %xv : !xt, !vt
        accel.dma_wait %twk
        accel.dma_wait %txk
        accel.matmul %wv, %xv, %yt {accumulate} : !vt, !vt, !bt
      }
      accel.vadd %yt, %bv, %yt : !bt, memref<128x1xf32, #vmem>, !bt
      accel.vmax %yt, %zero, %yt : !bt, !vt, !bt
      %ys = memref.subview %Y[%row, %col] [128, 128] [1, 1] : memref<512x512xf32, #hbm> to !xt
      %tst = accel.dma_start %yt, %ys : !bt, !xt
      accel.dma_wait %tst
    }
  }
  return
}
