// RUN: accel-translate --mlir-to-accel-asm %s | FileCheck %s
// RUN: accel-translate --mlir-to-accel-image %s -o %t.bin && accel-translate --accel-image-to-asm %t.bin | FileCheck %s

// The mask ops of ISA version 9 (docs/isa.md): accel.viota's base is a
// register (here an index constant and a loop's induction variable), its
// axis a flag; accel.vcmp's predicate goes to rd and prints by name, with
// the column broadcast of y; accel.vselect is VBinary with the mask as x.
#vmem = #accel.space<vmem>
func.func @main() {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %rows = accel.alloc : memref<8x1xf32, #vmem>
  %cols = accel.alloc : memref<8x128xf32, #vmem>
  %mask = accel.alloc : memref<8x128xf32, #vmem>
  %x = accel.alloc : memref<8x128xbf16, #vmem>
  %out = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c2 step %c8 {
    accel.viota %i, %rows : memref<8x1xf32, #vmem>
    accel.viota %c0, %cols {columns} : memref<8x128xf32, #vmem>
    accel.vcmp ole, %cols, %rows, %mask : memref<8x128xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.vcmp uno, %out, %out, %mask : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    accel.vselect %mask, %x, %out : memref<8x128xf32, #vmem>, memref<8x128xbf16, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}
// CHECK: vpu.iota r{{[0-9]+}}, r{{[0-9]+}}, 8x1, s=1, rows ; op {{[0-9]+}} accel.viota
// CHECK-NEXT: vpu.iota r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128, cols ; op {{[0-9]+}} accel.viota
// CHECK-NEXT: vpu.cmp ole, r{{[0-9]+}}, r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,1,128 bcast ; op {{[0-9]+}} accel.vcmp
// CHECK-NEXT: vpu.cmp uno, r{{[0-9]+}}, r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128,128 ; op {{[0-9]+}} accel.vcmp
// CHECK-NEXT: vpu.select r{{[0-9]+}}, r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128,128 y:bf16 ; op {{[0-9]+}} accel.vselect
