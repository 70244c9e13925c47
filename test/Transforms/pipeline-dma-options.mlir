// Bad pass options give one error, naming the pass, the option and the
// values it accepts, when the pipeline is parsed: nothing runs.
// RUN: not accel-opt %s --accel-pipeline-dma='distance=-1' 2>&1 | FileCheck %s --check-prefix=DIST --implicit-check-not=error:
// RUN: not accel-opt %s --accel-pipeline-dma='distance=1025' 2>&1 | FileCheck %s --check-prefix=DIST-HI --implicit-check-not=error:
// RUN: not accel-opt %s --accel-pipeline-dma='max-distance=0' 2>&1 | FileCheck %s --check-prefix=MAX --implicit-check-not=error:
// RUN: not accel-opt %s --accel-pipeline-dma='compute-distance=2' 2>&1 | FileCheck %s --check-prefix=COMP --implicit-check-not=error:
// RUN: not accel-opt %s --pass-pipeline='builtin.module(func.func(accel-pipeline-dma{vmem-page=0}))' 2>&1 | FileCheck %s --check-prefix=PAGE --implicit-check-not=error:
// DIST: error: accel-pipeline-dma: distance must be in [0, 1024] (iterations in flight; 0: from the metrics); got -1
// DIST-HI: error: accel-pipeline-dma: distance must be in [0, 1024] (iterations in flight; 0: from the metrics); got 1025
// MAX: error: accel-pipeline-dma: max-distance must be in [1, 1024] (iterations in flight); got 0
// COMP: error: accel-pipeline-dma: compute-distance must be in [0, 1]; got 2
// PAGE: error: accel-pipeline-dma: vmem-page must be in [1, 4294967296]; got 0
func.func @main() {
  return
}
