// The loop walks 128-column tiles of an 8x256 VMEM buffer three times: the
// third tile (columns 256-383) lies past its end. Offsets are dynamic, so
// only the simulator can catch it.
func.func @main(%a: memref<8x128xf32, #accel.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c128 = arith.constant 128 : index
  %v = accel.alloc : memref<8x256xf32, #accel.space<vmem>>
  scf.for %k = %c0 to %c3 step %c1 {
    %k0 = arith.muli %k, %c128 : index
    %s = memref.subview %v[0, %k0] [8, 128] [1, 1] : memref<8x256xf32, #accel.space<vmem>> to memref<8x128xf32, strided<[256, 1], offset: ?>, #accel.space<vmem>>
    accel.vfill %s, 1.0 : memref<8x128xf32, strided<[256, 1], offset: ?>, #accel.space<vmem>>
  }
  return
}
