// The prefetch case of SnR §5.3.1 (Fig. 7): a chain of MXU matmuls
// whose weight DMAs are issued just before each use, so the MXU idles on
// every DMA's base latency and transfer. accel-hoist-dma moves each ISSUE
// to the top (the weights are read-only and every weight has its own VMEM
// buffer), so the base latencies overlap and the transfers stream behind
// the matmuls.
//
//   accel-replay fdo examples/prefetch.mlir -o out
//
// Shapes: 8 decode tokens x 128 features; 16 weights of 128x128 f32 (64 KiB).

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

func.func @main(%x: memref<8x128xf32, #hbm>,
                 %w0: memref<128x128xf32, #hbm>,
                 %w1: memref<128x128xf32, #hbm>,
                 %w2: memref<128x128xf32, #hbm>,
                 %w3: memref<128x128xf32, #hbm>,
                 %w4: memref<128x128xf32, #hbm>,
                 %w5: memref<128x128xf32, #hbm>,
                 %w6: memref<128x128xf32, #hbm>,
                 %w7: memref<128x128xf32, #hbm>,
                 %w8: memref<128x128xf32, #hbm>,
                 %w9: memref<128x128xf32, #hbm>,
                 %w10: memref<128x128xf32, #hbm>,
                 %w11: memref<128x128xf32, #hbm>,
                 %w12: memref<128x128xf32, #hbm>,
                 %w13: memref<128x128xf32, #hbm>,
                 %w14: memref<128x128xf32, #hbm>,
                 %w15: memref<128x128xf32, #hbm>,
                 %out: memref<8x128xf32, #hbm> {accel.init = "zero"}) {
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<8x128xf32, #vmem>
  %wb0 = accel.alloc : memref<128x128xf32, #vmem>
  %wb1 = accel.alloc : memref<128x128xf32, #vmem>
  %wb2 = accel.alloc : memref<128x128xf32, #vmem>
  %wb3 = accel.alloc : memref<128x128xf32, #vmem>
  %wb4 = accel.alloc : memref<128x128xf32, #vmem>
  %wb5 = accel.alloc : memref<128x128xf32, #vmem>
  %wb6 = accel.alloc : memref<128x128xf32, #vmem>
  %wb7 = accel.alloc : memref<128x128xf32, #vmem>
  %wb8 = accel.alloc : memref<128x128xf32, #vmem>
  %wb9 = accel.alloc : memref<128x128xf32, #vmem>
  %wb10 = accel.alloc : memref<128x128xf32, #vmem>
  %wb11 = accel.alloc : memref<128x128xf32, #vmem>
  %wb12 = accel.alloc : memref<128x128xf32, #vmem>
  %wb13 = accel.alloc : memref<128x128xf32, #vmem>
  %wb14 = accel.alloc : memref<128x128xf32, #vmem>
  %wb15 = accel.alloc : memref<128x128xf32, #vmem>
  %tx = accel.dma_start %x, %a : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tx
  %t0 = accel.dma_start %w0, %wb0 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t0
  accel.matmul %a, %wb0, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t1 = accel.dma_start %w1, %wb1 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t1
  accel.matmul %b, %wb1, %a : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t2 = accel.dma_start %w2, %wb2 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t2
  accel.matmul %a, %wb2, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t3 = accel.dma_start %w3, %wb3 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t3
  accel.matmul %b, %wb3, %a : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t4 = accel.dma_start %w4, %wb4 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t4
  accel.matmul %a, %wb4, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t5 = accel.dma_start %w5, %wb5 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t5
  accel.matmul %b, %wb5, %a : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t6 = accel.dma_start %w6, %wb6 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t6
  accel.matmul %a, %wb6, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t7 = accel.dma_start %w7, %wb7 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t7
  accel.matmul %b, %wb7, %a : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t8 = accel.dma_start %w8, %wb8 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t8
  accel.matmul %a, %wb8, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t9 = accel.dma_start %w9, %wb9 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t9
  accel.matmul %b, %wb9, %a : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t10 = accel.dma_start %w10, %wb10 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t10
  accel.matmul %a, %wb10, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t11 = accel.dma_start %w11, %wb11 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t11
  accel.matmul %b, %wb11, %a : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t12 = accel.dma_start %w12, %wb12 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t12
  accel.matmul %a, %wb12, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t13 = accel.dma_start %w13, %wb13 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t13
  accel.matmul %b, %wb13, %a : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t14 = accel.dma_start %w14, %wb14 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t14
  accel.matmul %a, %wb14, %b : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %t15 = accel.dma_start %w15, %wb15 : memref<128x128xf32, #hbm>, memref<128x128xf32, #vmem>
  accel.dma_wait %t15
  accel.matmul %b, %wb15, %a : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  %to = accel.dma_start %a, %out : memref<8x128xf32, #vmem>, memref<8x128xf32, #hbm>
  accel.dma_wait %to
  return
}
