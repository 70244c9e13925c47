// Issue 10, row 5 (alloc_in_loop): the shape upstream MLIR's affine copy
// generation (affine-data-copy-generate) emits: the VMEM buffer is
// allocated inside the tile loop, right before the copy-in, and the compute
// runs in a nested point loop over sub-blocks of that buffer; the copy-out
// follows the nested loop. Here: GELU-like scaling y = x * exp(x) over a
// 512 x 1024 activation, 16 tiles of 32 x 1024 (128 KiB) each, the point
// loop walking each tile in 8-row sub-blocks.
//
// Shapes: x, y 512 x 1024 f32; tile 32 x 1024; sub-block 8 x 1024.
// Config: the default machine (no --config).
//
// Needs the lowering fix: today `accel-replay run` faults with "VMEM access
// out of bounds" (at the vexp of the second tile: "VPU output [...) is not
// inside any allocated buffer"), because lowering sets each alloc's
// register once, up front, and gives it back after the nested loop ends
// (its last use inside the tile loop); the copy-out's HBM address takes
// that register (here %tmp's), and the next tile's point loop writes to
// that HBM address as if it were VMEM.
//
//   accel-replay fdo bench/fdo/kernels/alloc_in_loop.mlir -o out --iterations 3
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<512x1024xf32, #hbm>,
                %y: memref<512x1024xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c512 = arith.constant 512 : index
  scf.for %t = %c0 to %c512 step %c32 {
    %buf = accel.alloc : memref<32x1024xf32, #vmem>
    %tmp = accel.alloc : memref<8x1024xf32, #vmem>
    %src = memref.subview %x[%t, 0] [32, 1024] [1, 1] : memref<512x1024xf32, #hbm> to memref<32x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    %tin = accel.dma_start %src, %buf : memref<32x1024xf32, strided<[1024, 1], offset: ?>, #hbm>, memref<32x1024xf32, #vmem>
    accel.dma_wait %tin
    scf.for %p = %c0 to %c32 step %c8 {
      %blk = memref.subview %buf[%p, 0] [8, 1024] [1, 1] : memref<32x1024xf32, #vmem> to memref<8x1024xf32, strided<[1024, 1], offset: ?>, #vmem>
      accel.vexp %blk, %tmp : memref<8x1024xf32, strided<[1024, 1], offset: ?>, #vmem>, memref<8x1024xf32, #vmem>
      accel.vmul %blk, %tmp, %blk : memref<8x1024xf32, strided<[1024, 1], offset: ?>, #vmem>, memref<8x1024xf32, #vmem>, memref<8x1024xf32, strided<[1024, 1], offset: ?>, #vmem>
    }
    %dst = memref.subview %y[%t, 0] [32, 1024] [1, 1] : memref<512x1024xf32, #hbm> to memref<32x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    %tout = accel.dma_start %buf, %dst : memref<32x1024xf32, #vmem>, memref<32x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    accel.dma_wait %tout
  }
  return
}
