// async-copies: a matmul reads tile k from copy k mod N while the core goes
// on to ISSUE the DMA of tile k + 2 (distance 1). With two copies that DMA
// writes the copy the running matmul reads, and the ISSUE waits for the MXU;
// a third copy lets it go at once. The buffer is private (the DMA writes all
// of it each iteration), so the copy is only a matter of VMEM.
// RUN: accel-opt %s --accel-pipeline-dma='all=true unroll-rotation=false' | FileCheck %s --check-prefix=ASYNC
// RUN: accel-opt %s --accel-pipeline-dma='all=true async-copies=false unroll-rotation=false' | FileCheck %s --check-prefix=SYNC
// ASYNC-COUNT-3: accel.alloc : memref<128x128xf32
// ASYNC-NOT: accel.alloc : memref<128x128xf32
// ASYNC: scf.for {{.*}} iter_args(%[[T:[^ ]*]] = %{{[^,]*}}, %[[B0:[^ ]*]] = %{{[^,]*}}, %[[B1:[^ ]*]] = %{{[^,]*}}, %[[B2:[^ ]*]] = %{{[^)]*}})
// ASYNC: %[[N:.*]] = accel.dma_start %{{.*}}, %[[B1]]
// ASYNC: accel.dma_wait %[[T]]
// ASYNC: accel.matmul %{{.*}}, %[[B0]], %{{.*}} {accumulate}
// ASYNC-NEXT: scf.yield %[[N]], %[[B1]], %[[B2]], %[[B0]]
// SYNC-COUNT-2: accel.alloc : memref<128x128xf32
// SYNC-NOT: accel.alloc : memref<128x128xf32
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%a: memref<8x1024xf32, #hbm>, %b: memref<1024x128xf32, #hbm>, %c: memref<8x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %av = accel.alloc : memref<8x1024xf32, #vmem>
  %bv = accel.alloc : memref<128x128xf32, #vmem>
  %cv = accel.alloc : memref<8x128xf32, #vmem>
  %ta = accel.dma_start %a, %av : memref<8x1024xf32, #hbm>, memref<8x1024xf32, #vmem>
  accel.dma_wait %ta
  accel.vfill %cv, 0.0 : memref<8x128xf32, #vmem>
  scf.for %k = %c0 to %c8 step %c1 {
    %k0 = arith.muli %k, %c128 : index
    %bs = memref.subview %b[%k0, 0] [128, 128] [1, 1] : memref<1024x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %tb = accel.dma_start %bs, %bv : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %tb
    %as = memref.subview %av[0, %k0] [8, 128] [1, 1] : memref<8x1024xf32, #vmem> to memref<8x128xf32, strided<[1024, 1], offset: ?>, #vmem>
    accel.matmul %as, %bv, %cv {accumulate} : memref<8x128xf32, strided<[1024, 1], offset: ?>, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  %tc = accel.dma_start %cv, %c : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %tc
  return
}
