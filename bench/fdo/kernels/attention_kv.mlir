// Decode attention over a KV cache (one head, head dim 128, 2048 cached
// positions, 8 queries): scores = q K^T, softmax over each row, out = P V.
// K is stored transposed in HBM (128 x 2048) so K^T tiles are plain 128x128
// loads; V is 2048 x 128. The naive schedule issues every K^T and V tile
// right before its matmul.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%q: memref<8x128xf32, #hbm>, %kt: memref<128x2048xf32, #hbm>,
                %v: memref<2048x128xf32, #hbm>,
                %out: memref<8x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %qv = accel.alloc : memref<8x128xf32, #vmem>
  %s = accel.alloc : memref<8x2048xf32, #vmem>
  %kb = accel.alloc : memref<128x128xf32, #vmem>
  %vb = accel.alloc : memref<128x128xf32, #vmem>
  %m = accel.alloc : memref<8x1xf32, #vmem>
  %acc = accel.alloc : memref<8x128xf32, #vmem>
  %tq = accel.dma_start %q, %qv : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tq
  // scores[:, j] = q K^T[:, j]
  scf.for %j = %c0 to %c16 step %c1 {
    %j0 = arith.muli %j, %c128 : index
    %kts = memref.subview %kt[0, %j0] [128, 128] [1, 1] : memref<128x2048xf32, #hbm> to memref<128x128xf32, strided<[2048, 1], offset: ?>, #hbm>
    %tk = accel.dma_start %kts, %kb : memref<128x128xf32, strided<[2048, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %tk
    %ss = memref.subview %s[0, %j0] [8, 128] [1, 1] : memref<8x2048xf32, #vmem> to memref<8x128xf32, strided<[2048, 1], offset: ?>, #vmem>
    accel.matmul %qv, %kb, %ss : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, strided<[2048, 1], offset: ?>, #vmem>
  }
  // P = softmax(scores) per row.
  accel.vreduce_max %s, %m : memref<8x2048xf32, #vmem>, memref<8x1xf32, #vmem>
  accel.vsub %s, %m, %s : memref<8x2048xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x2048xf32, #vmem>
  accel.vexp %s, %s : memref<8x2048xf32, #vmem>, memref<8x2048xf32, #vmem>
  accel.vreduce_sum %s, %m : memref<8x2048xf32, #vmem>, memref<8x1xf32, #vmem>
  accel.vdiv %s, %m, %s : memref<8x2048xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x2048xf32, #vmem>
  // out = P V
  accel.vfill %acc, 0.0 : memref<8x128xf32, #vmem>
  scf.for %k = %c0 to %c16 step %c1 {
    %k0 = arith.muli %k, %c128 : index
    %vs = memref.subview %v[%k0, 0] [128, 128] [1, 1] : memref<2048x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tv = accel.dma_start %vs, %vb : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %tv
    %ps = memref.subview %s[0, %k0] [8, 128] [1, 1] : memref<8x2048xf32, #vmem> to memref<8x128xf32, strided<[2048, 1], offset: ?>, #vmem>
    accel.matmul %ps, %vb, %acc {accumulate} : memref<8x128xf32, strided<[2048, 1], offset: ?>, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  %to = accel.dma_start %acc, %out : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %to
  return
}
