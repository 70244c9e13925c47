// RUN: accel-opt %s --accel-attach-metrics=%S/Inputs/metrics.json -verify-diagnostics | FileCheck %s
// RUN: not accel-opt %s --accel-attach-metrics=%S/Inputs/metrics-v7.json 2>&1 | FileCheck %s --check-prefix=VERSION
// RUN: not accel-opt %s --accel-attach-metrics=%S/Inputs/metrics-truncated.json 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: not accel-opt %s --accel-attach-metrics=%S/Inputs/no-such.json 2>&1 | FileCheck %s --check-prefix=MISSING
// The long spelling of the option works too.
// RUN: accel-opt %s '--accel-attach-metrics=metrics=%S/Inputs/metrics.json' 2>/dev/null | FileCheck %s

// Entry 99 is stale (no op carries it): a warning on the module. The DMA with
// id 4 has no entry: a warning on the op. Neither is an error.
// expected-warning @+1 {{metrics: stale op id 99 (accel.dma_start at gone.mlir:1:1): no op in the module carries it}}
module {
// CHECK-LABEL: func.func @f
// CHECK: accel.dma_start {{.*}} {accel.dma_bytes = 262144 : i64, accel.dma_count = 4 : i64, accel.executions = 4 : i64, accel.op_id = 2 : i64, accel.slack = 0 : i64, accel.stall_base = 1996 : i64, accel.stall_transfer = 256 : i64}
// CHECK-NEXT: accel.dma_wait %{{.*}} {accel.executions = 4 : i64, accel.op_id = 3 : i64}
// CHECK-NEXT: accel.dma_start {{.*}} {accel.op_id = 4 : i64}
func.func @f(%x: memref<8x128xf32, #accel.space<hbm>>) {
  %v = accel.alloc {accel.op_id = 1} : memref<8x128xf32, #accel.space<vmem>>
  %t = accel.dma_start %x, %v {accel.op_id = 2} : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  accel.dma_wait %t {accel.op_id = 3}
  // expected-warning @+1 {{metrics: no entry for op id 4}}
  %t2 = accel.dma_start %v, %x {accel.op_id = 4} : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
  accel.dma_wait %t2
  return
}
}

// VERSION: error: metrics: schema_version 7 is not the version this build reads (5)
// TRUNC: error: {{.*}}metrics-truncated.json: byte 36: parse error at line 1, column 37: syntax error while parsing object key - unexpected end of input
// MISSING: error: cannot read metrics file '{{.*}}no-such.json': No such file or directory
