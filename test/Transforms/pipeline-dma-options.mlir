// Bad pass options give one error and a non-zero exit.
// RUN: not accel-opt %s --accel-pipeline-dma='distance=-1' 2>&1 | FileCheck %s --check-prefix=DIST --implicit-check-not=error:
// RUN: not accel-opt %s --accel-pipeline-dma='max-distance=0' 2>&1 | FileCheck %s --check-prefix=MAX --implicit-check-not=error:
// RUN: not accel-opt %s --accel-pipeline-dma='compute-distance=2' 2>&1 | FileCheck %s --check-prefix=COMP --implicit-check-not=error:
// DIST: error: accel-pipeline-dma: distance must be >= 0 (0: from the metrics), max-distance >= 1 and compute-distance 0 or 1; got distance=-1 max-distance=8 compute-distance=1
// MAX: error: accel-pipeline-dma: distance must be >= 0 (0: from the metrics), max-distance >= 1 and compute-distance 0 or 1; got distance=0 max-distance=0 compute-distance=1
// COMP: error: accel-pipeline-dma: distance must be >= 0 (0: from the metrics), max-distance >= 1 and compute-distance 0 or 1; got distance=0 max-distance=8 compute-distance=2
func.func @main() {
  return
}
