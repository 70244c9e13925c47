// Issue 33, resolving set, kernel E (online_softmax_attn): attention with
// an ONLINE softmax (the flash-attention recurrence): for each of 2 query
// blocks Q_i (64 x 64) the key loop over 4 blocks keeps a running row max
// m, a running row sum l and an unnormalized output O in VMEM:
//   S = Q_i K_j^T                      (MXU; K stored transposed)
//   m' = max(m, rowmax(S))             (VPU: vreduce_max, vmax)
//   a  = exp(m - m'); P = exp(S - m')  (VPU)
//   l  = a l + rowsum(P);  O = a O + P V_j   (VPU scale, MXU accumulate)
//   m  = m'
// and O / l is stored after the key loop. The state (m, l, O) is carried
// through VMEM from one key block to the next: a true recurrence, with the
// rescaling of O by a (VPU) between two matmuls into it.
//
// Style: a flash-attention-like running max and rescale, the recurrence
// through VMEM buffers (no iter_args), MXU and VPU alternating with a
// loop-carried dependence through both; f32.
//
// Shapes: Q, V, out 128 x 64 f32; Kt 64 x 256 f32; blocks of 64; 2 x 4
// (i, j) steps, each 2 matmuls of 64 x 64 x 64 and 10 VPU ops of up to
// 64 x 64. Config: the default machine.
//
//   accel-replay fdo bench/fdo/kernels/issue33b/online_softmax_attn.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!t = memref<64x64xf32, #vmem>
!col = memref<64x1xf32, #vmem>
!hrow = memref<64x64xf32, strided<[64, 1], offset: ?>, #hbm>
!hcol = memref<64x64xf32, strided<[256, 1], offset: ?>, #hbm>
func.func @main(%Q: memref<128x64xf32, #hbm>, %Kt: memref<64x256xf32, #hbm>,
                %V: memref<256x64xf32, #hbm>,
                %out: memref<128x64xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %q = accel.alloc : !t
  %k = accel.alloc : !t
  %v = accel.alloc : !t
  %s = accel.alloc : !t
  %o = accel.alloc : !t
  %m = accel.alloc : !col
  %mn = accel.alloc : !col
  %a = accel.alloc : !col
  %l = accel.alloc : !col
  %rs = accel.alloc : !col
  %scale = accel.alloc : !col
  accel.vfill %scale, 0.125 : !col
  scf.for %i = %c0 to %c2 step %c1 {
    %i0 = arith.muli %i, %c64 : index
    %qs = memref.subview %Q[%i0, 0] [64, 64] [1, 1] : memref<128x64xf32, #hbm> to !hrow
    %tq = accel.dma_start %qs, %q : !hrow, !t
    accel.dma_wait %tq
    accel.vfill %m, -1.0e30 : !col
    accel.vfill %l, 0.0 : !col
    accel.vfill %o, 0.0 : !t
    scf.for %j = %c0 to %c4 step %c1 {
      %j0 = arith.muli %j, %c64 : index
      %ks = memref.subview %Kt[0, %j0] [64, 64] [1, 1] : memref<64x256xf32, #hbm> to !hcol
      %tk = accel.dma_start %ks, %k : !hcol, !t
      accel.dma_wait %tk
      accel.matmul %q, %k, %s : !t, !t, !t
      accel.vmul %s, %scale, %s : !t, !col, !t
      accel.vreduce_max %s, %mn : !t, !col
      accel.vmax %mn, %m, %mn : !col, !col, !col
      accel.vsub %m, %mn, %a : !col, !col, !col
      accel.vexp %a, %a : !col, !col
      accel.vsub %s, %mn, %s : !t, !col, !t
      accel.vexp %s, %s : !t, !t
      accel.vreduce_sum %s, %rs : !t, !col
      accel.vmul %l, %a, %l : !col, !col, !col
      accel.vadd %l, %rs, %l : !col, !col, !col
      accel.vmul %o, %a, %o : !t, !col, !t
      %vs = memref.subview %V[%j0, 0] [64, 64] [1, 1] : memref<256x64xf32, #hbm> to !hrow
      %tv = accel.dma_start %vs, %v : !hrow, !t
      accel.dma_wait %tv
      accel.matmul %s, %v, %o {accumulate} : !t, !t, !t
      accel.vcopy %mn, %m : !col, !col
    }
    accel.vdiv %o, %l, %o : !t, !col, !t
    %os = memref.subview %out[%i0, 0] [64, 64] [1, 1] : memref<128x64xf32, #hbm> to !hrow
    %to = accel.dma_start %o, %os : !t, !hrow
    accel.dma_wait %to
  }
  return
}
