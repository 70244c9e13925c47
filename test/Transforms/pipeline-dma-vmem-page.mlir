// The VMEM check counts allocations rounded up to the machine's VMEM page
// (the lowering aligns each allocation to it): a 512-byte tile and its copy
// fit 3072 bytes of VMEM with 1024-byte pages (with a
// store WAIT in the ISSUE stage), not with 2048-byte pages.
// RUN: accel-opt %s --accel-pipeline-dma='all=true remarks=true vmem-capacity=3072 vmem-page=1024' | FileCheck %s --check-prefix=FITS
// RUN: accel-opt %s --accel-pipeline-dma='all=true remarks=true vmem-capacity=3072 vmem-page=2048' -verify-diagnostics | FileCheck %s --check-prefix=REFUSED
// FITS-COUNT-3: accel.alloc
// FITS: accel.pipelined = 0
// REFUSED-COUNT-2: accel.alloc
// REFUSED-NOT: accel.alloc
// REFUSED-NOT: accel.pipelined
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<64x32xf32, #hbm>, %out: memref<64x32xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %xv = accel.alloc : memref<4x32xf32, #vmem>
  %ov = accel.alloc : memref<4x32xf32, #vmem>
  // expected-remark @+1 {{not pipelined: the extra buffers (2048 bytes) would exceed the VMEM capacity of 3072 bytes}}
  scf.for %k = %c0 to %c16 step %c1 {
    %r = arith.muli %k, %c4 : index
    %xs = memref.subview %x[%r, 0] [4, 32] [1, 1] : memref<64x32xf32, #hbm> to memref<4x32xf32, strided<[32, 1], offset: ?>, #hbm>
    %t = accel.dma_start %xs, %xv : memref<4x32xf32, strided<[32, 1], offset: ?>, #hbm>, memref<4x32xf32, #vmem>
    accel.dma_wait %t
    accel.vexp %xv, %ov : memref<4x32xf32, #vmem>, memref<4x32xf32, #vmem>
    %os = memref.subview %out[%r, 0] [4, 32] [1, 1] : memref<64x32xf32, #hbm> to memref<4x32xf32, strided<[32, 1], offset: ?>, #hbm>
    %t2 = accel.dma_start %ov, %os : memref<4x32xf32, #vmem>, memref<4x32xf32, strided<[32, 1], offset: ?>, #hbm>
    accel.dma_wait %t2
  }
  return
}
