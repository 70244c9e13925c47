// Debian's stock mlir-opt (LLVM 22) loads the accel dialect and passes.
// RUN: mlir-opt --load-dialect-plugin=%accel_libs/AccelPlugin%shlibext --load-pass-plugin=%accel_libs/AccelPlugin%shlibext %s --pass-pipeline='builtin.module(accel-assign-op-ids,func.func(accel-hoist-dma{all=true}))' | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK: %[[T0:.*]] = accel.dma_start %arg0, %{{.*}} {accel.op_id = 2 : i64}
// The second DMA moves up with the allocation of its destination.
// CHECK-NEXT: accel.alloc {accel.op_id = 5 : i64}
// CHECK-NEXT: %[[T1:.*]] = accel.dma_start %arg1, %{{.*}} {accel.hoisted = 2 : i64, accel.op_id = 6 : i64}
// CHECK-NEXT: accel.dma_wait %[[T0]]
// CHECK-NEXT: accel.vexp
// CHECK-NEXT: accel.dma_wait %[[T1]]
func.func @main(%a: memref<8x128xf32, #accel.space<hbm>>, %b: memref<8x128xf32, #accel.space<hbm>>) {
  %va = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  %ta = accel.dma_start %a, %va : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  accel.dma_wait %ta
  accel.vexp %va, %va : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  %vb = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  %tb = accel.dma_start %b, %vb : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  accel.dma_wait %tb
  return
}

// The conversion pass is in the plugin too.
// RUN: mlir-opt --load-dialect-plugin=%accel_libs/AccelPlugin%shlibext --load-pass-plugin=%accel_libs/AccelPlugin%shlibext %s --pass-pipeline='builtin.module(convert-linalg-to-accel)' | FileCheck %s --check-prefix=CONV
// CONV-LABEL: func.func @linalg_exp
// CONV-NEXT: accel.vexp %arg0, %arg0
func.func @linalg_exp(%x: memref<8x128xf32, #accel.space<vmem>>) {
  linalg.exp ins(%x : memref<8x128xf32, #accel.space<vmem>>) outs(%x : memref<8x128xf32, #accel.space<vmem>>)
  return
}
