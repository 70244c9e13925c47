// Issue 10, row 2 (iterarg_offsets): row softmax over a 256 x 1024
// activation in 32 row tiles of 8 x 1024, written the way a hand-rolled
// pointer-bumping loop looks: the tile's row offset is not computed from the
// induction variable but carried in an scf.for iter_arg that starts at 0 and
// grows by the tile height (8) every iteration; the loop also hands the
// offset it ended with back as its result, and the induction variable is
// unused.
//
// Per tile: load, row max, subtract, exp, row sum, divide, store. Shapes: x
// and out 256 x 1024 f32; tiles 8 x 1024 (32 KiB). Config: the default
// machine (no --config).
//
//   accel-replay fdo bench/fdo/kernels/iterarg_offsets.mlir -o out --iterations 3
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<256x1024xf32, #hbm>,
                %out: memref<256x1024xf32, #hbm> {accel.init = "zero"}) {
  %zero = arith.constant 0 : index
  %one = arith.constant 1 : index
  %tile_rows = arith.constant 8 : index
  %ntiles = arith.constant 32 : index
  %buf = accel.alloc : memref<8x1024xf32, #vmem>
  %rowstat = accel.alloc : memref<8x1xf32, #vmem>
  %end = scf.for %it = %zero to %ntiles step %one iter_args(%off = %zero) -> (index) {
    %in_tile = memref.subview %x[%off, 0] [8, 1024] [1, 1] : memref<256x1024xf32, #hbm> to memref<8x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    %ld = accel.dma_start %in_tile, %buf : memref<8x1024xf32, strided<[1024, 1], offset: ?>, #hbm>, memref<8x1024xf32, #vmem>
    accel.dma_wait %ld
    accel.vreduce_max %buf, %rowstat : memref<8x1024xf32, #vmem>, memref<8x1xf32, #vmem>
    accel.vsub %buf, %rowstat, %buf : memref<8x1024xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x1024xf32, #vmem>
    accel.vexp %buf, %buf : memref<8x1024xf32, #vmem>, memref<8x1024xf32, #vmem>
    accel.vreduce_sum %buf, %rowstat : memref<8x1024xf32, #vmem>, memref<8x1xf32, #vmem>
    accel.vdiv %buf, %rowstat, %buf : memref<8x1024xf32, #vmem>, memref<8x1xf32, #vmem>, memref<8x1024xf32, #vmem>
    %out_tile = memref.subview %out[%off, 0] [8, 1024] [1, 1] : memref<256x1024xf32, #hbm> to memref<8x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    %st = accel.dma_start %buf, %out_tile : memref<8x1024xf32, #vmem>, memref<8x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    accel.dma_wait %st
    %next = arith.addi %off, %tile_rows : index
    scf.yield %next : index
  }
  return
}
