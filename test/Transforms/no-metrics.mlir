// The FDO passes act on measured stalls and suggestions: without metrics
// (and without all=true) each says so once, as a warning, and leaves the
// program as it was; with all=true, or with a metric attached, it does not.
// RUN: accel-opt %s --accel-hoist-dma 2>&1 >/dev/null | FileCheck %s --check-prefix=HOIST
// RUN: accel-opt %s --accel-sink-dma-wait 2>&1 >/dev/null | FileCheck %s --check-prefix=SINK
// RUN: accel-opt %s --accel-parallelize-dma 2>&1 >/dev/null | FileCheck %s --check-prefix=PAR
// RUN: accel-opt %s --accel-pin-vmem 2>&1 >/dev/null | FileCheck %s --check-prefix=PIN
// RUN: accel-opt %s --accel-pipeline-dma 2>&1 >/dev/null | FileCheck %s --check-prefix=PIPE
// RUN: accel-opt %s --accel-rename-vmem 2>&1 >/dev/null | FileCheck %s --check-prefix=RENAME
// RUN: accel-opt %s --accel-schedule 2>&1 >/dev/null | FileCheck %s --check-prefix=SCHED
// RUN: accel-opt %s --accel-hoist-dma | FileCheck %s --check-prefix=SAME
// RUN: accel-opt %s --accel-hoist-dma='all=true' 2>&1 >/dev/null | FileCheck %s --allow-empty --check-prefix=QUIET
// RUN: sed 's/accel.op_id = 2/accel.op_id = 2, accel.stall_base = 400/' %s | accel-opt --accel-hoist-dma 2>&1 >/dev/null | FileCheck %s --allow-empty --check-prefix=QUIET

// HOIST-COUNT-1: warning: accel-hoist-dma: no op of function 'main' carries metrics, so nothing changes; run --accel-attach-metrics=metrics.json first (the metrics.json of accel-replay run), or pass all=true
// SINK-COUNT-1: warning: accel-sink-dma-wait: no op of function 'main' carries metrics, so nothing changes; {{.*}}, or pass all=true
// PAR-COUNT-1: warning: accel-parallelize-dma: no op of function 'main' carries metrics
// PIN-COUNT-1: warning: accel-pin-vmem: no op of function 'main' carries metrics
// PIPE-COUNT-1: warning: accel-pipeline-dma: no op of function 'main' carries metrics
// RENAME: warning: accel-rename-vmem: no op of function 'main' carries metrics, so nothing changes; run --accel-attach-metrics=metrics.json first (the metrics.json of accel-replay run){{$}}
// SCHED: warning: accel-schedule: no op of function 'main' carries metrics
// QUIET-NOT: warning

// SAME-LABEL: func.func @main
// SAME: accel.vfill
// SAME-NEXT: %{{.*}} = accel.dma_start
// SAME-NEXT: accel.dma_wait

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<8x128xf32, #hbm>) {
  %a = accel.alloc {accel.op_id = 1} : memref<8x128xf32, #vmem>
  %o = accel.alloc : memref<8x128xf32, #vmem>
  accel.vfill %o, 0.0 : memref<8x128xf32, #vmem>
  %t = accel.dma_start %x, %a {accel.op_id = 2} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t
  accel.vexp %a, %o : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}
