// RUN: accel-opt %s --accel-from-linalg | FileCheck %s

// A shape that neither tile dimension divides (300 x 700 in 128 x 512
// tiles): the remainder of the inner loop is peeled in the outer loop's
// remainder too, so every tile is static: 128 x 512, 128 x 188, 44 x 512
// and 44 x 188.
// CHECK-LABEL: func.func @main
// CHECK-DAG: accel.vexp {{.*}} : memref<128x512xf32, #accel.space<vmem>>, memref<128x512xf32, #accel.space<vmem>>
// CHECK-DAG: accel.vexp {{.*}} : memref<128x188xf32, #accel.space<vmem>>, memref<128x188xf32, #accel.space<vmem>>
// CHECK-DAG: accel.vexp {{.*}} : memref<44x512xf32, #accel.space<vmem>>, memref<44x512xf32, #accel.space<vmem>>
// CHECK-DAG: accel.vexp {{.*}} : memref<44x188xf32, #accel.space<vmem>>, memref<44x188xf32, #accel.space<vmem>>
// CHECK-NOT: ?x
func.func @main(%a: tensor<300x700xf32>) -> tensor<300x700xf32> {
  %e = tensor.empty() : tensor<300x700xf32>
  %r = linalg.exp ins(%a : tensor<300x700xf32>) outs(%e : tensor<300x700xf32>) -> tensor<300x700xf32>
  return %r : tensor<300x700xf32>
}
