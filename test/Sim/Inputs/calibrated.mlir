// Three matmuls (k = 256, n = 192; m = 48, 112, 144) after a 32 KiB DMA,
// for test/Sim/calibration.test.
#vmem = #accel.space<vmem>
#hbm = #accel.space<hbm>
func.func @main(%x: memref<128x64xf32, #hbm>) {
  %v = accel.alloc : memref<128x64xf32, #vmem>
  %t = accel.dma_start %x, %v : memref<128x64xf32, #hbm>, memref<128x64xf32, #vmem>
  accel.dma_wait %t
  %w = accel.alloc : memref<256x192xf32, #vmem>
  %a0 = accel.alloc : memref<48x256xf32, #vmem>
  %c0 = accel.alloc : memref<48x192xf32, #vmem>
  accel.matmul %a0, %w, %c0 : memref<48x256xf32, #vmem>, memref<256x192xf32, #vmem>, memref<48x192xf32, #vmem>
  %a1 = accel.alloc : memref<112x256xf32, #vmem>
  %c1 = accel.alloc : memref<112x192xf32, #vmem>
  accel.matmul %a1, %w, %c1 : memref<112x256xf32, #vmem>, memref<256x192xf32, #vmem>, memref<112x192xf32, #vmem>
  %a2 = accel.alloc : memref<144x256xf32, #vmem>
  %c2 = accel.alloc : memref<144x192xf32, #vmem>
  accel.matmul %a2, %w, %c2 : memref<144x256xf32, #vmem>, memref<256x192xf32, #vmem>, memref<144x192xf32, #vmem>
  return
}
