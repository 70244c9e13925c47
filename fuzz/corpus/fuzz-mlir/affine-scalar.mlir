// y = x * w + x (w broadcast along the rows) as a scalar loop nest on
// memrefs without memory spaces, tiled the way affine-loop-tile writes it
// (point loops from the tile loop's IV to a constant past it).
#lb = affine_map<(d0) -> (d0)>
#ub16 = affine_map<(d0) -> (d0 + 16)>
#ub128 = affine_map<(d0) -> (d0 + 128)>
func.func @affine_scalar(%x: memref<64x256xf32>, %w: memref<256xf32>,
                         %y: memref<64x256xf32>) {
  affine.for %i = 0 to 64 step 16 {
    affine.for %j = 0 to 256 step 128 {
      affine.for %ii = #lb(%i) to #ub16(%i) {
        affine.for %jj = #lb(%j) to #ub128(%j) {
          %v = affine.load %x[%ii, %jj] : memref<64x256xf32>
          %s = affine.load %w[%jj] : memref<256xf32>
          %p = arith.mulf %v, %s : f32
          %q = arith.addf %p, %v : f32
          affine.store %q, %y[%ii, %jj] : memref<64x256xf32>
        }
      }
    }
  }
  return
}
