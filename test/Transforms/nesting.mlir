// The FDO passes run on each func.func, so they nest in pipelines: given
// explicitly, implicitly (--accel-hoist-dma on a module nests it as
// mlir-opt's command line does), on many threads or on one. Each function
// is transformed on its own: @measured's stalled DMA is hoisted, and
// @unmeasured, which carries no metrics, is left as it is with one warning
// naming it.
// RUN: accel-opt %s --pass-pipeline='builtin.module(func.func(accel-hoist-dma))' 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// RUN: accel-opt %s --accel-hoist-dma 2>/dev/null | FileCheck %s
// RUN: accel-opt %s --accel-hoist-dma --mlir-disable-threading 2>/dev/null | FileCheck %s
// A module pass where a function pass is expected is the usual MLIR error.
// RUN: not accel-opt %s --pass-pipeline='builtin.module(func.func(accel-assign-op-ids))' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// The registered FDO pipeline nests its accel passes and keeps cse on the
// module.
// RUN: accel-opt %s --accel-fdo-pipeline --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE

// WARN-COUNT-1: warning: accel-hoist-dma: no op of function 'unmeasured' carries metrics
// WARN-NOT: warning

// ANCHOR: error: Can't add pass 'AccelAssignOpIds' restricted to 'builtin.module' on a PassManager intended to run on 'func.func'

// PIPE: builtin.module(
// PIPE-NEXT: func.func(
// PIPE-NEXT: accel-pin-vmem{
// PIPE-NEXT: ),
// PIPE-NEXT: func.func(
// PIPE-NEXT: accel-parallelize-dma{
// PIPE-NEXT: ),
// PIPE-NEXT: func.func(
// PIPE-NEXT: accel-rename-vmem{
// PIPE-NEXT: ),
// PIPE-NEXT: func.func(
// PIPE-NEXT: accel-hoist-dma{
// PIPE-NEXT: ),
// PIPE-NEXT: func.func(
// PIPE-NEXT: accel-sink-dma-wait{
// PIPE-NEXT: ),
// PIPE-NEXT: func.func(
// PIPE-NEXT: accel-pipeline-dma{
// PIPE-NEXT: ),
// PIPE-NEXT: cse
// PIPE-NEXT: )

// CHECK-LABEL: func.func @measured
// CHECK: accel.alloc
// CHECK-NEXT: accel.dma_start {{.*}}accel.hoisted = 2
// CHECK-NEXT: accel.alloc
// CHECK-NEXT: accel.vfill
// CHECK-NEXT: accel.dma_wait
// CHECK-LABEL: func.func @unmeasured
// CHECK: accel.vfill
// CHECK-NEXT: accel.dma_start
// CHECK-NOT: accel.hoisted
// CHECK: return

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @measured(%x: memref<8x128xf32, #hbm>) {
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %o = accel.alloc : memref<8x128xf32, #vmem>
  accel.vfill %o, 0.0 : memref<8x128xf32, #vmem>
  %t = accel.dma_start %x, %a {accel.stall_base = 400 : i64} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t
  accel.vexp %a, %o : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}
func.func @unmeasured(%x: memref<8x128xf32, #hbm>) {
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %o = accel.alloc : memref<8x128xf32, #vmem>
  accel.vfill %o, 0.0 : memref<8x128xf32, #vmem>
  %t = accel.dma_start %x, %a : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t
  accel.vexp %a, %o : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}
