// RUN: accel-translate --mlir-to-accel-asm %s | FileCheck %s

// Scalar integer code (a gather's index arithmetic, accel-lower-gathers):
// an i32 add wraps to 32 bits, an unsigned compare flips the sign bits, a
// select is a branch over one move.
// CHECK-LABEL: ; accel ISA v10 listing of 'main'
// CHECK: sld [[A:r[0-9]+]], [{{r[0-9]+}} + 0] ; op 4 accel.load
// CHECK-NEXT: mov [[AI:r[0-9]+]], [[A]] ; {{.*}} arith.index_cast
// CHECK-NEXT: add [[W:r[0-9]+]], [[AI]], [[AI]] ; {{.*}} arith.addi
// CHECK-NEXT: addi [[W]], [[W]], 2147483648 ; {{.*}} arith.addi
// CHECK-NEXT: li [[K:r[0-9]+]], 4294967296 ; {{.*}} arith.addi
// CHECK-NEXT: remu [[W]], [[W]], [[K]] ; {{.*}} arith.addi
// CHECK-NEXT: addi [[S:r[0-9]+]], [[W]], -2147483648 ; {{.*}} arith.addi
// CHECK: li [[SIGN:r[0-9]+]], -9223372036854775808 ; {{.*}} arith.cmpi
// CHECK-NEXT: add [[FA:r[0-9]+]], [[S]], [[SIGN]] ; {{.*}} arith.cmpi
// CHECK-NEXT: add [[FB:r[0-9]+]], [[AI]], [[SIGN]] ; {{.*}} arith.cmpi
// CHECK-NEXT: li [[C:r[0-9]+]], 0 ; {{.*}} arith.cmpi
// CHECK-NEXT: [[PC:[0-9]+]]: {{.*}} bge [[FA]], [[FB]], @[[SKIP:[0-9]+]] ; {{.*}} arith.cmpi
// CHECK-NEXT: li [[C]], 1 ; {{.*}} arith.cmpi
// CHECK: mov [[WORK:r[0-9]+]], [[ZERO:r[0-9]+]] ; {{.*}} arith.select
// CHECK-NEXT: li [[Z:r[0-9]+]], 0 ; {{.*}} arith.select
// CHECK-NEXT: bge [[Z]], {{r[0-9]+}}, @{{[0-9]+}} ; {{.*}} arith.select
// CHECK-NEXT: mov [[WORK]], [[A]] ; {{.*}} arith.select
// CHECK-NEXT: mov {{r[0-9]+}}, [[WORK]] ; {{.*}} arith.select
func.func @main(%h: memref<4xi32, #accel.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %t = accel.alloc : memref<4xi32, #accel.space<vmem>>
  %d = accel.dma_start %h, %t : memref<4xi32, #accel.space<hbm>>, memref<4xi32, #accel.space<vmem>>
  accel.dma_wait %d
  %a = accel.load %t[%c0] : memref<4xi32, #accel.space<vmem>>
  %ai = arith.index_cast %a : index to i32
  %s = arith.addi %ai, %ai : i32
  %c = arith.cmpi ult, %s, %ai : i32
  %r = arith.select %c, %a, %c0 : index
  %u = accel.load %t[%r] : memref<4xi32, #accel.space<vmem>>
  return
}
