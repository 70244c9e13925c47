// RUN: accel-translate --mlir-to-accel-asm %s | FileCheck %s
// RUN: accel-translate --mlir-to-accel-image %s -o %t.bin && accel-translate --accel-image-to-asm %t.bin | FileCheck %s

// The rounding ops, expm1 and copysign of ISA version 10 lower to their
// opcodes (docs/isa.md, "Opcodes"); copysign is binary and takes the
// broadcast flags; the image round trip keeps every opcode.
#vmem = #accel.space<vmem>
func.func @main() {
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<8x128xf32, #vmem>
  %h = accel.alloc : memref<8x128xbf16, #vmem>
  %r = accel.alloc : memref<1x128xf32, #vmem>
  accel.vexpm1 %a, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vfloor %a, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vceil %a, %h : memref<8x128xf32, #vmem>, memref<8x128xbf16, #vmem>
  accel.vroundeven %a, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vround %h, %b : memref<8x128xbf16, #vmem>, memref<8x128xf32, #vmem>
  accel.vcopysign %a, %r, %b : memref<8x128xf32, #vmem>, memref<1x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}
// CHECK: vpu.expm1 r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128 ; op {{[0-9]+}} accel.vexpm1
// CHECK-NEXT: vpu.floor r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128 ; op {{[0-9]+}} accel.vfloor
// CHECK-NEXT: vpu.ceil r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128 out:bf16 ; op {{[0-9]+}} accel.vceil
// CHECK-NEXT: vpu.roundeven r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128 ; op {{[0-9]+}} accel.vroundeven
// CHECK-NEXT: vpu.round r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128 x:bf16 ; op {{[0-9]+}} accel.vround
// CHECK-NEXT: vpu.copysign r{{[0-9]+}}, r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128,128 rbcast ; op {{[0-9]+}} accel.vcopysign
