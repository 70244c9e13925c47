// A 4 GiB VMEM buffer: all of vmem.bytes of chips-1024-vmem-4g.json.
func.func @main(%a: memref<128xf32, #accel.space<hbm>>) {
  %v = accel.alloc : memref<32768x32768xf32, #accel.space<vmem>>
  return
}
