// RUN: accel-translate --mlir-to-accel-asm %s | FileCheck %s

// memref.expand_shape and memref.collapse_shape keep their source's address:
// a register copy. A rank-1 y against a rank-2 x is the row broadcast.

#vmem = #accel.space<vmem>
func.func @main() {
  %x = accel.alloc : memref<8x128xf32, #vmem>
  %s = accel.alloc : memref<8xf32, #vmem>
  %g = accel.alloc : memref<1x128xf32, #vmem>
  %col = memref.expand_shape %s [[0, 1]] output_shape [8, 1] : memref<8xf32, #vmem> into memref<8x1xf32, #vmem>
  accel.vreduce_sum %x, %col : memref<8x128xf32, #vmem>, memref<8x1xf32, #vmem>
  %row = memref.collapse_shape %g [[0, 1]] : memref<1x128xf32, #vmem> into memref<128xf32, #vmem>
  accel.vmul %x, %row, %x : memref<8x128xf32, #vmem>, memref<128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vsub %x, %col, %x : memref<8x128xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// CHECK: ; buffer {{.*}}views.mlir:8:{{.*}} vmem [0x0, 0x1000)
// CHECK: ; buffer {{.*}}views.mlir:9:{{.*}} vmem [0x1000, 0x1020)
// CHECK: ; buffer {{.*}}views.mlir:10:{{.*}} vmem [0x1400, 0x1600)
// CHECK: li r[[S:[0-9]+]], 4096 ;
// CHECK: li r[[G:[0-9]+]], 5120 ;
// CHECK: mov r[[COL:[0-9]+]], r[[S]] ; op {{[0-9]+}} memref.expand_shape
// CHECK: vpu.rsum r[[COL]], r[[X:[0-9]+]], 8x128, s=128,1 ;
// CHECK: mov r[[ROW:[0-9]+]], r[[G]] ; op {{[0-9]+}} memref.collapse_shape
// CHECK: vpu.mul r[[X]], r[[X]], r[[ROW]], 8x128, s=128,128,128 rbcast ;
// CHECK: vpu.sub r[[X]], r[[X]], r[[COL]], 8x128, s=128,1,128 bcast ;
