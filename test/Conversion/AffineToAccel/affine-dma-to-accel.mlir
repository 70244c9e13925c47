// Affine DMAs with tag memrefs become tile DMAs with tokens: each side is
// rebuilt as a 2-D view, waits are paired with their starts, tokens of DMAs
// waited in a later iteration are carried as iter_args, and `mod` slot
// arithmetic becomes rotating loop values.
// RUN: accel-opt %s -split-input-file --convert-memory-spaces-to-accel --convert-affine-dma-to-accel | FileCheck %s
// RUN: accel-opt %s -split-input-file --affine-pipeline-data-transfer --convert-memory-spaces-to-accel --convert-affine-dma-to-accel --canonicalize | FileCheck %s --check-prefix=PIPE

// A DMA waited in the iteration that starts it: its own token, no
// iter_args; the tag and its dealloc go. The whole VMEM buffer is used
// as it is, without a view.
// CHECK-LABEL: func.func @sync_loop
// CHECK:         %[[BUF:.*]] = accel.alloc : memref<32x128xf32, #accel.space<vmem>>
// CHECK-NOT:     memref.alloc
// CHECK:         affine.for %[[I:.*]] = 0 to 8 {
// CHECK:           %[[ROW:.*]] = affine.apply #{{.*}}(%[[I]])
// CHECK:           %[[SRC:.*]] = memref.subview %arg0[%[[ROW]], 0] [32, 128] [1, 1]
// CHECK:           %[[T:.*]] = accel.dma_start %[[SRC]], %[[BUF]]
// CHECK-NEXT:      accel.dma_wait %[[T]]
// CHECK:           %[[T2:.*]] = accel.dma_start
// CHECK-NEXT:      accel.dma_wait %[[T2]]
// CHECK-NOT:     memref.dealloc
// PIPE-LABEL: func.func @sync_loop
// The incoming DMA is double-buffered by upstream: slot i mod 2 of a
// 2 x 32 x 128 buffer (64 x 128 rows), waited one iteration later.
// PIPE:         %[[BUF:.*]] = accel.alloc : memref<64x128xf32, #accel.space<vmem>>
// PIPE:         %[[FIRST:.*]] = accel.dma_start %{{.*}}, %{{.*}} : memref<32x128xf32, strided<[128, 1]>, #accel.space<hbm>>, memref<32x128xf32, strided<[128, 1]>, #accel.space<vmem>>
// PIPE:         %[[R:.*]]:{{[0-9]+}} = affine.for %{{.*}} = 1 to 8 iter_args(%[[PREV:.*]] = %[[FIRST]], %[[SLOT:.*]] = %c32, %{{.*}} = %c0
// PIPE:           %[[DST:.*]] = memref.subview %[[BUF]][%[[SLOT]], 0] [32, 128] [1, 1]
// PIPE:           %[[NEXT:.*]] = accel.dma_start %{{.*}}, %[[DST]]
// PIPE:           accel.dma_wait %[[PREV]]
// PIPE:           %[[OUT:.*]] = accel.dma_start
// PIPE-NEXT:      accel.dma_wait %[[OUT]]
// PIPE:           affine.yield %[[NEXT]], %{{.*}}, %[[SLOT]],
// PIPE:         accel.dma_wait %[[R]]#0
// PIPE:         memref.subview %[[BUF]][32, 0] [32, 128] [1, 1]
// PIPE:         memref.subview %arg1[224, 0] [32, 128] [1, 1]
func.func @sync_loop(%A: memref<256x128xf32>, %B: memref<256x128xf32>) {
  %buf = memref.alloc() : memref<32x128xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 4096 : index
  affine.for %i = 0 to 8 {
    affine.dma_start %A[%i * 32, 0], %buf[0, 0], %tag[%c0], %n : memref<256x128xf32>, memref<32x128xf32, 1>, memref<1xi32>
    affine.dma_wait %tag[%c0], %n : memref<1xi32>
    affine.dma_start %buf[0, 0], %B[%i * 32, 0], %tag[%c0], %n : memref<32x128xf32, 1>, memref<256x128xf32>, memref<1xi32>
    affine.dma_wait %tag[%c0], %n : memref<1xi32>
  }
  memref.dealloc %tag : memref<1xi32>
  return
}

// -----

// A strided DMA: 32 chunks of 32 elements, 256 apart in HBM, is a 32 x 32
// tile of the 256-wide matrix.
// CHECK-LABEL: func.func @strided_tile
// CHECK:         affine.for %[[I:.*]] = 0 to 8 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 8 {
// CHECK-DAG:         %[[R:.*]] = affine.apply #{{.*}}(%[[I]])
// CHECK-DAG:         %[[C:.*]] = affine.apply #{{.*}}(%[[J]])
// CHECK:             %[[SRC:.*]] = memref.subview %arg0[%[[R]], %[[C]]] [32, 32] [1, 1] : memref<256x256xf32, #accel.space<hbm>> to memref<32x32xf32, strided<[256, 1], offset: ?>, #accel.space<hbm>>
// CHECK:             accel.dma_start %[[SRC]],
func.func @strided_tile(%A: memref<256x256xf32>) {
  %buf = memref.alloc() : memref<32x32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 1024 : index
  %stride = arith.constant 256 : index
  %per = arith.constant 32 : index
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      affine.dma_start %A[%i * 32, %j * 32], %buf[0, 0], %tag[%c0], %n, %stride, %per : memref<256x256xf32>, memref<32x32xf32, 1>, memref<1xi32>
      affine.dma_wait %tag[%c0], %n : memref<1xi32>
    }
  }
  return
}

// -----

// Every other row: the stride is two rows of the memref (a row step of 2),
// starting at row 1, column 64.
// CHECK-LABEL: func.func @every_other_row
// CHECK:         memref.subview %arg0[1, 64] [32, 64] [2, 1] : memref<64x128xf32, #accel.space<hbm>> to memref<32x64xf32, strided<[256, 1], offset: 192>, #accel.space<hbm>>
func.func @every_other_row(%A: memref<64x128xf32>) {
  %buf = memref.alloc() : memref<32x64xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 2048 : index
  %stride = arith.constant 256 : index
  %per = arith.constant 64 : index
  affine.dma_start %A[1, 64], %buf[0, 0], %tag[%c0], %n, %stride, %per : memref<64x128xf32>, memref<32x64xf32, 1>, memref<1xi32>
  affine.dma_wait %tag[%c0], %n : memref<1xi32>
  return
}

// -----

// Contiguous rows of different widths: 4 rows of 256 in HBM fill the 8
// rows of 128 in VMEM, so HBM is re-rowed at 128 (block i * 1024 starts at
// row i * 8).
// CHECK-LABEL: func.func @rewidth
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %arg0 {{\[}}[0, 1]] : memref<64x256xf32, #accel.space<hbm>> into memref<16384xf32, #accel.space<hbm>>
// CHECK:         %[[ROWS:.*]] = memref.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [128, 128]
// CHECK:         %[[R:.*]] = affine.apply #[[$TIMES8:.*]](%{{.*}})
// CHECK:         memref.subview %[[ROWS]][%[[R]], 0] [8, 128] [1, 1]
func.func @rewidth(%A: memref<64x256xf32>) {
  %buf = memref.alloc() : memref<8x128xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 1024 : index
  affine.for %i = 0 to 16 {
    affine.dma_start %A[%i * 4, 0], %buf[0, 0], %tag[%c0], %n : memref<64x256xf32>, memref<8x128xf32, 1>, memref<1xi32>
    affine.dma_wait %tag[%c0], %n : memref<1xi32>
  }
  return
}

// -----

// A batch of matrices: the DMA's rows run across the leading dimensions,
// which are collapsed into rows.
// CHECK-LABEL: func.func @batch_rows
// CHECK:         %[[ROWS:.*]] = memref.collapse_shape %arg0 {{\[}}[0, 1], [2]] : memref<4x16x64xf32, #accel.space<hbm>> into memref<64x64xf32, #accel.space<hbm>>
// CHECK:         memref.subview %[[ROWS]][%{{.*}}, 0] [32, 64] [1, 1]
func.func @batch_rows(%A: memref<4x16x64xf32>) {
  %buf = memref.alloc() : memref<32x64xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 2048 : index
  affine.for %b = 0 to 2 {
    affine.dma_start %A[%b * 2, 0, 0], %buf[0, 0], %tag[%c0], %n : memref<4x16x64xf32>, memref<32x64xf32, 1>, memref<1xi32>
    affine.dma_wait %tag[%c0], %n : memref<1xi32>
  }
  return
}

// -----

// Triple buffering written by hand: slot i mod 3 is waited two iterations
// later, so two tokens are carried (the newest first) and shifted; the
// two DMAs before the loop are the first iterations' ones, and the slots
// after it are the last two iterations' (31 mod 3 = 1, 30 mod 3 = 0).
// CHECK-LABEL: func.func @triple
// CHECK:         %[[S0:.*]] = accel.dma_start {{.*}} : memref<32x64xf32, strided<[64, 1]>, #accel.space<hbm>>
// CHECK:         %[[S1:.*]] = accel.dma_start {{.*}} : memref<32x64xf32, strided<[64, 1], offset: 2048>, #accel.space<hbm>>
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK:         %[[R:.*]]:5 = affine.for %{{.*}} = 2 to 32 iter_args(%[[T1:.*]] = %[[S1]], %[[T2:.*]] = %[[S0]], %[[A:.*]] = %[[C64]], %[[B:.*]] = %[[C0]], %[[C:.*]] = %[[C32]])
// CHECK:           %[[OFF:.*]] = affine.apply #{{.*}}(%{{.*}}, %[[A]])
// CHECK:           memref.subview %{{.*}}[%[[OFF]], 0] [32, 64] [1, 1]
// CHECK:           %[[NEW:.*]] = accel.dma_start
// CHECK-NEXT:      accel.dma_wait %[[T2]]
// CHECK-NEXT:      affine.yield %[[NEW]], %[[T1]], %[[B]], %[[C]], %[[A]]
// CHECK:         accel.dma_wait %[[R]]#1
// CHECK-NEXT:    accel.dma_wait %[[R]]#0
func.func @triple(%A: memref<1024x64xf32>) {
  %buf = memref.alloc() : memref<3x32x64xf32, 1>
  %tag = memref.alloc() : memref<3xi32>
  %n = arith.constant 2048 : index
  affine.dma_start %A[0, 0], %buf[0, 0, 0], %tag[0], %n : memref<1024x64xf32>, memref<3x32x64xf32, 1>, memref<3xi32>
  affine.dma_start %A[32, 0], %buf[1, 0, 0], %tag[1], %n : memref<1024x64xf32>, memref<3x32x64xf32, 1>, memref<3xi32>
  affine.for %i = 2 to 32 {
    affine.dma_start %A[%i * 32, 0], %buf[%i mod 3, 0, 0], %tag[%i mod 3], %n : memref<1024x64xf32>, memref<3x32x64xf32, 1>, memref<3xi32>
    affine.dma_wait %tag[(%i - 2) mod 3], %n : memref<3xi32>
  }
  affine.dma_wait %tag[0], %n : memref<3xi32>
  affine.dma_wait %tag[1], %n : memref<3xi32>
  return
}

// -----

// Two functions in one module, each with its own DMAs and tags.
// CHECK-LABEL: func.func @first
// CHECK:         %[[T:.*]] = accel.dma_start
// CHECK-NEXT:    accel.dma_wait %[[T]]
// CHECK-LABEL: func.func @second
// CHECK:         %[[T:.*]] = accel.dma_start
// CHECK-NEXT:    accel.dma_wait %[[T]]
// CHECK-NOT:     memref.alloc() : memref<1xi32
func.func @first(%A: memref<64xf32>) {
  %buf = memref.alloc() : memref<32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 32 : index
  affine.dma_start %A[%c0], %buf[%c0], %tag[%c0], %n : memref<64xf32>, memref<32xf32, 1>, memref<1xi32>
  affine.dma_wait %tag[%c0], %n : memref<1xi32>
  return
}
func.func @second(%A: memref<64xf32>) {
  %buf = memref.alloc() : memref<32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c32 = arith.constant 32 : index
  affine.dma_start %A[%c32], %buf[0], %tag[0], %c32 : memref<64xf32>, memref<32xf32, 1>, memref<1xi32>
  affine.dma_wait %tag[0], %c32 : memref<1xi32>
  return
}
