// A small load (%a, 4 KiB) needed at once and a large one (%b, 1 MiB)
// needed only after 1300 cycles of independent VPU work. The large load
// stalls a little in iteration 0; letting the hoist move it above the small
// load's ISSUE (reorder-bytes above its size) puts its 1024-cycle transfer
// on the link first, so the small load, and all the work behind it, waits.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%a: memref<8x128xf32, #hbm>, %b: memref<256x1024xf32, #hbm>,
                %out: memref<256x1024xf32, #hbm> {accel.init = "zero"}) {
  %va = accel.alloc : memref<8x128xf32, #vmem>
  %vb = accel.alloc : memref<256x1024xf32, #vmem>
  %w = accel.alloc : memref<256x1024xf32, #vmem>
  %ta = accel.dma_start %a, %va : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %ta
  accel.vexp %va, %va : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %tb = accel.dma_start %b, %vb : memref<256x1024xf32, #hbm>, memref<256x1024xf32, #vmem>
  accel.vfill %w, 0.5 : memref<256x1024xf32, #vmem>
  accel.vexp %w, %w : memref<256x1024xf32, #vmem>, memref<256x1024xf32, #vmem>
  accel.dma_wait %tb
  accel.vadd %vb, %w, %w : memref<256x1024xf32, #vmem>, memref<256x1024xf32, #vmem>, memref<256x1024xf32, #vmem>
  %to = accel.dma_start %w, %out : memref<256x1024xf32, #vmem>, memref<256x1024xf32, #hbm>
  accel.dma_wait %to
  return
}
