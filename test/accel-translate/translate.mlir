// accel-translate: mlir-translate's command line over accel's translations.
// A listing, an image and its disassembly agree; --mlir-to-accel prints
// what the frontend made; each chunk of a split input is translated on its
// own, and diagnostics are checked against expected-* comments.
// RUN: rm -rf %t && mkdir -p %t
// RUN: accel-translate --mlir-to-accel-asm %s --split-input-file -o %t/split.lst
// RUN: FileCheck %s --check-prefix=SPLIT --input-file=%t/split.lst
// RUN: accel-translate --mlir-to-accel-image %accel_src/examples/prefetch.mlir -o %t/p.bin
// RUN: accel-translate --accel-image-to-asm %t/p.bin -o %t/p.lst
// RUN: accel-translate --mlir-to-accel-asm %accel_src/examples/prefetch.mlir | diff - %t/p.lst
// RUN: accel-translate --mlir-to-accel %accel_src/test/EndToEnd/Inputs/layernorm.mlir | FileCheck %s --check-prefix=FRONTEND
// RUN: accel-translate --mlir-to-accel-asm %s --split-input-file --verify-diagnostics --entry=nothere -o /dev/null
//
// Bad input: one error line each, exit 1, no output file.
// RUN: not accel-translate %s 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not accel-translate --accel-image-to-asm %s -o %t/bad.lst 2>&1 | FileCheck %s --check-prefix=MAGIC
// RUN: not ls %t/bad.lst
// RUN: not accel-translate --mlir-to-accel-asm %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not accel-translate --mlir-to-accel-image %s --config %t/missing.json -o %t/bad.bin 2>&1 | FileCheck %s --check-prefix=CONFIG
// RUN: not ls %t/bad.bin

// SPLIT: ; accel ISA v{{[0-9]+}} listing of 'first': 1 instructions
// SPLIT: ; accel ISA v{{[0-9]+}} listing of 'second'
// SPLIT: vpu.fill
// FRONTEND: func.func @layernorm
// FRONTEND: accel.dma_start {{.*}}accel.op_id =
// NONE: accel-translate: error: no translation chosen
// MAGIC: accel-translate: error: {{.*}}translate.mlir: not an accel image: bad magic at byte offset 0
// MISSING: accel-translate: error: cannot open input file '{{.*}}missing.mlir': No such file or directory
// CONFIG: accel-translate: error: {{.*}}missing.json: cannot read: No such file or directory

// expected-error @below {{no function named 'nothere'}}
module {
  func.func @first() {
    return
  }
}

// -----

#vmem = #accel.space<vmem>
// expected-error @below {{no function named 'nothere'}}
module {
  func.func @second() {
    %a = accel.alloc : memref<8x128xf32, #vmem>
    accel.vfill %a, 1.0 : memref<8x128xf32, #vmem>
    return
  }
}
