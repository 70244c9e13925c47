// The loop bound comes from memory: a DMA brings an i32 table (0, 1, 2, ...)
// into VMEM and the scalar unit loads entry 5. A trace records that table
// as initial state; tampering with it sends the loop branch the other way.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%table: memref<16xi32, #hbm> {accel.init = "iota"},
                %x: memref<8x128xf32, #hbm>,
                %out: memref<8x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %tv = accel.alloc : memref<16xi32, #vmem>
  %xv = accel.alloc : memref<8x128xf32, #vmem>
  %t0 = accel.dma_start %table, %tv : memref<16xi32, #hbm>, memref<16xi32, #vmem>
  %t1 = accel.dma_start %x, %xv : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %t0
  accel.dma_wait %t1
  %n = accel.load %tv[%c5] : memref<16xi32, #vmem>
  scf.for %i = %c0 to %n step %c1 {
    accel.vexp %xv, %xv : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  %t2 = accel.dma_start %xv, %out : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %t2
  return
}
