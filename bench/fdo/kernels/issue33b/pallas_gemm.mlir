// Issue 33, resolving set, kernel H (pallas_double_buffer_gemm): C = A B
// with A 128 x 4096, B 4096 x 512, written as Pallas-style TPU kernels are:
// for each 128-column block of C, the K loop double-buffers both operands
// by hand, slot = k mod 2 (arith.remui), the next step's A and B tiles
// issued one step ahead into the other slot while the MXU multiplies the
// current ones; a prologue loads step 0, the loop runs steps 0 .. 30 and
// an epilogue finishes step 31 from slot 1, then stores the block.
//
// Style: hand double-buffering nested in an outer loop (two carried DMA
// chains, one per operand), slots by remainder, MXU accumulation into one
// VMEM tile, one store per outer iteration. 4 column blocks x 32 K steps.
//
// Shapes: tiles 128 x 128 f32 (64 KiB); each ring 256 x 128 (2 slots).
// Config: the default machine.
//
//   accel-replay fdo bench/fdo/kernels/issue33b/pallas_gemm.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!slot = memref<128x128xf32, strided<[128, 1], offset: ?>, #vmem>
!atile = memref<128x128xf32, strided<[4096, 1], offset: ?>, #hbm>
!btile = memref<128x128xf32, strided<[512, 1], offset: ?>, #hbm>
func.func @main(%a: memref<128x4096xf32, #hbm>, %b: memref<4096x512xf32, #hbm>,
                %c: memref<128x512xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c31 = arith.constant 31 : index
  %c128 = arith.constant 128 : index
  %c3968 = arith.constant 3968 : index
  %abuf = accel.alloc : memref<256x128xf32, #vmem>
  %bbuf = accel.alloc : memref<256x128xf32, #vmem>
  %acc = accel.alloc : memref<128x128xf32, #vmem>
  scf.for %j = %c0 to %c4 step %c1 {
    %col = arith.muli %j, %c128 : index
    accel.vfill %acc, 0.0 : memref<128x128xf32, #vmem>
    %a0 = memref.subview %a[%c0, %c0] [128, 128] [1, 1] : memref<128x4096xf32, #hbm> to !atile
    %sa0 = memref.subview %abuf[%c0, 0] [128, 128] [1, 1] : memref<256x128xf32, #vmem> to !slot
    %pa = accel.dma_start %a0, %sa0 : !atile, !slot
    %b0 = memref.subview %b[%c0, %col] [128, 128] [1, 1] : memref<4096x512xf32, #hbm> to !btile
    %sb0 = memref.subview %bbuf[%c0, 0] [128, 128] [1, 1] : memref<256x128xf32, #vmem> to !slot
    %pb = accel.dma_start %b0, %sb0 : !btile, !slot
    %r:2 = scf.for %k = %c0 to %c31 step %c1 iter_args(%ta = %pa, %tb = %pb) -> (!accel.token, !accel.token) {
      accel.dma_wait %ta
      accel.dma_wait %tb
      // Prefetch step k + 1 into the other slot.
      %k1 = arith.addi %k, %c1 : index
      %n1 = arith.remui %k1, %c2 : index
      %o1 = arith.muli %n1, %c128 : index
      %kk = arith.muli %k1, %c128 : index
      %an = memref.subview %a[%c0, %kk] [128, 128] [1, 1] : memref<128x4096xf32, #hbm> to !atile
      %san = memref.subview %abuf[%o1, 0] [128, 128] [1, 1] : memref<256x128xf32, #vmem> to !slot
      %na = accel.dma_start %an, %san : !atile, !slot
      %bn = memref.subview %b[%kk, %col] [128, 128] [1, 1] : memref<4096x512xf32, #hbm> to !btile
      %sbn = memref.subview %bbuf[%o1, 0] [128, 128] [1, 1] : memref<256x128xf32, #vmem> to !slot
      %nb = accel.dma_start %bn, %sbn : !btile, !slot
      // Multiply step k from slot k mod 2.
      %s = arith.remui %k, %c2 : index
      %o = arith.muli %s, %c128 : index
      %ca = memref.subview %abuf[%o, 0] [128, 128] [1, 1] : memref<256x128xf32, #vmem> to !slot
      %cb = memref.subview %bbuf[%o, 0] [128, 128] [1, 1] : memref<256x128xf32, #vmem> to !slot
      accel.matmul %ca, %cb, %acc {accumulate} : !slot, !slot, memref<128x128xf32, #vmem>
      scf.yield %na, %nb : !accel.token, !accel.token
    }
    // Step 31 from slot 1.
    accel.dma_wait %r#0
    accel.dma_wait %r#1
    %ea = memref.subview %abuf[%c128, 0] [128, 128] [1, 1] : memref<256x128xf32, #vmem> to !slot
    %eb = memref.subview %bbuf[%c128, 0] [128, 128] [1, 1] : memref<256x128xf32, #vmem> to !slot
    accel.matmul %ea, %eb, %acc {accumulate} : !slot, !slot, memref<128x128xf32, #vmem>
    %cs = memref.subview %c[%c0, %col] [128, 128] [1, 1] : memref<128x512xf32, #hbm> to !btile
    %ts = accel.dma_start %acc, %cs : memref<128x128xf32, #vmem>, !btile
    accel.dma_wait %ts
  }
  return
}
