// A Pallas-style double buffer nested in an outer loop: for each of two
// 128-column blocks of C = A B (A 8 x 1024, B 1024 x 256), the K loop loads
// step k + 1's A and B tiles into slot (k + 1) mod 2 while the MXU
// multiplies step k's from slot k mod 2; a prologue loads step 0, the
// epilogue multiplies step 7 (slot 1) and stores the block. Hand-written
// metrics (as a profile would give them) on the loop's two loads.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!aslot = memref<8x128xf32, strided<[128, 1], offset: ?>, #vmem>
!bslot = memref<128x128xf32, strided<[128, 1], offset: ?>, #vmem>
!atile = memref<8x128xf32, strided<[1024, 1], offset: ?>, #hbm>
!btile = memref<128x128xf32, strided<[256, 1], offset: ?>, #hbm>
!ctile = memref<8x128xf32, strided<[256, 1], offset: ?>, #hbm>
func.func @main(%a: memref<8x1024xf32, #hbm>, %b: memref<1024x256xf32, #hbm>,
                %c: memref<8x256xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %abuf = accel.alloc : memref<16x128xf32, #vmem>
  %bbuf = accel.alloc : memref<256x128xf32, #vmem>
  %acc = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %j = %c0 to %c2 step %c1 {
    %col = arith.muli %j, %c128 : index
    accel.vfill %acc, 0.0 : memref<8x128xf32, #vmem>
    %a0 = memref.subview %a[%c0, %c0] [8, 128] [1, 1] : memref<8x1024xf32, #hbm> to !atile
    %sa0 = memref.subview %abuf[%c0, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !aslot
    %pa = accel.dma_start %a0, %sa0 : !atile, !aslot
    %b0 = memref.subview %b[%c0, %col] [128, 128] [1, 1] : memref<1024x256xf32, #hbm> to !btile
    %sb0 = memref.subview %bbuf[%c0, 0] [128, 128] [1, 1] : memref<256x128xf32, #vmem> to !bslot
    %pb = accel.dma_start %b0, %sb0 : !btile, !bslot
    %r:2 = scf.for %k = %c0 to %c7 step %c1 iter_args(%ta = %pa, %tb = %pb) -> (!accel.token, !accel.token) {
      accel.dma_wait %ta
      accel.dma_wait %tb
      %k1 = arith.addi %k, %c1 : index
      %n1 = arith.remui %k1, %c2 : index
      %oa = arith.muli %n1, %c8 : index
      %ob = arith.muli %n1, %c128 : index
      %kk = arith.muli %k1, %c128 : index
      %an = memref.subview %a[%c0, %kk] [8, 128] [1, 1] : memref<8x1024xf32, #hbm> to !atile
      %san = memref.subview %abuf[%oa, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !aslot
      %na = accel.dma_start %an, %san {accel.executions = 14, accel.dma_cycles = 504, accel.transfer_cycles = 4, accel.stall_base = 3000} : !atile, !aslot
      %bn = memref.subview %b[%kk, %col] [128, 128] [1, 1] : memref<1024x256xf32, #hbm> to !btile
      %sbn = memref.subview %bbuf[%ob, 0] [128, 128] [1, 1] : memref<256x128xf32, #vmem> to !bslot
      %nb = accel.dma_start %bn, %sbn {accel.executions = 14, accel.dma_cycles = 564, accel.transfer_cycles = 64, accel.stall_base = 3000} : !btile, !bslot
      %s = arith.remui %k, %c2 : index
      %sa = arith.muli %s, %c8 : index
      %sb = arith.muli %s, %c128 : index
      %ca = memref.subview %abuf[%sa, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !aslot
      %cb = memref.subview %bbuf[%sb, 0] [128, 128] [1, 1] : memref<256x128xf32, #vmem> to !bslot
      accel.matmul %ca, %cb, %acc {accumulate, accel.busy_cycles = 1400, accel.executions = 14} : !aslot, !bslot, memref<8x128xf32, #vmem>
      scf.yield %na, %nb : !accel.token, !accel.token
    }
    accel.dma_wait %r#0
    accel.dma_wait %r#1
    %ea = memref.subview %abuf[%c8, 0] [8, 128] [1, 1] : memref<16x128xf32, #vmem> to !aslot
    %eb = memref.subview %bbuf[%c128, 0] [128, 128] [1, 1] : memref<256x128xf32, #vmem> to !bslot
    accel.matmul %ea, %eb, %acc {accumulate} : !aslot, !bslot, memref<8x128xf32, #vmem>
    %cs = memref.subview %c[%c0, %col] [8, 128] [1, 1] : memref<8x256xf32, #hbm> to !ctile
    %ts = accel.dma_start %acc, %cs : memref<8x128xf32, #vmem>, !ctile
    accel.dma_wait %ts
  }
  return
}
