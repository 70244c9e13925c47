// RUN: accel-opt --accel-bind-shapes="shapes=1=4x8,2=3x2,3=5x2,4=4294967296x4294967296" -split-input-file -verify-diagnostics %s
// RUN: not accel-opt --accel-bind-shapes="shapes=0=4xq" -split-input-file %s 2>&1 | FileCheck %s --check-prefix=BADDIM
// RUN: not accel-opt --accel-bind-shapes="shapes=x=4" -split-input-file %s 2>&1 | FileCheck %s --check-prefix=BADARG
// RUN: not accel-opt --accel-bind-shapes="shapes=0=4,0=5" -split-input-file %s 2>&1 | FileCheck %s --check-prefix=TWICE

// BADDIM: error: accel-bind-shapes: '0=4xq': 'q' is not a dimension (a non-negative integer)
// BADARG: error: accel-bind-shapes: 'x=4' is not ARG=D0xD1x... (an argument position and its shape, e.g. 0=16x128, or 0=() for rank 0)
// TWICE: error: accel-bind-shapes: '0=5': argument 0 is given twice

// expected-error @+1 {{argument 0 ('tensor<?x128xf32>') has a dynamic dimension 0 and nothing fixes it: give its contents (accel-replay --input 0=FILE.npy) or its shape (--bind 0=Nx128)}}
func.func @main(%arg0: tensor<?x128xf32>) -> tensor<?x128xf32> {
  return %arg0 : tensor<?x128xf32>
}

// -----

// expected-error @+1 {{argument 0 ('tensor<*xf32>') has no rank and nothing fixes it: give its contents (accel-replay --input 0=FILE.npy) or its shape (--bind 0=D0xD1)}}
func.func @main(%arg0: tensor<*xf32>) {
  return
}

// -----

// expected-error @+1 {{argument 2 ('tensor<?xf32>') has rank 1, not the 2 of the shape given for it, 3x2}}
func.func @main(%a: tensor<4x8xf32>, %b: tensor<?x8xf32>, %c: tensor<?xf32>) {
  return
}

// -----

// expected-error @+1 {{argument 3 ('tensor<4x?xf32>') has dimension 0 of size 4, but the shape given for it is 5x2}}
func.func @main(%a: tensor<4x8xf32>, %b: tensor<?x8xf32>, %c: tensor<3x?xf32>, %d: tensor<4x?xf32>) {
  return
}

// -----

// expected-error @+1 {{the shape given for argument 4, 4294967296x4294967296, holds 4294967296 × 4294967296 × 4 bytes}}
func.func @main(%a: tensor<4x8xf32>, %b: tensor<?x8xf32>, %c: tensor<3x?xf32>, %d: tensor<5x?xf32>, %e: tensor<?x?xf32>) {
  return
}
