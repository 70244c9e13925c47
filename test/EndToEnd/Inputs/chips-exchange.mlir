// Every chip sends its input to the next chip (mod the chip count) with a
// semaphore signal and pulls the input of chip count/2 from that chip
// (test/EndToEnd/chips.test checks the timing by hand).
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
