// Issue 33, resolving set, kernel D (scatter_rows): a permutation written
// through loaded indices, y[dst(i)] = tanh(x[i]) * 0.5 + x[i] for 16 row
// tiles of 8 x 512 f32, where dst(i) = 15 - idx[i] and idx is an i32
// table DMA'd into VMEM (an iota, so the tiles land in reverse order). The
// source rows are read in order; every store goes to a row only known
// once its index is loaded (accel.load), so the stores' destinations
// cannot be told apart before run time.
//
// Style: a scatter (data-dependent DMA destinations in HBM, the index
// arithmetic after the load), the loop's iteration count in a step-2 loop
// over even tile numbers with the odd tile handled in the same body (a
// manual unroll by 2), VPU only.
//
// Shapes: x, y 128 x 512 f32; idx 16 x i32; tiles 8 x 512 (16 KiB); 16
// tiles, 4 VPU ops each. Config: the default machine.
//
//   accel-replay fdo bench/fdo/kernels/issue33b/scatter_rows.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!tile = memref<8x512xf32, #vmem>
!htile = memref<8x512xf32, strided<[512, 1], offset: ?>, #hbm>
func.func @main(%idx: memref<16xi32, #hbm> {accel.init = "iota"},
                %x: memref<128x512xf32, #hbm>,
                %y: memref<128x512xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %iv = accel.alloc : memref<16xi32, #vmem>
  %xa = accel.alloc : !tile
  %xb = accel.alloc : !tile
  %t = accel.alloc : !tile
  %half = accel.alloc : memref<8x1xf32, #vmem>
  accel.vfill %half, 0.5 : memref<8x1xf32, #vmem>
  %ti = accel.dma_start %idx, %iv : memref<16xi32, #hbm>, memref<16xi32, #vmem>
  accel.dma_wait %ti
  scf.for %i = %c0 to %c16 step %c2 {
    %j = arith.addi %i, %c1 : index
    %ra = arith.muli %i, %c8 : index
    %rb = arith.muli %j, %c8 : index
    %xsa = memref.subview %x[%ra, 0] [8, 512] [1, 1] : memref<128x512xf32, #hbm> to !htile
    %xsb = memref.subview %x[%rb, 0] [8, 512] [1, 1] : memref<128x512xf32, #hbm> to !htile
    %ta = accel.dma_start %xsa, %xa : !htile, !tile
    %tb = accel.dma_start %xsb, %xb : !htile, !tile
    %ka = accel.load %iv[%i] : memref<16xi32, #vmem>
    %kb = accel.load %iv[%j] : memref<16xi32, #vmem>
    %da = arith.subi %c15, %ka : index
    %db = arith.subi %c15, %kb : index
    %wa = arith.muli %da, %c8 : index
    %wb = arith.muli %db, %c8 : index
    accel.dma_wait %ta
    accel.vtanh %xa, %t : !tile, !tile
    accel.vmul %t, %half, %t : !tile, memref<8x1xf32, #vmem>, !tile
    accel.vadd %t, %xa, %xa : !tile, !tile, !tile
    %ysa = memref.subview %y[%wa, 0] [8, 512] [1, 1] : memref<128x512xf32, #hbm> to !htile
    %tsa = accel.dma_start %xa, %ysa : !tile, !htile
    accel.dma_wait %tsa
    accel.dma_wait %tb
    accel.vtanh %xb, %t : !tile, !tile
    accel.vmul %t, %half, %t : !tile, memref<8x1xf32, #vmem>, !tile
    accel.vadd %t, %xb, %xb : !tile, !tile, !tile
    %ysb = memref.subview %y[%wb, 0] [8, 512] [1, 1] : memref<128x512xf32, #hbm> to !htile
    %tsb = accel.dma_start %xb, %ysb : !tile, !htile
    accel.dma_wait %tsb
  }
  return
}
