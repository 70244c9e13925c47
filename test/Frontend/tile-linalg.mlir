// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-tile-linalg{tile-rows=32 tile-cols=256 tile-k=128},scf-for-loop-peeling,canonicalize))' | FileCheck %s
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-tile-linalg{vmem-bytes=65536}))' | FileCheck %s --check-prefix=SMALL

// A matmul: 32x256 output tiles, 128 deep; 100 rows are three full tiles
// and a peeled remainder of 4 rows, all static.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.for %[[I:.*]] = %c0 to %c96 step %c32
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c512 step %c256
// CHECK-NEXT: scf.for %[[K:.*]] = %c0 to %c256 step %c128
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<32x128xf32, strided<[256, 1], offset: ?>>, memref<128x256xf32, strided<[512, 1], offset: ?>>) outs(%{{.*}} : memref<32x256xf32, strided<[512, 1], offset: ?>>)
// CHECK: memref.subview %arg0[96, %{{.*}}] [4, 128]
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x128xf32, {{.*}}>, memref<128x256xf32, {{.*}}>) outs(%{{.*}} : memref<4x256xf32, {{.*}}>)
// SMALL-LABEL: func.func @matmul
// A 64 KiB VMEM: the tiles of one op must fit 16 KiB; halving the largest
// tile dimension from 100x512x256 gives 25x32 output tiles of a 32-deep
// reduction (3200 + 4096 + 3200 bytes).
// SMALL: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<25x32xf32, {{.*}}>, memref<32x32xf32, {{.*}}>) outs(%{{.*}} : memref<25x32xf32, {{.*}}>)
func.func @matmul(%a: memref<100x256xf32>, %b: memref<256x512xf32>, %c: memref<100x512xf32>) {
  linalg.matmul ins(%a, %b : memref<100x256xf32>, memref<256x512xf32>) outs(%c : memref<100x512xf32>)
  return
}

// -----

// A row reduction: rows and columns tiled alike (the partial row sums
// accumulate into the output); the 1-D bias of an elementwise op is tiled
// along the columns; dimensions within a tile are not tiled.
// CHECK-LABEL: func.func @reduce_and_bias
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c1024 step %c256
// CHECK: linalg.reduce ins(%{{.*}} : memref<32x256xf32, {{.*}}>) outs(%{{.*}} : memref<32xf32, {{.*}}>)
// CHECK: scf.for %{{.*}} = %c0 to %c1024 step %c256
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<16x256xf32, {{.*}}>, memref<256xf32, {{.*}}>)
// SMALL-LABEL: func.func @reduce_and_bias
// SMALL: linalg.reduce ins(%{{.*}} : memref<32x64xf32, {{.*}}>) outs(%{{.*}} : memref<32xf32, {{.*}}>)
// SMALL: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<16x64xf32, {{.*}}>, memref<64xf32, {{.*}}>)
func.func @reduce_and_bias(%x: memref<64x1024xf32>, %s: memref<64xf32>, %y: memref<16x1024xf32>, %b: memref<1024xf32>) {
  linalg.reduce ins(%x : memref<64x1024xf32>) outs(%s : memref<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%y, %b : memref<16x1024xf32>, memref<1024xf32>) outs(%y : memref<16x1024xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Rank 3: the leading parallel loops fold into rows (the named op goes
// through its generic form); the bias keeps its 1-D shape.
// CHECK-LABEL: func.func @batched
// CHECK-DAG: %[[X:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : memref<2x8x128xf32> into memref<16x128xf32>
// CHECK-DAG: %[[Y:.*]] = memref.collapse_shape %arg2 {{\[\[}}0, 1], [2]] : memref<2x8x128xf32> into memref<16x128xf32>
// CHECK: linalg.generic {{.*}} ins(%[[X]], %arg1 : memref<16x128xf32>, memref<128xf32>) outs(%[[Y]] : memref<16x128xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<16x128xf32>) outs(%{{.*}} : memref<16x128xf32>)
// CHECK: math.exp
func.func @batched(%a: memref<2x8x128xf32>, %b: memref<128xf32>, %y: memref<2x8x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, i, j) -> (n, i, j)>, affine_map<(n, i, j) -> (j)>, affine_map<(n, i, j) -> (n, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b : memref<2x8x128xf32>, memref<128xf32>) outs(%y : memref<2x8x128xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    linalg.yield %s : f32
  }
  linalg.exp ins(%y : memref<2x8x128xf32>) outs(%y : memref<2x8x128xf32>)
  return
}

// -----

// A batched matmul: one iteration per batch index around a linalg.matmul on
// rank-reduced 2-D views (then tiled like any matmul).
// CHECK-LABEL: func.func @batch_matmul
// CHECK: scf.for %[[B:.*]] = %c0 to %c8 step %c1
// CHECK-DAG: memref.subview %arg0[%[[B]], 0, 0] [1, 64, 128] [1, 1, 1]
// CHECK-DAG: memref.subview %{{.*}}[0, 0, 0] [1, 64, 128] [1, 1, 1] : memref<1x64x128xf32, strided<[8192, 128, 1], offset: ?>> to memref<64x128xf32, strided<[128, 1], offset: ?>>
// CHECK: scf.for
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<32x128xf32, strided<[128, 1], offset: ?>>, memref<128x64xf32, strided<[64, 1], offset: ?>>) outs(%{{.*}} : memref<32x64xf32, strided<[64, 1], offset: ?>>)
// CHECK-NOT: linalg.generic
// SMALL-LABEL: func.func @batch_matmul
// SMALL: linalg.matmul
func.func @batch_matmul(%a: memref<8x64x128xf32>, %b: memref<8x128x64xf32>, %c: memref<8x64x64xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<8x64x128xf32>, memref<8x128x64xf32>) outs(%c : memref<8x64x64xf32>)
  return
}

// -----

// A broadcast of a unit dimension ((d0, d1, 0), which upstream's collapse
// cannot fold into rows): a loop over d0 around a 2-D column broadcast.
// CHECK-LABEL: func.func @unit_broadcast
// CHECK: scf.for %[[I:.*]] = %c0 to %c4 step %c1
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : memref<32x1xf32, strided<[1, 1], offset: ?>>) outs(%{{.*}} : memref<32x64xf32, strided<[64, 1], offset: ?>>)
// SMALL-LABEL: func.func @unit_broadcast
func.func @unit_broadcast(%a: memref<4x64x1xf32>, %c: memref<4x64x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : memref<4x64x1xf32>) outs(%c : memref<4x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// Heads out of order (64 x 4 x 32 read as 4 x 64 x 32, a split into heads):
// per head, a strided 2-D copy, no transpose.
// CHECK-LABEL: func.func @heads
// CHECK: scf.for %[[H:.*]] = %c0 to %c4 step %c1
// CHECK: memref.subview %arg0[0, %[[H]], 0] [64, 1, 32] [1, 1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[ID:.*]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : memref<32x32xf32, strided<[128, 1], offset: ?>>) outs(%{{.*}} : memref<32x32xf32, strided<[32, 1], offset: ?>>)
// SMALL-LABEL: func.func @heads
func.func @heads(%a: memref<64x4x32xf32>, %c: memref<4x64x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : memref<64x4x32xf32>) outs(%c : memref<4x64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// Heads put back (4 x 64 x 32 read into 64 x 4 x 32, loops (s, h, d)): the
// tiles' rows are the longest loop, s, not the loop before the lanes, h:
// per head a strided 2-D copy of 64 rows (two tiles of 32), not 64 copies
// of 4 rows.
// CHECK-LABEL: func.func @heads_back
// CHECK: scf.for %[[H:.*]] = %c0 to %c4 step %c1
// CHECK: memref.subview %arg0[%[[H]], 0, 0] [1, 64, 32] [1, 1, 1]
// CHECK: memref.subview %arg1[0, %[[H]], 0] [64, 1, 32] [1, 1, 1]
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<32x32xf32, strided<[32, 1], offset: ?>>) outs(%{{.*}} : memref<32x32xf32, strided<[128, 1], offset: ?>>)
// SMALL-LABEL: func.func @heads_back
func.func @heads_back(%a: memref<4x64x32xf32>, %c: memref<64x4x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : memref<4x64x32xf32>) outs(%c : memref<64x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// An op reading linalg.index keeps its loops (a collapsed index would be a
// division and a remainder): the leading loop runs around 2-D tiles, its
// index becomes the loop's induction variable, and linalg.index 2 becomes
// linalg.index 1 of the 2-loop op.
// CHECK-LABEL: func.func @indexed_3d
// CHECK: scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<8x16xf32, strided<[16, 1], offset: ?>>) outs(%{{.*}} : memref<8x16xf32, strided<[16, 1], offset: ?>>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT: arith.cmpi sge, %[[H]], %[[J]] : index
func.func @indexed_3d(%x: memref<2x8x16xf32>, %o: memref<2x8x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(h, i, j) -> (h, i, j)>, affine_map<(h, i, j) -> (h, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<2x8x16xf32>) outs(%o : memref<2x8x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %h = linalg.index 0 : index
    %j = linalg.index 2 : index
    %c = arith.cmpi sge, %h, %j : index
    %z = arith.constant 0.0 : f32
    %s = arith.select %c, %a, %z : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A contraction reading B transposed is tiled by its roles: M by tile-rows,
// N by tile-cols, K by tile-k, whatever the loops' order ((n, m, k) here).
// CHECK-LABEL: func.func @transposed_b_roles
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<32x128xf32, strided<[300, 1], offset: ?>>, memref<256x128xf32, strided<[300, 1], offset: ?>>) outs(%{{.*}} : memref<32x256xf32, strided<[512, 1], offset: ?>>)
func.func @transposed_b_roles(%x: memref<64x300xf32>, %w: memref<512x300xf32>, %c: memref<64x512xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, m, k) -> (m, k)>, affine_map<(n, m, k) -> (n, k)>, affine_map<(n, m, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<64x300xf32>, memref<512x300xf32>) outs(%c : memref<64x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An NCHW bias read by (d1): the leading loops do not fold (the bias
// would need a division), the trailing ones do: (n, c, h * w), a loop over
// n around 2-D tiles that read the bias as a column.
// CHECK-LABEL: func.func @nchw_bias
// CHECK: scf.for %[[N:[a-z0-9_]+]] =
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<16xf32{{.*}}>, memref<16x120xf32{{.*}}>) outs(%{{.*}} : memref<16x120xf32{{.*}}>)
func.func @nchw_bias(%b: memref<16xf32>, %x: memref<2x16x12x10xf32>, %o: memref<2x16x12x10xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b, %x : memref<16xf32>, memref<2x16x12x10xf32>) outs(%o : memref<2x16x12x10xf32>) {
  ^bb0(%a: f32, %v: f32, %out: f32):
    %s = arith.addf %a, %v : f32
    linalg.yield %s : f32
  }
  return
}
