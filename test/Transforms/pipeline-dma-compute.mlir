// RUN: accel-opt %s -split-input-file --accel-pipeline-dma='all=true remarks=true async-copies=false unroll-rotation=false' -verify-diagnostics | FileCheck %s
// The stage assignment with compute-distance=1 (the default), the legality
// of buffers rotated by an inner loop (reached through its iter_args), a
// WAIT on a DMA issued before the loop, and the register refusal.
// (accel-opt verifies the output after the pass.)

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Stream: loads at stage 0, their WAITs and the vadd at stage 1, the
// store's ISSUE (a DMA reading the VPU's result) at stage 2, its WAIT at
// stage 3. x and y get two copies, the output three (the vadd of iteration
// k + 2 writes while the store of k is in flight). 8 trips - 3 stages = 5
// kernel iterations; the kernel issues the loads of k + 3 and the store of
// k + 1, and waits for the store of k.
// CHECK-LABEL: func.func @stream
// CHECK-COUNT-7: accel.alloc
// CHECK-NOT: accel.alloc
// CHECK: %[[C5:.*]] = arith.constant 5 : index
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[C5]] step %{{.*}} iter_args(%[[TX:[^ ]*]] = %{{[^,]*}}, %[[TY:[^ ]*]] = %{{[^,]*}}, %[[TS:[^ ]*]] = %{{[^,]*}}, %[[X0:[^ ]*]] = %{{[^,]*}}, %[[X1:[^ ]*]] = %{{[^,]*}}, %[[Y0:[^ ]*]] = %{{[^,]*}}, %[[Y1:[^ ]*]] = %{{[^,]*}}, %[[O0:[^ ]*]] = %{{[^,]*}}, %[[O1:[^ ]*]] = %{{[^,]*}}, %[[O2:[^ ]*]] = %{{[^)]*}})
// CHECK: %[[K3:.*]] = arith.addi %[[K]], %c3
// CHECK: accel.dma_start %{{.*}}, %[[X1]]
// CHECK-NEXT: accel.dma_start %{{.*}}, %[[Y1]]
// CHECK-NEXT: accel.dma_wait %[[TX]]
// CHECK-NEXT: accel.dma_wait %[[TY]]
// CHECK-NEXT: accel.vadd %[[X0]], %[[Y0]], %[[O2]]
// CHECK: %[[K1:.*]] = arith.addi %[[K]], %c1
// CHECK: accel.dma_start %[[O1]], %{{.*}}
// CHECK-NEXT: accel.dma_wait %[[TS]]
// CHECK-NEXT: scf.yield
func.func @stream(%x: memref<64x128xf32, #hbm>, %y: memref<64x128xf32, #hbm>, %out: memref<64x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %xv = accel.alloc : memref<8x128xf32, #vmem>
  %yv = accel.alloc : memref<8x128xf32, #vmem>
  %ov = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %k = %c0 to %c8 step %c1 {
    %r = arith.muli %k, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %ys = memref.subview %y[%r, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tx = accel.dma_start %xs, %xv : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    %ty = accel.dma_start %ys, %yv : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %tx
    accel.dma_wait %ty
    accel.vadd %xv, %yv, %ov : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %os = memref.subview %out[%r, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %ts = accel.dma_start %ov, %os : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    accel.dma_wait %ts
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// An inner loop rotates %a and %b through its iter_args and reads %b in its
// second iteration, which no op of the outer iteration wrote: %b carries
// data from the previous outer iteration. Moving the outer DMA into %a a
// stage ahead would let it overwrite what the inner loop of the previous
// iteration still reads through the rotation: refused.
func.func @rotation_not_private(%x: memref<64x128xf32, #hbm>, %out: memref<8x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<8x128xf32, #vmem>
  %o = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not pipelined: a buffer that is not private to an iteration is accessed in two stages}}
  scf.for %k = %c0 to %c8 step %c1 {
    %r = arith.muli %k, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %xs, %a : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    // expected-remark @+1 {{not pipelined: no DMA of the body is waited for in a later stage}}
    %p:2 = scf.for %j = %c0 to %c2 step %c1 iter_args(%u = %a, %v = %b) -> (memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>) {
      accel.vadd %o, %u, %o : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
      scf.yield %v, %u : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    }
  }
  %t2 = accel.dma_start %o, %out : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %t2
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The same rotation, with %b written (vcopy) before the inner loop in every
// outer iteration: both buffers are private, so the group {%a, %b} gets two
// copies each (%o, stored a stage after the inner loop, three) and the loop
// is pipelined; the kernel's inner loop rotates the copies it is given.
// CHECK-LABEL: func.func @rotation_private
// CHECK-COUNT-7: accel.alloc
// CHECK-NOT: accel.alloc
// CHECK: accel.pipelined = 0
// CHECK: scf.for {{.*}} iter_args(%{{[^ ]*}} = %{{[^,]*}}, %{{[^ ]*}} = %{{[^,]*}}, %{{[^ ]*}} = %[[A0:[^,]*]], %[[A1:[^ ]*]] = %{{[^,]*}}, %{{[^ ]*}} = %[[B0:[^,]*]], %[[B1:[^ ]*]] = %{{[^,]*}},
// CHECK: accel.vcopy %[[A1]], %[[B1]]
// CHECK-NEXT: scf.for {{.*}} iter_args(%{{[^ ]*}} = %[[A1]], %{{[^ ]*}} = %[[B1]])
func.func @rotation_private(%x: memref<64x128xf32, #hbm>, %out: memref<64x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<8x128xf32, #vmem>
  %o = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %k = %c0 to %c8 step %c1 {
    %r = arith.muli %k, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %xs, %a : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    accel.vcopy %a, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.vfill %o, 0.0 : memref<8x128xf32, #vmem>
    // expected-remark @+1 {{not pipelined: no DMA of the body is waited for in a later stage}}
    %p:2 = scf.for %j = %c0 to %c2 step %c1 iter_args(%u = %a, %v = %b) -> (memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>) {
      accel.vadd %o, %u, %o : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
      scf.yield %v, %u : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    }
    %os = memref.subview %out[%r, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t2 = accel.dma_start %o, %os : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    accel.dma_wait %t2
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A WAIT on a DMA issued before the loop (the weights) ends its window
// where it stands: the loop is still pipelined, and the weights' WAIT stays
// with the compute that reads them.
// CHECK-LABEL: func.func @wait_before_loop
// CHECK: %[[TW:.*]] = accel.dma_start %arg1
// CHECK: scf.for
// CHECK: accel.dma_wait %[[TW]]
// CHECK-NEXT: accel.vadd
func.func @wait_before_loop(%x: memref<64x128xf32, #hbm>, %w: memref<8x128xf32, #hbm>, %out: memref<64x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %wv = accel.alloc : memref<8x128xf32, #vmem>
  %xv = accel.alloc : memref<8x128xf32, #vmem>
  %tw = accel.dma_start %w, %wv : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  scf.for %k = %c0 to %c8 step %c1 {
    %r = arith.muli %k, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tx = accel.dma_start %xs, %xv : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %tx
    accel.dma_wait %tw
    accel.vadd %xv, %wv, %xv : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %os = memref.subview %out[%r, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t2 = accel.dma_start %xv, %os : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    accel.dma_wait %t2
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// 32 loads per iteration: even at distance 1 the carried tokens and the
// buffer copies need more scalar registers than the pass leaves the program
// (7/8 of the ISA's 255: it tries the lowering on a copy of the module, at
// distances 8, 4, 2 and 1, and refuses with the lowering's error).
func.func @registers(%x: memref<256x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %acc = accel.alloc : memref<8x128xf32, #vmem>
  %v0 = accel.alloc : memref<8x128xf32, #vmem>
  %v1 = accel.alloc : memref<8x128xf32, #vmem>
  %v2 = accel.alloc : memref<8x128xf32, #vmem>
  %v3 = accel.alloc : memref<8x128xf32, #vmem>
  %v4 = accel.alloc : memref<8x128xf32, #vmem>
  %v5 = accel.alloc : memref<8x128xf32, #vmem>
  %v6 = accel.alloc : memref<8x128xf32, #vmem>
  %v7 = accel.alloc : memref<8x128xf32, #vmem>
  %v8 = accel.alloc : memref<8x128xf32, #vmem>
  %v9 = accel.alloc : memref<8x128xf32, #vmem>
  %v10 = accel.alloc : memref<8x128xf32, #vmem>
  %v11 = accel.alloc : memref<8x128xf32, #vmem>
  %v12 = accel.alloc : memref<8x128xf32, #vmem>
  %v13 = accel.alloc : memref<8x128xf32, #vmem>
  %v14 = accel.alloc : memref<8x128xf32, #vmem>
  %v15 = accel.alloc : memref<8x128xf32, #vmem>
  %v16 = accel.alloc : memref<8x128xf32, #vmem>
  %v17 = accel.alloc : memref<8x128xf32, #vmem>
  %v18 = accel.alloc : memref<8x128xf32, #vmem>
  %v19 = accel.alloc : memref<8x128xf32, #vmem>
  %v20 = accel.alloc : memref<8x128xf32, #vmem>
  %v21 = accel.alloc : memref<8x128xf32, #vmem>
  %v22 = accel.alloc : memref<8x128xf32, #vmem>
  %v23 = accel.alloc : memref<8x128xf32, #vmem>
  %v24 = accel.alloc : memref<8x128xf32, #vmem>
  %v25 = accel.alloc : memref<8x128xf32, #vmem>
  %v26 = accel.alloc : memref<8x128xf32, #vmem>
  %v27 = accel.alloc : memref<8x128xf32, #vmem>
  %v28 = accel.alloc : memref<8x128xf32, #vmem>
  %v29 = accel.alloc : memref<8x128xf32, #vmem>
  %v30 = accel.alloc : memref<8x128xf32, #vmem>
  %v31 = accel.alloc : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not pipelined: the pipelined program would not lower: needs more than 223 scalar registers live at once}}
  scf.for %k = %c0 to %c8 step %c1 {
    %s0 = memref.subview %x[0, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 0>, #hbm>
    %t0 = accel.dma_start %s0, %v0 : memref<8x128xf32, strided<[128, 1], offset: 0>, #hbm>, memref<8x128xf32, #vmem>
    %s1 = memref.subview %x[8, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 1024>, #hbm>
    %t1 = accel.dma_start %s1, %v1 : memref<8x128xf32, strided<[128, 1], offset: 1024>, #hbm>, memref<8x128xf32, #vmem>
    %s2 = memref.subview %x[16, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 2048>, #hbm>
    %t2 = accel.dma_start %s2, %v2 : memref<8x128xf32, strided<[128, 1], offset: 2048>, #hbm>, memref<8x128xf32, #vmem>
    %s3 = memref.subview %x[24, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 3072>, #hbm>
    %t3 = accel.dma_start %s3, %v3 : memref<8x128xf32, strided<[128, 1], offset: 3072>, #hbm>, memref<8x128xf32, #vmem>
    %s4 = memref.subview %x[32, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 4096>, #hbm>
    %t4 = accel.dma_start %s4, %v4 : memref<8x128xf32, strided<[128, 1], offset: 4096>, #hbm>, memref<8x128xf32, #vmem>
    %s5 = memref.subview %x[40, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 5120>, #hbm>
    %t5 = accel.dma_start %s5, %v5 : memref<8x128xf32, strided<[128, 1], offset: 5120>, #hbm>, memref<8x128xf32, #vmem>
    %s6 = memref.subview %x[48, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 6144>, #hbm>
    %t6 = accel.dma_start %s6, %v6 : memref<8x128xf32, strided<[128, 1], offset: 6144>, #hbm>, memref<8x128xf32, #vmem>
    %s7 = memref.subview %x[56, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 7168>, #hbm>
    %t7 = accel.dma_start %s7, %v7 : memref<8x128xf32, strided<[128, 1], offset: 7168>, #hbm>, memref<8x128xf32, #vmem>
    %s8 = memref.subview %x[64, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 8192>, #hbm>
    %t8 = accel.dma_start %s8, %v8 : memref<8x128xf32, strided<[128, 1], offset: 8192>, #hbm>, memref<8x128xf32, #vmem>
    %s9 = memref.subview %x[72, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 9216>, #hbm>
    %t9 = accel.dma_start %s9, %v9 : memref<8x128xf32, strided<[128, 1], offset: 9216>, #hbm>, memref<8x128xf32, #vmem>
    %s10 = memref.subview %x[80, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 10240>, #hbm>
    %t10 = accel.dma_start %s10, %v10 : memref<8x128xf32, strided<[128, 1], offset: 10240>, #hbm>, memref<8x128xf32, #vmem>
    %s11 = memref.subview %x[88, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 11264>, #hbm>
    %t11 = accel.dma_start %s11, %v11 : memref<8x128xf32, strided<[128, 1], offset: 11264>, #hbm>, memref<8x128xf32, #vmem>
    %s12 = memref.subview %x[96, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 12288>, #hbm>
    %t12 = accel.dma_start %s12, %v12 : memref<8x128xf32, strided<[128, 1], offset: 12288>, #hbm>, memref<8x128xf32, #vmem>
    %s13 = memref.subview %x[104, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 13312>, #hbm>
    %t13 = accel.dma_start %s13, %v13 : memref<8x128xf32, strided<[128, 1], offset: 13312>, #hbm>, memref<8x128xf32, #vmem>
    %s14 = memref.subview %x[112, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 14336>, #hbm>
    %t14 = accel.dma_start %s14, %v14 : memref<8x128xf32, strided<[128, 1], offset: 14336>, #hbm>, memref<8x128xf32, #vmem>
    %s15 = memref.subview %x[120, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 15360>, #hbm>
    %t15 = accel.dma_start %s15, %v15 : memref<8x128xf32, strided<[128, 1], offset: 15360>, #hbm>, memref<8x128xf32, #vmem>
    %s16 = memref.subview %x[128, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 16384>, #hbm>
    %t16 = accel.dma_start %s16, %v16 : memref<8x128xf32, strided<[128, 1], offset: 16384>, #hbm>, memref<8x128xf32, #vmem>
    %s17 = memref.subview %x[136, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 17408>, #hbm>
    %t17 = accel.dma_start %s17, %v17 : memref<8x128xf32, strided<[128, 1], offset: 17408>, #hbm>, memref<8x128xf32, #vmem>
    %s18 = memref.subview %x[144, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 18432>, #hbm>
    %t18 = accel.dma_start %s18, %v18 : memref<8x128xf32, strided<[128, 1], offset: 18432>, #hbm>, memref<8x128xf32, #vmem>
    %s19 = memref.subview %x[152, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 19456>, #hbm>
    %t19 = accel.dma_start %s19, %v19 : memref<8x128xf32, strided<[128, 1], offset: 19456>, #hbm>, memref<8x128xf32, #vmem>
    %s20 = memref.subview %x[160, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 20480>, #hbm>
    %t20 = accel.dma_start %s20, %v20 : memref<8x128xf32, strided<[128, 1], offset: 20480>, #hbm>, memref<8x128xf32, #vmem>
    %s21 = memref.subview %x[168, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 21504>, #hbm>
    %t21 = accel.dma_start %s21, %v21 : memref<8x128xf32, strided<[128, 1], offset: 21504>, #hbm>, memref<8x128xf32, #vmem>
    %s22 = memref.subview %x[176, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 22528>, #hbm>
    %t22 = accel.dma_start %s22, %v22 : memref<8x128xf32, strided<[128, 1], offset: 22528>, #hbm>, memref<8x128xf32, #vmem>
    %s23 = memref.subview %x[184, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 23552>, #hbm>
    %t23 = accel.dma_start %s23, %v23 : memref<8x128xf32, strided<[128, 1], offset: 23552>, #hbm>, memref<8x128xf32, #vmem>
    %s24 = memref.subview %x[192, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 24576>, #hbm>
    %t24 = accel.dma_start %s24, %v24 : memref<8x128xf32, strided<[128, 1], offset: 24576>, #hbm>, memref<8x128xf32, #vmem>
    %s25 = memref.subview %x[200, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 25600>, #hbm>
    %t25 = accel.dma_start %s25, %v25 : memref<8x128xf32, strided<[128, 1], offset: 25600>, #hbm>, memref<8x128xf32, #vmem>
    %s26 = memref.subview %x[208, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 26624>, #hbm>
    %t26 = accel.dma_start %s26, %v26 : memref<8x128xf32, strided<[128, 1], offset: 26624>, #hbm>, memref<8x128xf32, #vmem>
    %s27 = memref.subview %x[216, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 27648>, #hbm>
    %t27 = accel.dma_start %s27, %v27 : memref<8x128xf32, strided<[128, 1], offset: 27648>, #hbm>, memref<8x128xf32, #vmem>
    %s28 = memref.subview %x[224, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 28672>, #hbm>
    %t28 = accel.dma_start %s28, %v28 : memref<8x128xf32, strided<[128, 1], offset: 28672>, #hbm>, memref<8x128xf32, #vmem>
    %s29 = memref.subview %x[232, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 29696>, #hbm>
    %t29 = accel.dma_start %s29, %v29 : memref<8x128xf32, strided<[128, 1], offset: 29696>, #hbm>, memref<8x128xf32, #vmem>
    %s30 = memref.subview %x[240, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 30720>, #hbm>
    %t30 = accel.dma_start %s30, %v30 : memref<8x128xf32, strided<[128, 1], offset: 30720>, #hbm>, memref<8x128xf32, #vmem>
    %s31 = memref.subview %x[248, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: 31744>, #hbm>
    %t31 = accel.dma_start %s31, %v31 : memref<8x128xf32, strided<[128, 1], offset: 31744>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t0
    accel.vadd %acc, %v0, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t1
    accel.vadd %acc, %v1, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t2
    accel.vadd %acc, %v2, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t3
    accel.vadd %acc, %v3, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t4
    accel.vadd %acc, %v4, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t5
    accel.vadd %acc, %v5, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t6
    accel.vadd %acc, %v6, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t7
    accel.vadd %acc, %v7, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t8
    accel.vadd %acc, %v8, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t9
    accel.vadd %acc, %v9, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t10
    accel.vadd %acc, %v10, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t11
    accel.vadd %acc, %v11, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t12
    accel.vadd %acc, %v12, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t13
    accel.vadd %acc, %v13, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t14
    accel.vadd %acc, %v14, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t15
    accel.vadd %acc, %v15, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t16
    accel.vadd %acc, %v16, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t17
    accel.vadd %acc, %v17, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t18
    accel.vadd %acc, %v18, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t19
    accel.vadd %acc, %v19, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t20
    accel.vadd %acc, %v20, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t21
    accel.vadd %acc, %v21, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t22
    accel.vadd %acc, %v22, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t23
    accel.vadd %acc, %v23, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t24
    accel.vadd %acc, %v24, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t25
    accel.vadd %acc, %v25, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t26
    accel.vadd %acc, %v26, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t27
    accel.vadd %acc, %v27, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t28
    accel.vadd %acc, %v28, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t29
    accel.vadd %acc, %v29, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t30
    accel.vadd %acc, %v30, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.dma_wait %t31
    accel.vadd %acc, %v31, %acc : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Outer iteration k stores rows 64k + 8j (j = 0..5, an inner loop, which
// stays a loop after it is pipelined) and 64k + 48 (waited for a stage
// later): iteration k + 1's rows start at 64k + 64, so the two stages'
// stores into %out never meet, which the pass proves from the inner
// induction variable's range. Both loops are pipelined (the inner one
// first: mark 0) with the store a stage after the compute and its WAIT a
// stage after that, so the outer prologue loads three x tiles before the
// first store (without the range, the stores would have to be waited for
// in their own iteration: two stages, one load).
// CHECK-LABEL: func.func @inner_ranges
// CHECK: accel.dma_start %subview{{.*}}accel.pipelined = 1
// CHECK-NOT: accel.dma_start %{{[0-9]+}}, %subview
// CHECK: accel.dma_start %subview
// CHECK-NOT: accel.dma_start %{{[0-9]+}}, %subview
// CHECK: accel.dma_start %subview
// CHECK: accel.pipelined = 0
func.func @inner_ranges(%x: memref<64x128xf32, #hbm>, %out: memref<512x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %xv = accel.alloc : memref<8x128xf32, #vmem>
  %ov = accel.alloc : memref<8x128xf32, #vmem>
  %lv = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %k = %c0 to %c8 step %c1 {
    %r = arith.muli %k, %c8 : index
    %xs = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tx = accel.dma_start %xs, %xv : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %tx
    %base = arith.muli %k, %c64 : index
    scf.for %j = %c0 to %c6 step %c1 {
      accel.vexp %xv, %ov : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
      %jo = arith.muli %j, %c8 : index
      %o = arith.addi %base, %jo : index
      %os = memref.subview %out[%o, 0] [8, 128] [1, 1] : memref<512x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
      %t = accel.dma_start %ov, %os : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
      accel.dma_wait %t
    }
    accel.vsqrt %xv, %lv : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %lo = arith.addi %base, %c48 : index
    %ls = memref.subview %out[%lo, 0] [8, 128] [1, 1] : memref<512x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tl = accel.dma_start %lv, %ls : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    accel.dma_wait %tl
  }
  return
}
