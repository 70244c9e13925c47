// Three DMAs showing the three scenarios of SnR Fig. 4 on the default
// config (hbm->vmem link: base latency T_b = 500 cycles, 1024 bytes/cycle;
// each DMA moves 256x256 f32 = 262144 bytes, a 256-cycle transfer):
//   %ta: WAIT right after ISSUE, before T_b ends: base + transfer stall.
//   %tb: WAIT after T_b, during the transfer: transfer stall only.
//   %tc: WAIT after completion: no stall, slack.
// Empty scf.for loops (3 cycles per iteration) separate ISSUE from WAIT.
// test/Profile/dma-scenarios.test checks the numbers by hand.

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

func.func @main(%a: memref<256x256xf32, #hbm>, %b: memref<256x256xf32, #hbm>,
                %c: memref<256x256xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c200 = arith.constant 200 : index
  %c300 = arith.constant 300 : index
  %va = accel.alloc : memref<256x256xf32, #vmem>
  %vb = accel.alloc : memref<256x256xf32, #vmem>
  %vc = accel.alloc : memref<256x256xf32, #vmem>

  // Scenario 1: stalls on base latency, then on transfer latency.
  %ta = accel.dma_start %a, %va : memref<256x256xf32, #hbm>, memref<256x256xf32, #vmem>
  accel.dma_wait %ta

  // Scenario 2: 200 loop iterations pass T_b, not the transfer.
  %tb = accel.dma_start %b, %vb : memref<256x256xf32, #hbm>, memref<256x256xf32, #vmem>
  scf.for %i = %c0 to %c200 step %c1 {
  }
  accel.dma_wait %tb

  // Scenario 3: 300 loop iterations outlast the whole DMA.
  %tc = accel.dma_start %c, %vc : memref<256x256xf32, #hbm>, memref<256x256xf32, #vmem>
  scf.for %i = %c0 to %c300 step %c1 {
  }
  accel.dma_wait %tc
  return
}
