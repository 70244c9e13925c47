// RUN: accel-opt %s -split-input-file --accel-pin-vmem='remarks=true vmem-capacity=134217728 vmem-page=1' -verify-diagnostics | FileCheck %s --check-prefix=EXACT
// RUN: accel-opt %s -split-input-file --accel-pin-vmem='solver=greedy vmem-capacity=134217728 vmem-page=1' | FileCheck %s --check-prefix=GREEDY
// RUN: accel-opt %s -split-input-file --accel-pin-vmem='solver=greedy remarks=true vmem-capacity=134217728 vmem-page=1' 2>&1 >/dev/null | FileCheck %s --check-prefix=GREEDY-REMARK
// RUN: not accel-opt %s -split-input-file --accel-pin-vmem='solver=ilp' 2>&1 | FileCheck %s --check-prefix=BAD

// The pin choice under the VMEM capacity (128 MiB here), exact (the
// default) against greedy by expected cycles saved per byte. Each pin
// candidate shares its buffer with other data (a DMA without a suggestion),
// so the shared buffer stays and every pin costs its resident buffer's
// bytes. %pad stands for the rest of the function's VMEM and sets the free
// capacity.
// The remarks expected here are the exact solver's (first RUN line). The
// sizes are exact bytes (vmem-page=1: no rounding to a VMEM page).
// BAD: error: accel-pin-vmem: solver must be 'exact' or 'greedy'; got 'ilp'

// Dynamic programming (unit: gcd(12288, 4096, 4096, 12288) = 4096 bytes).
// Allocations: 134184960 (%pad) + 12288 + 4096 + 4096 = 134205440 bytes, so
// 12288 bytes are free. Candidates (bytes, cycles saved, cycles per byte):
//   W  12288  1000  0.081
//   S1  4096   400  0.098
//   S2  4096   400  0.098
// Greedy takes S1 and S2 (800 cycles); W no longer fits (8192 + 12288 >
// 12288). Exact takes W alone (1000 cycles): W with either S needs 16384.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// EXACT-LABEL: func.func @big_beats_dense
// EXACT: %[[W:.*]] = accel.alloc {accel.pinned} : memref<8x384xf32
// EXACT-NOT: accel.pinned
// EXACT: accel.dma_start %arg0, %[[W]] {accel.pinned}
// EXACT-NEXT: accel.dma_wait
// EXACT-NEXT: scf.for
// EXACT-NEXT: accel.vexp %[[W]]
// EXACT: accel.dma_start %arg1, {{.*}}accel.suggestions
// EXACT: accel.dma_start %arg2, {{.*}}accel.suggestions
// GREEDY-LABEL: func.func @big_beats_dense
// GREEDY-NOT: memref<8x384xf32, #accel.space<vmem>> {accel.pinned}
// GREEDY: %[[S1:.*]] = accel.alloc {accel.pinned} : memref<8x128xf32
// GREEDY: %[[S2:.*]] = accel.alloc {accel.pinned} : memref<8x128xf32
// GREEDY: accel.dma_start %arg1, %[[S1]] {accel.pinned}
// GREEDY: accel.dma_start %arg2, %[[S2]] {accel.pinned}
// GREEDY: scf.for
// GREEDY-NEXT: accel.dma_start %arg0, {{.*}}accel.suggestions
// GREEDY-REMARK: remark: not pinned: its 12288 bytes do not fit the VMEM capacity of 134217728 bytes
func.func @big_beats_dense(%w: memref<8x384xf32, #hbm>, %s1: memref<8x128xf32, #hbm>, %s2: memref<8x128xf32, #hbm>, %x: memref<8x384xf32, #hbm>, %y: memref<8x128xf32, #hbm>, %cw: memref<8x384xf32, #vmem>, %cs: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = accel.alloc : memref<65520x512xf32, #vmem>
  %bw = accel.alloc : memref<8x384xf32, #vmem>
  %b1 = accel.alloc : memref<8x128xf32, #vmem>
  %b2 = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %tw = accel.dma_start %w, %bw {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1000, bytes = 12288}]} : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %tw
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    %xw = accel.dma_start %x, %bw : memref<8x384xf32, #hbm>, memref<8x384xf32, #vmem>
    accel.dma_wait %xw
    accel.vexp %bw, %cw : memref<8x384xf32, #vmem>, memref<8x384xf32, #vmem>
    // expected-remark @+1 {{not pinned: its 4096 bytes do not fit the VMEM capacity of 134217728 bytes}}
    %t1 = accel.dma_start %s1, %b1 {accel.suggestions = [{kind = "pin", expected_cycles_saved = 400, bytes = 4096}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t1
    accel.vexp %b1, %cs : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %x1 = accel.dma_start %y, %b1 : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %x1
    accel.vexp %b1, %cs : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    // expected-remark @+1 {{not pinned: its 4096 bytes do not fit the VMEM capacity of 134217728 bytes}}
    %t2 = accel.dma_start %s2, %b2 {accel.suggestions = [{kind = "pin", expected_cycles_saved = 400, bytes = 4096}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t2
    accel.vexp %b2, %cs : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %x2 = accel.dma_start %y, %b2 : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %x2
    accel.vexp %b2, %cs : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// -----

// Branch-and-bound: the sizes' GCD is 4 bytes, so the table would be
// 8390658 units wide (over the 8 Mi row limit). Allocations: 50315264
// (%pad) + 16777212 + 33562624 = 100655100 bytes; 33562628 are free.
//   S  2049x2047 f32  16777212 bytes   600 cycles  3.58e-5 per byte
//   W  4097x2048 f32  33562624 bytes  1000 cycles  2.98e-5 per byte
// Greedy takes S (600); W no longer fits. Exact takes W (1000).
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// EXACT-LABEL: func.func @branch_and_bound
// EXACT: %[[W:.*]] = accel.alloc {accel.pinned} : memref<4097x2048xf32
// EXACT-NOT: accel.pinned
// EXACT: accel.dma_start %arg1, %[[W]] {accel.pinned}
// EXACT-NEXT: accel.dma_wait
// EXACT-NEXT: scf.for
// EXACT-NEXT: accel.dma_start %arg0, {{.*}}accel.suggestions
// GREEDY-LABEL: func.func @branch_and_bound
// GREEDY: %[[S:.*]] = accel.alloc {accel.pinned} : memref<2049x2047xf32
// GREEDY-NOT: accel.pinned
// GREEDY: accel.dma_start %arg0, %[[S]] {accel.pinned}
// GREEDY-NEXT: accel.dma_wait
// GREEDY-NEXT: scf.for
// GREEDY-NOT: accel.pinned
// GREEDY: accel.dma_start %arg1, {{.*}}accel.suggestions
// GREEDY-REMARK: remark: not pinned: its 33562624 bytes do not fit the VMEM capacity of 134217728 bytes
func.func @branch_and_bound(%s: memref<2049x2047xf32, #hbm>, %w: memref<4097x2048xf32, #hbm>, %y: memref<2049x2047xf32, #hbm>, %x: memref<4097x2048xf32, #hbm>, %cs: memref<2049x1xf32, #vmem>, %cw: memref<4097x1xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = accel.alloc : memref<256x49136xf32, #vmem>
  %bs = accel.alloc : memref<2049x2047xf32, #vmem>
  %bw = accel.alloc : memref<4097x2048xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{not pinned: its 16777212 bytes do not fit the VMEM capacity of 134217728 bytes}}
    %ts = accel.dma_start %s, %bs {accel.suggestions = [{kind = "pin", expected_cycles_saved = 600, bytes = 16777212}]} : memref<2049x2047xf32, #hbm>, memref<2049x2047xf32, #vmem>
    accel.dma_wait %ts
    accel.vreduce_sum %bs, %cs : memref<2049x2047xf32, #vmem>, memref<2049x1xf32, #vmem>
    %xs = accel.dma_start %y, %bs : memref<2049x2047xf32, #hbm>, memref<2049x2047xf32, #vmem>
    accel.dma_wait %xs
    accel.vreduce_sum %bs, %cs : memref<2049x2047xf32, #vmem>, memref<2049x1xf32, #vmem>
    %tw = accel.dma_start %w, %bw {accel.suggestions = [{kind = "pin", expected_cycles_saved = 1000, bytes = 33562624}]} : memref<4097x2048xf32, #hbm>, memref<4097x2048xf32, #vmem>
    accel.dma_wait %tw
    accel.vreduce_sum %bw, %cw : memref<4097x2048xf32, #vmem>, memref<4097x1xf32, #vmem>
    %xw = accel.dma_start %x, %bw : memref<4097x2048xf32, #hbm>, memref<4097x2048xf32, #vmem>
    accel.dma_wait %xw
    accel.vreduce_sum %bw, %cw : memref<4097x2048xf32, #vmem>, memref<4097x1xf32, #vmem>
  }
  return
}

// -----

// A tie: two candidates of the same size and saving, room for one
// (134205440 bytes allocated, 4096 free). Both solvers take the first in
// op order.
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>

// EXACT-LABEL: func.func @tie
// EXACT: %[[P:.*]] = accel.alloc {accel.pinned} : memref<8x128xf32
// EXACT-NOT: accel.pinned
// EXACT: accel.dma_start %arg0, %[[P]] {accel.pinned}
// EXACT-NEXT: accel.dma_wait
// EXACT-NEXT: scf.for
// EXACT-NOT: accel.pinned
// EXACT: accel.dma_start %arg1, {{.*}}accel.suggestions
// GREEDY-LABEL: func.func @tie
// GREEDY: %[[P:.*]] = accel.alloc {accel.pinned} : memref<8x128xf32
// GREEDY-NOT: accel.pinned
// GREEDY: accel.dma_start %arg0, %[[P]] {accel.pinned}
// GREEDY-NEXT: accel.dma_wait
// GREEDY-NEXT: scf.for
// GREEDY-NOT: accel.pinned
// GREEDY: accel.dma_start %arg1, {{.*}}accel.suggestions
// GREEDY-REMARK: remark: not pinned: its 4096 bytes do not fit the VMEM capacity of 134217728 bytes
func.func @tie(%s1: memref<8x128xf32, #hbm>, %s2: memref<8x128xf32, #hbm>, %y: memref<8x128xf32, #hbm>, %cs: memref<8x128xf32, #vmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = accel.alloc : memref<65530x512xf32, #vmem>
  %b1 = accel.alloc : memref<8x128xf32, #vmem>
  %b2 = accel.alloc : memref<8x128xf32, #vmem>
  scf.for %i = %c0 to %c4 step %c1 {
    %t1 = accel.dma_start %s1, %b1 {accel.suggestions = [{kind = "pin", expected_cycles_saved = 500, bytes = 4096}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t1
    accel.vexp %b1, %cs : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %x1 = accel.dma_start %y, %b1 : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %x1
    accel.vexp %b1, %cs : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    // expected-remark @+1 {{not pinned: its 4096 bytes do not fit the VMEM capacity of 134217728 bytes}}
    %t2 = accel.dma_start %s2, %b2 {accel.suggestions = [{kind = "pin", expected_cycles_saved = 500, bytes = 4096}]} : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %t2
    accel.vexp %b2, %cs : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %x2 = accel.dma_start %y, %b2 : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
    accel.dma_wait %x2
    accel.vexp %b2, %cs : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}
