// A 1 TiB HBM argument (hbm-256t.json holds it).
func.func @main(%a: memref<262144x1048576xf32, #accel.space<hbm>>) {
  return
}
