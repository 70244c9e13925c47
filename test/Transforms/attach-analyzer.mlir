// RUN: accel-opt %s --accel-attach-metrics=%S/Inputs/metrics-analyzer.json | FileCheck %s

// The analyzer's results come back too: each DMA op's smallest backtails
// in both dependency models (SnR Fig. 9; relaxed_bound_op_id -1:
// nothing binds) and every suggestion naming the op, with its expected savings.
// Entry 77 of "dependencies" names no op and is ignored. From "dmas", each
// DMA op gets its longest transfer (complete - transfer_start: 4 and
// max(4, 10) cycles; the entry with complete < transfer_start is ignored),
// its longest time from ISSUE to completion (dma_cycles: 514 - 10 and
// max(518 - 20, 530 - 30)), and from "ops" its min_slack.

// The module gets the costs per op kind and location (for clones that
// lose their metrics) and the DMA slots of the machine.
// CHECK: module attributes {accel.costs = {"accel.dma_start@loc({{.*}}:{{[0-9]+}}:8)" = {dma = 504 : i64}, "accel.dma_start@loc({{.*}}:{{[0-9]+}}:9)" = {dma = 500 : i64}}, accel.dma_max_outstanding = 4 : i64}
// CHECK-LABEL: func.func @f
// CHECK: accel.dma_start {{.*}}accel.backtail = {conservative_cycles = 3 : i64, conservative_instructions = 3 : i64, relaxed_bound_op_id = -1 : i64, relaxed_cycles = 40 : i64, relaxed_instructions = 12 : i64}
// CHECK-SAME: accel.dma_cycles = 504 : i64
// CHECK-SAME: accel.min_slack = 0 : i64
// CHECK-SAME: accel.suggestions = [{expected_cycles_saved = 503 : i64, kind = "hoist"}], accel.transfer_cycles = 4 : i64}
// CHECK: accel.dma_start
// CHECK-NOT: accel.backtail
// CHECK-SAME: accel.dma_cycles = 500 : i64
// CHECK-SAME: accel.suggestions = [{expected_cycles_saved = 499 : i64, kind = "parallelize", with_op_id = 2 : i64}, {bytes = 4096 : i64, expected_cycles_saved = 1000 : i64, kind = "pin"}], accel.transfer_cycles = 10 : i64}
func.func @f(%x: memref<8x128xf32, #accel.space<hbm>>, %y: memref<8x128xf32, #accel.space<hbm>>) {
  %v = accel.alloc {accel.op_id = 1} : memref<8x128xf32, #accel.space<vmem>>
  %t = accel.dma_start %x, %v {accel.op_id = 2} : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  accel.dma_wait %t {accel.op_id = 3}
  %w = accel.alloc {accel.op_id = 5} : memref<8x128xf32, #accel.space<vmem>>
  %t2 = accel.dma_start %y, %w {accel.op_id = 4} : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  accel.dma_wait %t2 {accel.op_id = 6}
  return
}
