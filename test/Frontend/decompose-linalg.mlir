// Aggregate linalg ops become the ops they are made of, on tensors.
// RUN: accel-opt %s --pass-pipeline='builtin.module(func.func(accel-decompose-linalg))' | FileCheck %s
// RUN: accel-opt %s --pass-pipeline='builtin.module(func.func(accel-decompose-linalg{vmem-space=0}))' | FileCheck %s --check-prefix=WHOLE
// RUN: accel-opt %s --pass-pipeline='builtin.module(func.func(accel-decompose-linalg{tile-rows=32}))' | FileCheck %s --check-prefix=T32
// RUN: accel-opt %s --pass-pipeline='builtin.module(func.func(accel-decompose-linalg{vmem-bytes=8192}))' | FileCheck %s --check-prefix=HBMROWS

// linalg.softmax: the row max (fill with the identity, max reduction),
// exp(x - max), the row sum (fill with 0, sum reduction), the division.
// Upstream fills the maxnumf reduction with NaN (its identity); it becomes
// -inf, the identity of the VPU's max reduction.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT:     linalg.softmax
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[MAXI:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<16x32xf32>)
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<16x32x64xf32>) outs(%[[MAXI]] : tensor<16x32xf32>)
// CHECK:           arith.maxnumf
// CHECK:         %[[EXP:.*]] = linalg.generic {{.*}} ins(%arg0, %[[MAX]] : tensor<16x32x64xf32>, tensor<16x32xf32>)
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:         linalg.fill
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[EXP]] : tensor<16x32x64xf32>)
// CHECK:           arith.addf
// CHECK:         %[[DIV:.*]] = linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] : tensor<16x32x64xf32>, tensor<16x32xf32>)
// CHECK:           arith.divf
// CHECK:         return %[[DIV]]
func.func @softmax(%x: tensor<16x32x64xf32>) -> tensor<16x32x64xf32> {
  %init = tensor.empty() : tensor<16x32x64xf32>
  %y = linalg.softmax dimension(2) ins(%x : tensor<16x32x64xf32>)
         outs(%init : tensor<16x32x64xf32>) -> tensor<16x32x64xf32>
  return %y : tensor<16x32x64xf32>
}

// -----

// A 1x1 convolution: the pixels (N*H*W) times the filter (C x F) on the MXU.
// CHECK-LABEL: func.func @conv1x1(
// CHECK-SAME:      %[[X:.*]]: tensor<2x8x12x24xf32>, %[[W:.*]]: tensor<1x1x24x40xf32>, %[[I:.*]]: tensor<2x8x12x40xf32>
// CHECK-DAG:     %[[A:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1, 2], [3]] : tensor<2x8x12x24xf32> into tensor<192x24xf32>
// CHECK-DAG:     %[[B:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1, 2], [3]] : tensor<1x1x24x40xf32> into tensor<24x40xf32>
// CHECK-DAG:     %[[C:.*]] = tensor.collapse_shape %[[I]] {{\[\[}}0, 1, 2], [3]] : tensor<2x8x12x40xf32> into tensor<192x40xf32>
// CHECK:         %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<192x24xf32>, tensor<24x40xf32>) outs(%[[C]] : tensor<192x40xf32>)
// CHECK:         %[[R:.*]] = tensor.expand_shape %[[M]] {{\[\[}}0, 1, 2], [3]] output_shape [2, 8, 12, 40]
// CHECK:         return %[[R]]
func.func @conv1x1(%x: tensor<2x8x12x24xf32>, %w: tensor<1x1x24x40xf32>, %init: tensor<2x8x12x40xf32>) -> tensor<2x8x12x40xf32> {
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x8x12x24xf32>, tensor<1x1x24x40xf32>) outs(%init : tensor<2x8x12x40xf32>) -> tensor<2x8x12x40xf32>
  return %y : tensor<2x8x12x40xf32>
}

// -----

// Any other convolution is a sum of shifted matmuls (shown here without
// VMEM tiles, vmem-space=0), one contraction per
// kernel tap (kh, kw): the input pixels the tap reads (a strided
// extract_slice at (kh * dilation, kw * dilation)) times its C x F filter,
// accumulated tap after tap into the output. A 1x1 kernel with stride 2 is
// one tap; a 3x3 kernel with dilations [1, 2] and strides [1, 2] nine,
// the last at (2, 4).
// WHOLE-LABEL: func.func @shifted_matmuls(
// WHOLE-SAME:    %[[X:.*]]: tensor<1x8x8x4xf32>, %[[W:.*]]: tensor<1x1x4x4xf32>, %[[I:.*]]: tensor<1x4x4x4xf32>, %[[W3:.*]]: tensor<3x3x4x4xf32>, %[[I3:.*]]: tensor<1x4x2x4xf32>
// WHOLE:         %[[P:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 4, 4, 4] [1, 2, 2, 1] : tensor<1x8x8x4xf32> to tensor<1x4x4x4xf32>
// WHOLE:         %[[T:.*]] = tensor.extract_slice %[[W]][0, 0, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1] : tensor<1x1x4x4xf32> to tensor<4x4xf32>
// WHOLE:         %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[P]], %[[T]] : tensor<1x4x4x4xf32>, tensor<4x4xf32>) outs(%[[I]] : tensor<1x4x4x4xf32>)
// WHOLE:         tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 4, 2, 4] [1, 1, 2, 1]
// WHOLE:         %[[Z0:.*]] = linalg.generic {{.*}} outs(%[[I3]] : tensor<1x4x2x4xf32>)
// WHOLE:         tensor.extract_slice %[[X]][0, 0, 2, 0] [1, 4, 2, 4] [1, 1, 2, 1]
// WHOLE:         tensor.extract_slice %[[W3]][0, 1, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1]
// WHOLE:         linalg.generic {{.*}} outs(%[[Z0]] : tensor<1x4x2x4xf32>)
// WHOLE-COUNT-6: linalg.generic
// WHOLE:         tensor.extract_slice %[[X]][0, 2, 4, 0] [1, 4, 2, 4] [1, 1, 2, 1]
// WHOLE:         tensor.extract_slice %[[W3]][2, 2, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1]
// WHOLE:         %[[Z:.*]] = linalg.generic
// WHOLE-NOT:     linalg.conv_2d_nhwc_hwcf
// WHOLE:         return %[[Y]], %[[Z]]
// By default (VMEM tiles), a strided window reads each output row's pixels
// from its image in VMEM (8 x 8 pixels: 64 rows, one copy): per tap, the
// row's OW pixels every stride-th (4 rows from (oh * 2 + kh) * 8 + kw,
// step 2) by the tap's filter, into the output row's accumulator in VMEM,
// which starts as the init's row and is copied into the result once.
// CHECK-LABEL: func.func @shifted_matmuls(
// CHECK-SAME:    %[[X:.*]]: tensor<1x8x8x4xf32>, %[[W:.*]]: tensor<1x1x4x4xf32>, %[[I:.*]]: tensor<1x4x4x4xf32>
// CHECK:         scf.for %[[N:.*]] = %{{.*}} to %c1
// CHECK:           %[[IMG:.*]] = bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<64x4xf32>
// CHECK:           %[[ROWS:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [64, 4] [1, 1] : tensor<64x4xf32> into tensor<64x4xf32>
// CHECK:           scf.for %[[OH:.*]] = %{{.*}} to %c4{{.*}} step %c1
// CHECK:             %[[A:.*]] = bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<4x4xf32>
// CHECK:             %[[IROW:.*]] = tensor.extract_slice %[[I]][%[[N]], %{{.*}}, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1] : tensor<1x4x4x4xf32> to tensor<4x4xf32>
// CHECK:             %[[A0:.*]] = tensor.insert_slice %[[IROW]] into %{{.*}}[0, 0] [4, 4] [1, 1]
// CHECK:             arith.muli %{{.*}}, %c2{{.*}} : index
// CHECK:             %[[P:.*]] = tensor.extract_slice %[[ROWS]][%{{.*}}, 0] [4, 4] [2, 1] : tensor<64x4xf32> to tensor<4x4xf32>
// CHECK:             linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[A0]] : tensor<4x4xf32>)
// CHECK:             linalg.copy ins(%{{.*}} : tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xf32>)
// The second convolution: nine taps on 2-pixel rows taken every other one.
// CHECK:           scf.for
// CHECK-COUNT-9:     tensor.extract_slice %{{.*}}[%{{.*}}, 0] [2, 4] [2, 1] : tensor<64x4xf32> to tensor<2x4xf32>
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
func.func @shifted_matmuls(%x: tensor<1x8x8x4xf32>, %w: tensor<1x1x4x4xf32>, %i: tensor<1x4x4x4xf32>, %w3: tensor<3x3x4x4xf32>, %i3: tensor<1x4x2x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x2x4xf32>) {
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x4xf32>, tensor<1x1x4x4xf32>) outs(%i : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %z = linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%x, %w3 : tensor<1x8x8x4xf32>, tensor<3x3x4x4xf32>) outs(%i3 : tensor<1x4x2x4xf32>) -> tensor<1x4x2x4xf32>
  return %y, %z : tensor<1x4x4x4xf32>, tensor<1x4x2x4xf32>
}

// -----

// Stride 1: the taps run over flattened rows. Per image, its 6 x 7 pixels
// go into a VMEM tensor of the padded image's rows (9 x 9 = 81, the halo
// and the one row the last tap reads past the image filled with the pad's
// value): one copy per input row, at (r + 1) * 9 + 1. Then per tile of
// whole output rows (all 6 rows of 9: 54, within 128), an accumulator in
// VMEM filled like the init takes the nine taps' 54 x 4 by 4 x 5
// contractions, each reading the image's rows from oh0 * 9 + the tap's
// offset (0, 1, 2, 9, ..., 20); its rows r * 9 + [0, 7) are copied into
// the 2 x 6 x 7 x 5 result, the other 2 of each 9 dropped.
// CHECK-LABEL: func.func @flat_rows(
// CHECK-SAME:    %[[X:.*]]: tensor<2x6x7x4xf32>, %[[W:.*]]: tensor<3x3x4x5xf32>
// CHECK:         %[[R:.*]] = scf.for %[[N:.*]] = %{{.*}} to %c2 step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<2x6x7x5xf32>)
// CHECK:           %[[IMG:.*]] = bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<81x4xf32>
// CHECK:           %[[IMG0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[IMG]] : tensor<81x4xf32>)
// CHECK:           %[[ROW0:.*]] = tensor.extract_slice %[[X]][%[[N]], 0, 0, 0] [1, 1, 7, 4]
// CHECK:           %[[FLAT0:.*]] = tensor.collapse_shape %[[ROW0]] {{\[}}[0, 1, 2], [3]] : tensor<1x1x7x4xf32> into tensor<7x4xf32>
// CHECK:           tensor.insert_slice %[[FLAT0]] into %[[IMG0]][10, 0] [7, 4] [1, 1]
// CHECK:           tensor.extract_slice %[[X]][%[[N]], 5, 0, 0] [1, 1, 7, 4]
// CHECK:           %[[IMG6:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[55, 0] [7, 4] [1, 1]
// CHECK:           scf.for %[[OH:.*]] = %{{.*}} to %c6{{.*}} step %c6
// CHECK:             %[[A:.*]] = bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<54x5xf32>
// CHECK:             %[[A0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : tensor<54x5xf32>)
// CHECK:             %[[M:.*]] = arith.muli %[[OH]], %c9{{.*}} : index
// CHECK:             %[[R0:.*]] = arith.addi %[[M]], %c0{{.*}} : index
// CHECK:             %[[S0:.*]] = tensor.extract_slice %[[IMG6]][%[[R0]], 0] [54, 4] [1, 1] : tensor<81x4xf32> to tensor<54x4xf32>
// CHECK:             %[[T0:.*]] = tensor.extract_slice %[[W]][0, 0, 0, 0] [1, 1, 4, 5]
// CHECK:             %[[A1:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[S0]], %[[T0]] : tensor<54x4xf32>, tensor<4x5xf32>) outs(%[[A0]] : tensor<54x5xf32>)
// CHECK:               arith.mulf
// CHECK:               arith.addf
// CHECK:             arith.addi %[[M]], %c1{{.*}} : index
// CHECK:             linalg.generic {{.*}} outs(%[[A1]] : tensor<54x5xf32>)
// CHECK:             arith.addi %[[M]], %c9{{.*}} : index
// CHECK:             arith.addi %[[M]], %c20{{.*}} : index
// CHECK:             %[[A9:.*]] = linalg.generic
// CHECK:             %[[ROW:.*]] = tensor.extract_slice %[[A9]][0, 0] [7, 5] [1, 1] : tensor<54x5xf32> to tensor<7x5xf32>
// CHECK:             %[[OH0:.*]] = arith.addi %[[OH]], %c0{{.*}} : index
// CHECK:             %[[D:.*]] = tensor.extract_slice %{{.*}}[%[[N]], %[[OH0]], 0, 0] [1, 1, 7, 5] [1, 1, 1, 1] : tensor<2x6x7x5xf32> to tensor<7x5xf32>
// CHECK:             %[[C:.*]] = linalg.copy ins(%[[ROW]] : tensor<7x5xf32>) outs(%[[D]] : tensor<7x5xf32>)
// CHECK:             tensor.insert_slice %[[C]] into %{{.*}}[%[[N]], %[[OH0]], 0, 0] [1, 1, 7, 5] [1, 1, 1, 1]
// CHECK:             tensor.extract_slice %[[A9]][45, 0] [7, 5] [1, 1]
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
// CHECK:         return %[[R]]
// Tiles of 32 rows: 3 whole output rows of 9 (27 rows) per tile, twice.
// T32-LABEL: func.func @flat_rows(
// T32:         scf.for %{{.*}} = %{{.*}} to %c6{{.*}} step %c3
// T32:           bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<27x5xf32>
// T32-NOT:       bufferization.alloc_tensor
// T32:         return
// With 8 KiB of VMEM the image (81 x 4 x 4 bytes) takes more than an
// eighth: the taps read its rows from the padded input in HBM, the
// accumulator tiles (2 KiB with pixels and tap) still in VMEM.
// HBMROWS-LABEL: func.func @flat_rows(
// HBMROWS:         %[[P:.*]] = tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 2, 1, 0]
// HBMROWS:         %[[F:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0], [1, 2], [3]] : tensor<2x9x9x4xf32> into tensor<2x81x4xf32>
// HBMROWS:         scf.for %[[N:.*]] = %{{.*}} to %c2
// HBMROWS-NOT:       bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<81x4xf32>
// HBMROWS:           %[[IMG:.*]] = tensor.extract_slice %[[F]][%[[N]], 0, 0] [1, 81, 4] [1, 1, 1] : tensor<2x81x4xf32> to tensor<81x4xf32>
// HBMROWS:           bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<54x5xf32>
// HBMROWS:           tensor.extract_slice %[[IMG]][%{{.*}}, 0] [54, 4] [1, 1]
// Without VMEM tiles (vmem-space=0), one 2 x 54 x 4 by 4 x 5 contraction
// per tap over both images into a 2 x 54 x 5 accumulator.
// WHOLE-LABEL: func.func @flat_rows(
// WHOLE-SAME:    %[[X:.*]]: tensor<2x6x7x4xf32>, %[[W:.*]]: tensor<3x3x4x5xf32>
// WHOLE:         %[[F:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3]] : tensor<2x9x9x4xf32> into tensor<2x81x4xf32>
// WHOLE-NOT:     scf.for
// WHOLE:         %[[A0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x54x5xf32>)
// WHOLE:         %[[S0:.*]] = tensor.extract_slice %[[F]][0, 0, 0] [2, 54, 4] [1, 1, 1]
// WHOLE:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[S0]], %{{.*}} : tensor<2x54x4xf32>, tensor<4x5xf32>) outs(%[[A0]] : tensor<2x54x5xf32>)
// WHOLE:         tensor.extract_slice %[[F]][0, 20, 0] [2, 54, 4]
// WHOLE:         tensor.expand_shape %{{.*}} output_shape [2, 6, 9, 5]
func.func @flat_rows(%x: tensor<2x6x7x4xf32>, %w: tensor<3x3x4x5xf32>) -> tensor<2x6x7x5xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<2x6x7x4xf32> to tensor<2x8x9x4xf32>
  %e = tensor.empty() : tensor<2x6x7x5xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<2x6x7x5xf32>) -> tensor<2x6x7x5xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<2x8x9x4xf32>, tensor<3x3x4x5xf32>) outs(%i : tensor<2x6x7x5xf32>) -> tensor<2x6x7x5xf32>
  return %y : tensor<2x6x7x5xf32>
}

// Dilation 2, an input that is not a pad and an init that is not a fill:
// taps 2 rows and 2 pixel rows (16) apart. The image's rows go into VMEM
// whole (one copy of 64 rows: no padding of W), the row the last tap reads
// past them zero; each accumulator tile starts at zero with the init's
// rows of 4 copied in at r * 8.
// CHECK-LABEL: func.func @flat_rows_init(
// CHECK-SAME:    %[[X:.*]]: tensor<1x8x8x4xf32>, %[[W:.*]]: tensor<3x3x4x5xf32>, %[[I:.*]]: tensor<1x4x4x5xf32>
// CHECK:           %[[IMG:.*]] = bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<72x4xf32>
// CHECK:           %[[IMG0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[IMG]] : tensor<72x4xf32>)
// CHECK:           %[[ALL:.*]] = tensor.extract_slice %[[X]][%{{.*}}, 0, 0, 0] [1, 8, 8, 4]
// CHECK:           %[[FLAT:.*]] = tensor.collapse_shape %[[ALL]] {{\[}}[0, 1, 2], [3]] : tensor<1x8x8x4xf32> into tensor<64x4xf32>
// CHECK:           tensor.insert_slice %[[FLAT]] into %[[IMG0]][0, 0] [64, 4] [1, 1]
// CHECK:             %[[A:.*]] = bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<32x5xf32>
// CHECK:             %[[A0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : tensor<32x5xf32>)
// CHECK:             %[[IR:.*]] = tensor.extract_slice %[[I]][%{{.*}}, %{{.*}}, 0, 0] [1, 1, 4, 5] [1, 1, 1, 1] : tensor<1x4x4x5xf32> to tensor<4x5xf32>
// CHECK:             tensor.insert_slice %[[IR]] into %[[A0]][0, 0] [4, 5] [1, 1]
// CHECK:             tensor.insert_slice %{{.*}} into %{{.*}}[24, 0] [4, 5] [1, 1]
// CHECK:             arith.addi %{{.*}}, %c2{{.*}} : index
// CHECK:             arith.addi %{{.*}}, %c4{{.*}} : index
// CHECK:             arith.addi %{{.*}}, %c16{{.*}} : index
// CHECK:             arith.addi %{{.*}}, %c36{{.*}} : index
// CHECK:             linalg.copy ins(%{{.*}} : tensor<4x5xf32>) outs(%{{.*}} : tensor<4x5xf32>)
func.func @flat_rows_init(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x5xf32>, %i: tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32> {
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x4xf32>, tensor<3x3x4x5xf32>) outs(%i : tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32>
  return %y : tensor<1x4x4x5xf32>
}

// A narrow output (2 of 8 columns) keeps one op per output row: without
// VMEM tiles on the input's slices, with them on rows of its image in VMEM
// (per tap 2 pixels, the taps 3 pixels apart: dilation 3).
// WHOLE-LABEL: func.func @narrow_output(
// WHOLE-NOT:     tensor.collapse_shape
// WHOLE:         tensor.extract_slice %arg0[0, 0, 0, 0] [1, 2, 2, 4] [1, 1, 1, 1] : tensor<1x8x8x4xf32> to tensor<1x2x2x4xf32>
// CHECK-LABEL: func.func @narrow_output(
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c2{{.*}} step %c1
// CHECK-COUNT-9:      tensor.extract_slice %{{.*}}[%{{.*}}, 0] [2, 4] [1, 1] : tensor<64x4xf32> to tensor<2x4xf32>
func.func @narrow_output(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x5xf32>, %i: tensor<1x2x2x5xf32>) -> tensor<1x2x2x5xf32> {
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<3> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x4xf32>, tensor<3x3x4x5xf32>) outs(%i : tensor<1x2x2x5xf32>) -> tensor<1x2x2x5xf32>
  return %y : tensor<1x2x2x5xf32>
}

// -----

// A depthwise convolution: one elementwise multiply-add per tap, the tap's
// C weights indexed by the channel (broadcast along the pixels).
// WHOLE-LABEL: func.func @depthwise(
// WHOLE-SAME:    %[[X:.*]]: tensor<1x8x8x4xf32>, %[[W:.*]]: tensor<3x3x4xf32>, %[[I:.*]]: tensor<1x3x3x4xf32>
// WHOLE:         %[[P:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 3, 3, 4] [1, 2, 2, 1] : tensor<1x8x8x4xf32> to tensor<1x3x3x4xf32>
// WHOLE:         %[[T:.*]] = tensor.extract_slice %[[W]][0, 0, 0] [1, 1, 4] [1, 1, 1] : tensor<3x3x4xf32> to tensor<4xf32>
// WHOLE:         %[[A:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[P]], %[[T]] : tensor<1x3x3x4xf32>, tensor<4xf32>) outs(%[[I]] : tensor<1x3x3x4xf32>)
// WHOLE:           arith.mulf
// WHOLE:           arith.addf
// WHOLE-COUNT-8: linalg.generic
// WHOLE-NOT:     linalg.depthwise_conv_2d_nhwc_hwc
// With VMEM tiles: per output row and tap, 3 pixels every other one of the
// image in VMEM times the tap's weights, into the row's accumulator.
// CHECK-LABEL: func.func @depthwise(
// CHECK:           bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<64x4xf32>
// CHECK:           scf.for
// CHECK:             bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<3x4xf32>
// CHECK-COUNT-9:     tensor.extract_slice %{{.*}}[%{{.*}}, 0] [3, 4] [2, 1] : tensor<64x4xf32> to tensor<3x4xf32>
func.func @depthwise(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4xf32>, %i: tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32> {
  %y = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x4xf32>, tensor<3x3x4xf32>) outs(%i : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %y : tensor<1x3x3x4xf32>
}

// -----

// Pooling windows (reduce_window max and sum): one elementwise maximum (sum)
// per window tap of the strided input pixels it reads, into the init.
// WHOLE-LABEL: func.func @pooling
// WHOLE-NOT:     linalg.pooling
// WHOLE:         %[[T00:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [2, 4, 4, 8] [1, 2, 2, 1]
// WHOLE:         %[[M0:.*]] = linalg.generic {{.*}} ins(%[[T00]] : tensor<2x4x4x8xf32>) outs(%arg1 : tensor<2x4x4x8xf32>)
// WHOLE:           arith.maximumf
// WHOLE:         tensor.extract_slice %arg0[0, 0, 1, 0] [2, 4, 4, 8] [1, 2, 2, 1]
// WHOLE:         tensor.extract_slice %arg0[0, 1, 0, 0] [2, 4, 4, 8] [1, 2, 2, 1]
// WHOLE:         tensor.extract_slice %arg0[0, 1, 1, 0] [2, 4, 4, 8] [1, 2, 2, 1]
// WHOLE:         %[[MAX:.*]] = linalg.generic
// WHOLE:           arith.maximumf
// WHOLE:         tensor.extract_slice %arg0[0, 0, 0, 0] [2, 4, 4, 8] [1, 2, 2, 1]
// WHOLE:         linalg.generic {{.*}} outs(%arg1 : tensor<2x4x4x8xf32>)
// WHOLE:           arith.addf
// WHOLE:         return %[[MAX]]
// With VMEM tiles: each of the two images in VMEM, per output row four
// taps of 4 pixels every other one.
// CHECK-LABEL: func.func @pooling
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c2
// CHECK:           bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<64x8xf32>
// CHECK-COUNT-4:     tensor.extract_slice %{{.*}}[%{{.*}}, 0] [4, 8] [2, 1] : tensor<64x8xf32> to tensor<4x8xf32>
func.func @pooling(%x: tensor<2x8x8x8xf32>, %init: tensor<2x4x4x8xf32>) -> (tensor<2x4x4x8xf32>, tensor<2x4x4x8xf32>) {
  %w = tensor.empty() : tensor<2x2xf32>
  %m = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<2x8x8x8xf32>, tensor<2x2xf32>) outs(%init : tensor<2x4x4x8xf32>) -> tensor<2x4x4x8xf32>
  %s = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<2x8x8x8xf32>, tensor<2x2xf32>) outs(%init : tensor<2x4x4x8xf32>) -> tensor<2x4x4x8xf32>
  return %m, %s : tensor<2x4x4x8xf32>, tensor<2x4x4x8xf32>
}

// -----

// Contractions with a vector operand as matmuls: the vector as one column
// (matvec, dot's right side) or one row (vecmat, dot's left side), the init
// reshaped alike, the result collapsed back (to rank 0 for dot).
// CHECK-LABEL: func.func @vector_contractions
// CHECK:         %[[X:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1]] output_shape [128, 1] : tensor<128xf32> into tensor<128x1xf32>
// CHECK:         %[[Y:.*]] = tensor.expand_shape %arg3 {{\[\[}}0, 1]] output_shape [64, 1] : tensor<64xf32> into tensor<64x1xf32>
// CHECK:         %[[MV:.*]] = linalg.matmul ins(%arg0, %[[X]] : tensor<64x128xf32>, tensor<128x1xf32>) outs(%[[Y]] : tensor<64x1xf32>)
// CHECK:         tensor.collapse_shape %[[MV]] {{\[\[}}0, 1]] : tensor<64x1xf32> into tensor<64xf32>
// CHECK:         linalg.matmul ins(%{{.*}}, %arg0 : tensor<1x64xf32>, tensor<64x128xf32>) outs(%{{.*}} : tensor<1x128xf32>)
// CHECK:         %[[D:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<1x128xf32>, tensor<128x1xf32>) outs(%{{.*}} : tensor<1x1xf32>)
// CHECK:         tensor.collapse_shape %[[D]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK-NOT:     linalg.matvec
// CHECK-NOT:     linalg.vecmat
// CHECK-NOT:     linalg.dot
func.func @vector_contractions(%a: tensor<64x128xf32>, %x: tensor<128xf32>, %y: tensor<64xf32>, %iy: tensor<64xf32>, %ix: tensor<128xf32>, %s: tensor<f32>) -> (tensor<64xf32>, tensor<128xf32>, tensor<f32>) {
  %0 = linalg.matvec ins(%a, %x : tensor<64x128xf32>, tensor<128xf32>) outs(%iy : tensor<64xf32>) -> tensor<64xf32>
  %1 = linalg.vecmat ins(%y, %a : tensor<64xf32>, tensor<64x128xf32>) outs(%ix : tensor<128xf32>) -> tensor<128xf32>
  %2 = linalg.dot ins(%x, %1 : tensor<128xf32>, tensor<128xf32>) outs(%s : tensor<f32>) -> tensor<f32>
  return %0, %1, %2 : tensor<64xf32>, tensor<128xf32>, tensor<f32>
}

// NCHW (torch-mlir's form) as NHWC between transposes; each transpose that
// moves the lanes becomes 2-D transposes in a loop nest over the other
// dimensions: [A x L] slices of the input (one DMA each) to [L x A] slices
// of the output.
// CHECK-LABEL: func.func @nchw(
// CHECK-SAME: %[[X:.*]]: tensor<2x4x6x5xf32>, %[[W:.*]]: tensor<3x4x3x3xf32>
// The input to NHWC: loops over N and H, [C x W] = [4 x 5] slices.
// CHECK: scf.for %[[N:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[H:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][%[[N]], 0, %[[H]], 0] [1, 4, 1, 5] [1, 1, 1, 1]
// CHECK: %[[T:.*]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1], [2, 3]] : tensor<1x4x1x5xf32> into tensor<4x5xf32>
// CHECK: linalg.transpose ins(%[[T]] : tensor<4x5xf32>) outs(%{{.*}} : tensor<5x4xf32>) permutation = [1, 0]
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2], [3]] {{.*}} : tensor<5x4xf32> into tensor<1x1x5x4xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[N]], %[[H]], 0, 0] [1, 1, 5, 4] [1, 1, 1, 1]
// The filter to HWCF, the init to NHWC, the NHWC convolution's nine taps,
// then the result back to NCHW.
// CHECK: scf.for
// CHECK: linalg.transpose {{.*}} permutation = [1, 0]
// CHECK: scf.for
// CHECK: linalg.transpose {{.*}} permutation = [1, 0]
// CHECK-COUNT-9: linalg.generic
// CHECK: scf.for
// CHECK: linalg.transpose {{.*}} permutation = [1, 0]
// CHECK: return %{{.*}} : tensor<2x3x4x3xf32>
func.func @nchw(%x: tensor<2x4x6x5xf32>, %w: tensor<3x4x3x3xf32>, %init: tensor<2x3x4x3xf32>) -> tensor<2x3x4x3xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<2x4x6x5xf32>, tensor<3x4x3x3xf32>) outs(%init : tensor<2x3x4x3xf32>) -> tensor<2x3x4x3xf32>
  return %c : tensor<2x3x4x3xf32>
}

// A transpose that keeps the lanes is left to the tiles.
// CHECK-LABEL: func.func @keeps_lanes(
// CHECK-NOT: scf.for
// CHECK: linalg.transpose {{.*}} permutation = [1, 0, 2]
func.func @keeps_lanes(%x: tensor<4x6x8xf32>, %init: tensor<6x4x8xf32>) -> tensor<6x4x8xf32> {
  %t = linalg.transpose ins(%x : tensor<4x6x8xf32>) outs(%init : tensor<6x4x8xf32>) permutation = [1, 0, 2]
  return %t : tensor<6x4x8xf32>
}

// Rank 3, the lanes moved to the front (dimension 1 becomes the lanes): a
// loop over dimension 0, [6 x 8] slices to [8 x 6] slices of the output
// (its dimensions 0 and 2).
// CHECK-LABEL: func.func @lanes_first(
// CHECK: scf.for %[[I:[a-z0-9_]+]] = %{{.*}} to %c4
// CHECK: tensor.extract_slice %{{.*}}[%[[I]], 0, 0] [1, 6, 8] [1, 1, 1]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<6x8xf32>) outs(%{{.*}} : tensor<8x6xf32>) permutation = [1, 0]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, %[[I]], 0] [8, 1, 6] [1, 1, 1]
func.func @lanes_first(%x: tensor<4x6x8xf32>, %init: tensor<8x4x6xf32>) -> tensor<8x4x6xf32> {
  %t = linalg.transpose ins(%x : tensor<4x6x8xf32>) outs(%init : tensor<8x4x6xf32>) permutation = [2, 0, 1]
  return %t : tensor<8x4x6xf32>
}

// -----

// A loop over zero iterations computes no element: a convolution over zero
// channels, or a matmul over an empty reduction, gives its init (the fill);
// an op on buffers with an empty loop does nothing.

// CHECK-LABEL: func.func @empty_loops(
// CHECK-SAME: %[[X:.*]]: tensor<1x8x8x0xf32>, %[[W:.*]]: tensor<3x3x0x4xf32>, %[[A:.*]]: tensor<16x0xf32>, %[[B:.*]]: tensor<0x8xf32>, %[[BUF:.*]]: memref<0x8xf32>)
// CHECK-NOT: linalg.conv_2d
// CHECK-NOT: linalg.matmul
// CHECK-NOT: linalg.exp
// CHECK: %[[F:.*]] = linalg.fill {{.*}} -> tensor<1x6x6x4xf32>
// CHECK: %[[G:.*]] = linalg.fill {{.*}} -> tensor<16x8xf32>
// CHECK: return %[[F]], %[[G]]
func.func @empty_loops(%x: tensor<1x8x8x0xf32>, %w: tensor<3x3x0x4xf32>, %a: tensor<16x0xf32>, %b: tensor<0x8xf32>, %buf: memref<0x8xf32>) -> (tensor<1x6x6x4xf32>, tensor<16x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x6x6x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x0xf32>, tensor<3x3x0x4xf32>) outs(%f : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %e1 = tensor.empty() : tensor<16x8xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x0xf32>, tensor<0x8xf32>) outs(%f1 : tensor<16x8xf32>) -> tensor<16x8xf32>
  linalg.exp ins(%buf : memref<0x8xf32>) outs(%buf : memref<0x8xf32>)
  return %c, %m : tensor<1x6x6x4xf32>, tensor<16x8xf32>
}
