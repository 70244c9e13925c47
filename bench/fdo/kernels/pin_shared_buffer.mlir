// Pinning through a shared buffer: 8 decode steps each stream the same four
// 128x128 weight tiles through one VMEM buffer (a compiler that budgets
// VMEM tightly emits this). The bytes never change, but the buffer is
// reused, so the loads cannot simply leave the loop: --accel-pin-vmem gives
// each tile a resident buffer (4 x 64 KiB) loaded once.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<8x128xf32, #hbm>, %w0: memref<128x128xf32, #hbm>, %w1: memref<128x128xf32, #hbm>, %w2: memref<128x128xf32, #hbm>, %w3: memref<128x128xf32, #hbm>, %out: memref<8x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<8x128xf32, #vmem>
  %wb = accel.alloc : memref<128x128xf32, #vmem>
  %tx = accel.dma_start %x, %a : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tx
  scf.for %step = %c0 to %c8 step %c1 {
    %t0 = accel.dma_start %w0, %wb : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t0
    accel.matmul %a, %wb, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %t1 = accel.dma_start %w1, %wb : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t1
    accel.matmul %b, %wb, %a : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %t2 = accel.dma_start %w2, %wb : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t2
    accel.matmul %a, %wb, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %t3 = accel.dma_start %w3, %wb : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t3
    accel.matmul %b, %wb, %a : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  %to = accel.dma_start %a, %out : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %to
  return
}
