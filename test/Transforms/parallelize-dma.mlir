// RUN: accel-opt %s -split-input-file --accel-parallelize-dma='remarks=true' -verify-diagnostics | FileCheck %s

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Two independent DMAs serialized by ISSUE -> WAIT -> ISSUE (SnR
// §5.2.1). With a parallelize suggestion, B moves up to right after A, so
// their base latencies overlap; both WAITs stay where they were.
// CHECK-LABEL: func.func @serialized
// CHECK: %[[A:.*]] = accel.dma_start %arg0, %arg2 {accel.op_id = 1 : i64}
// CHECK-NEXT: %[[B:.*]] = accel.dma_start %arg1, %arg3 {accel.op_id = 3 : i64, accel.parallelized = 1 : i64
// CHECK-NEXT: accel.dma_wait %[[A]]
// CHECK-NEXT: accel.vexp %arg2, %arg4
// CHECK-NEXT: accel.dma_wait %[[B]]
func.func @serialized(%a: memref<8x128xf32, #hbm>, %b: memref<8x128xf32, #hbm>,
                      %va: memref<8x128xf32, #vmem>, %vb: memref<8x128xf32, #vmem>,
                      %o: memref<8x128xf32, #vmem>) {
  %ta = accel.dma_start %a, %va {accel.op_id = 1} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %ta
  accel.vexp %va, %o : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %tb = accel.dma_start %b, %vb {accel.op_id = 3, accel.suggestions = [{kind = "parallelize", expected_cycles_saved = 499, with_op_id = 1}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tb
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: B's destination is read in between (by the vexp), so B cannot
// reach A; nothing moves.
// CHECK-LABEL: func.func @dependent
// CHECK: accel.dma_wait
// CHECK-NEXT: accel.vexp
// CHECK-NEXT: accel.dma_start %arg1, %arg3
func.func @dependent(%a: memref<8x128xf32, #hbm>, %b: memref<8x128xf32, #hbm>,
                     %va: memref<8x128xf32, #vmem>, %vb: memref<8x128xf32, #vmem>) {
  %ta = accel.dma_start %a, %va : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %ta
  // expected-note @+1 {{blocking op}}
  accel.vexp %va, %vb : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  // expected-remark @+1 {{not parallelized: blocked by an access to the DMA's destination}}
  %tb = accel.dma_start %b, %vb {accel.suggestions = [{kind = "parallelize", expected_cycles_saved = 499}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tb
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Without a hint nothing moves; and a DMA with no earlier ISSUE in its block
// is reported.
// CHECK-LABEL: func.func @no_hint
// CHECK: accel.dma_wait
// CHECK-NEXT: accel.dma_start %arg1
func.func @no_hint(%a: memref<8x128xf32, #hbm>, %b: memref<8x128xf32, #hbm>,
                   %va: memref<8x128xf32, #vmem>, %vb: memref<8x128xf32, #vmem>) {
  // expected-remark @+1 {{not parallelized: no earlier DMA ISSUE in its block}}
  %ta = accel.dma_start %a, %va {accel.suggestions = [{kind = "parallelize", expected_cycles_saved = 1}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %ta
  %tb = accel.dma_start %b, %vb : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tb
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: B's source is written in between (A's data is stored to it).
// CHECK-LABEL: func.func @source_written
// CHECK: accel.dma_wait
// CHECK-NEXT: accel.dma_start %arg2, %arg1
// CHECK-NEXT: accel.dma_wait
// CHECK-NEXT: accel.dma_start %arg1, %arg3
func.func @source_written(%a: memref<8x128xf32, #hbm>, %b: memref<8x128xf32, #hbm>,
                          %va: memref<8x128xf32, #vmem>, %vb: memref<8x128xf32, #vmem>) {
  %ta = accel.dma_start %a, %va : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %ta
  %ts = accel.dma_start %va, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  // expected-note @+1 {{blocking op}}
  accel.dma_wait %ts
  // expected-remark @+1 {{not parallelized: blocked by the WAIT of a DMA that writes the source}}
  %tb = accel.dma_start %b, %vb {accel.suggestions = [{kind = "parallelize", expected_cycles_saved = 499}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tb
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Refused: B's source row is loaded (accel.load) from the table that A
// brings in, so B cannot pass A's WAIT.
// CHECK-LABEL: func.func @dominance
// CHECK: accel.load
// CHECK-NEXT: memref.subview
// CHECK-NEXT: accel.dma_start
func.func @dominance(%a: memref<16xi32, #hbm>, %w: memref<64x128xf32, #hbm>,
                     %tab: memref<16xi32, #vmem>,
                     %b: memref<1x128xf32, #vmem>) {
  %c3 = arith.constant 3 : index
  %ta = accel.dma_start %a, %tab : memref<16xi32, #hbm>, memref<16xi32, #vmem>
  // expected-note @+1 {{blocking op}}
  accel.dma_wait %ta
  %r = accel.load %tab[%c3] : memref<16xi32, #vmem>
  %s = memref.subview %w[%r, 0] [1, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
  // expected-remark @+1 {{not parallelized: blocked by the WAIT of a DMA that writes memory its address is loaded from}}
  %tb = accel.dma_start %s, %b {accel.suggestions = [{kind = "parallelize", expected_cycles_saved = 499}]} : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
  accel.dma_wait %tb
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The metrics let C pass ISSUEs of its link: each of its 10 WAITs stalled
// 99 cycles on base latency (990 / 10) and its transfer takes 2 cycles.
// It crosses B's WAIT, B, A1's and A0's WAITs and the run A0, A1 (A0 is the
// highest ISSUE it reaches), and goes after that run, so A0, A1, C issue
// together in their order.
// CHECK-LABEL: func.func @pass_issues
// CHECK: %[[A0:.*]] = accel.dma_start %arg0, %arg3 {accel.op_id = 1 : i64}
// CHECK-NEXT: %[[A1:.*]] = accel.dma_start %arg1, %arg4 {accel.op_id = 2 : i64}
// CHECK-NEXT: %[[C:.*]] = accel.dma_start %arg2, %arg6 {{.*}}accel.parallelized = 1 : i64
// CHECK-NEXT: accel.dma_wait %[[A0]]
// CHECK-NEXT: accel.dma_wait %[[A1]]
// CHECK-NEXT: %[[B:.*]] = accel.dma_start %arg0, %arg5 {accel.op_id = 5 : i64}
// CHECK-NEXT: accel.dma_wait %[[B]]
// CHECK-NEXT: accel.dma_wait %[[C]]
func.func @pass_issues(%a: memref<8x128xf32, #hbm>, %b: memref<8x128xf32, #hbm>,
                       %c: memref<8x128xf32, #hbm>,
                       %va0: memref<8x128xf32, #vmem>, %va1: memref<8x128xf32, #vmem>,
                       %vb: memref<8x128xf32, #vmem>, %vc: memref<8x128xf32, #vmem>) {
  %t0 = accel.dma_start %a, %va0 {accel.op_id = 1} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  %t1 = accel.dma_start %b, %va1 {accel.op_id = 2} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t0
  accel.dma_wait %t1
  %tb = accel.dma_start %a, %vb {accel.op_id = 5} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tb
  %tc = accel.dma_start %c, %vc {accel.op_id = 7, accel.stall_base = 990, accel.dma_count = 10, accel.transfer_cycles = 2, accel.suggestions = [{kind = "parallelize", expected_cycles_saved = 990, with_op_id = 5}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tc
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The same, but C's transfer (200 cycles) exceeds its base stall per WAIT
// (99): passing B would delay B more than it saves, so the link FIFO order
// is kept and C goes right after B.
// CHECK-LABEL: func.func @keep_fifo
// CHECK: %[[B:.*]] = accel.dma_start %arg0, %arg5 {accel.op_id = 5 : i64}
// CHECK-NEXT: accel.dma_start %arg2, %arg6 {{.*}}accel.parallelized = 5 : i64
// CHECK-NEXT: accel.dma_wait %[[B]]
func.func @keep_fifo(%a: memref<8x128xf32, #hbm>, %b: memref<8x128xf32, #hbm>,
                     %c: memref<8x128xf32, #hbm>,
                     %va0: memref<8x128xf32, #vmem>, %va1: memref<8x128xf32, #vmem>,
                     %vb: memref<8x128xf32, #vmem>, %vc: memref<8x128xf32, #vmem>) {
  %t0 = accel.dma_start %a, %va0 {accel.op_id = 1} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  %t1 = accel.dma_start %b, %va1 {accel.op_id = 2} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t0
  accel.dma_wait %t1
  %tb = accel.dma_start %a, %vb {accel.op_id = 5} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tb
  %tc = accel.dma_start %c, %vc {accel.op_id = 7, accel.stall_base = 990, accel.dma_count = 10, accel.transfer_cycles = 200, accel.suggestions = [{kind = "parallelize", expected_cycles_saved = 990, with_op_id = 5}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tc
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A chain (SnR's setup groups): tables P and Q issued together; X's row
// comes from P, Y's from Q. The analyzer saw Q complete before X was
// issued, so Q's WAIT (op 8) moves up before X (op 6) and Y (with its
// scalar load and subview) follows X: X and Y issue together.
// CHECK-LABEL: func.func @chain
// CHECK: %[[P:.*]] = accel.dma_start %arg0, %arg3 {accel.op_id = 1 : i64}
// CHECK-NEXT: %[[Q:.*]] = accel.dma_start %arg1, %arg4 {accel.op_id = 2 : i64}
// CHECK-NEXT: accel.dma_wait %[[P]]
// CHECK-NEXT: accel.load %arg3
// CHECK-NEXT: memref.subview
// CHECK-NEXT: accel.dma_wait %[[Q]] {accel.op_id = 8 : i64}
// CHECK-NEXT: %[[X:.*]] = accel.dma_start {{.*}}accel.op_id = 6 : i64
// CHECK-NEXT: accel.load %arg4
// CHECK-NEXT: memref.subview
// CHECK-NEXT: %[[Y:.*]] = accel.dma_start {{.*}}accel.op_id = 11 : i64, accel.parallelized = 6 : i64
// CHECK-NEXT: accel.dma_wait %[[X]]
// CHECK-NEXT: accel.dma_wait %[[Y]]
func.func @chain(%tabp: memref<16xi32, #hbm>, %tabq: memref<16xi32, #hbm>,
                 %w: memref<64x128xf32, #hbm>,
                 %p: memref<16xi32, #vmem>, %q: memref<16xi32, #vmem>,
                 %vx: memref<1x128xf32, #vmem>, %vy: memref<1x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %tp = accel.dma_start %tabp, %p {accel.op_id = 1} : memref<16xi32, #hbm>, memref<16xi32, #vmem>
  %tq = accel.dma_start %tabq, %q {accel.op_id = 2} : memref<16xi32, #hbm>, memref<16xi32, #vmem>
  accel.dma_wait %tp
  %r0 = accel.load %p[%c0] : memref<16xi32, #vmem>
  %s0 = memref.subview %w[%r0, 0] [1, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
  %tx = accel.dma_start %s0, %vx {accel.op_id = 6} : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
  accel.dma_wait %tx
  accel.dma_wait %tq {accel.op_id = 8}
  %r1 = accel.load %q[%c0] : memref<16xi32, #vmem>
  %s1 = memref.subview %w[%r1, 0] [1, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
  %ty = accel.dma_start %s1, %vy {accel.op_id = 11, accel.stall_base = 99, accel.dma_count = 1, accel.transfer_cycles = 8, accel.suggestions = [{kind = "parallelize", expected_cycles_saved = 99, with_op_id = 6, wait_op_id = 8}]} : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
  accel.dma_wait %ty
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The chain again, but X's data is read into Y's destination in between,
// so Y cannot reach X even with Q's WAIT out of the way: the WAIT goes back
// where it was, nothing moves, and the remark names the real blocker.
// CHECK-LABEL: func.func @chain_blocked
// CHECK: accel.dma_start %{{.*}} {accel.op_id = 6 : i64}
// CHECK-NEXT: accel.dma_wait
// CHECK-NEXT: accel.vcopy
// CHECK-NEXT: accel.dma_wait %{{.*}} {accel.op_id = 8 : i64}
// CHECK-NEXT: accel.load
// CHECK-NOT: accel.parallelized
func.func @chain_blocked(%tabp: memref<16xi32, #hbm>, %tabq: memref<16xi32, #hbm>,
                         %w: memref<64x128xf32, #hbm>,
                         %p: memref<16xi32, #vmem>, %q: memref<16xi32, #vmem>,
                         %vx: memref<1x128xf32, #vmem>, %vy: memref<1x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %tp = accel.dma_start %tabp, %p {accel.op_id = 1} : memref<16xi32, #hbm>, memref<16xi32, #vmem>
  %tq = accel.dma_start %tabq, %q {accel.op_id = 2} : memref<16xi32, #hbm>, memref<16xi32, #vmem>
  accel.dma_wait %tp
  %r0 = accel.load %p[%c0] : memref<16xi32, #vmem>
  %s0 = memref.subview %w[%r0, 0] [1, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
  %tx = accel.dma_start %s0, %vx {accel.op_id = 6} : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
  accel.dma_wait %tx
  // expected-note @+1 {{blocking op}}
  accel.vcopy %vx, %vy : memref<1x128xf32, #vmem>, memref<1x128xf32, #vmem>
  accel.dma_wait %tq {accel.op_id = 8}
  %r1 = accel.load %q[%c0] : memref<16xi32, #vmem>
  %s1 = memref.subview %w[%r1, 0] [1, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
  // expected-remark @+1 {{not parallelized: blocked by an access to the DMA's destination}}
  %ty = accel.dma_start %s1, %vy {accel.op_id = 11, accel.stall_base = 99, accel.dma_count = 1, accel.transfer_cycles = 8, accel.suggestions = [{kind = "parallelize", expected_cycles_saved = 99, with_op_id = 6, wait_op_id = 8}]} : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
  accel.dma_wait %ty
  return
}
