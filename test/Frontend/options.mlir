// The frontend's options are checked when the pipeline is parsed (issue
// 31): a tile size of 0 or below, or above the ISA's largest tile
// dimension (65535), was taken as "do not tile"; now it is one error naming
// the pipeline or pass, the option and its range, and nothing runs.
// RUN: not accel-opt %s --accel-from-linalg='tile-rows=0' 2>&1 | FileCheck %s --check-prefix=ROWS0 --implicit-check-not=error:
// RUN: not accel-opt %s --accel-from-linalg='tile-cols=-1' 2>&1 | FileCheck %s --check-prefix=COLSNEG --implicit-check-not=error:
// RUN: not accel-opt %s --pass-pipeline='builtin.module(accel-from-linalg{tile-k=4294967296})' 2>&1 | FileCheck %s --check-prefix=K32 --implicit-check-not=error:
// RUN: not accel-opt %s --accel-from-linalg='vmem-bytes=0' 2>&1 | FileCheck %s --check-prefix=VMEM --implicit-check-not=error:
// RUN: not accel-opt %s --accel-from-linalg='vmem-space=0' 2>&1 | FileCheck %s --check-prefix=SPACE --implicit-check-not=error:
// RUN: not accel-opt %s --pass-pipeline='builtin.module(func.func(accel-tile-linalg{tile-rows=65536}))' 2>&1 | FileCheck %s --check-prefix=TILE --implicit-check-not=error:
// RUN: not accel-opt %s --accel-fuse-linalg='tile-cols=0' 2>&1 | FileCheck %s --check-prefix=FUSE --implicit-check-not=error:
// RUN: not accel-opt %s --accel-stage-operands='vmem-space=0' 2>&1 | FileCheck %s --check-prefix=STAGE --implicit-check-not=error:
// RUN: not accel-opt %s --convert-memory-spaces-to-accel='vmem-space=0' 2>&1 | FileCheck %s --check-prefix=SPACES --implicit-check-not=error:
// RUN: not accel-opt %s --pass-pipeline='builtin.module(func.func(accel-decompose-linalg{tile-rows=0}))' 2>&1 | FileCheck %s --check-prefix=DECOMPOSE --implicit-check-not=error:
// RUN: not accel-opt %s --pass-pipeline='builtin.module(func.func(accel-decompose-linalg{vmem-bytes=0}))' 2>&1 | FileCheck %s --check-prefix=DECOMPOSE-VMEM --implicit-check-not=error:
// RUN: not accel-opt %s --accel-promote-buffers='vmem-space=0' 2>&1 | FileCheck %s --check-prefix=PROMOTE --implicit-check-not=error:
// RUN: not accel-opt %s --accel-promote-buffers='vmem-bytes=0' 2>&1 | FileCheck %s --check-prefix=PROMOTE-VMEM --implicit-check-not=error:
// RUN: not accel-opt %s --accel-lower-gathers='vmem-space=0' 2>&1 | FileCheck %s --check-prefix=GATHERS --implicit-check-not=error:
// RUN: not accel-opt %s --accel-lower-gathers='vmem-bytes=0' 2>&1 | FileCheck %s --check-prefix=GATHERS-VMEM --implicit-check-not=error:
// The largest values are accepted.
// RUN: accel-opt %s --accel-from-linalg='tile-rows=65535 tile-cols=1 tile-k=65535 vmem-bytes=4294967296' | FileCheck %s --check-prefix=OK

// ROWS0: error: accel-from-linalg: tile-rows must be in [1, 65535] (a tile dimension of the ISA); got 0
// COLSNEG: error: accel-from-linalg: tile-cols must be in [1, 65535] (a tile dimension of the ISA); got -1
// K32: error: accel-from-linalg: tile-k must be in [1, 65535] (a tile dimension of the ISA); got 4294967296
// VMEM: error: accel-from-linalg: vmem-bytes must be in [1, 4294967296]; got 0
// SPACE: error: accel-from-linalg: vmem-space must be in [1, 4294967295] (space 0 is HBM); got 0
// TILE: error: accel-tile-linalg: tile-rows must be in [1, 65535] (a tile dimension of the ISA); got 65536
// FUSE: error: accel-fuse-linalg: tile-cols must be in [1, 65535] (a tile dimension of the ISA); got 0
// STAGE: error: accel-stage-operands: vmem-space must be in [1, 4294967295] (space 0 is HBM); got 0
// SPACES: error: convert-memory-spaces-to-accel: vmem-space must be in [1, 4294967295] (space 0 is HBM); got 0
// DECOMPOSE: error: accel-decompose-linalg: tile-rows must be in [1, 65535] (a tile dimension of the ISA); got 0
// DECOMPOSE-VMEM: error: accel-decompose-linalg: vmem-bytes must be in [1, 4294967296]; got 0
// PROMOTE: error: accel-promote-buffers: vmem-space must be in [1, 4294967295] (space 0 is HBM); got 0
// PROMOTE-VMEM: error: accel-promote-buffers: vmem-bytes must be in [1, 4294967296]; got 0
// GATHERS: error: accel-lower-gathers: vmem-space must be in [1, 4294967295] (space 0 is HBM); got 0
// GATHERS-VMEM: error: accel-lower-gathers: vmem-bytes must be in [1, 4294967296]; got 0
// OK: accel.vexp
func.func @exp(%a: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  %y = linalg.exp ins(%a : tensor<8x128xf32>) outs(%e : tensor<8x128xf32>) -> tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}
