// Bad pass options give one error and a non-zero exit.
// RUN: not accel-opt %s --accel-pipeline-dma='group=-1' 2>&1 | FileCheck %s --check-prefix=GROUP --implicit-check-not=error:
// RUN: not accel-opt %s --accel-pipeline-dma='max-group=0' 2>&1 | FileCheck %s --check-prefix=MAX --implicit-check-not=error:
// GROUP: error: accel-pipeline-dma: group must be >= 0 (0: from the metrics) and max-group >= 1; got group=-1 max-group=16
// MAX: error: accel-pipeline-dma: group must be >= 0 (0: from the metrics) and max-group >= 1; got group=0 max-group=0
func.func @main() {
  return
}
