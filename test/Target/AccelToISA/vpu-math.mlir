// RUN: accel-translate --mlir-to-accel-asm %s | FileCheck %s
// RUN: accel-translate --mlir-to-accel-image %s -o %t.bin && accel-translate --accel-image-to-asm %t.bin | FileCheck %s

// The VPU math ops of ISA version 8 lower to their opcodes (docs/isa.md,
// "Opcodes"); vmin with ignore_nan (arith.minnumf) carries the flag the
// listing spells " minnum", and a bf16 operand its element-type suffix.
// The image round trip keeps every opcode.
#vmem = #accel.space<vmem>
func.func @main() {
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<8x128xf32, #vmem>
  %h = accel.alloc : memref<8x128xbf16, #vmem>
  accel.vmin %a, %b, %a : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vmin %a, %b, %a {ignore_nan} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vrsqrt %a, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vtanh %a, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vlog %a, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vlog1p %a, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.verf %a, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vabs %a, %h : memref<8x128xf32, #vmem>, memref<8x128xbf16, #vmem>
  return
}
// CHECK: vpu.min r{{[0-9]+}}, r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128,128 ; op {{[0-9]+}} accel.vmin
// CHECK-NEXT: vpu.min r{{[0-9]+}}, r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128,128 minnum ; op {{[0-9]+}} accel.vmin
// CHECK-NEXT: vpu.rsqrt r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128 ; op {{[0-9]+}} accel.vrsqrt
// CHECK-NEXT: vpu.tanh r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128 ; op {{[0-9]+}} accel.vtanh
// CHECK-NEXT: vpu.log r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128 ; op {{[0-9]+}} accel.vlog
// CHECK-NEXT: vpu.log1p r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128 ; op {{[0-9]+}} accel.vlog1p
// CHECK-NEXT: vpu.erf r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128 ; op {{[0-9]+}} accel.verf
// CHECK-NEXT: vpu.abs r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128 out:bf16 ; op {{[0-9]+}} accel.vabs
