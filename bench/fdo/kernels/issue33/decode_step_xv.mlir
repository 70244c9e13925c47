// Issue 33 kernel 1 (decode_step_xv): a decode-style recurrent step loop,
// xv <- tanh(xv W), run for 6 steps. The state xv (8 x 512) lives in one
// VMEM buffer for the whole kernel. In each step a nested loop over the four
// 128-column output tiles n and the four 128-row K tiles k streams W's tile
// (k, n) from HBM by DMA (issued right before its WAIT, right before its
// matmul) and accumulates xv[:, k] W[k, n] into the step's result y[:, n],
// reading xv through a view taken inside the k loop. Only at the END of the
// step, after the nested loops, does the VPU write the next state:
// vtanh y -> y, then `accel.vcopy y, xv`. The next step's matmuls read that
// new xv, so nothing of step s+1 that reads xv may move above the copy.
//
// Style: "1. decode_step_xv" (carried state read by a nested loop, written
// by a vcopy at the end of the step; weights streamed per tile).
//
// Shapes: x, out 8 x 512 f32; W 512 x 512 f32 (16 tiles of 128 x 128,
// 64 KiB each); 6 steps x 16 tiles = 96 weight DMAs and 96 matmuls of
// 8 x 128 x 128. Config: the default machine (no --config).
//
// Ideal schedule: W is the same 1 MiB on every step, so all 16 tiles can be
// pinned in VMEM (loaded once, their base latencies overlapped), and the
// 96 matmuls then run back to back on the MXU; at the least, tile (k+1)'s
// DMA should be in flight during tile k's matmul. The vtanh/vcopy at the end
// of a step must stay ordered before the next step's first matmul.
//
//   accel-replay fdo bench/fdo/kernels/issue33/decode_step_xv.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!wt = memref<128x128xf32, strided<[512, 1], offset: ?>, #hbm>
!xs = memref<8x128xf32, strided<[512, 1], offset: ?>, #vmem>
func.func @main(%x: memref<8x512xf32, #hbm>, %W: memref<512x512xf32, #hbm>,
                %out: memref<8x512xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c128 = arith.constant 128 : index
  %xv = accel.alloc : memref<8x512xf32, #vmem>
  %y = accel.alloc : memref<8x512xf32, #vmem>
  %wb = accel.alloc : memref<128x128xf32, #vmem>
  %tx = accel.dma_start %x, %xv : memref<8x512xf32, #hbm>, memref<8x512xf32, #vmem>
  accel.dma_wait %tx
  scf.for %step = %c0 to %c6 step %c1 {
    scf.for %n = %c0 to %c4 step %c1 {
      %n0 = arith.muli %n, %c128 : index
      %yn = memref.subview %y[0, %n0] [8, 128] [1, 1] : memref<8x512xf32, #vmem> to !xs
      accel.vfill %yn, 0.0 : !xs
      scf.for %k = %c0 to %c4 step %c1 {
        %k0 = arith.muli %k, %c128 : index
        %ws = memref.subview %W[%k0, %n0] [128, 128] [1, 1] : memref<512x512xf32, #hbm> to !wt
        %tw = accel.dma_start %ws, %wb : !wt, memref<128x128xf32, #vmem>
        accel.dma_wait %tw
        %xk = memref.subview %xv[0, %k0] [8, 128] [1, 1] : memref<8x512xf32, #vmem> to !xs
        accel.matmul %xk, %wb, %yn {accumulate} : !xs, memref<128x128xf32, #vmem>, !xs
      }
    }
    // End of the step: the next state is tanh of this step's result.
    accel.vtanh %y, %y : memref<8x512xf32, #vmem>, memref<8x512xf32, #vmem>
    accel.vcopy %y, %xv : memref<8x512xf32, #vmem>, memref<8x512xf32, #vmem>
  }
  %to = accel.dma_start %xv, %out : memref<8x512xf32, #vmem>, memref<8x512xf32, #hbm>
  accel.dma_wait %to
  return
}
