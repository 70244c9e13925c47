// RUN: accel-opt %s -split-input-file --accel-pipeline-dma='all=true remarks=true' -verify-diagnostics | FileCheck %s

// Ragged nests that accel-pipeline-dma does not coalesce into one loop
// (pipeline-dma-segments.test has the ones it does): each refusal names
// what reordering the bounds' computation before the inner iterations of
// earlier segments would break. The inner loop is then strip-mined alone.

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!tile = memref<4x64xf32, #vmem>
!htile = memref<4x64xf32, strided<[64, 1], offset: ?>, #hbm>

// The inner body reads the segment's number (a gain row per segment).
// CHECK-LABEL: func @reads_segment
// CHECK-NOT: accel.segments_fallback
func.func @reads_segment(%lens: memref<8xi32, #hbm>, %x: memref<64x64xf32, #hbm>,
                         %g: memref<8x64xf32, #hbm>, %y: memref<64x64xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %lv = accel.alloc : memref<8xi32, #vmem>
  %t = accel.dma_start %lens, %lv : memref<8xi32, #hbm>, memref<8xi32, #vmem>
  accel.dma_wait %t
  %xv = accel.alloc : !tile
  %gv = accel.alloc : memref<1x64xf32, #vmem>
  // expected-remark @below {{not pipelined}}
  %r = scf.for %b = %c0 to %c4 step %c1 iter_args(%start = %c0) -> (index) {
    %n = accel.load %lv[%b] : memref<8xi32, #vmem>
    %stop = arith.addi %start, %n : index
    // expected-remark @below {{not coalesced with the segments of its enclosing loop: its body reads a value computed in the enclosing loop}}
    // expected-remark @below {{strip-mined into chunks of 8 iterations}}
    scf.for %i = %start to %stop step %c1 {
      %gs = memref.subview %g[%b, 0] [1, 64] [1, 1] : memref<8x64xf32, #hbm> to memref<1x64xf32, strided<[64, 1], offset: ?>, #hbm>
      %tg = accel.dma_start %gs, %gv : memref<1x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<1x64xf32, #vmem>
      accel.dma_wait %tg
      %row = arith.muli %i, %c4 : index
      %xs = memref.subview %x[%row, 0] [4, 64] [1, 1] : memref<64x64xf32, #hbm> to !htile
      %tx = accel.dma_start %xs, %xv : !htile, !tile
      accel.dma_wait %tx
      accel.vmul %xv, %gv, %xv : !tile, memref<1x64xf32, #vmem>, !tile
      %ys = memref.subview %y[%row, 0] [4, 64] [1, 1] : memref<64x64xf32, #hbm> to !htile
      %ty = accel.dma_start %xv, %ys : !tile, !htile
      accel.dma_wait %ty
    }
    scf.yield %stop : index
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!tile = memref<4x64xf32, #vmem>
!htile = memref<4x64xf32, strided<[64, 1], offset: ?>, #hbm>

// The outer body writes memory beside the inner loop (a marker stored
// after each segment).
// CHECK-LABEL: func @writes_beside
// CHECK-NOT: accel.segments_fallback
func.func @writes_beside(%lens: memref<8xi32, #hbm>, %x: memref<64x64xf32, #hbm>,
                         %y: memref<64x64xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %lv = accel.alloc : memref<8xi32, #vmem>
  %t = accel.dma_start %lens, %lv : memref<8xi32, #hbm>, memref<8xi32, #vmem>
  accel.dma_wait %t
  %xv = accel.alloc : !tile
  %mark = accel.alloc : memref<1x64xf32, #vmem>
  // expected-remark @below {{not pipelined}}
  %r = scf.for %b = %c0 to %c4 step %c1 iter_args(%start = %c0) -> (index) {
    %n = accel.load %lv[%b] : memref<8xi32, #vmem>
    %stop = arith.addi %start, %n : index
    // expected-remark @below {{not coalesced with the segments of its enclosing loop: the enclosing loop's body writes memory beside it: a write of argument 2 by 'accel.dma_start'}}
    // expected-remark @below {{strip-mined into chunks of 8 iterations}}
    scf.for %i = %start to %stop step %c1 {
      %row = arith.muli %i, %c4 : index
      %xs = memref.subview %x[%row, 0] [4, 64] [1, 1] : memref<64x64xf32, #hbm> to !htile
      %tx = accel.dma_start %xs, %xv : !htile, !tile
      accel.dma_wait %tx
      %ys = memref.subview %y[%row, 0] [4, 64] [1, 1] : memref<64x64xf32, #hbm> to !htile
      %ty = accel.dma_start %xv, %ys : !tile, !htile
      accel.dma_wait %ty
    }
    %mrow = arith.muli %stop, %c4 : index
    %ms = memref.subview %y[%mrow, 0] [1, 64] [1, 1] : memref<64x64xf32, #hbm> to memref<1x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %tm = accel.dma_start %mark, %ms : memref<1x64xf32, #vmem>, memref<1x64xf32, strided<[64, 1], offset: ?>, #hbm>
    accel.dma_wait %tm
    scf.yield %stop : index
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!tile = memref<4x64xf32, #vmem>
!htile = memref<4x64xf32, strided<[64, 1], offset: ?>, #hbm>

// The inner loop rewrites the length table the outer body reads: a later
// segment's length would be read before the earlier segments wrote it.
// CHECK-LABEL: func @writes_table
// CHECK-NOT: accel.segments_fallback
func.func @writes_table(%lens: memref<8xi32, #hbm>, %x: memref<64x64xf32, #hbm>,
                        %y: memref<64x64xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %lv = accel.alloc : memref<8xi32, #vmem>
  %t = accel.dma_start %lens, %lv : memref<8xi32, #hbm>, memref<8xi32, #vmem>
  accel.dma_wait %t
  %xv = accel.alloc : !tile
  // expected-remark @below {{not pipelined}}
  %r = scf.for %b = %c0 to %c4 step %c1 iter_args(%start = %c0) -> (index) {
    %n = accel.load %lv[%b] : memref<8xi32, #vmem>
    %stop = arith.addi %start, %n : index
    // expected-remark @below {{not coalesced with the segments of its enclosing loop: the enclosing loop's body reads what it may write (a flow dependence on the buffer allocated at}}
    // expected-remark @below {{strip-mined into chunks of 8 iterations}}
    scf.for %i = %start to %stop step %c1 {
      %row = arith.muli %i, %c4 : index
      %xs = memref.subview %x[%row, 0] [4, 64] [1, 1] : memref<64x64xf32, #hbm> to !htile
      %tx = accel.dma_start %xs, %xv : !htile, !tile
      accel.dma_wait %tx
      %ys = memref.subview %y[%row, 0] [4, 64] [1, 1] : memref<64x64xf32, #hbm> to !htile
      %ty = accel.dma_start %xv, %ys : !tile, !htile
      accel.dma_wait %ty
      %tl = accel.dma_start %lens, %lv : memref<8xi32, #hbm>, memref<8xi32, #vmem>
      accel.dma_wait %tl
    }
    scf.yield %stop : index
  }
  return
}
