// An accel.alloc inside a loop gets its VMEM address once, at function
// entry, so its register must stay live across every loop that uses it:
// here the alloc sits in the outer loop and is used only in the nested one
// (the shape upstream copy generation emits). Reusing the register after
// the nested loop ends gave the next outer iteration a wrong address
// ("VMEM access out of bounds").
// RUN: accel-replay run %s -o %t > /dev/null
// RUN: accel-translate --mlir-to-accel-asm %s | FileCheck %s

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<64x128xf32, #hbm>,
                %y: memref<64x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %out = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c64 step %c8 {
    %buf = accel.alloc : memref<8x128xf32, #vmem>
    scf.for %j = %c0 to %c2 step %c1 {
      %src = memref.subview %x[%i, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
      %t = accel.dma_start %src, %buf : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
      accel.dma_wait %t
      accel.vadd %buf, %buf, %out : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    }
    // Values defined after the nested loop must not take %buf's register.
    %c7 = arith.constant 7 : index
    %a = arith.addi %i, %c7 : index
    %b = arith.subi %a, %c7 : index
    %dst = memref.subview %y[%b, 0] [8, 128] [1, 1] : memref<64x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t2 = accel.dma_start %out, %dst : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    accel.dma_wait %t2
  }
  return
}

// %buf's address is loaded at entry; nothing else writes its register. %out,
// in the function body, gets its address where it stands (after the
// constants).
// CHECK: li r[[BUF:[0-9]+]], 4096{{ +}}; op {{[0-9]+}} accel.alloc
// CHECK-NOT: {{(li|mov|add|addi|sub|muli) }}r[[BUF]],
// CHECK: li r{{[0-9]+}}, 64{{ +}}; op {{[0-9]+}} arith.constant
// CHECK-NEXT: li r{{[0-9]+}}, 0{{ +}}; op {{[0-9]+}} accel.alloc
// CHECK-NOT: {{(li|mov|add|addi|sub|muli) }}r[[BUF]],
// CHECK: halt
