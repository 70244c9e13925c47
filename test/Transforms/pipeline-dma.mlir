// RUN: accel-opt %s -split-input-file --accel-pipeline-dma='all=true remarks=true compute-distance=0 async-copies=false unroll-rotation=false' -verify-diagnostics | FileCheck %s
// (accel-opt verifies the output after the pass.) The stage checks below pin
// compute-distance=0; pipeline-dma-compute.mlir covers 1, the default.

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Double buffering (distance 1): the ISSUE of tile k is stage 0, its WAIT
// and the matmul stage 1. The prologue issues tile 0 into %b; the kernel
// (iterations 0..2) issues tile k+1 into the copy its rotation holds, waits
// for tile k (the token carried in an iter_arg) and multiplies from the
// other copy; the rotation swaps the two; the epilogue multiplies tile 3,
// which went to the second copy.
// CHECK-LABEL: func.func @double_buffer
// CHECK: %[[B:.*]] = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
// CHECK-NEXT: %[[B2:.*]] = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
// CHECK: %[[T0:.*]] = accel.dma_start %{{.*}}, %[[B]] {accel.pipelined = 0 : i64}
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[L:.*]]:3 = scf.for %[[K:.*]] = %{{.*}} to %[[C3]] step %{{.*}} iter_args(%[[T:.*]] = %[[T0]], %[[X:.*]] = %[[B]], %[[Y:.*]] = %[[B2]])
// CHECK: %[[N:.*]] = accel.dma_start %{{.*}}, %[[Y]]
// CHECK-NEXT: accel.dma_wait %[[T]]
// CHECK-NEXT: accel.matmul %{{.*}}, %[[X]], %{{.*}}
// CHECK-NEXT: scf.yield %[[N]], %[[Y]], %[[X]]
// CHECK: accel.dma_wait %[[L]]#0
// CHECK-NEXT: accel.matmul %{{.*}}, %[[B2]], %{{.*}}
// CHECK-NEXT: return
func.func @double_buffer(%w: memref<512x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %b = accel.alloc : memref<128x128xf32, #vmem>
  scf.for %k = %c0 to %c4 step %c1 {
    %r = arith.muli %k, %c128 : index
    %s = memref.subview %w[%r, 0] [128, 128] [1, 1] : memref<512x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %b : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Stream with a store: loads at stage 0, WAITs and vadd at stage 1, the
// store's ISSUE at stage 1 and its WAIT at stage 2, after the next
// iteration's vadd, which writes the other output copy (rotating output
// buffers). Every buffer gets two copies; the kernel runs iterations 0..1
// (4 trips - 2 stages).
// CHECK-LABEL: func.func @stream
// CHECK-COUNT-6: accel.alloc
// CHECK-NOT: accel.alloc
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C2]] step %{{.*}} iter_args(%[[TX:[^ ]*]] = %{{[^,]*}}, %[[TY:[^ ]*]] = %{{[^,]*}}, %[[TS:[^ ]*]] = %{{[^,]*}}, %[[X0:[^ ]*]] = %{{[^,]*}}, %[[X1:[^ ]*]] = %{{[^,]*}}, %[[Y0:[^ ]*]] = %{{[^,]*}}, %[[Y1:[^ ]*]] = %{{[^,]*}}, %[[O0:[^ ]*]] = %{{[^,]*}}, %[[O1:[^ ]*]] = %{{[^)]*}})
// Stage 0 of iteration k + 2: the loads into the copies of k + 2 (= k).
// CHECK: accel.dma_start %{{.*}}, %[[X0]]
// CHECK: accel.dma_start %{{.*}}, %[[Y0]]
// Stage 1 of iteration k + 1.
// CHECK: accel.dma_wait %[[TX]]
// CHECK-NEXT: accel.dma_wait %[[TY]]
// CHECK-NEXT: accel.vadd %[[X1]], %[[Y1]], %[[O1]]
// CHECK: accel.dma_start %[[O1]], %{{.*}}
// Stage 2 of iteration k: its store's WAIT, after the vadd into the other
// output copy.
// CHECK-NEXT: accel.dma_wait %[[TS]]
// CHECK-NEXT: scf.yield
func.func @stream(%x: memref<32x128xf32, #hbm>, %y: memref<32x128xf32, #hbm>, %out: memref<32x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %xv = accel.alloc : memref<8x128xf32, #vmem>
  %yv = accel.alloc : memref<8x128xf32, #vmem>
  %ov = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %k = %c0 to %c4 step %c1 {
    %r = arith.muli %k, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<32x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %ys = memref.subview %y[%r, 0] [8, 128] [1, 1] : memref<32x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tx = accel.dma_start %xs, %xv : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    %ty = accel.dma_start %ys, %yv : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %tx
    accel.dma_wait %ty
    accel.vadd %xv, %yv, %ov : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %os = memref.subview %out[%r, 0] [8, 128] [1, 1] : memref<32x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %ts = accel.dma_start %ov, %os : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    accel.dma_wait %ts
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The tile offset carried in an iter_arg (off' = off + 128) is read as
// 0 + 128 k, so the DMA moves to stage 0 without carrying it: the kernel
// computes the offset of iteration k + 1 from its induction variable, and
// the increment from that offset (the iter_arg is no longer read).
// CHECK-LABEL: func.func @iter_arg_offset
// CHECK: %[[R:.*]]:4 = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OFF:[^ ]*]] = %{{[^,]*}}, %[[T:[^ ]*]] = %{{[^,]*}}
// CHECK: %[[K1:.*]] = arith.addi %[[K]], %c1
// CHECK-NEXT: %[[O:.*]] = arith.muli %[[K1]], %{{.*}}
// CHECK-NEXT: %[[O2:.*]] = arith.addi %c0, %[[O]]
// CHECK-NEXT: %[[S:.*]] = memref.subview %{{.*}}[%[[O2]], 0]
// CHECK-NEXT: accel.dma_start %[[S]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[O2]], %c128
// CHECK-NEXT: accel.dma_wait %[[T]]
// CHECK: scf.yield %[[NEXT]]
// The increment is at stage 0 (the prologue made iteration 0's, the
// kernel iterations 1..3's): the loop's result is the kernel's.
// CHECK: return %[[R]]#0 : index
func.func @iter_arg_offset(%w: memref<512x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %b = accel.alloc : memref<128x128xf32, #vmem>
  %end = scf.for %k = %c0 to %c4 step %c1 iter_args(%off = %c0) -> (index) {
    %s = memref.subview %w[%off, 0] [128, 128] [1, 1] : memref<512x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %b : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %next = arith.addi %off, %c128 : index
    scf.yield %next : index
  }
  return %end : index
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A row offset counting down (row' = row - 8, an arith.subi) is an
// induction too: read as 56 - 8 k, so the load of iteration k + 1 is issued
// at stage 0 from the induction variable, and the loop's result (the last
// decrement, 56 - 64 = -8) is still the kernel's.
// CHECK-LABEL: func.func @count_down
// CHECK: %[[R:.*]]:4 = scf.for %[[K:.*]] = %{{.*}} to %c7
// CHECK: %[[K1:.*]] = arith.addi %[[K]], %c1
// CHECK-NEXT: %[[O:.*]] = arith.muli %[[K1]], %c-8
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %c56, %[[O]]
// CHECK-NEXT: %[[S:.*]] = memref.subview %{{.*}}[%[[ROW]], 0]
// CHECK-NEXT: accel.dma_start %[[S]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.subi %[[ROW]], %c8
// CHECK: scf.yield %[[NEXT]]
// CHECK: return %[[R]]#0 : index
func.func @count_down(%x: memref<64x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c56 = arith.constant 56 : index
  %xv = accel.alloc : memref<8x128xf32, #vmem>
  %r = scf.for %k = %c0 to %c8 step %c1 iter_args(%row = %c56) -> (index) {
    %xs = memref.subview %x[%row, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %xs, %xv : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    accel.vadd %a, %xv, %a : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %next = arith.subi %row, %c8 : index
    scf.yield %next : index
  }
  return %r : index
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A dependent chain: the table row's DMA at stage 0; its WAIT, the
// accel.load of the offset and the row's DMA at that offset at stage 1; the
// row's WAIT, the vexp and the store at stage 2; the store's WAIT at stage
// 3. The table, row and output buffers get two copies each.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-6: accel.alloc
// CHECK-NOT: accel.alloc
// CHECK: scf.for %{{.*}} iter_args(%[[TT:[^ ]*]] = %{{[^,]*}}, %[[TR:[^ ]*]] = %{{[^,]*}}, %[[TS:[^ ]*]] = %{{[^,]*}}, %[[A0:[^ ]*]] = %{{[^,]*}}, %[[A1:[^ ]*]] = %{{[^,]*}}, %[[R0:[^ ]*]] = %{{[^,]*}}, %[[R1:[^ ]*]] = %{{[^,]*}}, %[[O0:[^ ]*]] = %{{[^,]*}}, %[[O1:[^ ]*]] = %{{[^)]*}})
// CHECK: accel.dma_start %{{.*}}, %[[A1]]
// CHECK: accel.dma_wait %[[TT]]
// CHECK-NEXT: %[[OFF:.*]] = accel.load %[[A0]]
// CHECK-NEXT: %[[ROW:.*]] = memref.subview %{{.*}}[%[[OFF]], 0]
// CHECK-NEXT: accel.dma_start %[[ROW]], %[[R0]]
// CHECK: accel.dma_wait %[[TR]]
// CHECK-NEXT: accel.vexp %[[R1]], %[[O1]]
// CHECK: accel.dma_start %[[O1]]
// CHECK-NEXT: accel.dma_wait %[[TS]]
// CHECK-NEXT: scf.yield
func.func @chain(%tab: memref<8x8xi32, #hbm>, %w: memref<1024x128xf32, #hbm>, %out: memref<64x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %tv = accel.alloc : memref<1x8xi32, #vmem>
  %rv = accel.alloc : memref<8x128xf32, #vmem>
  %ov = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %k = %c0 to %c8 step %c1 {
    %ts = memref.subview %tab[%k, 0] [1, 8] [1, 1] : memref<8x8xi32, #hbm> to memref<1x8xi32, strided<[8, 1], offset: ?>, #hbm>
    %t0 = accel.dma_start %ts, %tv : memref<1x8xi32, strided<[8, 1], offset: ?>, #hbm>, memref<1x8xi32, #vmem>
    accel.dma_wait %t0
    %off = accel.load %tv[%c0, %c0] : memref<1x8xi32, #vmem>
    %rs = memref.subview %w[%off, 0] [8, 128] [1, 1] : memref<1024x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t1 = accel.dma_start %rs, %rv : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t1
    accel.vexp %rv, %ov : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %o = arith.muli %k, %c8 : index
    %os = memref.subview %out[%o, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t2 = accel.dma_start %ov, %os : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    accel.dma_wait %t2
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Nested loops (GEMM): the inner loop first (A and B tiles at stage 0, their
// WAITs and the accumulating matmul at stage 1: A and B get two copies, the
// accumulator C none); then the outer loop, whose body starts with the
// inner prologue's DMAs (stage 0): the vfill, the inner loop and the store
// of C at stage 1, the store's WAIT at stage 2; C then gets two copies, and
// so does each buffer the inner kernel rotates (A, A', B, B': the inner
// prologue of iteration k + 1 writes them while the inner kernel of
// iteration k reads them; each is written before it is read in every outer
// iteration, so each is private to one). 3 + 2 + 5 buffers. Two loops
// pipelined: two marks.
// CHECK-LABEL: func.func @gemm
// CHECK-COUNT-10: accel.alloc
// CHECK-NOT: accel.alloc
// CHECK: accel.dma_start {{.*}}accel.pipelined = 0
// CHECK: accel.dma_start {{.*}}accel.pipelined = 1
// CHECK-NOT: accel.pipelined
// CHECK: scf.for
// CHECK: accel.vfill %[[C:[^ ,]*]]
// CHECK: scf.for
// CHECK: accel.matmul %{{.*}}, %{{.*}}, %[[C]] {accumulate}
// CHECK: accel.dma_start %[[C]]
func.func @gemm(%a: memref<8x1024xf32, #hbm>, %b: memref<1024x512xf32, #hbm>, %c: memref<8x512xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %av = accel.alloc : memref<8x128xf32, #vmem>
  %bv = accel.alloc : memref<128x128xf32, #vmem>
  %cv = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %n = %c0 to %c4 step %c1 {
    %n0 = arith.muli %n, %c128 : index
    accel.vfill %cv, 0.0 : memref<8x128xf32, #vmem>
    scf.for %k = %c0 to %c8 step %c1 {
      %k0 = arith.muli %k, %c128 : index
      %as = memref.subview %a[0, %k0] [8, 128] [1, 1] : memref<8x1024xf32, #hbm> to memref<8x128xf32, strided<[1024, 1], offset: ?>, #hbm>
      %ta = accel.dma_start %as, %av : memref<8x128xf32, strided<[1024, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
      %bs = memref.subview %b[%k0, %n0] [128, 128] [1, 1] : memref<1024x512xf32, #hbm> to memref<128x128xf32, strided<[512, 1], offset: ?>, #hbm>
      %tb = accel.dma_start %bs, %bv : memref<128x128xf32, strided<[512, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
      accel.dma_wait %ta
      accel.dma_wait %tb
      accel.matmul %av, %bv, %cv {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
    }
    %cs = memref.subview %c[0, %n0] [8, 128] [1, 1] : memref<8x512xf32, #hbm> to memref<8x128xf32, strided<[512, 1], offset: ?>, #hbm>
    %tc = accel.dma_start %cv, %cs : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[512, 1], offset: ?>, #hbm>
    accel.dma_wait %tc
  }
  return
}

// -----


#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Bounds that fold to constants (`2 + 2`, as an unrolled outer loop leaves
// an inner loop's `i + 1`) are constants: the loop is pipelined as one of
// 4 trips (a kernel of 3), not strip-mined as a loop of run-time bounds.
// CHECK-LABEL: func.func @folded_bounds
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C3]] step
// CHECK-NOT: accel.strip_mined
func.func @folded_bounds(%w: memref<512x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %n = arith.addi %c2, %c2 : index
  %b = accel.alloc : memref<128x128xf32, #vmem>
  scf.for %k = %c0 to %n step %c1 {
    %r = arith.muli %k, %c128 : index
    %s = memref.subview %w[%r, 0] [128, 128] [1, 1] : memref<512x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %b : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A loop of no iteration is dropped (its results are its inits).
// CHECK-LABEL: func.func @no_trip
// CHECK-NOT: scf.for
// CHECK-NOT: accel.dma_start
// CHECK: return
func.func @no_trip(%w: memref<8x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %k = %c1 to %c0 step %c1 {
    %t = accel.dma_start %w, %a : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A loop of one iteration that carries a value (a K loop of one tile with
// its offset in an iter_arg) is inlined too: its result becomes the
// yielded value.
// CHECK-LABEL: func.func @single_with_result
// CHECK-NOT: scf.for
// CHECK: accel.dma_start
// CHECK-NEXT: accel.dma_wait
// CHECK-NEXT: %[[N:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: return %[[N]] : index
func.func @single_with_result(%w: memref<8x128xf32, #hbm>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %r = scf.for %k = %c0 to %c1 step %c1 iter_args(%s = %c0) -> (index) {
    %t = accel.dma_start %w, %a : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    %n = arith.addi %s, %c1 : index
    scf.yield %n : index
  }
  return %r : index
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A loop of one iteration without results is inlined first (a peeled K
// loop's remainder), so its DMAs join the enclosing body's schedule.
// CHECK-LABEL: func.func @single_inlined
// CHECK-NOT: scf.for
// CHECK: accel.dma_start
// CHECK-NEXT: accel.dma_wait
// CHECK-NEXT: return
func.func @single_inlined(%w: memref<8x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %k = %c0 to %c1 step %c1 {
    %t = accel.dma_start %w, %a : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the destination is read before the DMA's WAIT (the vexp reads
// the previous iteration's tile: %b is not private to an iteration).
func.func @read_before_wait(%w: memref<8x128xf32, #hbm>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark-re @+1 {{not pipelined: a buffer that is not private to an iteration is accessed in two stages (a flow dependence on the buffer allocated at {{.*}}: written by 'accel.dma_wait' at {{.*}}, read by 'accel.vexp' at {{.*}} one iteration later)}}
  scf.for %k = %c0 to %c2 step %c1 {
    accel.vexp %b, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %t = accel.dma_start %w, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the staged buffer is read after the loop (its last tile would be
// in the other buffer).
func.func @used_after(%w: memref<8x128xf32, #hbm>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not pipelined: a buffer that is not private to an iteration is accessed in two stages}}
  scf.for %k = %c0 to %c2 step %c1 {
    %t = accel.dma_start %w, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
  }
  accel.vexp %b, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// One buffer for two tensors: the peeled first tile before the loop, then
// each of two sibling loops loads it whole before reading it, and nothing
// reads what a loop left in it. Both loops are pipelined (each with a
// second copy of %b of its own); the uses outside do not matter.
// CHECK-LABEL: func.func @reused_by_siblings
// CHECK: scf.for {{.*}} iter_args
// CHECK: scf.for {{.*}} iter_args
// CHECK-NOT: scf.for
// CHECK: return
func.func @reused_by_siblings(%w: memref<512x128xf32, #hbm>, %v: memref<512x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %b = accel.alloc : memref<128x128xf32, #vmem>
  %s0 = memref.subview %w[0, 0] [128, 128] [1, 1] : memref<512x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1]>, #hbm>
  %t0 = accel.dma_start %s0, %b : memref<128x128xf32, strided<[128, 1]>, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t0
  accel.matmul %a, %b, %c : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  scf.for %k = %c1 to %c4 step %c1 {
    %r = arith.muli %k, %c128 : index
    %s = memref.subview %w[%r, 0] [128, 128] [1, 1] : memref<512x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %b : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  scf.for %k = %c0 to %c4 step %c1 {
    %r = arith.muli %k, %c128 : index
    %s = memref.subview %v[%r, 0] [128, 128] [1, 1] : memref<512x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %b : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the inner loop's last tile is read at the start of the next
// iteration of the enclosing loop (the path from the loop's end wraps
// around the outer loop).
func.func @read_in_next_outer_iteration(%w: memref<8x128xf32, #hbm>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not pipelined: no DMA of the body is waited for in a later stage}}
  scf.for %i = %c0 to %c2 step %c1 {
    accel.vexp %b, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    // expected-remark-re @+1 {{not pipelined: a buffer that is not private to an iteration is accessed in two stages (a{{n?}} {{[a-z]+}} dependence on the buffer allocated at}}
    scf.for %k = %c0 to %c2 step %c1 {
      %t = accel.dma_start %w, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
      accel.dma_wait %t
      accel.vadd %b, %c, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    }
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the last tile is read after the enclosing loop ends.
func.func @read_after_outer_loop(%w: memref<8x128xf32, #hbm>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not pipelined: no DMA of the body is waited for in a later stage}}
  scf.for %i = %c0 to %c2 step %c1 {
    // expected-remark-re @+1 {{not pipelined: a buffer that is not private to an iteration is accessed in two stages (a{{n?}} {{[a-z]+}} dependence on the buffer allocated at}}
    scf.for %k = %c0 to %c2 step %c1 {
      %t = accel.dma_start %w, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
      accel.dma_wait %t
      accel.vadd %b, %c, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    }
    // expected-remark @+1 {{not pipelined: no DMA of the body is waited for in a later stage}}
    scf.for %k = %c0 to %c2 step %c1 {
      accel.vexp %c, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    }
  }
  accel.vexp %b, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The last tile is dead: a later nested loop (3 trips) loads the buffer
// whole before it reads it, so the first loop is pipelined; the partial
// write (a vfill of a view) after it does not make the buffer dead, but
// the read comes only after the whole write. The second loop's own last
// tile is read after it: refused.
// CHECK-LABEL: func.func @dead_before_later_loop
// CHECK: scf.for {{.*}} iter_args
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
func.func @dead_before_later_loop(%w: memref<8x128xf32, #hbm>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %k = %c0 to %c3 step %c1 {
    %t = accel.dma_start %w, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    accel.vadd %b, %c, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  %h = memref.subview %b[0, 0] [4, 128] [1, 1] : memref<8x128xf32, #vmem> to memref<4x128xf32, strided<[128, 1]>, #vmem>
  accel.vfill %h, 0.0 : memref<4x128xf32, strided<[128, 1]>, #vmem>
  // expected-remark-re @+1 {{not pipelined: a buffer that is not private to an iteration is accessed in two stages (a{{n?}} {{[a-z]+}} dependence on the buffer allocated at}}
  scf.for %k = %c0 to %c3 step %c1 {
    %t = accel.dma_start %w, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    accel.vadd %b, %c, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  accel.vexp %b, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A 2-trip inner loop (the two column tiles of a row band) has 3 stages
// (the second load reuses %a after the vexp read it): refused for its trip
// count, it is unrolled into the band loop instead, which is then
// pipelined with both tiles' DMAs: one loop is left, with iter_args.
// CHECK-LABEL: func.func @flatten_short_inner
// CHECK-NOT: scf.for
// CHECK: scf.for {{.*}} iter_args
// CHECK-NOT: scf.for
// CHECK: return
func.func @flatten_short_inner(%x: memref<12x256xf32, #hbm>, %y: memref<12x256xf32, #hbm>, %out: memref<12x256xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %c128 = arith.constant 128 : index
  %a = accel.alloc : memref<2x128xf32, #vmem>
  %t = accel.alloc : memref<2x128xf32, #vmem>
  %o = accel.alloc : memref<2x128xf32, #vmem>
  scf.for %i = %c0 to %c6 step %c1 {
    %r = arith.muli %i, %c2 : index
    scf.for %j = %c0 to %c2 step %c1 {
      %col = arith.muli %j, %c128 : index
      %sx = memref.subview %x[%r, %col] [2, 128] [1, 1] : memref<12x256xf32, #hbm> to memref<2x128xf32, strided<[256, 1], offset: ?>, #hbm>
      %d0 = accel.dma_start %sx, %a : memref<2x128xf32, strided<[256, 1], offset: ?>, #hbm>, memref<2x128xf32, #vmem>
      accel.dma_wait %d0
      accel.vexp %a, %t : memref<2x128xf32, #vmem>, memref<2x128xf32, #vmem>
      %sy = memref.subview %y[%r, %col] [2, 128] [1, 1] : memref<12x256xf32, #hbm> to memref<2x128xf32, strided<[256, 1], offset: ?>, #hbm>
      %d1 = accel.dma_start %sy, %a : memref<2x128xf32, strided<[256, 1], offset: ?>, #hbm>, memref<2x128xf32, #vmem>
      accel.dma_wait %d1
      accel.vsub %t, %a, %o : memref<2x128xf32, #vmem>, memref<2x128xf32, #vmem>, memref<2x128xf32, #vmem>
      %so = memref.subview %out[%r, %col] [2, 128] [1, 1] : memref<12x256xf32, #hbm> to memref<2x128xf32, strided<[256, 1], offset: ?>, #hbm>
      %d2 = accel.dma_start %o, %so : memref<2x128xf32, #vmem>, memref<2x128xf32, strided<[256, 1], offset: ?>, #hbm>
      accel.dma_wait %d2
    }
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A row band written tile by tile through column subviews (offsets from
// the inner loop's induction variable, which the privacy check runs trip
// by trip), then stored whole: the four tiles cover the band before the
// store reads it, so the band is private to an iteration of the outer
// loop, which is pipelined with three copies of it (the store waited a
// stage later, the next band loading meanwhile).
// CHECK-LABEL: func.func @band_by_columns
// CHECK-COUNT-3: accel.alloc : memref<8x512xf32
// CHECK: scf.for {{.*}} iter_args(%{{[^)]*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (!accel.token, !accel.token, memref<8x512xf32
func.func @band_by_columns(%x: memref<32x512xf32, #hbm>, %out: memref<32x512xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %band = accel.alloc : memref<8x512xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.muli %i, %c8 : index
    scf.for %j = %c0 to %c4 step %c1 {
      %col = arith.muli %j, %c128 : index
      %t = memref.subview %band[0, %col] [8, 128] [1, 1] : memref<8x512xf32, #vmem> to memref<8x128xf32, strided<[512, 1], offset: ?>, #vmem>
      %s = memref.subview %x[%r, %col] [8, 128] [1, 1] : memref<32x512xf32, #hbm> to memref<8x128xf32, strided<[512, 1], offset: ?>, #hbm>
      %d = accel.dma_start %s, %t : memref<8x128xf32, strided<[512, 1], offset: ?>, #hbm>, memref<8x128xf32, strided<[512, 1], offset: ?>, #vmem>
      accel.dma_wait %d
    }
    %o = memref.subview %out[%r, 0] [8, 512] [1, 1] : memref<32x512xf32, #hbm> to memref<8x512xf32, strided<[512, 1], offset: ?>, #hbm>
    %st = accel.dma_start %band, %o : memref<8x512xf32, #vmem>, memref<8x512xf32, strided<[512, 1], offset: ?>, #hbm>
    accel.dma_wait %st
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the tiles cover columns 128..511 only, and the store reads the
// whole band (column 0..127 is the previous band's).
func.func @band_missing_column(%x: memref<32x512xf32, #hbm>, %out: memref<32x512xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %band = accel.alloc : memref<8x512xf32, #vmem>
  // expected-remark-re @+1 {{not pipelined: a buffer that is not private to an iteration is accessed in two stages (a{{n?}} {{[a-z]+}} dependence on the buffer allocated at}}
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.muli %i, %c8 : index
    scf.for %j = %c1 to %c4 step %c1 {
      %col = arith.muli %j, %c128 : index
      %t = memref.subview %band[0, %col] [8, 128] [1, 1] : memref<8x512xf32, #vmem> to memref<8x128xf32, strided<[512, 1], offset: ?>, #vmem>
      %s = memref.subview %x[%r, %col] [8, 128] [1, 1] : memref<32x512xf32, #hbm> to memref<8x128xf32, strided<[512, 1], offset: ?>, #hbm>
      %d = accel.dma_start %s, %t : memref<8x128xf32, strided<[512, 1], offset: ?>, #hbm>, memref<8x128xf32, strided<[512, 1], offset: ?>, #vmem>
      accel.dma_wait %d
    }
    %o = memref.subview %out[%r, 0] [8, 512] [1, 1] : memref<32x512xf32, #hbm> to memref<8x512xf32, strided<[512, 1], offset: ?>, #hbm>
    %st = accel.dma_start %band, %o : memref<8x512xf32, #vmem>, memref<8x512xf32, strided<[512, 1], offset: ?>, #hbm>
    accel.dma_wait %st
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the loop writes the DMA's source (a VMEM -> VMEM copy whose
// source the vfill rewrites every iteration).
func.func @source_written(%c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %v = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not pipelined: a buffer that is not private to an iteration is accessed in two stages}}
  scf.for %k = %c0 to %c2 step %c1 {
    %t = accel.dma_start %v, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    accel.vfill %v, 1.0 : memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the second copy would not fit in VMEM (two buffers of
// 4100 x 1024 x 4 = 16793600 bytes exceed 32 MiB).
func.func @capacity(%w: memref<4100x1024xf32, #hbm>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = accel.alloc : memref<4100x1024xf32, #vmem>
  // expected-remark @+1 {{not pipelined: the extra buffers (16793600 bytes) would exceed the VMEM capacity of 33554432 bytes}}
  scf.for %k = %c0 to %c2 step %c1 {
    %t = accel.dma_start %w, %b : memref<4100x1024xf32, #hbm>, memref<4100x1024xf32, #vmem>
    accel.dma_wait %t
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// An allocation in the body (one static buffer anyway) is hoisted; the vfill
// into it and the VMEM -> VMEM DMA are stage 0, its WAIT and the vadd stage
// 1: both buffers (private: the vfill and the DMA write them whole first)
// get two copies.
// CHECK-LABEL: func.func @source_in_loop
// CHECK-COUNT-4: accel.alloc
// CHECK-NOT: accel.alloc
// CHECK: scf.for
func.func @source_in_loop(%a: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %k = %c0 to %c4 step %c1 {
    %src = accel.alloc : memref<8x128xf32, #vmem>
    accel.vfill %src, 1.0 : memref<8x128xf32, #vmem>
    %t = accel.dma_start %src, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    accel.vadd %b, %a, %a : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Bounds known at run time only: strip-mined into chunks of 8 (no
// metrics), each chunk pipelined (pipeline-dma-runtime-trips.test runs it).
func.func @dynamic_bounds(%w: memref<8x128xf32, #hbm>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{strip-mined into chunks of 8 iterations (its bounds are known at run time only); each chunk is pipelined}}
  scf.for %k = %c0 to %n step %c1 {
    %t = accel.dma_start %w, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: the bounds are not constant, nor is the step, so the chunks'
// span is unknown.
func.func @dynamic_step(%w: memref<8x128xf32, #hbm>, %n: index, %s: index) {
  %c0 = arith.constant 0 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not pipelined: the loop bounds are not constant; the step is not a constant}}
  scf.for %k = %c0 to %n step %s {
    %t = accel.dma_start %w, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: a call has unknown memory effects.
func.func private @opaque()
func.func @unknown_effects(%w: memref<8x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not pipelined: an op with unknown memory effects in the loop}}
  scf.for %k = %c0 to %c4 step %c1 {
    %t = accel.dma_start %w, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    func.call @opaque() : () -> ()
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The WAIT is on the previous iteration's DMA (a token carried in an
// iter_arg, a loop pipelined by hand): rewritten as the plain loop (the
// DMA before the loop is its first iteration's, the last iteration's DMA
// is issued after it) and pipelined; the buffer's copies rotate.
// (pipeline-dma-depipeline.mlir has rings and refusals.)
// CHECK-LABEL: func.func @token_outside
// CHECK: %[[B:.*]] = accel.alloc
// CHECK: accel.dma_start %arg0, %[[B]] {accel.pipelined
// CHECK: scf.for
// CHECK: scf.yield
// CHECK: accel.dma_wait
// CHECK: %[[LAST:.*]] = accel.dma_start %arg0, %[[B]] :
// CHECK-NEXT: accel.dma_wait %[[LAST]]
func.func @token_outside(%w: memref<8x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = accel.alloc : memref<8x128xf32, #vmem>
  %t0 = accel.dma_start %w, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  // expected-remark @+1 {{pipelined by hand (DMAs issued 1 iteration(s) ahead), rewritten as the plain loop and pipelined}}
  %last = scf.for %k = %c0 to %c4 step %c1 iter_args(%t = %t0) -> (!accel.token) {
    accel.dma_wait %t
    %n = accel.dma_start %w, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    scf.yield %n : !accel.token
  }
  accel.dma_wait %last
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: two iterations cannot fill the four stages of a dependent
// chain with a store (the store's WAIT already moved back to its ISSUE's
// stage: stages 0, 1, 2).
func.func @too_few_trips(%tab: memref<2x8xi32, #hbm>, %w: memref<1024x128xf32, #hbm>, %out: memref<16x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %tv = accel.alloc : memref<1x8xi32, #vmem>
  %rv = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not pipelined: the trip count (2) is not larger than the last stage (2)}}
  scf.for %k = %c0 to %c2 step %c1 {
    %ts = memref.subview %tab[%k, 0] [1, 8] [1, 1] : memref<2x8xi32, #hbm> to memref<1x8xi32, strided<[8, 1], offset: ?>, #hbm>
    %t0 = accel.dma_start %ts, %tv : memref<1x8xi32, strided<[8, 1], offset: ?>, #hbm>, memref<1x8xi32, #vmem>
    accel.dma_wait %t0
    %off = accel.load %tv[%c0, %c0] : memref<1x8xi32, #vmem>
    %rs = memref.subview %w[%off, 0] [8, 128] [1, 1] : memref<1024x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t1 = accel.dma_start %rs, %rv : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t1
    %o = arith.muli %k, %c8 : index
    %os = memref.subview %out[%o, 0] [8, 128] [1, 1] : memref<16x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t2 = accel.dma_start %rv, %os : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    accel.dma_wait %t2
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// Refused: no DMA, nothing to overlap.
func.func @no_dma(%a: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-remark @+1 {{not pipelined: no DMA of the body is waited for in a later stage}}
  scf.for %k = %c0 to %c4 step %c1 {
    accel.vexp %a, %a : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}
