// Aggregate linalg ops become the ops they are made of, on tensors.
// RUN: accel-opt %s --pass-pipeline='builtin.module(func.func(accel-decompose-linalg))' | FileCheck %s

// linalg.softmax: the row max (fill with the identity, max reduction),
// exp(x - max), the row sum (fill with 0, sum reduction), the division.
// Upstream fills the maxnumf reduction with NaN (its identity); it becomes
// -inf, the identity of the VPU's max reduction.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT:     linalg.softmax
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[MAXI:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<16x32xf32>)
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<16x32x64xf32>) outs(%[[MAXI]] : tensor<16x32xf32>)
// CHECK:           arith.maxnumf
// CHECK:         %[[EXP:.*]] = linalg.generic {{.*}} ins(%arg0, %[[MAX]] : tensor<16x32x64xf32>, tensor<16x32xf32>)
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:         linalg.fill
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[EXP]] : tensor<16x32x64xf32>)
// CHECK:           arith.addf
// CHECK:         %[[DIV:.*]] = linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] : tensor<16x32x64xf32>, tensor<16x32xf32>)
// CHECK:           arith.divf
// CHECK:         return %[[DIV]]
func.func @softmax(%x: tensor<16x32x64xf32>) -> tensor<16x32x64xf32> {
  %init = tensor.empty() : tensor<16x32x64xf32>
  %y = linalg.softmax dimension(2) ins(%x : tensor<16x32x64xf32>)
         outs(%init : tensor<16x32x64xf32>) -> tensor<16x32x64xf32>
  return %y : tensor<16x32x64xf32>
}
