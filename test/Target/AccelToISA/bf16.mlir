// bf16 tiles lower with their element size: buffer sizes, subview offsets
// (2 bytes per element), DMA flags and the per-operand bf16 bits of the MXU
// and the VPU (docs/isa.md, "Element types").
// RUN: accel-translate --mlir-to-accel-asm %s | FileCheck %s

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<16x256xbf16, #hbm>, %w: memref<256x128xbf16, #hbm>,
                %y: memref<16x128xf32, #hbm> {accel.init = "zero"}) {
  %xa = accel.alloc : memref<16x128xbf16, #vmem>
  %wa = accel.alloc : memref<128x128xbf16, #vmem>
  %acc = accel.alloc : memref<16x128xf32, #vmem>
  %hb = accel.alloc : memref<16x128xbf16, #vmem>
  %xs = memref.subview %x[0, 128] [16, 128] [1, 1] : memref<16x256xbf16, #hbm> to memref<16x128xbf16, strided<[256, 1], offset: 128>, #hbm>
  %t0 = accel.dma_start %xs, %xa : memref<16x128xbf16, strided<[256, 1], offset: 128>, #hbm>, memref<16x128xbf16, #vmem>
  %ws = memref.subview %w[128, 0] [128, 128] [1, 1] : memref<256x128xbf16, #hbm> to memref<128x128xbf16, strided<[128, 1], offset: 16384>, #hbm>
  %t1 = accel.dma_start %ws, %wa : memref<128x128xbf16, strided<[128, 1], offset: 16384>, #hbm>, memref<128x128xbf16, #vmem>
  accel.dma_wait %t0
  accel.dma_wait %t1
  accel.matmul %xa, %wa, %acc : memref<16x128xbf16, #vmem>, memref<128x128xbf16, #vmem>, memref<16x128xf32, #vmem>
  accel.vcopy %acc, %hb : memref<16x128xf32, #vmem>, memref<16x128xbf16, #vmem>
  accel.vadd %hb, %acc, %acc : memref<16x128xbf16, #vmem>, memref<16x128xf32, #vmem>, memref<16x128xf32, #vmem>
  accel.vfill %hb, 0.1 : memref<16x128xbf16, #vmem>
  %t2 = accel.dma_start %acc, %y : memref<16x128xf32, #vmem>, memref<16x128xf32, #hbm>
  accel.dma_wait %t2
  return
}

// CHECK-LABEL: ; accel ISA v10 listing of 'main'
// CHECK: ; buffer %arg0 hbm [0x10000, 0x12000) 8192 bytes
// CHECK: ; buffer %arg1 hbm [0x12000, 0x22000) 65536 bytes
// CHECK: ; buffer %arg2 hbm [0x22000, 0x24000) 8192 bytes
// CHECK: ; buffer vmem@{{.*}}:10:9 vmem [0x0, 0x1000) 4096 bytes
// CHECK: ; buffer vmem@{{.*}}:11:9 vmem [0x1000, 0x9000) 32768 bytes
// x[0, 128] is 128 elements of 2 bytes past %x; w[128, 0] 128 x 128 x 2.
// CHECK: addi [[XS:r[0-9]+]], [[XS]], 256
// CHECK: dma.issue {{r[0-9]+}}, [[XS]], {{r[0-9]+}}, hbm->vmem, 16x128, s=256,128, bf16
// CHECK: addi [[WS:r[0-9]+]], [[WS]], 32768
// CHECK: dma.issue {{r[0-9]+}}, [[WS]], {{r[0-9]+}}, hbm->vmem, 128x128, s=128,128, bf16
// CHECK: mxu.matmul {{.*}} m=16 n=128 k=128 sa=128 sc=128 a:bf16 b:bf16 ;
// CHECK: vpu.copy {{.*}} 16x128, s=128,128 out:bf16 ;
// CHECK: vpu.add {{.*}} 16x128, s=128,128,128 x:bf16 ;
// CHECK: vpu.fill {{.*}} 16x128, s=128, 0.1 out:bf16 ;
// An f32 DMA has no flag.
// CHECK: dma.issue {{.*}}, vmem->hbm, 16x128, s=128,128 ;
