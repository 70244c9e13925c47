// RUN: accel-opt %s -split-input-file --accel-test-memory-dependence -verify-diagnostics
// RUN: accel-opt %s -split-input-file --accel-test-memory-dependence='waits=true max-distance=2' 2>&1 | FileCheck %s --check-prefix=WAITS

// The shared memory dependence analysis (MemoryDependence.h), as every
// transform that reorders ops asks it. Ops are numbered in program order
// among those that access memory; "depth N+1" is one iteration of the N
// common loops, depth d <= N a dependence carried by the d-th loop at the
// listed distances (1..4).

#vmem = #accel.space<vmem>

// Rows 8i are written and rows 8i+8 read: the read of iteration i and the
// write of iteration i+1 touch the same rows (an anti dependence at
// distance 1); the vmul's output %out is the same in every iteration.
func.func @shifted_rows(%out: memref<8x128xf32, #vmem>) {
  %buf = accel.alloc : memref<72x128xf32, #vmem>
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c8 {
    %w = memref.subview %buf[%i, 0] [8, 128] [1, 1] : memref<72x128xf32, #vmem> to memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
    %j = arith.addi %i, %c8 : index
    %r = memref.subview %buf[%j, 0] [8, 128] [1, 1] : memref<72x128xf32, #vmem> to memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
    accel.vfill %w, 0.0 : memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
    // expected-remark @+2 {{dependence from 1 to 0 at depth 1: anti at distances 1}}
    // expected-remark @+1 {{dependence from 1 to 1 at depth 1: output at distances 1, 2, 3, 4}}
    accel.vmul %r, %r, %out : memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// A view taken before the loop is the same memory in every iteration: the
// write of one iteration meets the read of every later one, and the read
// of every earlier one. Two allocations never alias (the vfill of %other
// has no dependence).
func.func @view_before_loop(%out: memref<8x128xf32, #vmem>) {
  %buf = accel.alloc : memref<16x128xf32, #vmem>
  %other = accel.alloc : memref<8x128xf32, #vmem>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %v = memref.subview %buf[8, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to memref<8x128xf32, strided<[128, 1], offset: 1024>, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark @+3 {{dependence from 0 to 0 at depth 1: output at distances 1, 2, 3, 4}}
    // expected-remark @+2 {{dependence from 0 to 1 at depth 1: flow at distances 1, 2, 3, 4}}
    // expected-remark @+1 {{dependence from 0 to 1 at depth 2: flow}}
    accel.vfill %v, 0.0 : memref<8x128xf32, strided<[128, 1], offset: 1024>, #vmem>
    // expected-remark @+2 {{dependence from 1 to 0 at depth 1: anti at distances 1, 2, 3, 4}}
    // expected-remark @+1 {{dependence from 1 to 1 at depth 1: output at distances 1, 2, 3, 4}}
    accel.vexp %v, %out : memref<8x128xf32, strided<[128, 1], offset: 1024>, #vmem>, memref<8x128xf32, #vmem>
    // expected-remark @+1 {{dependence from 2 to 2 at depth 1: output at distances 1, 2, 3, 4}}
    accel.vfill %other, 0.0 : memref<8x128xf32, #vmem>
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// A decode step: the inner loop reads column blocks of %xv that the copy
// at the end of the step rewrites whole. Within a step the reads come
// first (anti); across steps the copy of step s feeds every later step's
// reads (flow), which is what pipelining the step loop must respect.
func.func @decode_step(%y: memref<8x128xf32, #vmem>, %o: memref<8x32xf32, #vmem>) {
  %xv = accel.alloc : memref<8x128xf32, #vmem>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  scf.for %s = %c0 to %c4 step %c1 {
    scf.for %k = %c0 to %c4 step %c1 {
      %off = arith.muli %k, %c32 : index
      %xk = memref.subview %xv[0, %off] [8, 32] [1, 1] : memref<8x128xf32, #vmem> to memref<8x32xf32, strided<[128, 1], offset: ?>, #vmem>
      // expected-remark @+4 {{dependence from 0 to 0 at depth 1: output at distances 1, 2, 3, 4}}
      // expected-remark @+3 {{dependence from 0 to 0 at depth 2: output at distances 1, 2, 3, 4}}
      // expected-remark @+2 {{dependence from 0 to 1 at depth 1: anti at distances 1, 2, 3, 4}}
      // expected-remark @+1 {{dependence from 0 to 1 at depth 2: anti}}
      accel.vexp %xk, %o : memref<8x32xf32, strided<[128, 1], offset: ?>, #vmem>, memref<8x32xf32, #vmem>
    }
    // expected-remark @+2 {{dependence from 1 to 0 at depth 1: flow at distances 1, 2, 3, 4}}
    // expected-remark @+1 {{dependence from 1 to 1 at depth 1: output at distances 1, 2, 3, 4}}
    accel.vcopy %y, %xv : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// Step s writes rows [16s, 16s+16) and its inner loop reads them 4 rows at
// a time (rows 16s + 4k, k in [0, 4) ranging freely): no other step
// touches those rows, so the only dependence on %buf is within a step.
func.func @inner_ranges(%o: memref<4x128xf32, #vmem>) {
  %buf = accel.alloc : memref<64x128xf32, #vmem>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %s = %c0 to %c4 step %c1 {
    %row = arith.muli %s, %c16 : index
    %w = memref.subview %buf[%row, 0] [16, 128] [1, 1] : memref<64x128xf32, #vmem> to memref<16x128xf32, strided<[128, 1], offset: ?>, #vmem>
    // expected-remark @+1 {{dependence from 0 to 1 at depth 2: flow}}
    accel.vfill %w, 1.0 : memref<16x128xf32, strided<[128, 1], offset: ?>, #vmem>
    scf.for %k = %c0 to %c4 step %c1 {
      %k4 = arith.muli %k, %c4 : index
      %r0 = arith.addi %row, %k4 : index
      %r = memref.subview %buf[%r0, 0] [4, 128] [1, 1] : memref<64x128xf32, #vmem> to memref<4x128xf32, strided<[128, 1], offset: ?>, #vmem>
      // expected-remark @+2 {{dependence from 1 to 1 at depth 1: output at distances 1, 2, 3, 4}}
      // expected-remark @+1 {{dependence from 1 to 1 at depth 2: output at distances 1, 2, 3, 4}}
      accel.vexp %r, %o : memref<4x128xf32, strided<[128, 1], offset: ?>, #vmem>, memref<4x128xf32, #vmem>
    }
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// A row id loaded from a table (op 1 reads the table) may be any row: the
// write through it may meet the accesses of row %i at every distance, and
// in the same iteration.
func.func @gather(%tab: memref<16xi32, #vmem>, %o: memref<1x128xf32, #vmem>) {
  %buf = accel.alloc : memref<16x128xf32, #vmem>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark @+3 {{dependence from 0 to 0 at depth 1: output at distances 1, 2, 3, 4}}
    // expected-remark @+2 {{dependence from 0 to 2 at depth 1: flow at distances 1, 2, 3, 4}}
    // expected-remark @+1 {{dependence from 0 to 2 at depth 2: flow}}
    accel.vfill %o, 0.0 : memref<1x128xf32, #vmem>
    %r = accel.load %tab[%i] : memref<16xi32, #vmem>
    %v = memref.subview %buf[%r, 0] [1, 128] [1, 1] : memref<16x128xf32, #vmem> to memref<1x128xf32, strided<[128, 1], offset: ?>, #vmem>
    // expected-remark @+4 {{dependence from 2 to 0 at depth 1: anti at distances 1, 2, 3, 4}}
    // expected-remark @+3 {{dependence from 2 to 2 at depth 1: output at distances 1, 2, 3, 4}}
    // expected-remark @+2 {{dependence from 2 to 3 at depth 1: flow, output at distances 1, 2, 3, 4}}
    // expected-remark @+1 {{dependence from 2 to 3 at depth 2: flow, output}}
    accel.vcopy %o, %v : memref<1x128xf32, #vmem>, memref<1x128xf32, strided<[128, 1], offset: ?>, #vmem>
    %u = memref.subview %buf[%i, 0] [1, 128] [1, 1] : memref<16x128xf32, #vmem> to memref<1x128xf32, strided<[128, 1], offset: ?>, #vmem>
    // Rows %i of two iterations never meet: no dependence from 3 to 3.
    // expected-remark @+1 {{dependence from 3 to 2 at depth 1: anti, output at distances 1, 2, 3, 4}}
    accel.vexp %u, %u : memref<1x128xf32, strided<[128, 1], offset: ?>, #vmem>, memref<1x128xf32, strided<[128, 1], offset: ?>, #vmem>
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// Buffers swapped through iter_args (ping-pong): either iter_arg may hold
// either buffer, so they may alias at every distance.
func.func @ping_pong(%o: memref<8x128xf32, #vmem>) {
  %b0 = accel.alloc : memref<8x128xf32, #vmem>
  %b1 = accel.alloc : memref<8x128xf32, #vmem>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%cur = %b0, %next = %b1) -> (memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>) {
    // expected-remark @+3 {{dependence from 0 to 0 at depth 1: output at distances 1, 2, 3, 4}}
    // expected-remark @+2 {{dependence from 0 to 1 at depth 1: flow at distances 1, 2, 3, 4}}
    // expected-remark @+1 {{dependence from 0 to 1 at depth 2: flow}}
    accel.vfill %cur, 2.0 : memref<8x128xf32, #vmem>
    // expected-remark @+2 {{dependence from 1 to 0 at depth 1: anti at distances 1, 2, 3, 4}}
    // expected-remark @+1 {{dependence from 1 to 1 at depth 1: output at distances 1, 2, 3, 4}}
    accel.vexp %next, %o : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    scf.yield %next, %cur : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// accel.matmul writes C without reading it unless it accumulates: the vfill
// after the first matmul is only an output dependence; after the second it
// also overwrites what that matmul read (anti).
func.func @matmul_c(%a: memref<8x128xf32, #vmem>, %b: memref<128x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  // expected-remark @+3 {{dependence from 0 to 1 at depth 1: output}}
  // expected-remark @+2 {{dependence from 0 to 2 at depth 1: flow, output}}
  // expected-remark @+1 {{dependence from 0 to 3 at depth 1: output}}
  accel.matmul %a, %b, %c : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  // expected-remark @+2 {{dependence from 1 to 2 at depth 1: flow, output}}
  // expected-remark @+1 {{dependence from 1 to 3 at depth 1: output}}
  accel.vfill %c, 0.0 : memref<8x128xf32, #vmem>
  // expected-remark @+1 {{dependence from 2 to 3 at depth 1: anti, output}}
  accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vfill %c, 0.0 : memref<8x128xf32, #vmem>
  return
}

// -----

#vmem = #accel.space<vmem>

// accel.sem_wait: the DMAs that signal a semaphore (from any chip: every
// chip runs this function) are done there, so it writes their
// destinations; it also stands for the buffer on the other chip of every
// remote DMA, so no remote DMA crosses it. Buffers no such DMA touches
// (%o, %p) are independent of it.
func.func @sem_wait(%x: memref<8x128xf32, #vmem>, %slot: memref<8x128xf32, #vmem>, %o: memref<8x128xf32, #vmem>, %p: memref<8x128xf32, #vmem>) {
  %c1 = arith.constant 1 : index
  // expected-remark @+2 {{dependence from 0 to 1 at depth 1: output}}
  // expected-remark @+1 {{dependence from 0 to 2 at depth 1: flow}}
  %t = accel.dma_start %x, %slot dst_chip %c1 signal 0 : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  // expected-remark @+1 {{dependence from 1 to 2 at depth 1: flow}}
  accel.sem_wait 0, %c1
  accel.vexp %slot, %o : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vfill %p, 1.0 : memref<8x128xf32, #vmem>
  accel.dma_wait %t
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// An op with unknown memory effects is reported and takes part in nothing;
// callers refuse to reorder across it. A DMA's ISSUE reads its source and
// writes its destination; with waits=true its WAIT does too (the transfer
// is known done only there).
func.func private @opaque()
func.func @dma_window(%src: memref<8x128xf32, #hbm>, %o: memref<8x128xf32, #vmem>) {
  %buf = accel.alloc : memref<8x128xf32, #vmem>
  // WAITS: [[@LINE+4]]:8: remark: dependence from 0 to 1 at depth 1: output
  // WAITS: [[@LINE+3]]:8: remark: dependence from 0 to 2 at depth 1: flow
  // WAITS-NOT: remark: dependence from 0
  // expected-remark @+1 {{dependence from 0 to 1 at depth 1: flow}}
  %t = accel.dma_start %src, %buf : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  // WAITS: [[@LINE+2]]:3: remark: dependence from 1 to 2 at depth 1: flow
  // WAITS-NOT: remark: dependence
  accel.dma_wait %t
  // expected-remark @+1 {{unknown memory effects}}
  func.call @opaque() : () -> ()
  accel.vexp %buf, %o : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#vmem = #accel.space<vmem>

// Ring slots (a hand-pipelined loop's): slot (i + 2) mod 3 is written and
// slot i mod 3 read, 8 rows each. They are the same slot only two
// iterations apart (a flow dependence at distance 2, and the write of
// iteration i + 3 over the read of i, an anti dependence at distance 3),
// and the write meets itself only every 3 iterations.
func.func @ring_slots(%out: memref<8x128xf32, #vmem>) {
  %ring = accel.alloc : memref<24x128xf32, #vmem>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c30 = arith.constant 30 : index
  scf.for %i = %c0 to %c30 step %c1 {
    %i2 = arith.addi %i, %c2 : index
    %s2 = arith.remui %i2, %c3 : index
    %o2 = arith.muli %s2, %c8 : index
    %w = memref.subview %ring[%o2, 0] [8, 128] [1, 1] : memref<24x128xf32, #vmem> to memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
    %s = arith.remui %i, %c3 : index
    %o = arith.muli %s, %c8 : index
    %r = memref.subview %ring[%o, 0] [8, 128] [1, 1] : memref<24x128xf32, #vmem> to memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
    // WAITS: remark: dependence from 0 to 1 at depth 1: flow at distances 2
    // expected-remark @+2 {{dependence from 0 to 0 at depth 1: output at distances 3}}
    // expected-remark @+1 {{dependence from 0 to 1 at depth 1: flow at distances 2}}
    accel.vfill %w, 0.0 : memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
    // expected-remark @+2 {{dependence from 1 to 0 at depth 1: anti at distances 1}}
    // expected-remark @+1 {{dependence from 1 to 1 at depth 1: output at distances 1, 2, 3, 4}}
    accel.vexp %r, %out : memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#vmem = #accel.space<vmem>

// Slots of a possibly negative dividend (i - 1 with i from 0) are not
// compared: remui reads -1 as 2^64 - 1, which breaks the congruence.
func.func @ring_slots_negative(%out: memref<8x128xf32, #vmem>) {
  %ring = accel.alloc : memref<24x128xf32, #vmem>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c30 = arith.constant 30 : index
  scf.for %i = %c0 to %c30 step %c1 {
    %im = arith.subi %i, %c1 : index
    %s2 = arith.remui %im, %c3 : index
    %o2 = arith.muli %s2, %c8 : index
    %w = memref.subview %ring[%o2, 0] [8, 128] [1, 1] : memref<24x128xf32, #vmem> to memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
    %s = arith.remui %i, %c3 : index
    %o = arith.muli %s, %c8 : index
    %r = memref.subview %ring[%o, 0] [8, 128] [1, 1] : memref<24x128xf32, #vmem> to memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
    // expected-remark @+3 {{dependence from 0 to 0 at depth 1: output at distances 1, 2, 3, 4}}
    // expected-remark @+2 {{dependence from 0 to 1 at depth 1: flow at distances 1, 2, 3, 4}}
    // expected-remark @+1 {{dependence from 0 to 1 at depth 2: flow}}
    accel.vfill %w, 0.0 : memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
    // expected-remark @+2 {{dependence from 1 to 0 at depth 1: anti at distances 1, 2, 3, 4}}
    // expected-remark @+1 {{dependence from 1 to 1 at depth 1: output at distances 1, 2, 3, 4}}
    accel.vexp %r, %out : memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}
