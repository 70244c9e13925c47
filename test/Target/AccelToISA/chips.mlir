// RUN: accel-translate --mlir-to-accel-asm %s | FileCheck %s

// The chip ops lower to chip.id / chip.count; a remote accel.dma_start puts
// the chip's register in rs3 and marks the remote side (@rN), its signal in
// s3; accel.sem_wait takes the semaphore and the count's register;
// arith.remui / divui lower to remu / divu.

// CHECK-LABEL: ; accel ISA v10 listing of 'main'
// CHECK: chip.id [[ME:r[0-9]+]]
// CHECK: chip.count [[N:r[0-9]+]]
// CHECK: add [[NEXT1:r[0-9]+]], [[ME]], [[ONE:r[0-9]+]]
// CHECK: remu [[NEXT:r[0-9]+]], [[NEXT1]], [[N]]
// CHECK: divu [[HALF:r[0-9]+]], [[N]], {{r[0-9]+}}
// CHECK: dma.issue {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}}, hbm->vmem@[[NEXT]], 4x64, s=64,64, signal sem2 ; op {{[0-9]+}} accel.dma_start
// CHECK: dma.issue {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}}, hbm@[[HALF]]->vmem, 4x64, s=64,64 ; op {{[0-9]+}} accel.dma_start
// CHECK: sem.wait sem2, [[ONE]]
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<4x64xf32, #hbm>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %me = accel.chip_id
  %n = accel.chip_count
  %next1 = arith.addi %me, %c1 : index
  %next = arith.remui %next1, %n : index
  %half = arith.divui %n, %c2 : index
  %a = accel.alloc : memref<4x64xf32, #vmem>
  %b = accel.alloc : memref<4x64xf32, #vmem>
  %t0 = accel.dma_start %x, %a dst_chip %next signal 2 : memref<4x64xf32, #hbm>, memref<4x64xf32, #vmem>
  %t1 = accel.dma_start %x, %b src_chip %half : memref<4x64xf32, #hbm>, memref<4x64xf32, #vmem>
  accel.sem_wait 2, %c1
  accel.dma_wait %t0
  accel.dma_wait %t1
  return
}
