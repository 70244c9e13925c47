// RUN: accel-opt %s -split-input-file --convert-memory-spaces-to-accel -verify-diagnostics | FileCheck %s
// RUN: not accel-opt %s -split-input-file --convert-memory-spaces-to-accel=vmem-space=3 2>&1 | FileCheck %s --check-prefix=SPACE3

// No memory space (and space 0) is HBM, space 1 is VMEM: in signatures,
// results, block arguments and nested types alike; a VMEM memref.alloc
// becomes a static accel.alloc and its dealloc goes.
// CHECK-LABEL: func.func @spaces
// CHECK-SAME: (%[[A:.*]]: memref<64x128xf32, #accel.space<hbm>>, %[[B:.*]]: memref<8x128xf32, #accel.space<hbm>>) -> memref<8x128xf32, #accel.space<hbm>>
// CHECK: %[[V:.*]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[V]]) -> (memref<8x128xf32, #accel.space<vmem>>)
// CHECK: memref.subview %[[A]]{{.*}} to memref<8x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
// CHECK: memref.copy {{.*}} : memref<8x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>> to memref<8x128xf32, #accel.space<vmem>>
// CHECK-NOT: memref.dealloc
// CHECK-NOT: memref.alloc
func.func @spaces(%a: memref<64x128xf32>, %b: memref<8x128xf32, 0>) -> memref<8x128xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %v = memref.alloc() : memref<8x128xf32, 1>
  %r = scf.for %i = %c0 to %c64 step %c8 iter_args(%buf = %v) -> (memref<8x128xf32, 1>) {
    %s = memref.subview %a[%i, 0] [8, 128] [1, 1] : memref<64x128xf32> to memref<8x128xf32, strided<[128, 1], offset: ?>>
    memref.copy %s, %buf : memref<8x128xf32, strided<[128, 1], offset: ?>> to memref<8x128xf32, 1>
    scf.yield %buf : memref<8x128xf32, 1>
  }
  memref.copy %r, %b : memref<8x128xf32, 1> to memref<8x128xf32, 0>
  memref.dealloc %v : memref<8x128xf32, 1>
  return %b : memref<8x128xf32, 0>
}

// With --vmem-space=3, space 1 is no longer known:
// SPACE3: memory-spaces.mlir:{{[0-9]+}}:8: error: memory space 1 : i64 has no accel counterpart (no space or 0 is HBM, 3 is VMEM: --vmem-space)

// -----

func.func @other_space(%a: memref<8x128xf32>) {
  // expected-error @below {{memory space 2 : i64 has no accel counterpart (no space or 0 is HBM, 1 is VMEM: --vmem-space)}}
  %v = memref.alloc() : memref<8x128xf32, 2>
  return
}

// -----

func.func @dynamic_vmem(%n: index) {
  // expected-error @below {{a VMEM allocation of 'memref<?x128xf32, #accel.space<vmem>>' cannot be static (accel.alloc needs a static shape and the identity layout)}}
  %v = memref.alloc(%n) : memref<?x128xf32, 1>
  return
}

// -----

// HBM temporaries (bufferization's allocations of intermediate tensors)
// become new last arguments, zero-initialized and marked; deallocs go.
// CHECK-LABEL: func.func @temporaries
// CHECK-SAME: (%[[X:.*]]: memref<8x128xf32, #accel.space<hbm>>, %[[T0:.*]]: memref<8x128xf32, #accel.space<hbm>> {accel.init = "zero", accel.temporary}, %[[T1:.*]]: memref<4xf32, #accel.space<hbm>> {accel.init = "zero", accel.temporary})
// CHECK-NEXT: memref.copy %[[X]], %[[T0]]
// CHECK-NEXT: return
func.func @temporaries(%x: memref<8x128xf32>) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<8x128xf32>
  memref.copy %x, %t : memref<8x128xf32> to memref<8x128xf32>
  %u = memref.alloc() : memref<4xf32>
  memref.dealloc %u : memref<4xf32>
  return
}

// -----

func.func @dynamic_temporary(%n: index) {
  // expected-error @below {{an HBM allocation of 'memref<?xf32>' cannot become an argument (it needs a static shape, the identity layout and an enclosing func.func)}}
  %t = memref.alloc(%n) : memref<?xf32>
  return
}

// -----

func.func @callee() {
  // expected-error @below {{an HBM allocation in @callee, which is called: only an entry function's temporaries can become arguments}}
  %t = memref.alloc() : memref<4xf32>
  return
}
func.func @caller() {
  func.call @callee() : () -> ()
  return
}

// -----

// A VMEM buffer of rank 3 (a double buffer of 2 x 32 x 128) is allocated
// as rows and viewed with its shape; a memref used only as the tag of
// affine DMAs keeps its allocation (it is no HBM temporary) for
// --convert-affine-dma-to-accel.
// CHECK-LABEL: func.func @double_buffer_and_tag
// CHECK-SAME: (%{{.*}}: memref<256x128xf32, #accel.space<hbm>>)
// CHECK: %[[ROWS:.*]] = accel.alloc : memref<64x128xf32, #accel.space<vmem>>
// CHECK: %[[BUF:.*]] = memref.expand_shape %[[ROWS]] {{\[}}[0, 1], [2]] output_shape [2, 32, 128] : memref<64x128xf32, #accel.space<vmem>> into memref<2x32x128xf32, #accel.space<vmem>>
// CHECK: %[[TAG:.*]] = memref.alloc() : memref<2xi32, #accel.space<hbm>>
// CHECK: affine.dma_start %{{.*}}, %[[BUF]][0, 0, 0], %[[TAG]][0]
// CHECK: memref.dealloc %[[TAG]]
func.func @double_buffer_and_tag(%a: memref<256x128xf32>) {
  %buf = memref.alloc() : memref<2x32x128xf32, 1>
  %tag = memref.alloc() : memref<2xi32>
  %n = arith.constant 4096 : index
  affine.dma_start %a[0, 0], %buf[0, 0, 0], %tag[0], %n : memref<256x128xf32>, memref<2x32x128xf32, 1>, memref<2xi32>
  affine.dma_wait %tag[0], %n : memref<2xi32>
  memref.dealloc %tag : memref<2xi32>
  return
}

// -----

// A declaration's signature is checked like a definition's.
// expected-error @below {{memory space 7 : i64 has no accel counterpart}}
func.func private @external(memref<8xf32, 7>)
