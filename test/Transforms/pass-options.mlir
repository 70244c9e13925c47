// Every option of accel's FDO passes is checked when the pipeline is
// parsed (issue 31): one error naming the pass, the option and the values
// it accepts, exit 1, and no pass runs (no output, no warning about the
// missing metrics).
// RUN: not accel-opt %s --pass-pipeline='builtin.module(func.func(accel-pin-vmem{solver=bogus}))' 2>&1 | FileCheck %s --check-prefix=SOLVER --implicit-check-not=warning: --implicit-check-not=@main
// RUN: not accel-opt %s --accel-pin-vmem='solver=bogus' 2>&1 | FileCheck %s --check-prefix=SOLVER --implicit-check-not=warning:
// RUN: not accel-opt %s --accel-pin-vmem='vmem-capacity=0' 2>&1 | FileCheck %s --check-prefix=PIN-CAP
// RUN: not accel-opt %s --accel-hoist-dma='vmem-capacity=4294967297' 2>&1 | FileCheck %s --check-prefix=HOIST-CAP
// RUN: not accel-opt %s --accel-rename-vmem='vmem-page=0' 2>&1 | FileCheck %s --check-prefix=RENAME-PAGE
// RUN: not accel-opt %s --accel-schedule='vmem-page=8589934592' 2>&1 | FileCheck %s --check-prefix=SCHED-PAGE
// RUN: not accel-opt %s --accel-fdo-pipeline='vmem-capacity=0' 2>&1 | FileCheck %s --check-prefix=FDO-CAP
// RUN: not accel-opt %s --pass-pipeline='builtin.module(accel-fdo-pipeline{vmem-page=0})' 2>&1 | FileCheck %s --check-prefix=FDO-PAGE
// Values in range are accepted (the passes then warn that nothing carries
// metrics).
// RUN: accel-opt %s --pass-pipeline='builtin.module(func.func(accel-pin-vmem{solver=greedy vmem-capacity=4294967296 vmem-page=1}))' 2>&1 | FileCheck %s --check-prefix=OK

// SOLVER: error: accel-pin-vmem: solver must be 'exact' or 'greedy'; got 'bogus'
// PIN-CAP: error: accel-pin-vmem: vmem-capacity must be in [1, 4294967296]; got 0
// HOIST-CAP: error: accel-hoist-dma: vmem-capacity must be in [1, 4294967296]; got 4294967297
// RENAME-PAGE: error: accel-rename-vmem: vmem-page must be in [1, 4294967296]; got 0
// SCHED-PAGE: error: accel-schedule: vmem-page must be in [1, 4294967296]; got 8589934592
// FDO-CAP: error: accel-fdo-pipeline: vmem-capacity must be in [1, 4294967296]; got 0
// FDO-PAGE: error: accel-fdo-pipeline: vmem-page must be in [1, 4294967296]; got 0
// OK: warning: accel-pin-vmem: no op of function 'main' carries metrics
func.func @main() {
  return
}
