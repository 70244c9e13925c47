// y = relu(x * w + b) for 64 rows, 8 rows at a time, in upstream's buffer
// form: arguments without a memory space, VMEM tiles in space 1.
func.func @mlp_tile(%x: memref<64x128xf32>, %w: memref<128x128xf32>,
                    %b: memref<8x1xf32>, %y: memref<64x128xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %wv = memref.alloc() : memref<128x128xf32, 1>
  %bv = memref.alloc() : memref<8x1xf32, 1>
  memref.copy %w, %wv : memref<128x128xf32> to memref<128x128xf32, 1>
  memref.copy %b, %bv : memref<8x1xf32> to memref<8x1xf32, 1>
  scf.for %i = %c0 to %c64 step %c8 {
    %xv = memref.alloc() : memref<8x128xf32, 1>
    %acc = memref.alloc() : memref<8x128xf32, 1>
    %xs = memref.subview %x[%i, 0] [8, 128] [1, 1] : memref<64x128xf32> to memref<8x128xf32, strided<[128, 1], offset: ?>>
    memref.copy %xs, %xv : memref<8x128xf32, strided<[128, 1], offset: ?>> to memref<8x128xf32, 1>
    linalg.fill ins(%zero : f32) outs(%acc : memref<8x128xf32, 1>)
    linalg.matmul ins(%xv, %wv : memref<8x128xf32, 1>, memref<128x128xf32, 1>) outs(%acc : memref<8x128xf32, 1>)
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%acc, %bv : memref<8x128xf32, 1>, memref<8x1xf32, 1>) outs(%acc : memref<8x128xf32, 1>) {
    ^bb0(%a: f32, %c: f32, %o: f32):
      %s = arith.addf %a, %c : f32
      %r = arith.maximumf %s, %zero : f32
      linalg.yield %r : f32
    }
    %ys = memref.subview %y[%i, 0] [8, 128] [1, 1] : memref<64x128xf32> to memref<8x128xf32, strided<[128, 1], offset: ?>>
    memref.copy %acc, %ys : memref<8x128xf32, 1> to memref<8x128xf32, strided<[128, 1], offset: ?>>
    memref.dealloc %acc : memref<8x128xf32, 1>
    memref.dealloc %xv : memref<8x128xf32, 1>
  }
  memref.dealloc %bv : memref<8x1xf32, 1>
  memref.dealloc %wv : memref<128x128xf32, 1>
  return
}
