// 502 trips of ISSUE + WAIT of one 4 KiB DMA: more DMAs than timeline.json
// draws with --timeline-max-dmas=500.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<8x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 502 : index
  %a = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %n step %c1 {
    %t = accel.dma_start %x, %a : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
  }
  return
}
