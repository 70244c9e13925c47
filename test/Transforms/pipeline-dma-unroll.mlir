// RUN: accel-opt %s -split-input-file --accel-pipeline-dma='all=true compute-distance=0 async-copies=false' | FileCheck %s
// RUN: accel-opt %s -split-input-file --accel-pipeline-dma='all=true compute-distance=0 async-copies=false unroll-rotation=false' | FileCheck %s --check-prefix=ROT
// RUN: accel-opt %s -split-input-file --accel-pipeline-dma='all=true compute-distance=0 async-copies=false distance=2' | FileCheck %s --check-prefix=PERIOD
// RUN: accel-opt %s -split-input-file --accel-pipeline-dma='all=true compute-distance=0 async-copies=false distance=2 unroll-rotation=false' | FileCheck %s --check-prefix=PROT
// Modulo variable expansion: the kernel is unrolled by its rotation's
// period, so the copies are named directly and no iter_arg rotates them.

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// Double buffering over 8 tiles: the kernel runs tiles 0..6 (7 trips); by
// 2, the main loop runs 3 times (iterations 0..5), each body issuing into
// %B2 then %B and multiplying from %B then %B2; the remainder iteration 6
// is inlined after it (one trip), then the epilogue.
// CHECK-LABEL: func.func @double_buffer
// CHECK: %[[B:.*]] = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
// CHECK-NEXT: %[[B2:.*]] = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
// CHECK: %[[T0:.*]] = accel.dma_start %{{.*}}, %[[B]] {accel.pipelined = 0 : i64}
// CHECK: %[[C6:.*]] = arith.constant 6 : index
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[L:.*]] = scf.for %{{.*}} = %{{.*}} to %[[C6]] step %[[C2]] iter_args(%[[T:.*]] = %[[T0]]) -> (!accel.token) {
// CHECK: %[[N1:.*]] = accel.dma_start %{{.*}}, %[[B2]] :
// CHECK-NEXT: accel.dma_wait %[[T]]
// CHECK-NEXT: accel.matmul %{{.*}}, %[[B]], %{{.*}}
// CHECK: %[[N2:.*]] = accel.dma_start %{{.*}}, %[[B]] :
// CHECK-NEXT: accel.dma_wait %[[N1]]
// CHECK-NEXT: accel.matmul %{{.*}}, %[[B2]], %{{.*}}
// CHECK-NEXT: scf.yield %[[N2]] : !accel.token
// The remainder (iteration 6) and the epilogue (tile 7).
// CHECK: %[[R:.*]] = accel.dma_start %{{.*}}, %[[B2]] :
// CHECK-NEXT: accel.dma_wait %[[L]]
// CHECK-NEXT: accel.matmul %{{.*}}, %[[B]], %{{.*}}
// CHECK-NEXT: accel.dma_wait %[[R]]
// CHECK-NEXT: accel.matmul %{{.*}}, %[[B2]], %{{.*}}
// CHECK-NEXT: return
// Without the expansion the kernel rotates the two copies.
// ROT-LABEL: func.func @double_buffer
// ROT: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[X:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}) -> (!accel.token, memref
// ROT: scf.yield %{{.*}}, %[[Y]], %[[X]]
func.func @double_buffer(%w: memref<1024x128xf32, #hbm>, %a: memref<8x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %b = accel.alloc : memref<128x128xf32, #vmem>
  scf.for %k = %c0 to %c8 step %c1 {
    %r = arith.muli %k, %c128 : index
    %s = memref.subview %w[%r, 0] [128, 128] [1, 1] : memref<1024x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %b : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// At distance 2, the input tile needs 3 copies (waited two stages after
// its ISSUE) and the output tile 2 (stored one stage later): both get 3
// when VMEM has room, one period, one unroll factor (not 6). 12 tiles: the
// kernel runs 9 trips, 3 unrolled bodies of 3, no remainder; each body
// computes from copies 1, 2, 0 in turn, and the kernel's only iter_args
// are the three tokens in flight.
// PERIOD-LABEL: func.func @one_period
// PERIOD: %[[X0:.*]] = accel.alloc
// PERIOD-NEXT: %[[X1:.*]] = accel.alloc
// PERIOD-NEXT: %[[X2:.*]] = accel.alloc
// PERIOD-NEXT: %[[O0:.*]] = accel.alloc
// PERIOD-NEXT: %[[O1:.*]] = accel.alloc
// PERIOD-NEXT: %[[O2:.*]] = accel.alloc
// PERIOD-NOT: accel.alloc
// PERIOD: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{[^)]*}}) -> (!accel.token, !accel.token, !accel.token) {
// PERIOD: accel.vexp %[[X1]], %[[O1]]
// PERIOD: accel.vexp %[[X2]], %[[O2]]
// PERIOD: accel.vexp %[[X0]], %[[O0]]
// PERIOD-NOT: accel.vexp
// PERIOD: scf.yield
// Unequal counts without the expansion: 3 + 2 allocations.
// PROT-LABEL: func.func @one_period
// PROT-COUNT-5: accel.alloc
// PROT-NOT: accel.alloc
func.func @one_period(%x: memref<96x128xf32, #hbm>, %out: memref<96x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %c8 = arith.constant 8 : index
  %xv = accel.alloc : memref<8x128xf32, #vmem>
  %ov = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %k = %c0 to %c12 step %c1 {
    %r = arith.muli %k, %c8 : index
    %s = memref.subview %x[%r, 0] [8, 128] [1, 1] : memref<96x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %xv : memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t
    accel.vexp %xv, %ov : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %d = memref.subview %out[%r, 0] [8, 128] [1, 1] : memref<96x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %u = accel.dma_start %ov, %d : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    accel.dma_wait %u
  }
  return
}
