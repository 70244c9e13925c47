// Programs the lowering rejects, each with one located error and exit 1.
// RUN: split-file %s %t
// RUN: not accel-translate --mlir-to-accel-asm %t/unsupported-op.mlir 2>&1 | FileCheck %s --check-prefix=OPKIND --implicit-check-not=error:
// RUN: not accel-translate --mlir-to-accel-asm %t/vmem-arg.mlir 2>&1 | FileCheck %s --check-prefix=ARG --implicit-check-not=error:
// RUN: not accel-translate --mlir-to-accel-asm %t/capacity.mlir 2>&1 | FileCheck %s --check-prefix=CAPACITY --implicit-check-not=error:
// RUN: not accel-translate --mlir-to-accel-asm %t/two-funcs.mlir 2>&1 | FileCheck %s --check-prefix=ENTRY --implicit-check-not=error:
// RUN: not accel-translate --mlir-to-accel-asm %t/init.mlir 2>&1 | FileCheck %s --check-prefix=INIT --implicit-check-not=error:
// RUN: not accel-translate --mlir-to-accel-asm %t/iota-bf16.mlir 2>&1 | FileCheck %s --check-prefix=IOTA --implicit-check-not=error:
// RUN: not accel-translate --mlir-to-accel-asm %t/global-elided.mlir 2>&1 | FileCheck %s --check-prefix=ELIDED --implicit-check-not=error:
// RUN: not accel-translate --mlir-to-accel-asm %t/global-blob-size.mlir 2>&1 | FileCheck %s --check-prefix=BLOBSIZE --implicit-check-not=error:
// RUN: not accel-translate --mlir-to-accel-asm %t/global-external.mlir 2>&1 | FileCheck %s --check-prefix=EXTERNAL --implicit-check-not=error:
// RUN: not accel-translate --mlir-to-accel-asm %t/global-type.mlir 2>&1 | FileCheck %s --check-prefix=GLOBALTYPE --implicit-check-not=error:
// RUN: not accel-translate --mlir-to-accel-asm %t/global-capacity.mlir 2>&1 | FileCheck %s --check-prefix=GLOBALCAP --implicit-check-not=error:

// OPKIND: unsupported-op.mlir:3:8: error: 'arith.divsi' cannot be lowered to the accel ISA
// ARG: vmem-arg.mlir:1:1: error: argument 0 must be an f32, bf16 or i32 HBM memref with a static shape and the identity layout
// CAPACITY: capacity.mlir:3:8: error: VMEM allocations need 33558528 bytes, more than the VMEM capacity of 33554432 bytes
// ENTRY: error: cannot choose an entry function: found 2 functions with bodies and none named 'main'
// INIT: init.mlir:1:1: error: argument 0: accel.init must be "zero", "random" or "iota"
// IOTA: iota-bf16.mlir:1:1: error: argument 1: accel.init = "iota" (0, 1, 2, ... as i32) needs 32-bit elements, not bf16

// ELIDED: global-elided.mlir:3:8: error: the data of '@w' is not in the file (dense_resource '__elided__' has no blob in the file's dialect_resources section, e.g. it was elided when printed); print the module with its resources
// BLOBSIZE: global-blob-size.mlir:3:8: error: the data of '@w' holds 4 bytes, not the 8 of its type 'memref<2xf32, #accel.space<hbm>>'
// EXTERNAL: global-external.mlir:3:8: error: '@w' is an external memref.global (no initializer): give it an initial value or 'uninitialized', or pass the data as a function argument
// GLOBALTYPE: global-type.mlir:3:8: error: '@w' must be an f32, bf16 or i32 HBM memref with a static shape and the identity layout to be placed in HBM (it must have f32, bf16 or i32 elements)
// GLOBALCAP: global-capacity.mlir:3:8: error: HBM buffers need more than the HBM capacity of {{[0-9]+}} bytes up to '@w' ('memref<4294967296x1024xf32, #accel.space<hbm>>')

//--- global-elided.mlir
memref.global "private" constant @w : memref<2xf32, #accel.space<hbm>> = dense_resource<__elided__>
func.func @main() {
  %w = memref.get_global @w : memref<2xf32, #accel.space<hbm>>
  return
}
//--- global-blob-size.mlir
memref.global "private" constant @w : memref<2xf32, #accel.space<hbm>> = dense_resource<b>
func.func @main() {
  %w = memref.get_global @w : memref<2xf32, #accel.space<hbm>>
  return
}
{-#
  dialect_resources: { builtin: { b: "0x0400000001020304" } }
#-}
//--- global-external.mlir
memref.global "private" @w : memref<2xf32, #accel.space<hbm>>
func.func @main() {
  %w = memref.get_global @w : memref<2xf32, #accel.space<hbm>>
  return
}
//--- global-type.mlir
memref.global "private" constant @w : memref<2xf64, #accel.space<hbm>> = dense<1.0>
func.func @main() {
  %w = memref.get_global @w : memref<2xf64, #accel.space<hbm>>
  return
}
//--- global-capacity.mlir
memref.global "private" @w : memref<4294967296x1024xf32, #accel.space<hbm>> = uninitialized
func.func @main() {
  %w = memref.get_global @w : memref<4294967296x1024xf32, #accel.space<hbm>>
  return
}
//--- unsupported-op.mlir
func.func @main() {
  %c = arith.constant 1 : index
  %y = arith.divsi %c, %c : index
  return
}
//--- vmem-arg.mlir
func.func @main(%x: memref<8x128xf32, #accel.space<vmem>>) {
  return
}
//--- capacity.mlir
func.func @main() {
  %a = accel.alloc : memref<8192x1024xf32, #accel.space<vmem>>
  %b = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  return
}
//--- two-funcs.mlir
func.func @a() {
  return
}
func.func @b() {
  return
}
//--- init.mlir
func.func @main(%x: memref<8x128xf32, #accel.space<hbm>> {accel.init = "ones"}) {
  return
}
//--- iota-bf16.mlir
func.func @main(%x: memref<8xi32, #accel.space<hbm>> {accel.init = "iota"},
                %y: memref<8xbf16, #accel.space<hbm>> {accel.init = "iota"}) {
  return
}
