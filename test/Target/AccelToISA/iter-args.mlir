// scf.for iter_args: a register per carried value, set from the init value
// before the loop and from the yielded value at the end of each iteration;
// the result is that register after the loop.
// RUN: accel-translate --mlir-to-accel-asm %s | FileCheck %s
// RUN: accel-replay run %s -o %t > /dev/null
// RUN: %python -c "import json,sys; m=json.load(open(sys.argv[1])); ex={o['name']: o['executions'] for o in m['ops'].values()}; print('vexp', ex['accel.vexp'], 'vadd', ex['accel.vadd'], 'vmul', ex['accel.vmul'], 'vmax', ex['accel.vmax'])" %t/metrics.json | FileCheck %s --check-prefix=EXEC

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%x: memref<8x128xf32, #hbm>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %xv = accel.alloc : memref<8x128xf32, #vmem>
  %t0 = accel.dma_start %x, %xv : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  // s = 0 + 0 + 1 + 2 + 3 = 6, and the DMA token is carried through.
  %s, %t = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %c0, %tk = %t0) -> (index, !accel.token) {
    %n = arith.addi %acc, %i : index
    scf.yield %n, %tk : index, !accel.token
  }
  accel.dma_wait %t
  scf.for %j = %c0 to %s step %c1 {
    accel.vexp %xv, %xv : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  // A swap: (a, b) = (2, 3) becomes (3, 2) after 3 iterations.
  %a, %b = scf.for %i = %c0 to %c3 step %c1 iter_args(%p = %c2, %q = %c3) -> (index, index) {
    scf.yield %q, %p : index, index
  }
  scf.for %j = %c0 to %a step %c1 {
    accel.vadd %xv, %xv, %xv : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  // A rotation of three beside a chain (u takes p's old value): after two
  // iterations (p, q, r, u) = (3, 1, 2, 2).
  %p2, %q2, %r2, %u2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%p = %c1, %q = %c2, %r = %c3, %u = %c0) -> (index, index, index, index) {
    scf.yield %q, %r, %p, %p : index, index, index, index
  }
  scf.for %j = %c0 to %p2 step %c1 {
    accel.vmul %xv, %xv, %xv : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  scf.for %j = %c0 to %u2 step %c1 {
    accel.vmax %xv, %xv, %xv : memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>, memref<8x128xf32, #vmem>
  }
  return
}

// The first loop: its two iter_args get registers from the init values
// (before the induction variable's), the body adds, and the yield moves the
// sum back (the token is yielded unchanged: no move).
// CHECK: dma.issue r[[T0:[0-9]+]],
// CHECK-NEXT: mov r[[ACC:[0-9]+]], r{{[0-9]+}} ; op {{[0-9]+}} scf.for
// CHECK-NEXT: mov r[[TK:[0-9]+]], r[[T0]] ; op {{[0-9]+}} scf.for
// CHECK-NEXT: mov r[[IV:[0-9]+]], r{{[0-9]+}} ; op {{[0-9]+}} scf.for
// CHECK-NEXT: bge r[[IV]],
// CHECK-NEXT: add r[[N:[0-9]+]], r[[ACC]], r[[IV]] ; op {{[0-9]+}} arith.addi
// CHECK-NEXT: mov r[[ACC]], r[[N]] ; op {{[0-9]+}} scf.yield
// CHECK-NEXT: add r[[IV]], r[[IV]],
// CHECK-NEXT: jmp
// CHECK-NEXT: dma.wait r[[TK]]
// The second loop runs to the carried sum.
// CHECK-NEXT: mov r[[J:[0-9]+]], r{{[0-9]+}} ; op {{[0-9]+}} scf.for
// CHECK-NEXT: bge r[[J]], r[[ACC]],
// The swap: three moves through one temporary.
// CHECK: mov r[[P:[0-9]+]], r{{[0-9]+}} ; op {{[0-9]+}} scf.for
// CHECK-NEXT: mov r[[Q:[0-9]+]], r{{[0-9]+}} ; op {{[0-9]+}} scf.for
// CHECK-NEXT: mov
// CHECK-NEXT: bge
// CHECK-NEXT: mov r[[T1:[0-9]+]], r[[P]] ; op {{[0-9]+}} scf.yield
// CHECK-NEXT: mov r[[P]], r[[Q]]
// CHECK-NEXT: mov r[[Q]], r[[T1]]
// CHECK-NEXT: add
// The rotation with a chain: u takes p first (nothing reads u), then the
// cycle p <- q <- r <- p goes through one temporary: 5 moves for 4 values.
// CHECK: vpu.add
// CHECK: mov r[[P3:[0-9]+]], r{{[0-9]+}} ; op {{[0-9]+}} scf.for
// CHECK-NEXT: mov r[[Q3:[0-9]+]], r{{[0-9]+}} ; op {{[0-9]+}} scf.for
// CHECK-NEXT: mov r[[R3:[0-9]+]], r{{[0-9]+}} ; op {{[0-9]+}} scf.for
// CHECK-NEXT: mov r[[U3:[0-9]+]], r{{[0-9]+}} ; op {{[0-9]+}} scf.for
// CHECK-NEXT: mov
// CHECK-NEXT: bge
// CHECK-NEXT: mov r[[U3]], r[[P3]] ; op {{[0-9]+}} scf.yield
// CHECK-NEXT: mov r[[T3:[0-9]+]], r[[P3]]
// CHECK-NEXT: mov r[[P3]], r[[Q3]]
// CHECK-NEXT: mov r[[Q3]], r[[R3]]
// CHECK-NEXT: mov r[[R3]], r[[T3]]
// CHECK-NEXT: add

// Run: the vexp loop runs 6 times, the vadd loop a = 3 times, vmul p = 3
// times and vmax u = 2 times.
// EXEC: vexp 6 vadd 3 vmul 3 vmax 2
