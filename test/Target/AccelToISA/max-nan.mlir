// RUN: accel-translate --mlir-to-accel-asm %s | FileCheck %s

// vmax and vreduce_max lower to vpu.max and vpu.rmax; with ignore_nan
// (arith.maxnumf) they carry the maxnum flag, without it (arith.maximumf,
// NaN propagates) they do not (docs/isa.md, "NaN").
#vmem = #accel.space<vmem>
func.func @main() {
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<8x128xf32, #vmem>
  %r = accel.alloc : memref<8x1xf32, #vmem>
  accel.vmax %a, %b, %a : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vmax %a, %b, %a {ignore_nan} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.vreduce_max %a, %r : memref<8x128xf32, #vmem>, memref<8x1xf32, #vmem>
  accel.vreduce_max %a, %r {ignore_nan} : memref<8x128xf32, #vmem>, memref<8x1xf32, #vmem>
  return
}
// CHECK: vpu.max r{{[0-9]+}}, r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128,128 ; op 4 accel.vmax
// CHECK-NEXT: vpu.max r{{[0-9]+}}, r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,128,128 maxnum ; op 5 accel.vmax
// CHECK-NEXT: vpu.rmax r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,1 ; op 6 accel.vreduce_max
// CHECK-NEXT: vpu.rmax r{{[0-9]+}}, r{{[0-9]+}}, 8x128, s=128,1 maxnum ; op 7 accel.vreduce_max
