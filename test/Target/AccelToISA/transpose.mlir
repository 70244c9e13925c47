// RUN: accel-translate --mlir-to-accel-asm %s | FileCheck %s
// RUN: accel-translate --mlir-to-accel-image %s -o %t.bin && accel-translate --accel-image-to-asm %t.bin | FileCheck %s

// accel.vtranspose lowers to vpu.transpose (ISA version 9, docs/isa.md
// "Transposes"): a x b is x's shape, the strides are x's and out's, and a
// bf16 operand carries its suffix. The image round trip keeps it.
#vmem = #accel.space<vmem>
func.func @main() {
  %x = accel.alloc : memref<16x256xf32, #vmem>
  %o = accel.alloc : memref<256x16xf32, #vmem>
  %h = accel.alloc : memref<128x8xbf16, #vmem>
  %v = memref.subview %x[0, 0] [8, 128] [1, 1] : memref<16x256xf32, #vmem> to memref<8x128xf32, strided<[256, 1]>, #vmem>
  accel.vtranspose %x, %o : memref<16x256xf32, #vmem>, memref<256x16xf32, #vmem>
  accel.vtranspose %v, %h : memref<8x128xf32, strided<[256, 1]>, #vmem>, memref<128x8xbf16, #vmem>
  accel.vtranspose %h, %v : memref<128x8xbf16, #vmem>, memref<8x128xf32, strided<[256, 1]>, #vmem>
  return
}
// CHECK: vpu.transpose r{{[0-9]+}}, r{{[0-9]+}}, 16x256, s=256,16 ; op {{[0-9]+}} accel.vtranspose
// CHECK-NEXT: vpu.transpose r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=256,8 out:bf16 ; op {{[0-9]+}} accel.vtranspose
// CHECK-NEXT: vpu.transpose r{{[0-9]+}}, r{{[0-9]+}}, 128x8, s=8,256 x:bf16 ; op {{[0-9]+}} accel.vtranspose
