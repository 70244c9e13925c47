// RUN: accel-opt %s -split-input-file --accel-lower-collectives='remarks=true' -verify-diagnostics | FileCheck %s

#vmem = #accel.space<vmem>

// A ring all-gather on 4 chips: the chip's own block copied into its rows
// of %b, then 3 steps, each a DMA of block (me - s) mod 4 to the next chip
// with a fresh semaphore (255: nothing else uses it), a wait for one
// signal, and the DMA's WAIT.
// CHECK-LABEL: func.func @ring
// CHECK: %[[ME:.*]] = accel.chip_id
// CHECK: %[[OFF:.*]] = arith.muli %[[ME]], %c8
// CHECK: %[[MINE:.*]] = memref.subview %arg1[%[[OFF]], 0] [8, 128] [1, 1]
// CHECK: %[[C:.*]] = accel.dma_start %arg0, %[[MINE]] :
// CHECK-NEXT: accel.dma_wait %[[C]]
// CHECK-COUNT-3: accel.dma_start {{.*}} dst_chip {{.*}} signal 255
// CHECK-NOT: accel.dma_start
// CHECK: accel.sem_wait 255
// CHECK-NOT: accel.all_gather
// CHECK: return
module attributes {accel.chips = 4 : i64} {
func.func @ring(%a: memref<8x128xf32, #vmem>, %b: memref<32x128xf32, #vmem>) {
  // expected-remark @below {{all_gather of 4096-byte blocks over 4 chips (ring): ring, 1458 cycles estimated, the op's algorithm attribute (alpha-beta: direct 956, bidirectional_ring 1329, ring 1458, recursive_doubling 1528)}}
  accel.all_gather %a, %b {algorithm = "ring"} : memref<8x128xf32, #vmem>, memref<32x128xf32, #vmem>
  return
}
}

// -----

#vmem = #accel.space<vmem>

// Without an algorithm, the cheapest estimate. A ring of 4 chips, 4 KiB
// blocks, the pass's defaults (T_b 100, 300 cycles a hop, 48 B/cycle).
// Direct is one step: chip 0's messages to +1 (one up link) and +2 (two up
// links: the tie goes up) load the up direction with 3 blocks, +3 goes
// down; 100 + 2 hops x 300 + ceil(3 x 4096 / 48) = 956. Ring: 3 steps of
// 100 + 300 + ceil(4096 / 48) = 486: 1458. The semaphores the function
// uses itself (254, its own sem_wait) are skipped: the collective takes
// 255.
// CHECK-LABEL: func.func @cheapest
// CHECK: signal 255
// CHECK: accel.sem_wait 255
module attributes {accel.chips = 4 : i64} {
func.func @cheapest(%a: memref<8x128xf32, #vmem>, %b: memref<32x128xf32, #vmem>, %n: index) {
  // expected-remark @below {{all_gather of 4096-byte blocks over 4 chips (ring): direct, 956 cycles estimated, the cheapest estimate}}
  accel.all_gather %a, %b : memref<8x128xf32, #vmem>, memref<32x128xf32, #vmem>
  accel.sem_wait 254, %n
  return
}
}

// -----

#vmem = #accel.space<vmem>

// A reduce-scatter on a ring of 3 (ring: 2 steps, each an add on the VPU;
// the last one into %out).
// CHECK-LABEL: func.func @reduce_scatter
// CHECK: %[[RECV:.*]] = accel.alloc : memref<16x128xf32, #accel.space<vmem>>
// CHECK: %[[PART:.*]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK: %[[SLOT0:.*]] = memref.subview %[[RECV]][0, 0] [8, 128]
// CHECK: accel.dma_start %{{.*}}, %[[SLOT0]] dst_chip %{{.*}} signal 255
// CHECK: accel.sem_wait 255
// CHECK: %[[P0:.*]] = memref.subview %[[PART]][0, 0] [8, 128]
// CHECK: %[[GOT0:.*]] = memref.subview %[[RECV]][0, 0] [8, 128]
// CHECK: accel.vadd %[[GOT0]], %{{.*}}, %[[P0]]
// CHECK: %[[SLOT1:.*]] = memref.subview %[[RECV]][8, 0] [8, 128]
// CHECK: accel.dma_start %{{.*}}, %[[SLOT1]] dst_chip %{{.*}} signal 255
// CHECK: accel.sem_wait 255
// CHECK: %[[GOT1:.*]] = memref.subview %[[RECV]][8, 0] [8, 128]
// CHECK: accel.vadd %[[GOT1]], %{{.*}}, %arg1
module attributes {accel.chips = 3 : i64} {
func.func @reduce_scatter(%in: memref<24x128xf32, #vmem>, %out: memref<8x128xf32, #vmem>) {
  // expected-remark @below {{reduce_scatter of 4096-byte blocks over 3 chips (ring): ring}}
  accel.reduce_scatter %in, %out {algorithm = "ring"} : memref<24x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}
}

// -----

#vmem = #accel.space<vmem>

// send / recv: the tag is the semaphore.
// CHECK-LABEL: func.func @send_recv
// CHECK: %[[T:.*]] = accel.dma_start %arg0, %arg1 dst_chip %arg2 signal 7
// CHECK-NEXT: accel.dma_wait %[[T]]
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: accel.sem_wait 7, %[[ONE]]
module attributes {accel.chips = 2 : i64} {
func.func @send_recv(%a: memref<8x128xf32, #vmem>, %b: memref<8x128xf32, #vmem>, %peer: index) {
  accel.send %a, %b to %peer tag 7 : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  accel.recv %b tag 7 : memref<8x128xf32, #vmem>
  return
}
}

// -----

#vmem = #accel.space<vmem>

// One chip: a copy, no remark.
// CHECK-LABEL: func.func @one_chip
// CHECK: %[[T:.*]] = accel.dma_start %arg0, %arg1 :
// CHECK-NEXT: accel.dma_wait %[[T]]
// CHECK-NEXT: return
func.func @one_chip(%a: memref<8x128xf32, #vmem>, %b: memref<8x128xf32, #vmem>) {
  accel.all_reduce %a, %b : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}

// -----

#vmem = #accel.space<vmem>

module attributes {accel.chips = 6 : i64} {
func.func @not_a_power_of_two(%a: memref<8x128xf32, #vmem>, %b: memref<48x128xf32, #vmem>) {
  // expected-error @below {{algorithm 'recursive_doubling' does not apply to all_gather on 6 chips (ring): it applies to direct, bidirectional_ring, ring}}
  accel.all_gather %a, %b {algorithm = "recursive_doubling"} : memref<8x128xf32, #vmem>, memref<48x128xf32, #vmem>
  return
}
}

// -----

#vmem = #accel.space<vmem>

module attributes {accel.chips = 4 : i64} {
func.func @wrong_rows(%a: memref<8x128xf32, #vmem>, %b: memref<24x128xf32, #vmem>) {
  // expected-error @below {{out has 24 rows, but 4 chips of 8 rows gather 32}}
  accel.all_gather %a, %b : memref<8x128xf32, #vmem>, memref<24x128xf32, #vmem>
  return
}
}

// -----

#vmem = #accel.space<vmem>

module attributes {accel.chips = 3 : i64} {
func.func @ring_all_reduce_needs_divisible_rows(%a: memref<8x128xf32, #vmem>, %b: memref<8x128xf32, #vmem>) {
  // expected-error @below {{algorithm 'ring' does not apply to all_reduce on 3 chips (ring): it applies to direct}}
  accel.all_reduce %a, %b {algorithm = "ring"} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}
}

// -----

// Groups (docs/collectives.md, "Groups"): contiguous groups of 2 on 4
// chips. The rank is chip mod 2, the group's first chip chip - rank, and
// the ring's next member (rank + 1) mod 2 of that group: one step, one DMA
// to it, the block of the rank's rows.
#vmem = #accel.space<vmem>

// CHECK-LABEL: func.func @groups_contiguous
// CHECK: %[[ME:.*]] = accel.chip_id
// CHECK: %[[RANK:.*]] = arith.remui %[[ME]], %c2
// CHECK: %[[BASE:.*]] = arith.subi %[[ME]], %[[RANK]]
// CHECK: %[[OFF:.*]] = arith.muli %[[RANK]], %c8
// CHECK: memref.subview %arg1[%[[OFF]], 0] [8, 128]
// CHECK: %[[SUM:.*]] = arith.addi %[[RANK]], %c1
// CHECK: %[[NEXTRANK:.*]] = arith.remui %[[SUM]], %c2
// CHECK: %[[NEXT:.*]] = arith.addi %[[BASE]], %[[NEXTRANK]]
// CHECK: accel.dma_start {{.*}} dst_chip %[[NEXT]] signal 255
// CHECK-NOT: accel.dma_start
// CHECK: return
module attributes {accel.chips = 4 : i64} {
func.func @groups_contiguous(%a: memref<8x128xf32, #vmem>, %b: memref<16x128xf32, #vmem>) {
  // expected-remark @below {{all_gather of 4096-byte blocks over 2 chips (groups of 2, stride 1, of 4) (ring): ring, }}
  accel.all_gather %a, %b {algorithm = "ring", groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : memref<8x128xf32, #vmem>, memref<16x128xf32, #vmem>
  return
}
}

// -----

// Strided groups [[0, 2], [1, 3]]: the rank is (chip / 2) mod 2, a
// member's chip the group's first plus 2 x its rank.
#vmem = #accel.space<vmem>

// CHECK-LABEL: func.func @groups_strided
// CHECK: %[[ME:.*]] = accel.chip_id
// CHECK: %[[Q:.*]] = arith.divui %[[ME]], %c2
// CHECK: %[[RANK:.*]] = arith.remui %[[Q]], %c2
// CHECK: %[[BACK:.*]] = arith.muli %[[RANK]], %c2
// CHECK: %[[BASE:.*]] = arith.subi %[[ME]], %[[BACK]]
// CHECK: %[[PEER:.*]] = arith.remui {{.*}}, %c2
// CHECK: %[[AWAY:.*]] = arith.muli %[[PEER]], %c2
// CHECK: %[[CHIP:.*]] = arith.addi %[[BASE]], %[[AWAY]]
// CHECK: accel.dma_start {{.*}} dst_chip %[[CHIP]] signal 255
// CHECK: accel.vadd
// CHECK: return
module attributes {accel.chips = 4 : i64} {
func.func @groups_strided(%a: memref<8x128xf32, #vmem>, %b: memref<8x128xf32, #vmem>) {
  // expected-remark @below {{all_reduce of 2048-byte blocks over 2 chips (groups of 2, stride 2, of 4) (ring): direct, 872 cycles estimated}}
  accel.all_reduce %a, %b {algorithm = "direct", groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}
}

// -----

// Groups that are not a partition of the chips into progressions, and
// shapes or algorithms that do not fit the group: each one error.
#vmem = #accel.space<vmem>

module attributes {accel.chips = 8 : i64} {
func.func @groups_too_few(%a: memref<8x128xf32, #vmem>, %b: memref<8x128xf32, #vmem>) {
  // expected-error @below {{groups [[0, 1], [2, 3]] on 8 chips: 2 groups of 2 are 4 chips, not 8; the groups must partition the chips into progressions of one stride}}
  accel.all_reduce %a, %b {groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}
}

// -----

#vmem = #accel.space<vmem>

module attributes {accel.chips = 4 : i64} {
func.func @groups_not_a_progression(%a: memref<8x128xf32, #vmem>, %b: memref<8x128xf32, #vmem>) {
  // expected-error @below {{groups [[0, 1], [3, 2]] on 4 chips: group 1 does not start a progression}}
  accel.all_reduce %a, %b {groups = dense<[[0, 1], [3, 2]]> : tensor<2x2xi64>} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}
}

// -----

#vmem = #accel.space<vmem>

module attributes {accel.chips = 6 : i64} {
func.func @groups_stride_does_not_tile(%a: memref<8x128xf32, #vmem>, %b: memref<8x128xf32, #vmem>) {
  // expected-error @below {{groups [[0, 4], [1, 5], [2, 3]] on 6 chips: the first group's stride 4 does not tile the chips}}
  accel.all_reduce %a, %b {groups = dense<[[0, 4], [1, 5], [2, 3]]> : tensor<3x2xi64>} : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  return
}
}

// -----

#vmem = #accel.space<vmem>

module attributes {accel.chips = 8 : i64} {
func.func @groups_shape(%a: memref<8x128xf32, #vmem>, %b: memref<64x128xf32, #vmem>) {
  // expected-error @below {{out has 64 rows, but 4 chips of 8 rows gather 32}}
  accel.all_gather %a, %b {groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>} : memref<8x128xf32, #vmem>, memref<64x128xf32, #vmem>
  return
}
}

// -----

// The torus's dimensions are the whole system's: torus2d does not apply
// to a group.
#vmem = #accel.space<vmem>

module attributes {accel.chips = 8 : i64} {
func.func @groups_no_torus(%a: memref<8x128xf32, #vmem>, %b: memref<32x128xf32, #vmem>) {
  // expected-error @below {{algorithm 'torus2d' does not apply to all_gather on 4 chips (ring): it applies to}}
  accel.all_gather %a, %b {algorithm = "torus2d", groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>} : memref<8x128xf32, #vmem>, memref<32x128xf32, #vmem>
  return
}
}
