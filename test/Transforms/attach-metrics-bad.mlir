// Hostile metrics.json files (issue 12): each is one error naming the file's
// byte or the field, exit 1, and the output file is not touched; metrics of
// another program are refused unless forced, and then each stale id is one
// warning line, never followed by the module.

// RUN: rm -rf %t && mkdir -p %t && echo old > %t/out.mlir
// RUN: not accel-opt %s --accel-attach-metrics=%S/Inputs/attach-bad/other-program.json -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: FileCheck %s --check-prefix=OLD --input-file=%t/out.mlir
// OTHER: attach-metrics-bad.mlir:{{[0-9]+}}:1: error: metrics: the metrics are of another program (program_fingerprint 0123456789abcdef, this module's is [[FP:[0-9a-f]+]]): its op ids name other ops; attach them anyway with --accel-attach-metrics='metrics=FILE force=true'
// OTHER-NOT: error
// OLD: old

// Forced: one warning for the fingerprint, one per stale id (op 3 is a
// dma_wait here, a dma_start in the metrics: no DMA attributes land on it),
// one for the DMA without an entry; no module printed after any of them.
// RUN: accel-opt %s '--accel-attach-metrics=metrics=%S/Inputs/attach-bad/other-program.json force=true' 2>%t/force.err | FileCheck %s --check-prefix=FORCED
// RUN: FileCheck %s --check-prefix=FORCE-ERR --input-file=%t/force.err
// FORCE-ERR: warning: metrics: the metrics are of another program (program_fingerprint 0123456789abcdef, this module's is {{[0-9a-f]+}}): its op ids name other ops; attaching them anyway (force)
// FORCE-ERR-NEXT: module {
// FORCE-ERR-NEXT: ^
// FORCE-ERR-NEXT: warning: metrics: stale op id 3 (accel.dma_start at other.mlir:9:9): the module's op with this id is accel.dma_wait
// FORCE-ERR-NEXT: module {
// FORCE-ERR-NEXT: ^
// FORCE-ERR-NEXT: warning: metrics: no entry for op id 2
// FORCE-ERR-NOT: func.func
// FORCED: accel.dma_wait %{{.*}} {accel.op_id = 3 : i64}

// RUN: not accel-opt %s --accel-attach-metrics=%S/Inputs/attach-bad/schema-number.json 2>&1 | FileCheck %s --check-prefix=SCHEMA
// SCHEMA: error: metrics: not an accel metrics.json (no "schema": "accel-metrics" and integer "schema_version")

// Fields of the wrong type that accel does not need are ignored (a name
// that is a number, a suggestion kind that is not a string); the numbers
// it attaches must be integers in range.
// RUN: accel-opt %s --accel-attach-metrics=%S/Inputs/attach-bad/odd-types.json | FileCheck %s --check-prefix=ODD
// ODD: accel.dma_start {{.*}}accel.executions = 3 : i64{{.*}}accel.suggestions = [{expected_cycles_saved = 10 : i64, kind = "?"}]
// RUN: not accel-opt %s --accel-attach-metrics=%S/Inputs/attach-bad/negative.json 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: error: metrics: field 'ops.2.stall_base': must be an integer in [0, 281474976710656]
// RUN: not accel-opt %s --accel-attach-metrics=%S/Inputs/attach-bad/huge-number.json 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: {{.*}}huge-number.json: byte 149: number overflow parsing '1e400'
// RUN: not accel-opt %s --accel-attach-metrics=%S/Inputs/attach-bad/big-id.json 2>&1 | FileCheck %s --check-prefix=BIGID
// BIGID: error: metrics: field 'ops.9223372036854775807': not an op id with an object of metrics
// RUN: %python -c "print('{\"ops\": ' + '[' * 100000 + ']' * 100000 + '}')" > %t/deep.json
// RUN: not accel-opt %s --accel-attach-metrics=%t/deep.json 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: error: {{.*}}deep.json: byte 71: nesting deeper than 64 arrays and objects

module {
func.func @f(%x: memref<8x128xf32, #accel.space<hbm>>) {
  %v = accel.alloc {accel.op_id = 1} : memref<8x128xf32, #accel.space<vmem>>
  %t = accel.dma_start %x, %v {accel.op_id = 2} : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  accel.dma_wait %t {accel.op_id = 3}
  return
}
}
