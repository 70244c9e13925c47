// The frontend pipeline runs in Debian's stock mlir-opt too: linalg on
// tensors to an accel program (DMAs in, a VPU add, a DMA out), as
// accel-opt --accel-from-linalg gives it.
// RUN: mlir-opt --load-dialect-plugin=%accel_libs/AccelPlugin%shlibext --load-pass-plugin=%accel_libs/AccelPlugin%shlibext %s --pass-pipeline='builtin.module(accel-from-linalg)' | FileCheck %s
// RUN: accel-opt %s --accel-from-linalg | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[A:.*]]: memref<16x128xf32, #accel.space<hbm>>, %[[B:.*]]: memref<16x128xf32, #accel.space<hbm>>, %[[OUT:.*]]: memref<16x128xf32, #accel.space<hbm>>
// CHECK: accel.dma_start %[[A]]
// CHECK: accel.dma_start %[[B]]
// CHECK: accel.vadd
// CHECK: accel.dma_start {{.*}}, %[[OUT]]
func.func @main(%a: tensor<16x128xf32>, %b: tensor<16x128xf32>) -> tensor<16x128xf32> {
  %e = tensor.empty() : tensor<16x128xf32>
  %r = linalg.add ins(%a, %b : tensor<16x128xf32>, tensor<16x128xf32>) outs(%e : tensor<16x128xf32>) -> tensor<16x128xf32>
  return %r : tensor<16x128xf32>
}
