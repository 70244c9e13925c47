// RUN: accel-opt %s --accel-fdo-pipeline | FileCheck %s
// RUN: accel-opt %s '--accel-fdo-pipeline=vmem-capacity=1024' | FileCheck %s --check-prefix=SMALL

// The FDO pipeline: accel-parallelize-dma, then accel-hoist-dma, both fed
// by hand-written attributes. B (a parallelize suggestion) moves next to A;
// C (stalled) is then hoisted up to B. With a VMEM capacity below the
// function's allocations the hoist refuses, the parallelize move stays.

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// CHECK-LABEL: func.func @pipeline
// CHECK: accel.dma_start %arg0
// CHECK-NEXT: accel.dma_start %arg1, {{.*}}accel.parallelized = 1 : i64
// CHECK-NEXT: accel.dma_start %arg2, {{.*}}accel.hoisted =
// SMALL-LABEL: func.func @pipeline
// SMALL: accel.dma_start %arg0
// SMALL-NEXT: accel.dma_start %arg1, {{.*}}accel.parallelized = 1 : i64
// SMALL-NEXT: accel.dma_wait
func.func @pipeline(%a: memref<8x128xf32, #hbm>, %b: memref<8x128xf32, #hbm>, %c: memref<8x128xf32, #hbm>) {
  %va = accel.alloc : memref<8x128xf32, #vmem>
  %vb = accel.alloc : memref<8x128xf32, #vmem>
  %vc = accel.alloc : memref<8x128xf32, #vmem>
  %ta = accel.dma_start %a, %va {accel.op_id = 1} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %ta
  %tb = accel.dma_start %b, %vb {accel.op_id = 2, accel.suggestions = [{kind = "parallelize", expected_cycles_saved = 499, with_op_id = 1}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tb
  %tc = accel.dma_start %c, %vc {accel.op_id = 3, accel.stall_base = 499} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tc
  return
}

// The pipeline ends with cse: address arithmetic that nothing uses any more
// (a clone's subview) and duplicate constants go, since each would still
// lower to scalar instructions that take issue slots. Allocations and DMAs
// stay.
// CHECK-LABEL: func.func @dead_address_math
// CHECK-NEXT: %[[C128:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[V:.*]] = accel.alloc
// CHECK-NEXT: %[[R:.*]] = arith.muli %arg1, %[[C128]]
// CHECK-NEXT: %[[S:.*]] = memref.subview %arg0[%[[R]], 0]
// CHECK-NEXT: %[[T:.*]] = accel.dma_start %[[S]], %[[V]]
// CHECK-NEXT: accel.dma_wait %[[T]]
// CHECK-NEXT: return
func.func @dead_address_math(%a: memref<256x128xf32, #hbm>, %i: index) {
  %c128 = arith.constant 128 : index
  %v = accel.alloc : memref<8x128xf32, #vmem>
  %r = arith.muli %i, %c128 : index
  %c128b = arith.constant 128 : index
  %r2 = arith.muli %i, %c128b : index
  %dead = memref.subview %a[%r2, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
  %s = memref.subview %a[%r, 0] [8, 128] [1, 1] : memref<256x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
  %t = accel.dma_start %s, %v : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t
  return
}
