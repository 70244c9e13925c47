// The program's constants (ISA version 10): every memref.global the entry
// function reads becomes an HBM buffer `@NAME` after the arguments, in the
// module's order of the globals (not the order of their readers), 4 KiB
// aligned. An initializer is the buffer's data, carried by the image (f32,
// bf16 and i32 little-endian; splat or not; a dense_resource blob as is);
// `uninitialized` is zeros. Globals nobody reads take no space.
// RUN: accel-translate --mlir-to-accel-asm %s | FileCheck %s
// RUN: accel-translate --mlir-to-accel-image %s -o %t.bin && accel-translate --accel-image-to-asm %t.bin | FileCheck %s

// CHECK-LABEL: ; accel ISA v10 listing of 'main'
// CHECK-NEXT: ; buffer %arg0 hbm [0x10000, 0x10020) 32 bytes{{$}}
// f32 1.0, 2.0, ... little-endian.
// CHECK-NEXT: ; buffer @w hbm [0x11000, 0x11020) 32 bytes, data 00 00 80 3f 00 00 00 40 ... (xxh3 {{[0-9a-f]+}})
// bf16 -2.0 (0xc000), a splat.
// CHECK-NEXT: ; buffer @h hbm [0x12000, 0x12010) 16 bytes, data 00 c0 00 c0 00 c0 00 c0 ... (xxh3
// i32 7, -1.
// CHECK-NEXT: ; buffer @i hbm [0x13000, 0x13008) 8 bytes, data 07 00 00 00 ff ff ff ff (xxh3
// CHECK-NEXT: ; buffer @scratch hbm [0x14000, 0x14020) 32 bytes{{$}}
// The blob's bytes after its 4-byte alignment header.
// CHECK-NEXT: ; buffer @blob hbm [0x15000, 0x15008) 8 bytes, data 01 02 03 04 05 06 07 08 (xxh3
// CHECK-NEXT: ; buffer vmem@
// The base of each, loaded where its get_global stands.
// CHECK: li r{{[0-9]+}}, 86016 {{ *}}; op {{[0-9]+}} memref.get_global
// CHECK: li r{{[0-9]+}}, 69632 {{ *}}; op {{[0-9]+}} memref.get_global

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
memref.global "private" constant @w : memref<8xf32, #hbm> = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]>
memref.global "private" constant @unused : memref<4xf32, #hbm> = dense<9.0>
memref.global "private" constant @h : memref<8xbf16, #hbm> = dense<-2.0>
memref.global "private" constant @i : memref<2xi32, #hbm> = dense<[7, -1]>
memref.global "private" @scratch : memref<8xf32, #hbm> = uninitialized
memref.global "private" constant @blob : memref<2xf32, #hbm> = dense_resource<blob1>
func.func @main(%out: memref<8xf32, #hbm>) {
  %b = memref.get_global @blob : memref<2xf32, #hbm>
  %v = accel.alloc : memref<8xf32, #vmem>
  %s = memref.get_global @scratch : memref<8xf32, #hbm>
  %i = memref.get_global @i : memref<2xi32, #hbm>
  %h = memref.get_global @h : memref<8xbf16, #hbm>
  %w = memref.get_global @w : memref<8xf32, #hbm>
  %t = accel.dma_start %w, %v : memref<8xf32, #hbm>, memref<8xf32, #vmem>
  accel.dma_wait %t
  %u = accel.dma_start %v, %out : memref<8xf32, #vmem>, memref<8xf32, #hbm>
  accel.dma_wait %u
  return
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000102030405060708"
    }
  }
#-}
