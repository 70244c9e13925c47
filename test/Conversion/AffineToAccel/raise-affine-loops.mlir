// RUN: accel-opt %s -split-input-file --accel-raise-affine-loops | FileCheck %s

// An elementwise nest on one slot of a double buffer, as
// -affine-pipeline-data-transfer leaves it: the slot index is invariant in
// the nest, so it is the view's offset and that dimension is dropped.
// CHECK-DAG: #[[$SLOT:.*]] = affine_map<()[s0] -> (s0 mod 2)>
// CHECK-LABEL: func.func @exp_slot
// CHECK-SAME: (%[[BUF:.*]]: memref<2x32x128xf32, 1>, %[[OUT:.*]]: memref<32x128xf32, 1>, %[[I:.*]]: index)
// CHECK: %[[S:.*]] = affine.apply #[[$SLOT]]()[%[[I]]]
// CHECK: %[[V:.*]] = memref.subview %[[BUF]][%[[S]], 0, 0] [1, 32, 128] [1, 1, 1] : memref<2x32x128xf32, 1> to memref<32x128xf32, strided<[128, 1], offset: ?>, 1>
// CHECK-NOT: affine.for
// CHECK: linalg.exp ins(%[[V]] : memref<32x128xf32, strided<[128, 1], offset: ?>, 1>) outs(%[[OUT]] : memref<32x128xf32, 1>)
// CHECK-NEXT: return
func.func @exp_slot(%buf: memref<2x32x128xf32, 1>, %out: memref<32x128xf32, 1>, %i: index) {
  affine.for %r = 0 to 32 {
    affine.for %c = 0 to 128 {
      %v = affine.load %buf[%i mod 2, %r, %c] : memref<2x32x128xf32, 1>
      %e = math.exp %v : f32
      affine.store %e, %out[%r, %c] : memref<32x128xf32, 1>
    }
  }
  return
}

// -----

// C[i, j] += A[i, k] * B[k, j] on blocks of larger buffers: a matmul on
// views; the load of C is the output's current value.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: memref<64x64xf32, 1>, %[[B:.*]]: memref<64x64xf32, 1>, %[[C:.*]]: memref<64x64xf32, 1>)
// CHECK-DAG: %[[VA:.*]] = memref.subview %[[A]][0, 32] [32, 16] [1, 1] : memref<64x64xf32, 1> to memref<32x16xf32, strided<[64, 1], offset: 32>, 1>
// CHECK-DAG: %[[VB:.*]] = memref.subview %[[B]][32, 0] [16, 32] [1, 1] : memref<64x64xf32, 1> to memref<16x32xf32, strided<[64, 1], offset: 2048>, 1>
// CHECK-DAG: %[[VC:.*]] = memref.subview %[[C]][0, 0] [32, 32] [1, 1] : memref<64x64xf32, 1> to memref<32x32xf32, strided<[64, 1]>, 1>
// CHECK-NOT: affine.for
// CHECK: linalg.matmul ins(%[[VA]], %[[VB]] : {{.*}}) outs(%[[VC]] : {{.*}})
// CHECK-NEXT: return
func.func @matmul(%a: memref<64x64xf32, 1>, %b: memref<64x64xf32, 1>, %c: memref<64x64xf32, 1>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      affine.for %k = 32 to 48 {
        %x = affine.load %a[%i, %k] : memref<64x64xf32, 1>
        %y = affine.load %b[%k, %j] : memref<64x64xf32, 1>
        %acc = affine.load %c[%i, %j] : memref<64x64xf32, 1>
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %acc, %p : f32
        affine.store %s, %c[%i, %j] : memref<64x64xf32, 1>
      }
    }
  }
  return
}

// -----

// A matmul over whole buffers uses them directly.
// CHECK-LABEL: func.func @matmul_whole
// CHECK-SAME: (%[[A:.*]]: memref<32x16xf32>, %[[B:.*]]: memref<16x8xf32>, %[[C:.*]]: memref<32x8xf32>)
// CHECK-NOT: memref.subview
// CHECK: linalg.matmul ins(%[[A]], %[[B]] : memref<32x16xf32>, memref<16x8xf32>) outs(%[[C]] : memref<32x8xf32>)
func.func @matmul_whole(%a: memref<32x16xf32>, %b: memref<16x8xf32>, %c: memref<32x8xf32>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 8 {
      affine.for %k = 0 to 16 {
        %x = affine.load %a[%i, %k] : memref<32x16xf32>
        %y = affine.load %b[%k, %j] : memref<16x8xf32>
        %acc = affine.load %c[%i, %j] : memref<32x8xf32>
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %acc, %p : f32
        affine.store %s, %c[%i, %j] : memref<32x8xf32>
      }
    }
  }
  return
}

// -----

// A bias + ReLU epilogue in place: the bias is read along the columns and
// the constant is cloned into the body.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_relu
// CHECK-SAME: (%[[C:.*]]: memref<32x128xf32, 1>, %[[BIAS:.*]]: memref<128xf32, 1>)
// CHECK-NOT: affine.for
// CHECK: linalg.generic {indexing_maps = [#[[$COL]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[BIAS]] : memref<128xf32, 1>) outs(%[[C]] : memref<32x128xf32, 1>)
// CHECK-NEXT: ^bb0(%[[B:.*]]: f32, %[[X:.*]]: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[X]], %[[B]] : f32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[MAX:.*]] = arith.maximumf %[[SUM]], %[[ZERO]] : f32
// CHECK-NEXT: linalg.yield %[[MAX]] : f32
func.func @bias_relu(%c: memref<32x128xf32, 1>, %bias: memref<128xf32, 1>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 128 {
      %x = affine.load %c[%i, %j] : memref<32x128xf32, 1>
      %b = affine.load %bias[%j] : memref<128xf32, 1>
      %s = arith.addf %x, %b : f32
      %r = arith.maximumf %s, %zero : f32
      affine.store %r, %c[%i, %j] : memref<32x128xf32, 1>
    }
  }
  return
}

// -----

// A row sum: the loop whose index the store does not use is a reduction.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_sum
// CHECK-SAME: (%[[X:.*]]: memref<32x128xf32, 1>, %[[ACC:.*]]: memref<32xf32, 1>)
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : memref<32x128xf32, 1>) outs(%[[ACC]] : memref<32xf32, 1>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OLD:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[OLD]], %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @row_sum(%x: memref<32x128xf32, 1>, %acc: memref<32xf32, 1>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 128 {
      %a = affine.load %acc[%i] : memref<32xf32, 1>
      %v = affine.load %x[%i, %j] : memref<32x128xf32, 1>
      %s = arith.addf %a, %v : f32
      affine.store %s, %acc[%i] : memref<32xf32, 1>
    }
  }
  return
}

// -----

// A column sum written with the reduction loop outermost: the generic's
// loops are still the store's dimension, then the reduction.
// CHECK-DAG: #[[$T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @column_sum
// CHECK: linalg.generic {indexing_maps = [#[[$T]], #[[$OUT]]], iterator_types = ["parallel", "reduction"]}
func.func @column_sum(%x: memref<32x128xf32, 1>, %acc: memref<128xf32, 1>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 128 {
      %a = affine.load %acc[%j] : memref<128xf32, 1>
      %v = affine.load %x[%i, %j] : memref<32x128xf32, 1>
      %s = arith.addf %a, %v : f32
      affine.store %s, %acc[%j] : memref<128xf32, 1>
    }
  }
  return
}

// -----

// Loops written column-major: the maps are still the identity on C.
// CHECK-LABEL: func.func @column_major
// CHECK-SAME: (%[[A:.*]]: memref<32x128xf32, 1>, %[[B:.*]]: memref<32x128xf32, 1>, %[[C:.*]]: memref<32x128xf32, 1>)
// CHECK-NOT: affine.for
// CHECK: linalg.mul ins(%[[A]], %[[B]] : memref<32x128xf32, 1>, memref<32x128xf32, 1>) outs(%[[C]] : memref<32x128xf32, 1>)
func.func @column_major(%a: memref<32x128xf32, 1>, %b: memref<32x128xf32, 1>, %c: memref<32x128xf32, 1>) {
  affine.for %j = 0 to 128 {
    affine.for %i = 0 to 32 {
      %x = affine.load %a[%i, %j] : memref<32x128xf32, 1>
      %y = affine.load %b[%i, %j] : memref<32x128xf32, 1>
      %p = arith.mulf %x, %y : f32
      affine.store %p, %c[%i, %j] : memref<32x128xf32, 1>
    }
  }
  return
}

// -----

// A transposed read: the identity on the output, the transpose on the input.
// CHECK-DAG: #[[$T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @transposed_read
// CHECK: linalg.generic {indexing_maps = [#[[$T]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK: math.tanh
func.func @transposed_read(%a: memref<128x32xf32, 1>, %c: memref<32x128xf32, 1>) {
  affine.for %j = 0 to 128 {
    affine.for %i = 0 to 32 {
      %x = affine.load %a[%j, %i] : memref<128x32xf32, 1>
      %t = math.tanh %x : f32
      affine.store %t, %c[%i, %j] : memref<32x128xf32, 1>
    }
  }
  return
}

// -----

// A 1-D loop over part of a buffer; two loads of the same element are one
// operand.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @square_1d
// CHECK-SAME: (%[[A:.*]]: memref<256xf32, 1>, %[[B:.*]]: memref<128xf32, 1>)
// CHECK: %[[V:.*]] = memref.subview %[[A]][64] [128] [1] : memref<256xf32, 1> to memref<128xf32, strided<[1], offset: 64>, 1>
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]], iterator_types = ["parallel"]}
// CHECK-SAME: ins(%[[V]] : {{.*}}) outs(%[[B]] : memref<128xf32, 1>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[P]] : f32
func.func @square_1d(%a: memref<256xf32, 1>, %b: memref<128xf32, 1>) {
  affine.for %i = 0 to 128 {
    %x = affine.load %a[%i + 64] : memref<256xf32, 1>
    %y = affine.load %a[%i + 64] : memref<256xf32, 1>
    %p = arith.mulf %x, %y : f32
    affine.store %p, %b[%i] : memref<128xf32, 1>
  }
  return
}

// -----

// A tile loop with DMAs and a compute nest: the tile loop stays, the nest
// in it is raised. The views' row offset is %t * 32, computed before the
// nest inside the tile loop; the lower bound of a loop adds to the offset
// (%c - 8 from 8 is column 0); the DMA's buffer is read whole.
// CHECK-DAG: #[[$ROWS:.*]] = affine_map<(d0) -> (d0 * 32)>
// CHECK-LABEL: func.func @tiles
// CHECK-SAME: (%[[A:.*]]: memref<128x128xf32>, %[[B:.*]]: memref<128x120xf32>, %{{.*}}: memref<32x120xf32>, %[[BUF:.*]]: memref<32x120xf32, 1>
// CHECK: affine.for %[[T:.*]] = 0 to 4 {
// CHECK: affine.dma_start
// CHECK: affine.dma_wait
// CHECK: %[[RA:.*]] = affine.apply #[[$ROWS]](%[[T]])
// CHECK: %[[VA:.*]] = memref.subview %[[A]][%[[RA]], 0] [32, 120] [1, 1] : memref<128x128xf32> to memref<32x120xf32, strided<[128, 1], offset: ?>>
// CHECK: %[[RB:.*]] = affine.apply #[[$ROWS]](%[[T]])
// CHECK: %[[VB:.*]] = memref.subview %[[B]][%[[RB]], 0] [32, 120] [1, 1] : memref<128x120xf32> to memref<32x120xf32, strided<[120, 1], offset: ?>>
// CHECK: linalg.add ins(%[[VA]], %[[BUF]] : {{.*}}) outs(%[[VB]] : {{.*}})
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @tiles(%a: memref<128x128xf32>, %b: memref<128x120xf32>, %src: memref<32x120xf32>,
                 %buf: memref<32x120xf32, 1>, %tag: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 3840 : index
  affine.for %t = 0 to 4 {
    affine.dma_start %src[%c0, %c0], %buf[%c0, %c0], %tag[%c0], %n : memref<32x120xf32>, memref<32x120xf32, 1>, memref<1xi32>
    affine.dma_wait %tag[%c0], %n : memref<1xi32>
    affine.for %r = 0 to 32 {
      affine.for %c = 8 to 128 {
        %x = affine.load %a[%t * 32 + %r, %c - 8] : memref<128x128xf32>
        %y = affine.load %buf[%r, %c - 8] : memref<32x120xf32, 1>
        %s = arith.addf %x, %y : f32
        affine.store %s, %b[%t * 32 + %r, %c - 8] : memref<128x120xf32>
      }
    }
  }
  return
}

// -----

// A copy into a row of a buffer: the output view drops its unit dimension.
// CHECK-LABEL: func.func @copy_row
// CHECK-SAME: (%[[A:.*]]: memref<128xf32, 1>, %[[B:.*]]: memref<8x128xf32, 1>)
// CHECK: %[[V:.*]] = memref.subview %[[B]][3, 0] [1, 128] [1, 1] : memref<8x128xf32, 1> to memref<128xf32, strided<[1], offset: 384>, 1>
// CHECK: linalg.copy ins(%[[A]] : memref<128xf32, 1>) outs(%[[V]] : {{.*}})
func.func @copy_row(%a: memref<128xf32, 1>, %b: memref<8x128xf32, 1>) {
  %c3 = arith.constant 3 : index
  affine.for %i = 0 to 128 {
    %x = affine.load %a[%i] : memref<128xf32, 1>
    affine.store %x, %b[%c3, %i] : memref<8x128xf32, 1>
  }
  return
}

// -----

// A slot of a buffer read one row at a time: the view keeps the dimension
// its loop indexes (size 1, stride 128) and drops the slot's.
// CHECK-LABEL: func.func @one_row
// CHECK: memref.subview %{{.*}}[%{{.*}}, 2, 0] [1, 1, 128] [1, 1, 1] : memref<2x4x128xf32, 1> to memref<1x128xf32, strided<[128, 1], offset: ?>, 1>
// CHECK: memref.subview %{{.*}}[2, 0] [1, 128] [1, 1] : memref<4x128xf32, 1> to memref<1x128xf32, strided<[128, 1], offset: 256>, 1>
// CHECK: linalg.exp
func.func @one_row(%buf: memref<2x4x128xf32, 1>, %out: memref<4x128xf32, 1>, %i: index) {
  affine.for %r = 2 to 3 {
    affine.for %c = 0 to 128 {
      %v = affine.load %buf[%i mod 2, %r, %c] : memref<2x4x128xf32, 1>
      %e = math.exp %v : f32
      affine.store %e, %out[%r, %c] : memref<4x128xf32, 1>
    }
  }
  return
}

// -----

// A fill with a constant: a generic with no input that yields the constant.
// CHECK-LABEL: func.func @fill
// CHECK-NOT: affine.for
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : memref<8x128xf32, 1>)
// CHECK-NEXT: ^bb0(%{{.*}}: f32):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: linalg.yield %[[ZERO]] : f32
func.func @fill(%a: memref<8x128xf32, 1>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 128 {
      affine.store %zero, %a[%i, %j] : memref<8x128xf32, 1>
    }
  }
  return
}

// -----

// Loops without loads or stores are left alone.
// CHECK-LABEL: func.func @dma_only
// CHECK: affine.for
// CHECK: affine.dma_start
func.func @dma_only(%src: memref<4x32x128xf32>, %buf: memref<32x128xf32, 1>, %tag: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 4096 : index
  affine.for %t = 0 to 4 {
    affine.dma_start %src[%t, %c0, %c0], %buf[%c0, %c0], %tag[%c0], %n : memref<4x32x128xf32>, memref<32x128xf32, 1>, memref<1xi32>
    affine.dma_wait %tag[%c0], %n : memref<1xi32>
  }
  return
}

// -----

// A tiled nest whose tile loops index with their tile size (`%i * 32 +
// %ii`, as loop normalization leaves upstream's tiling): the largest inner
// part that raises is the point loops; the tile loops stay around one op
// per tile.
// CHECK-LABEL: func.func @tile_loops_stay
// CHECK:         affine.for %[[I:.*]] = 0 to 8 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 4 {
// CHECK-DAG:         %[[R:.*]] = affine.apply #{{.*}}(%[[I]])
// CHECK-DAG:         %[[C:.*]] = affine.apply #{{.*}}(%[[J]])
// CHECK:             %[[X:.*]] = memref.subview %arg0[%[[R]], %[[C]]] [32, 64] [1, 1]
// CHECK:             %[[Y:.*]] = memref.subview %arg1[%{{.*}}, %{{.*}}] [32, 64] [1, 1]
// CHECK:             linalg.generic {{.*}} ins(%[[X]] : {{.*}}) outs(%[[Y]] : {{.*}})
// CHECK:               arith.mulf
// CHECK-NOT:       affine.for
func.func @tile_loops_stay(%x: memref<256x256xf32, 1>, %y: memref<256x256xf32, 1>) {
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 4 {
      affine.for %ii = 0 to 32 {
        affine.for %jj = 0 to 64 {
          %v = affine.load %x[%i * 32 + %ii, %j * 64 + %jj] : memref<256x256xf32, 1>
          %w = arith.mulf %v, %two : f32
          affine.store %w, %y[%i * 32 + %ii, %j * 64 + %jj] : memref<256x256xf32, 1>
        }
      }
    }
  }
  return
}

// -----

// An index that adds two loop indices of the nest (a sliding window) does
// not raise as a whole; the inner loop does, once per row, on the window
// that starts at the row.
// CHECK-LABEL: func.func @sliding_window
// CHECK:         affine.for %[[I:.*]] = 0 to 128 {
// CHECK:           %[[W:.*]] = memref.subview %arg0[%[[I]]] [128] [1] : memref<256xf32, 1> to memref<128xf32, strided<[1], offset: ?>, 1>
// CHECK:           %[[ROW:.*]] = memref.subview %arg1[%[[I]], 0] [1, 128] [1, 1] : memref<128x128xf32, 1> to memref<128xf32, strided<[1], offset: ?>, 1>
// CHECK:           linalg.copy ins(%[[W]] : {{.*}}) outs(%[[ROW]] : {{.*}})
func.func @sliding_window(%a: memref<256xf32, 1>, %b: memref<128x128xf32, 1>) {
  affine.for %i = 0 to 128 {
    affine.for %j = 0 to 128 {
      %x = affine.load %a[%i + %j] : memref<256xf32, 1>
      affine.store %x, %b[%i, %j] : memref<128x128xf32, 1>
    }
  }
  return
}
