// Pinning is the win: 16 decode steps each re-load the same four 128x128
// weight tiles from unchanged HBM bytes (a naive compiler emits the loads
// in the step loop). Each tile has its own VMEM buffer and nothing else
// writes it, so the loads can leave the loop and stay resident (256 KiB).
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<8x128xf32, #hbm>, %w0: memref<128x128xf32, #hbm>, %w1: memref<128x128xf32, #hbm>, %w2: memref<128x128xf32, #hbm>, %w3: memref<128x128xf32, #hbm>, %out: memref<8x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<8x128xf32, #vmem>
  %wb0 = accel.alloc : memref<128x128xf32, #vmem>
  %wb1 = accel.alloc : memref<128x128xf32, #vmem>
  %wb2 = accel.alloc : memref<128x128xf32, #vmem>
  %wb3 = accel.alloc : memref<128x128xf32, #vmem>
  %tx = accel.dma_start %x, %a : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tx
  scf.for %step = %c0 to %c16 step %c1 {
    %t0 = accel.dma_start %w0, %wb0 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t0
    accel.matmul %a, %wb0, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %t1 = accel.dma_start %w1, %wb1 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t1
    accel.matmul %b, %wb1, %a : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %t2 = accel.dma_start %w2, %wb2 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t2
    accel.matmul %a, %wb2, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %t3 = accel.dma_start %w3, %wb3 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t3
    accel.matmul %b, %wb3, %a : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  %to = accel.dma_start %a, %out : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %to
  return
}
