// RUN: accel-opt %s -split-input-file --accel-parallelize-dma='remarks=true' -verify-diagnostics | FileCheck %s

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Two independent DMAs serialized by ISSUE -> WAIT -> ISSUE (seed 000
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
