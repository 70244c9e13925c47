// Fresh style: batches x ragged rows, both counts loaded at run time; a
// descending-offset loop with step 3 whose bounds cross (no iterations);
// bf16 tiles.
func.func @main(%x: memref<96x64xbf16, #accel.space<hbm>>,
                %y: memref<96x64xbf16, #accel.space<hbm>> {accel.init = "zero"},
                %meta: memref<16xi32, #accel.space<hbm>> {accel.init = "iota"}) {
  %m = accel.alloc : memref<16xi32, #accel.space<vmem>>
  %a = accel.alloc : memref<2x64xbf16, #accel.space<vmem>>
  %b = accel.alloc : memref<2x64xbf16, #accel.space<vmem>>
  %t = accel.dma_start %meta, %m : memref<16xi32, #accel.space<hbm>>, memref<16xi32, #accel.space<vmem>>
  accel.dma_wait %t
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c12 = arith.constant 12 : index
  %batches = accel.load %m[%c3] : memref<16xi32, #accel.space<vmem>>
  %rows = accel.load %m[%c7] : memref<16xi32, #accel.space<vmem>>
  scf.for %bi = %c0 to %batches step %c1 {
    %base = arith.muli %bi, %c12 : index
    scf.for %r = %c0 to %rows step %c1 {
      %rr = arith.muli %r, %c2 : index
      %row = arith.addi %base, %rr : index
      %xs = memref.subview %x[%row, 0] [2, 64] [1, 1] : memref<96x64xbf16, #accel.space<hbm>> to memref<2x64xbf16, strided<[64, 1], offset: ?>, #accel.space<hbm>>
      %d = accel.dma_start %xs, %a : memref<2x64xbf16, strided<[64, 1], offset: ?>, #accel.space<hbm>>, memref<2x64xbf16, #accel.space<vmem>>
      accel.dma_wait %d
      accel.vtanh %a, %b : memref<2x64xbf16, #accel.space<vmem>>, memref<2x64xbf16, #accel.space<vmem>>
      %ys = memref.subview %y[%row, 0] [2, 64] [1, 1] : memref<96x64xbf16, #accel.space<hbm>> to memref<2x64xbf16, strided<[64, 1], offset: ?>, #accel.space<hbm>>
      %e = accel.dma_start %b, %ys : memref<2x64xbf16, #accel.space<vmem>>, memref<2x64xbf16, strided<[64, 1], offset: ?>, #accel.space<hbm>>
      accel.dma_wait %e
    }
  }
  // Bounds cross: from rows (7) down to... 3: no iterations.
  scf.for %i = %rows to %c3 step %c3 {
    %xs = memref.subview %x[%i, 0] [2, 64] [1, 1] : memref<96x64xbf16, #accel.space<hbm>> to memref<2x64xbf16, strided<[64, 1], offset: ?>, #accel.space<hbm>>
    %d = accel.dma_start %xs, %a : memref<2x64xbf16, strided<[64, 1], offset: ?>, #accel.space<hbm>>, memref<2x64xbf16, #accel.space<vmem>>
    accel.dma_wait %d
    %e = accel.dma_start %a, %xs : memref<2x64xbf16, #accel.space<vmem>>, memref<2x64xbf16, strided<[64, 1], offset: ?>, #accel.space<hbm>>
    accel.dma_wait %e
  }
  return
}
