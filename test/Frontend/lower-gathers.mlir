// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-lower-gathers,canonicalize))' | FileCheck %s
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-lower-gathers{vmem-bytes=4096},canonicalize))' | FileCheck %s --check-prefix=HBM

// A row gather: one slice of the table per (i, j), at an index computed
// from an elementwise producer of the ids (forwarded, not stored).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#pre = affine_map<(d0, d1, d2) -> (d0, d1)>
// The gathered tensor (3 KiB) fits a quarter of VMEM: a 2-D VMEM buffer,
// rows at the linearized (i, j), the nest marked for overlapped DMAs, the
// result viewed at rank 3 again.
// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[IDS:.*]]: tensor<4x6xi32>, %[[T:.*]]: tensor<50x32xf32>)
// CHECK: %[[BUF:.*]] = bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<24x32xf32>
// CHECK: scf.for %[[I:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[BUF]])
// CHECK: scf.for %[[J:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: %[[AT:.*]] = affine.apply #{{.*}}(%[[I]], %[[J]])
// CHECK: %[[ID:.*]] = tensor.extract %[[IDS]][%[[I]], %[[J]]] : tensor<4x6xi32>
// CHECK: %[[UP:.*]] = arith.addi %[[ID]], %{{.*}} : i32
// CHECK: %[[ROW:.*]] = arith.index_cast %[[UP]] : i32 to index
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[T]][%[[ROW]], 0] [1, 32] [1, 1] : tensor<50x32xf32> to tensor<1x32xf32>
// CHECK: tensor.insert_slice %[[SLICE]] into %[[ACC]][%[[AT]], 0] [1, 32] [1, 1]
// CHECK: } {accel.gather}
// CHECK: %[[VIEW:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [4, 6, 32]
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[VIEW]] : tensor<4x6x32xf32>)
// CHECK-NOT: tensor.extract
// CHECK: arith.mulf
// CHECK: return %[[G]]
// With less VMEM, an HBM tensor of the generic's shape, filled unmarked.
// HBM-LABEL: func.func @rows
// HBM-NOT: alloc_tensor
// HBM: scf.for %[[I:[a-z0-9_]+]] = {{.*}} -> (tensor<4x6x32xf32>)
// HBM: scf.for %[[J:[a-z0-9_]+]] =
// HBM: %[[SLICE:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, 0] [1, 32] [1, 1] : tensor<50x32xf32> to tensor<1x32xf32>
// HBM: %[[WIDE:.*]] = tensor.expand_shape %[[SLICE]] {{\[}}[0, 1], [2]]
// HBM: tensor.insert_slice %[[WIDE]] into %{{.*}}[%[[I]], %[[J]], 0] [1, 1, 32] [1, 1, 1]
// HBM-NOT: accel.gather
// HBM: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x6x32xf32>)
func.func @rows(%ids: tensor<4x6xi32>, %t: tensor<50x32xf32>) -> tensor<4x6x32xf32> {
  %one = arith.constant 1 : i32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4x6xi32>
  %plus = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4x6xi32>) outs(%e : tensor<4x6xi32>) {
  ^bb0(%i: i32, %o: i32):
    %a = arith.addi %i, %one : i32
    linalg.yield %a : i32
  } -> tensor<4x6xi32>
  %e3 = tensor.empty() : tensor<4x6x32xf32>
  %g = linalg.generic {indexing_maps = [#pre, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%plus : tensor<4x6xi32>) outs(%e3 : tensor<4x6x32xf32>) {
  ^bb0(%w: i32, %o: f32):
    %k = linalg.index 2 : index
    %r = arith.index_cast %w : i32 to index
    %v = tensor.extract %t[%r, %k] : tensor<50x32xf32>
    %s = arith.mulf %v, %two : f32
    linalg.yield %s : f32
  } -> tensor<4x6x32xf32>
  return %g : tensor<4x6x32xf32>
}

// -----

// A mask from i32 data, uniform along the row, through a reduction over a
// unit dimension: a 0.0/1.0 tensor of one element per (i), one DMA each
// from a two-element constant, compared with 0.0 where it is read.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>
#row = affine_map<(d0, d1) -> (d0)>
#red = affine_map<(d0, d1) -> (d0, d1)>
#redout = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @mask
// CHECK: %[[TABLE:.*]] = arith.constant dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK: scf.for %[[I:[a-z0-9_]+]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<8xf32>)
// CHECK: %[[V:.*]] = tensor.extract %{{.*}}[%[[I]], %{{.*}}] : tensor<8x1xi32>
// CHECK: %[[BIT:.*]] = arith.cmpi sgt, %[[V]], %{{.*}} : i32
// CHECK: %[[AT:.*]] = arith.index_castui %[[BIT]] : i1 to index
// CHECK: %[[ONE:.*]] = tensor.extract_slice %[[TABLE]][%[[AT]]] [1] [1]
// CHECK: tensor.insert_slice %[[ONE]] into %[[ACC]][%[[I]]] [1] [1]
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}]
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<8xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[M:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[C:.*]] = arith.cmpf une, %[[M]], %{{.*}} : f32
// CHECK: arith.select %[[C]], %[[X]], %{{.*}} : f32
func.func @mask(%x: tensor<8x16xf32>, %n: tensor<8x1xi32>) -> tensor<8x16xf32> {
  %true = arith.constant true
  %zero = arith.constant 0 : i32
  %f0 = arith.constant 0.0 : f32
  %eb = tensor.empty() : tensor<8xi1>
  %init = linalg.fill ins(%true : i1) outs(%eb : tensor<8xi1>) -> tensor<8xi1>
  %any = linalg.generic {indexing_maps = [#red, #redout], iterator_types = ["parallel", "reduction"]}
      ins(%n : tensor<8x1xi32>) outs(%init : tensor<8xi1>) {
  ^bb0(%v: i32, %o: i1):
    %pos = arith.cmpi sgt, %v, %zero : i32
    %a = arith.andi %o, %pos : i1
    linalg.yield %a : i1
  } -> tensor<8xi1>
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %any : tensor<8x16xf32>, tensor<8xi1>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %m: i1, %o: f32):
    %s = arith.select %m, %a, %f0 : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// A one-hot: the mask depends on the last loop, so each element is one
// DMA, in a loop over that dimension too.
#row = affine_map<(d0, d1) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @one_hot
// CHECK: scf.for %[[I:[a-z0-9_]+]] =
// CHECK: scf.for %[[J:[a-z0-9_]+]] =
// CHECK: %[[L:.*]] = tensor.extract %{{.*}}[%[[I]]] : tensor<5xi32>
// CHECK: %[[JI:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK: arith.cmpi eq, %[[L]], %[[JI]] : i32
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[I]], %[[J]]] [1, 1] [1, 1]
// CHECK: linalg.generic
// CHECK: arith.cmpf une
// CHECK: arith.uitofp
func.func @one_hot(%labels: tensor<5xi32>) -> tensor<5x7xf32> {
  %e = tensor.empty() : tensor<5x7xf32>
  %r = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%labels : tensor<5xi32>) outs(%e : tensor<5x7xf32>) {
  ^bb0(%l: i32, %o: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %eq = arith.cmpi eq, %l, %ji : i32
    %f = arith.uitofp %eq : i1 to f32
    linalg.yield %f : f32
  } -> tensor<5x7xf32>
  return %r : tensor<5x7xf32>
}

// -----

// Generics with no data-dependent read and no integer mask are left as
// they are (a causal mask from the loop indices is the VPU's).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: scf.for
// CHECK: linalg.generic
// CHECK: arith.cmpi sge
func.func @untouched(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %f0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = arith.cmpi sge, %i, %j : index
    %s = arith.select %c, %a, %f0 : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// Reads no subview expresses: a row flip is one DMA per row (the last
// index is the last loop), a lane flip one per element; a lane-strided
// slice becomes such a read first. Other operands stay operands.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (-d0 + 7, d1)>
#lanes = affine_map<(d0, d1) -> (d0, -d1 + 15)>
// CHECK-LABEL: func.func @flips
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK: scf.for %[[I:[a-z0-9_]+]] =
// CHECK: %[[R:.*]] = affine.apply #{{.*}}(%[[I]])
// CHECK: tensor.extract_slice %[[X]][%[[R]], 0] [1, 16] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[X]], %{{.*}} : tensor<8x16xf32>, tensor<8x16xf32>)
// CHECK: arith.addf
// CHECK: scf.for %[[I2:[a-z0-9_]+]] =
// CHECK: scf.for %[[J2:[a-z0-9_]+]] =
// CHECK: %[[C:.*]] = affine.apply #{{.*}}(%[[J2]])
// CHECK: tensor.extract_slice %[[X]][%[[I2]], %[[C]]] [1, 1] [1, 1]
// CHECK: scf.for %[[I3:[a-z0-9_]+]] =
// CHECK: scf.for %[[J3:[a-z0-9_]+]] =
// CHECK: %[[S:.*]] = affine.apply #{{.*}}(%[[J3]])
// CHECK: tensor.extract_slice %[[X]][%[[I3]], %[[S]]] [1, 1] [1, 1]
// CHECK-NOT: tensor.extract_slice %[[X]][0, 0] [8, 8] [1, 2]
func.func @flips(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %a = linalg.generic {indexing_maps = [#id2, #rows, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %x : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %b = linalg.generic {indexing_maps = [#lanes, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%p: f32, %o: f32):
    linalg.yield %p : f32
  } -> tensor<8x16xf32>
  %c = tensor.extract_slice %x[0, 0] [8, 8] [1, 2] : tensor<8x16xf32> to tensor<8x8xf32>
  return %a, %b, %c : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x8xf32>
}
