// Issue 33 kernel 4 (pingpong_acc): a decayed running sum of K-tile
// products, the recurrence of a chunked linear-attention / EMA state:
//   h_0 = 0,  h_{i+1} = 0.9 * h_i + X[:, i] W[i, :]      (i = 0 .. 15)
//   out = h_16
// The state lives in two VMEM accumulators passed to the loop as memref
// iter_args (%cur, %nxt) and swapped every iteration (`scf.yield %nxt,
// %cur`): iteration i writes h_{i+1} into %nxt from %cur, and the next
// iteration reads it as its %cur. Each iteration DMAs its X column tile and
// W row tile (both issued, then both waited on), the MXU writes X_i W_i
// into %nxt (no accumulate), and the VPU scales %cur by the decay column
// (into a scratch tile) and adds it into %nxt. The loop's first result is
// h_16, which is stored.
//
// Style: "4. pingpong_acc" (two accumulators as memref iter_args swapped
// each iteration, DMA'd input tiles feeding MXU and VPU work into them).
//
// Shapes: X 64 x 2048 f32 (16 column tiles of 64 x 128, 32 KiB), W
// 2048 x 128 f32 (16 row tiles of 128 x 128, 64 KiB), out 64 x 128; 16
// matmuls of 64 x 128 x 128 (445 cycles each). Config: the default machine.
//
// Ideal schedule: X_{i+1} and W_{i+1} load while step i computes (the loads
// do not depend on the state), so the run is the chain of 16 matmuls plus
// two short VPU ops per step; the matmul of step i+1 (into what is then
// %nxt, i.e. h_i's buffer) may start only after step i's vadd has read h_i.
//
//   accel-replay fdo bench/fdo/kernels/issue33/pingpong_acc.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!acc = memref<64x128xf32, #vmem>
!hx = memref<64x128xf32, strided<[2048, 1], offset: ?>, #hbm>
!hw = memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
func.func @main(%X: memref<64x2048xf32, #hbm>, %W: memref<2048x128xf32, #hbm>,
                %out: memref<64x128xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %acc0 = accel.alloc : !acc
  %acc1 = accel.alloc : !acc
  %scaled = accel.alloc : !acc
  %decay = accel.alloc : memref<64x1xf32, #vmem>
  %xb = accel.alloc : memref<64x128xf32, #vmem>
  %wb = accel.alloc : memref<128x128xf32, #vmem>
  accel.vfill %acc0, 0.0 : !acc
  accel.vfill %decay, 0.9 : memref<64x1xf32, #vmem>
  %res:2 = scf.for %i = %c0 to %c16 step %c1 iter_args(%cur = %acc0, %nxt = %acc1) -> (!acc, !acc) {
    %k0 = arith.muli %i, %c128 : index
    %xs = memref.subview %X[0, %k0] [64, 128] [1, 1] : memref<64x2048xf32, #hbm> to !hx
    %ws = memref.subview %W[%k0, 0] [128, 128] [1, 1] : memref<2048x128xf32, #hbm> to !hw
    %tx = accel.dma_start %xs, %xb : !hx, memref<64x128xf32, #vmem>
    %tw = accel.dma_start %ws, %wb : !hw, memref<128x128xf32, #vmem>
    accel.dma_wait %tx
    accel.dma_wait %tw
    accel.matmul %xb, %wb, %nxt : memref<64x128xf32, #vmem>, memref<128x128xf32, #vmem>, !acc
    accel.vmul %cur, %decay, %scaled : !acc, memref<64x1xf32, #vmem>, !acc
    accel.vadd %nxt, %scaled, %nxt : !acc, !acc, !acc
    scf.yield %nxt, %cur : !acc, !acc
  }
  %to = accel.dma_start %res#0, %out : !acc, memref<64x128xf32, #hbm>
  accel.dma_wait %to
  return
}
