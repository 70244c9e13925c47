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
