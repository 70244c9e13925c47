// Three DMAs whose source changes only with their own loop's induction
// variable, inside loops that read the same bytes again (issue 33, item 5):
//  (a) a bias tile per column tile j, reloaded for every row block s;
//  (b) weight tile k of a K loop inside two step loops (p, s): the same
//      three tiles in every iteration of both;
//  (c) 18 one-row tiles of a table summed in every step: more tiles than
//      a straight-line fill loads, so the fill is a loop.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<32x512xf32, #hbm>, %bias: memref<8x512xf32, #hbm>,
                %w: memref<384x128xf32, #hbm>, %tab: memref<18x128xf32, #hbm>,
                %out: memref<32x512xf32, #hbm> {accel.init = "zero"},
                %out2: memref<8x128xf32, #hbm> {accel.init = "zero"},
                %out3: memref<1x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c18 = arith.constant 18 : index
  %c128 = arith.constant 128 : index
  %xb = accel.alloc : memref<8x128xf32, #vmem>
  %bb = accel.alloc : memref<8x128xf32, #vmem>
  %ob = accel.alloc : memref<8x128xf32, #vmem>
  // (a)
  scf.for %s = %c0 to %c4 step %c1 {
    %r = arith.muli %s, %c8 : index
    scf.for %j = %c0 to %c4 step %c1 {
      %col = arith.muli %j, %c128 : index
      %xs = memref.subview %x[%r, %col] [8, 128] [1, 1] : memref<32x512xf32, #hbm> to memref<8x128xf32, strided<[512, 1], offset: ?>, #hbm>
      %bs = memref.subview %bias[0, %col] [8, 128] [1, 1] : memref<8x512xf32, #hbm> to memref<8x128xf32, strided<[512, 1], offset: ?>, #hbm>
      %os = memref.subview %out[%r, %col] [8, 128] [1, 1] : memref<32x512xf32, #hbm> to memref<8x128xf32, strided<[512, 1], offset: ?>, #hbm>
      %t1 = accel.dma_start %xs, %xb : memref<8x128xf32, strided<[512, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
      %t2 = accel.dma_start %bs, %bb : memref<8x128xf32, strided<[512, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
      accel.dma_wait %t1
      accel.dma_wait %t2
      accel.vadd %xb, %bb, %ob : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
      %t3 = accel.dma_start %ob, %os : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[512, 1], offset: ?>, #hbm>
      accel.dma_wait %t3
    }
  }
  // (b)
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %acc = accel.alloc : memref<8x128xf32, #vmem>
  %wb = accel.alloc : memref<128x128xf32, #vmem>
  %x0 = memref.subview %x[0, 0] [8, 128] [1, 1] : memref<32x512xf32, #hbm> to memref<8x128xf32, strided<[512, 1]>, #hbm>
  %ta = accel.dma_start %x0, %a : memref<8x128xf32, strided<[512, 1]>, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %ta
  scf.for %p = %c0 to %c2 step %c1 {
    scf.for %s = %c0 to %c2 step %c1 {
      accel.vfill %acc, 0.0 : memref<8x128xf32, #vmem>
      scf.for %k = %c0 to %c3 step %c1 {
        %row = arith.muli %k, %c128 : index
        %wk = memref.subview %w[%row, 0] [128, 128] [1, 1] : memref<384x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
        %t = accel.dma_start %wk, %wb : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
        accel.dma_wait %t
        accel.matmul %a, %wb, %acc {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
      }
      accel.vtanh %acc, %a : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    }
  }
  %tb = accel.dma_start %a, %out2 : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %tb
  // (c)
  %sum = accel.alloc : memref<1x128xf32, #vmem>
  %rowb = accel.alloc : memref<1x128xf32, #vmem>
  accel.vfill %sum, 0.0 : memref<1x128xf32, #vmem>
  scf.for %s = %c0 to %c2 step %c1 {
    scf.for %i = %c0 to %c18 step %c1 {
      %ri = memref.subview %tab[%i, 0] [1, 128] [1, 1] : memref<18x128xf32, #hbm> to memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>
      %tr = accel.dma_start %ri, %rowb : memref<1x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<1x128xf32, #vmem>
      accel.dma_wait %tr
      accel.vadd %sum, %rowb, %sum : memref<1x128xf32, #vmem>, memref<1x128xf32, #vmem>, memref<1x128xf32, #vmem>
    }
  }
  %tc = accel.dma_start %sum, %out3 : memref<1x128xf32, #vmem>, memref<1x128xf32, #hbm>
  accel.dma_wait %tc
  return
}
