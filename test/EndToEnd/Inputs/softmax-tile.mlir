// Softmax over the rows of a 64x128 matrix, 8 rows at a time, in upstream's
// buffer form after tiling (arguments without a memory space, VMEM tiles in
// space 1): a max reduction, exp(x - max), a sum reduction, a division.
func.func @softmax(%x: memref<64x128xf32>, %y: memref<64x128xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c64 step %c8 {
    %xv = memref.alloc() : memref<8x128xf32, 1>
    %m = memref.alloc() : memref<8xf32, 1>
    %s = memref.alloc() : memref<8xf32, 1>
    %e = memref.alloc() : memref<8x128xf32, 1>
    %xs = memref.subview %x[%i, 0] [8, 128] [1, 1] : memref<64x128xf32> to memref<8x128xf32, strided<[128, 1], offset: ?>>
    memref.copy %xs, %xv : memref<8x128xf32, strided<[128, 1], offset: ?>> to memref<8x128xf32, 1>
    linalg.fill ins(%ninf : f32) outs(%m : memref<8xf32, 1>)
    linalg.reduce ins(%xv : memref<8x128xf32, 1>) outs(%m : memref<8xf32, 1>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %r = arith.maximumf %in, %acc : f32
        linalg.yield %r : f32
      }
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%xv, %m : memref<8x128xf32, 1>, memref<8xf32, 1>) outs(%e : memref<8x128xf32, 1>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %d = arith.subf %a, %b : f32
      %v = math.exp %d : f32
      linalg.yield %v : f32
    }
    linalg.fill ins(%zero : f32) outs(%s : memref<8xf32, 1>)
    linalg.reduce ins(%e : memref<8x128xf32, 1>) outs(%s : memref<8xf32, 1>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %r = arith.addf %in, %acc : f32
        linalg.yield %r : f32
      }
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%e, %s : memref<8x128xf32, 1>, memref<8xf32, 1>) outs(%xv : memref<8x128xf32, 1>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %q = arith.divf %a, %b : f32
      linalg.yield %q : f32
    }
    %ys = memref.subview %y[%i, 0] [8, 128] [1, 1] : memref<64x128xf32> to memref<8x128xf32, strided<[128, 1], offset: ?>>
    memref.copy %xv, %ys : memref<8x128xf32, 1> to memref<8x128xf32, strided<[128, 1], offset: ?>>
    memref.dealloc %e : memref<8x128xf32, 1>
    memref.dealloc %s : memref<8xf32, 1>
    memref.dealloc %m : memref<8xf32, 1>
    memref.dealloc %xv : memref<8x128xf32, 1>
  }
  return
}
