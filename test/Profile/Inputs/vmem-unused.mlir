// Three 4 KiB VMEM buffers on a 16-page VMEM (blocks of 4 pages): a is
// DMA'd in and read by a vadd, b is DMA'd in and never read (half a page
// of it is then overwritten by a vfill, still never read), c is written by
// the vadd and DMA'd out. Pages 12-15 are never written.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<8x128xf32, #hbm>, %y: memref<8x128xf32, #hbm>,
                %out: memref<8x128xf32, #hbm> {accel.init = "zero"}) {
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<8x128xf32, #vmem>
  %c = accel.alloc : memref<8x128xf32, #vmem>
  %t1 = accel.dma_start %x, %a : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t1
  %t2 = accel.dma_start %y, %b : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t2
  %b0 = memref.subview %b[0, 0] [1, 128] [1, 1] : memref<8x128xf32, #vmem> to memref<1x128xf32, strided<[128, 1]>, #vmem>
  accel.vfill %b0, 1.0 : memref<1x128xf32, strided<[128, 1]>, #vmem>
  accel.vadd %a, %a, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t3 = accel.dma_start %c, %out : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %t3
  return
}
