// RUN: accel-opt %s -split-input-file --accel-schedule='remarks=true' -verify-diagnostics | FileCheck %s

// Costs come from hand-written metrics attributes (accel.busy_cycles over
// accel.executions; accel.dma_cycles from ISSUE to completion).

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Two dependent 100-cycle VPU ops come first, so the in-order core reaches
// the 500-cycle load only after the second issues (at cycle 100): the load
// is issued at 101 and completes at 601, the vadd runs 601-611 and the
// return issues at 611 (612). Issued first, the load completes at 500, the
// vadd runs 500-510 and the block ends at 511.
// CHECK-LABEL: func.func @interleave
// CHECK: accel.dma_start
// CHECK-NEXT: accel.vexp
// CHECK-NEXT: accel.vexp
// CHECK-NEXT: accel.dma_wait
// CHECK-NEXT: accel.vadd
// expected-remark @+1 {{scheduled a block of 6 ops: 612 -> 511 model cycles}}
func.func @interleave(%x: memref<8x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>,
                      %b: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  accel.vexp %a, %a {accel.busy_cycles = 100 : i64, accel.executions = 1 : i64} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vexp %a, %a {accel.busy_cycles = 100 : i64, accel.executions = 1 : i64} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t = accel.dma_start %x, %b {accel.dma_cycles = 500 : i64} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t
  accel.vadd %b, %a, %c {accel.busy_cycles = 10 : i64, accel.executions = 1 : i64} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// The load overwrites %a, which the first VPU op reads: it may not pass
// that op (it issues when the op ends, at 100), only the second one, which
// then waits for the core (101 instead of 100): 602 -> 601.
// CHECK-LABEL: func.func @conflict
// CHECK: accel.vexp %arg1
// CHECK-NEXT: accel.dma_start
// CHECK-NEXT: accel.vexp
// expected-remark @+1 {{scheduled a block of 5 ops: 602 -> 601 model cycles}}
func.func @conflict(%x: memref<8x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>,
                    %c: memref<8x128xf32, #vmem>) {
  accel.vexp %a, %c {accel.busy_cycles = 100 : i64, accel.executions = 1 : i64} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vexp %c, %c {accel.busy_cycles = 100 : i64, accel.executions = 1 : i64} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t = accel.dma_start %x, %a {accel.dma_cycles = 500 : i64} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// A loop is a fence: the load after it stays after it, though it does not
// depend on it.
// CHECK-LABEL: func.func @loop_fence
// CHECK: scf.for
// CHECK: accel.dma_start
func.func @loop_fence(%x: memref<8x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>,
                      %b: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    accel.vexp %a, %a {accel.busy_cycles = 400 : i64, accel.executions = 4 : i64} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  %t = accel.dma_start %x, %b {accel.dma_cycles = 500 : i64} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t
  return
}

// -----

// Without measured costs the pass does nothing, and says so once.
module {
  // expected-warning @below {{accel-schedule: no op of function 'no_metrics' carries metrics, so nothing changes; run --accel-attach-metrics=metrics.json first (the metrics.json of accel-replay run)}}
  func.func @no_metrics(%a: memref<8x128xf32, #accel.space<vmem>>) {
    accel.vexp %a, %a : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
    return
  }
}
