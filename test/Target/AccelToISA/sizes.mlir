// Issue 31: sizes from the user's dimensions are computed with overflow
// checks. A 2^66-byte argument (2^32 x 2^32 f32, or 2^60 x 16 f32) wrapped
// to a 0-byte buffer and the run exited 0; now each is one error at the
// argument, exit 1, in the lowering (accel-translate) and in a run, which
// writes nothing.
// RUN: rm -rf %t && split-file %s %t
// RUN: not accel-translate --mlir-to-accel-asm %t/square.mlir 2>&1 | FileCheck %s --check-prefix=SQUARE --implicit-check-not=error:
// RUN: not accel-translate --mlir-to-accel-asm %t/tall.mlir 2>&1 | FileCheck %s --check-prefix=TALL --implicit-check-not=error:
// RUN: not accel-replay run %t/square.mlir -o %t/out 2>&1 | FileCheck %s --check-prefixes=SQUARE,RUNERR --implicit-check-not="hbm hash"
// RUN: not accel-replay run %t/tall.mlir -o %t/out 2>&1 | FileCheck %s --check-prefixes=TALL,RUNERR --implicit-check-not="hbm hash"
// RUN: not test -e %t/out
// RUN: not accel-translate --mlir-to-accel-asm %t/rank3.mlir 2>&1 | FileCheck %s --check-prefix=RANK3 --implicit-check-not=error:
// RUN: not accel-translate --mlir-to-accel-asm %t/sum.mlir 2>&1 | FileCheck %s --check-prefix=SUM --implicit-check-not=error:
// RUN: not accel-translate --mlir-to-accel-asm %t/constant.mlir 2>&1 | FileCheck %s --check-prefix=CONSTANT --implicit-check-not=error:

// SQUARE: square.mlir:1:55: error: argument 1 of type 'memref<4294967296x4294967296xf32, #accel.space<hbm>>' holds 4294967296 × 4294967296 × 4 bytes = 73786976294838206464 bytes (2^66), more than the 2^63 - 1 bytes a buffer can have
// TALL: tall.mlir:1:17: error: argument 0 of type 'memref<1152921504606846976x16xf32, #accel.space<hbm>>' holds 1152921504606846976 × 16 × 4 bytes = 73786976294838206464 bytes (2^66), more than the 2^63 - 1 bytes a buffer can have
// RUNERR: accel-replay: error: lowering failed
// A product that wraps to a small number (2^67 + 2^35 bytes, 32 GiB mod 2^64).
// RANK3: rank3.mlir:1:17: error: argument 0 of type 'memref<4294967296x4294967297x4xbf16, #accel.space<hbm>>' holds 4294967296 × 4294967297 × 4 × 2 bytes = 147573952624036151296 bytes, more than the 2^63 - 1 bytes a buffer can have
// Arguments that fit alone, but not laid out together (HBM capacity).
// SUM: sum.mlir:2:17: error: HBM buffers need 38654771200 bytes up to argument 1, more than the HBM capacity of 34359738368 bytes
// li's immediate is 64 bits: a wider constant is not truncated.
// CONSTANT: constant.mlir:2:8: error: the constant 1180591620717411303424 : i128 does not fit li's 64-bit immediate

//--- square.mlir
func.func @main(%a: memref<8xf32, #accel.space<hbm>>, %b: memref<4294967296x4294967296xf32, #accel.space<hbm>>) {
  return
}

//--- tall.mlir
func.func @main(%a: memref<1152921504606846976x16xf32, #accel.space<hbm>>) {
  return
}

//--- rank3.mlir
func.func @main(%a: memref<4294967296x4294967297x4xbf16, #accel.space<hbm>>) {
  return
}

//--- sum.mlir
func.func @main(%a: memref<4x1073741824xf32, #accel.space<hbm>>,
                %b: memref<5x1073741824xf32, #accel.space<hbm>>) {
  return
}

//--- constant.mlir
func.func @main() {
  %c = arith.constant 1180591620717411303424 : i128
  return
}
