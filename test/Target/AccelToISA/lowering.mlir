// RUN: accel-translate --mlir-to-accel-asm %s | FileCheck %s
// RUN: accel-translate --mlir-to-accel-image %s -o %t.bin && accel-translate --accel-image-to-asm %t.bin | FileCheck %s
// The binary image disassembles to the same listing (encoder/decoder agree).

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%w: memref<256x512xf32, #hbm>, %out: memref<8x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %x = accel.alloc : memref<8x256xf32, #vmem>
  %b = accel.alloc : memref<128x128xf32, #vmem>
  %acc = accel.alloc : memref<8x128xf32, #vmem>
  %r = accel.alloc : memref<8x1xf32, #vmem>
  accel.vfill %x, 0.5 : memref<8x256xf32, #vmem>
  scf.for %k = %c0 to %c2 step %c1 {
    %k0 = arith.muli %k, %c128 : index
    %s = memref.subview %w[%k0, 128] [128, 128] [1, 1] : memref<256x512xf32, #hbm> to memref<128x128xf32, strided<[512, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %b : memref<128x128xf32, strided<[512, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    %xs = memref.subview %x[0, %k0] [8, 128] [1, 1] : memref<8x256xf32, #vmem> to memref<8x128xf32, strided<[256, 1], offset: ?>, #vmem>
    accel.matmul %xs, %b, %acc {accumulate} : memref<8x128xf32, strided<[256, 1], offset: ?>, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  accel.vreduce_max %acc, %r : memref<8x128xf32, #vmem>, memref<8x1xf32, #vmem>
  accel.vsub %acc, %r, %acc : memref<8x128xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x128xf32, #vmem>
  %t2 = accel.dma_start %acc, %out : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %t2
  return
}

// Buffers: HBM arguments from 0x10000, 4 KiB aligned; VMEM allocations from 0,
// aligned to the 1 KiB page.
// CHECK: ; accel ISA v10 listing of 'main': 31 instructions
// CHECK-NEXT: ; buffer %arg0 hbm [0x10000, 0x90000) 524288 bytes
// CHECK-NEXT: ; buffer %arg1 hbm [0x90000, 0x91000) 4096 bytes
// CHECK-NEXT: ; buffer vmem@{{.*}}:12:8 vmem [0x0, 0x2000) 8192 bytes
// CHECK-NEXT: ; buffer vmem@{{.*}}:13:8 vmem [0x2000, 0x12000) 65536 bytes
// CHECK-NEXT: ; buffer vmem@{{.*}}:14:10 vmem [0x12000, 0x13000) 4096 bytes
// CHECK-NEXT: ; buffer vmem@{{.*}}:15:8 vmem [0x13000, 0x13020) 32 bytes
// Base addresses of the arguments are loaded up front, then constants and
// allocations where they stand.
// CHECK-NEXT: 0: 02010000000000000000010000000000 li r1, 65536 ; op 0 func.func
// CHECK:      5: {{[0-9a-f]+}} li r6, 128
// CHECK-NEXT: 6: {{[0-9a-f]+}} li r7, 0 ; op 1 accel.alloc
// CHECK:      9: {{[0-9a-f]+}} li r10, 77824 ; op 4 accel.alloc
// CHECK-NEXT: 10: 4c0000000700080000010000003f0001 vpu.fill r7, 8x256, s=256, 0.5 ; op 5 accel.vfill @ {{.*}}:16:3
// scf.for is a real loop: mov, bge to the exit, body, add, jmp back.
// CHECK-NEXT: 11: {{[0-9a-f]+}} mov r11, r3 ; op 6 scf.for
// CHECK-NEXT: 12: {{[0-9a-f]+}} bge r11, r5, @26 ; op 6 scf.for
// CHECK-NEXT: 13: {{[0-9a-f]+}} mul r12, r11, r6 ; op 0 arith.muli
// memref.subview: base + 4 * (k0 * 512) + 4 * 128 bytes.
// CHECK-NEXT: 14: {{[0-9a-f]+}} mov r13, r1 ; op 0 memref.subview
// CHECK-NEXT: 15: {{[0-9a-f]+}} muli r14, r12, 2048
// CHECK-NEXT: 16: {{[0-9a-f]+}} add r13, r13, r14
// CHECK-NEXT: 17: {{[0-9a-f]+}} addi r13, r13, 512
// A register returns to the pool after its value's last use: the token
// reuses the subview's temporary r14.
// CHECK-NEXT: 18: 200e0d08000280008000000280000000 dma.issue r14, r13, r8, hbm->vmem, 128x128, s=512,128 ; op 7 accel.dma_start @ {{.*}}:20:10
// CHECK-NEXT: 19: {{[0-9a-f]+}} dma.wait r14 ; op 8 accel.dma_wait
// CHECK-NEXT: 20: {{[0-9a-f]+}} mov r13, r7 ; op 0 memref.subview
// CHECK:      23: {{[0-9a-f]+}} mxu.matmul r9, r13, r8, m=8 n=128 k=128 sa=256 sc=128 acc ; op 9 accel.matmul
// CHECK-NEXT: 24: {{[0-9a-f]+}} add r11, r11, r4 ; op 6 scf.for
// CHECK-NEXT: 25: {{[0-9a-f]+}} jmp @12 ; op 6 scf.for
// CHECK-NEXT: 26: {{[0-9a-f]+}} vpu.rmax r10, r9, 8x128, s=128,1 ; op 10 accel.vreduce_max
// An 8x1 y operand is broadcast along the columns.
// CHECK-NEXT: 27: {{[0-9a-f]+}} vpu.sub r9, r9, r10, 8x128, s=128,1,128 bcast ; op 11 accel.vsub
// %w (r1) is read in the loop, so it stays live to the loop's end, then
// the store's token reuses it.
// CHECK-NEXT: 28: {{[0-9a-f]+}} dma.issue r1, r9, r2, vmem->hbm, 8x128, s=128,128 ; op 12 accel.dma_start
// CHECK-NEXT: 29: {{[0-9a-f]+}} dma.wait r1
// CHECK-NEXT: 30: {{[0-9a-f]+}} halt ; op 0 func.return
