// RUN: accel-opt %s | accel-opt | FileCheck %s
// RUN: accel-opt %s -mlir-print-op-generic | accel-opt | FileCheck %s

// Every accel op, the !accel.token type and #accel.space<...> survive a
// print/parse round trip, in both the custom and the generic form.

// CHECK-LABEL: func.func @alloc_2d
// CHECK: %[[V:[a-zA-Z0-9_]+]] = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
// CHECK: return %[[V]] : memref<128x128xf32, #accel.space<vmem>>
func.func @alloc_2d() -> memref<128x128xf32, #accel.space<vmem>> {
  %w = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
  return %w : memref<128x128xf32, #accel.space<vmem>>
}

// CHECK-LABEL: func.func @alloc_1d_with_attr
// CHECK: %[[V:[a-zA-Z0-9_]+]] = accel.alloc {accel.op_id = 7 : i64} : memref<256xf32, #accel.space<vmem>>
// CHECK: return %[[V]] : memref<256xf32, #accel.space<vmem>>
func.func @alloc_1d_with_attr() -> memref<256xf32, #accel.space<vmem>> {
  %v = accel.alloc {accel.op_id = 7 : i64} : memref<256xf32, #accel.space<vmem>>
  return %v : memref<256xf32, #accel.space<vmem>>
}

// CHECK-LABEL: func.func @token_type
// CHECK-SAME: (%[[T:[a-zA-Z0-9_]+]]: !accel.token) -> !accel.token
// CHECK: return %[[T]] : !accel.token
func.func @token_type(%t: !accel.token) -> !accel.token {
  return %t : !accel.token
}

// CHECK-LABEL: func.func @dma_hbm_to_vmem_subview
// CHECK-SAME: (%[[H:[a-zA-Z0-9_]+]]: memref<8x4096xf32, #accel.space<hbm>>, %[[I:[a-zA-Z0-9_]+]]: index)
// CHECK: %[[V:[a-zA-Z0-9_]+]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK: %[[S:[a-zA-Z0-9_]+]] = memref.subview %[[H]][0, %[[I]]] [8, 128] [1, 1] : memref<8x4096xf32, #accel.space<hbm>> to memref<8x128xf32, strided<[4096, 1], offset: ?>, #accel.space<hbm>>
// CHECK: %[[T:[a-zA-Z0-9_]+]] = accel.dma_start %[[S]], %[[V]] : memref<8x128xf32, strided<[4096, 1], offset: ?>, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.dma_wait %[[T]]
// CHECK: return %[[V]]
func.func @dma_hbm_to_vmem_subview(%h: memref<8x4096xf32, #accel.space<hbm>>, %i: index) -> memref<8x128xf32, #accel.space<vmem>> {
  %v = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  %s = memref.subview %h[0, %i][8, 128][1, 1] : memref<8x4096xf32, #accel.space<hbm>> to memref<8x128xf32, strided<[4096, 1], offset: ?>, #accel.space<hbm>>
  %t = accel.dma_start %s, %v : memref<8x128xf32, strided<[4096, 1], offset: ?>, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  accel.dma_wait %t
  return %v : memref<8x128xf32, #accel.space<vmem>>
}

// CHECK-LABEL: func.func @dma_vmem_to_hbm
// CHECK-SAME: (%[[V:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>, %[[H:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<hbm>>) -> !accel.token
// CHECK: %[[T:[a-zA-Z0-9_]+]] = accel.dma_start %[[V]], %[[H]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
// CHECK: return %[[T]] : !accel.token
func.func @dma_vmem_to_hbm(%v: memref<8x128xf32, #accel.space<vmem>>, %h: memref<8x128xf32, #accel.space<hbm>>) -> !accel.token {
  %t = accel.dma_start %v, %h : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
  return %t : !accel.token
}

// CHECK-LABEL: func.func @dma_vmem_to_vmem_1d
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: memref<512xf32, #accel.space<vmem>>, %[[B:[a-zA-Z0-9_]+]]: memref<512xf32, #accel.space<vmem>>)
// CHECK: %[[T:[a-zA-Z0-9_]+]] = accel.dma_start %[[A]], %[[B]] {accel.op_id = 3 : i64} : memref<512xf32, #accel.space<vmem>>, memref<512xf32, #accel.space<vmem>>
// CHECK: accel.dma_wait %[[T]] {accel.op_id = 4 : i64}
func.func @dma_vmem_to_vmem_1d(%a: memref<512xf32, #accel.space<vmem>>, %b: memref<512xf32, #accel.space<vmem>>) {
  %t = accel.dma_start %a, %b {accel.op_id = 3 : i64} : memref<512xf32, #accel.space<vmem>>, memref<512xf32, #accel.space<vmem>>
  accel.dma_wait %t {accel.op_id = 4 : i64}
  return
}

// CHECK-LABEL: func.func @dma_wait_arg
// CHECK-SAME: (%[[T0:[a-zA-Z0-9_]+]]: !accel.token, %[[T1:[a-zA-Z0-9_]+]]: !accel.token)
// CHECK: accel.dma_wait %[[T1]]
// CHECK: accel.dma_wait %[[T0]]
func.func @dma_wait_arg(%t0: !accel.token, %t1: !accel.token) {
  accel.dma_wait %t1
  accel.dma_wait %t0
  return
}

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>, %[[B:[a-zA-Z0-9_]+]]: memref<128x64xf32, #accel.space<vmem>>, %[[C:[a-zA-Z0-9_]+]]: memref<8x64xf32, #accel.space<vmem>>)
// CHECK: accel.matmul %[[A]], %[[B]], %[[C]] : memref<8x128xf32, #accel.space<vmem>>, memref<128x64xf32, #accel.space<vmem>>, memref<8x64xf32, #accel.space<vmem>>
// CHECK-NOT: accumulate
// CHECK: return
func.func @matmul(%a: memref<8x128xf32, #accel.space<vmem>>, %b: memref<128x64xf32, #accel.space<vmem>>, %c: memref<8x64xf32, #accel.space<vmem>>) {
  accel.matmul %a, %b, %c : memref<8x128xf32, #accel.space<vmem>>, memref<128x64xf32, #accel.space<vmem>>, memref<8x64xf32, #accel.space<vmem>>
  return
}

// CHECK-LABEL: func.func @matmul_accumulate
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>, %[[B:[a-zA-Z0-9_]+]]: memref<128x128xf32, #accel.space<vmem>>, %[[C:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>)
// CHECK: accel.matmul %[[A]], %[[B]], %[[C]] {accumulate} : memref<8x128xf32, #accel.space<vmem>>, memref<128x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
func.func @matmul_accumulate(%a: memref<8x128xf32, #accel.space<vmem>>, %b: memref<128x128xf32, #accel.space<vmem>>, %c: memref<8x128xf32, #accel.space<vmem>>) {
  accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #accel.space<vmem>>, memref<128x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// A strided (non-contiguous) VMEM subview is fine for a and c.
// CHECK-LABEL: func.func @matmul_strided_a
// CHECK-SAME: (%[[BIG:[a-zA-Z0-9_]+]]: memref<8x256xf32, #accel.space<vmem>>, %[[B:[a-zA-Z0-9_]+]]: memref<128x128xf32, #accel.space<vmem>>, %[[C:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>)
// CHECK: %[[A:[a-zA-Z0-9_]+]] = memref.subview %[[BIG]][0, 128] [8, 128] [1, 1] : memref<8x256xf32, #accel.space<vmem>> to memref<8x128xf32, strided<[256, 1], offset: 128>, #accel.space<vmem>>
// CHECK: accel.matmul %[[A]], %[[B]], %[[C]] {accumulate} : memref<8x128xf32, strided<[256, 1], offset: 128>, #accel.space<vmem>>, memref<128x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
func.func @matmul_strided_a(%big: memref<8x256xf32, #accel.space<vmem>>, %b: memref<128x128xf32, #accel.space<vmem>>, %c: memref<8x128xf32, #accel.space<vmem>>) {
  %a = memref.subview %big[0, 128][8, 128][1, 1] : memref<8x256xf32, #accel.space<vmem>> to memref<8x128xf32, strided<[256, 1], offset: 128>, #accel.space<vmem>>
  accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, strided<[256, 1], offset: 128>, #accel.space<vmem>>, memref<128x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// CHECK-LABEL: func.func @vbinary
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>, %[[Y:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>, %[[O:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>)
// CHECK: accel.vadd %[[X]], %[[Y]], %[[O]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vsub %[[X]], %[[Y]], %[[O]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vmul %[[X]], %[[Y]], %[[O]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vdiv %[[X]], %[[Y]], %[[O]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vmax %[[X]], %[[Y]], %[[O]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
func.func @vbinary(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  accel.vadd %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vsub %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vmul %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vdiv %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vmax %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// y as an Rx1 column broadcast along the columns of x.
// CHECK-LABEL: func.func @vbinary_broadcast
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>, %[[Y:[a-zA-Z0-9_]+]]: memref<8x1xf32, #accel.space<vmem>>, %[[O:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>)
// CHECK: accel.vadd %[[X]], %[[Y]], %[[O]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vsub %[[X]], %[[Y]], %[[O]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vmul %[[X]], %[[Y]], %[[O]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vdiv %[[X]], %[[Y]], %[[O]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vmax %[[X]], %[[Y]], %[[O]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
func.func @vbinary_broadcast(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x1xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  accel.vadd %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vsub %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vmul %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vdiv %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vmax %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// Rank-1 operands are a single row; in-place (out aliasing x) is allowed.
// CHECK-LABEL: func.func @vbinary_1d
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: memref<128xf32, #accel.space<vmem>>, %[[Y:[a-zA-Z0-9_]+]]: memref<128xf32, #accel.space<vmem>>)
// CHECK: accel.vadd %[[X]], %[[Y]], %[[X]] {accel.op_id = 1 : i64} : memref<128xf32, #accel.space<vmem>>, memref<128xf32, #accel.space<vmem>>, memref<128xf32, #accel.space<vmem>>
func.func @vbinary_1d(%x: memref<128xf32, #accel.space<vmem>>, %y: memref<128xf32, #accel.space<vmem>>) {
  accel.vadd %x, %y, %x {accel.op_id = 1 : i64} : memref<128xf32, #accel.space<vmem>>, memref<128xf32, #accel.space<vmem>>, memref<128xf32, #accel.space<vmem>>
  return
}

// CHECK-LABEL: func.func @vunary
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>, %[[O:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>)
// CHECK: accel.vexp %[[X]], %[[O]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vsqrt %[[O]], %[[O]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vcopy %[[O]], %[[X]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
func.func @vunary(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  accel.vexp %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vsqrt %o, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vcopy %o, %x : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// CHECK-LABEL: func.func @vmath
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>, %[[O:[a-zA-Z0-9_]+]]: memref<8x128xbf16, #accel.space<vmem>>)
// CHECK: accel.vrsqrt %[[X]], %[[O]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xbf16, #accel.space<vmem>>
// CHECK: accel.vtanh %[[O]], %[[X]] : memref<8x128xbf16, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vlog %[[X]], %[[X]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vlog1p %[[X]], %[[X]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.verf %[[X]], %[[X]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vabs %[[X]], %[[X]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vmin %[[X]], %[[X]], %[[X]] {ignore_nan} : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
func.func @vmath(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xbf16, #accel.space<vmem>>) {
  accel.vrsqrt %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xbf16, #accel.space<vmem>>
  accel.vtanh %o, %x : memref<8x128xbf16, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vlog %x, %x : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vlog1p %x, %x : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.verf %x, %x : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vabs %x, %x : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vmin %x, %x, %x {ignore_nan} : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// CHECK-LABEL: func.func @vtranspose
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>, %[[O:[a-zA-Z0-9_]+]]: memref<128x8xbf16, #accel.space<vmem>>)
// CHECK: accel.vtranspose %[[X]], %[[O]] : memref<8x128xf32, #accel.space<vmem>>, memref<128x8xbf16, #accel.space<vmem>>
// CHECK: accel.vtranspose %[[O]], %[[X]] : memref<128x8xbf16, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
func.func @vtranspose(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<128x8xbf16, #accel.space<vmem>>) {
  accel.vtranspose %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<128x8xbf16, #accel.space<vmem>>
  accel.vtranspose %o, %x : memref<128x8xbf16, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// CHECK-LABEL: func.func @vmasks
// CHECK: accel.viota %{{.*}}, %[[R:.*]] : memref<8x1xf32, #accel.space<vmem>>
// CHECK: accel.viota %{{.*}}, %[[C:.*]] {columns} : memref<8x128xbf16, #accel.space<vmem>>
// CHECK: accel.vcmp oge, %[[C]], %[[R]], %[[M:.*]] : memref<8x128xbf16, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vcmp true, %[[M]], %[[M]], %[[M]] :
// CHECK: accel.vselect %[[M]], %[[R]], %[[M]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
func.func @vmasks(%i: index, %r: memref<8x1xf32, #accel.space<vmem>>, %c: memref<8x128xbf16, #accel.space<vmem>>, %m: memref<8x128xf32, #accel.space<vmem>>) {
  accel.viota %i, %r : memref<8x1xf32, #accel.space<vmem>>
  accel.viota %i, %c {columns} : memref<8x128xbf16, #accel.space<vmem>>
  accel.vcmp oge, %c, %r, %m : memref<8x128xbf16, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vcmp true, %m, %m, %m : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  accel.vselect %m, %r, %m : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// CHECK-LABEL: func.func @vunary_1d
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: memref<64xf32, #accel.space<vmem>>, %[[O:[a-zA-Z0-9_]+]]: memref<64xf32, #accel.space<vmem>>)
// CHECK: accel.vexp %[[X]], %[[O]] : memref<64xf32, #accel.space<vmem>>, memref<64xf32, #accel.space<vmem>>
// CHECK: accel.vsqrt %[[X]], %[[O]] : memref<64xf32, #accel.space<vmem>>, memref<64xf32, #accel.space<vmem>>
// CHECK: accel.vcopy %[[X]], %[[O]] : memref<64xf32, #accel.space<vmem>>, memref<64xf32, #accel.space<vmem>>
func.func @vunary_1d(%x: memref<64xf32, #accel.space<vmem>>, %o: memref<64xf32, #accel.space<vmem>>) {
  accel.vexp %x, %o : memref<64xf32, #accel.space<vmem>>, memref<64xf32, #accel.space<vmem>>
  accel.vsqrt %x, %o : memref<64xf32, #accel.space<vmem>>, memref<64xf32, #accel.space<vmem>>
  accel.vcopy %x, %o : memref<64xf32, #accel.space<vmem>>, memref<64xf32, #accel.space<vmem>>
  return
}

// CHECK-LABEL: func.func @vreduce
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>, %[[S:[a-zA-Z0-9_]+]]: memref<8x1xf32, #accel.space<vmem>>, %[[M:[a-zA-Z0-9_]+]]: memref<8x1xf32, #accel.space<vmem>>)
// CHECK: accel.vreduce_sum %[[X]], %[[S]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
// CHECK: accel.vreduce_max %[[X]], %[[M]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
func.func @vreduce(%x: memref<8x128xf32, #accel.space<vmem>>, %s: memref<8x1xf32, #accel.space<vmem>>, %m: memref<8x1xf32, #accel.space<vmem>>) {
  accel.vreduce_sum %x, %s : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
  accel.vreduce_max %x, %m : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
  return
}

// A rank-1 x is one row, so it reduces into a 1-element result.
// CHECK-LABEL: func.func @vreduce_1d
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: memref<128xf32, #accel.space<vmem>>, %[[O:[a-zA-Z0-9_]+]]: memref<1xf32, #accel.space<vmem>>)
// CHECK: accel.vreduce_sum %[[X]], %[[O]] : memref<128xf32, #accel.space<vmem>>, memref<1xf32, #accel.space<vmem>>
// CHECK: accel.vreduce_max %[[X]], %[[O]] : memref<128xf32, #accel.space<vmem>>, memref<1xf32, #accel.space<vmem>>
func.func @vreduce_1d(%x: memref<128xf32, #accel.space<vmem>>, %o: memref<1xf32, #accel.space<vmem>>) {
  accel.vreduce_sum %x, %o : memref<128xf32, #accel.space<vmem>>, memref<1xf32, #accel.space<vmem>>
  accel.vreduce_max %x, %o : memref<128xf32, #accel.space<vmem>>, memref<1xf32, #accel.space<vmem>>
  return
}

// CHECK-LABEL: func.func @vfill
// CHECK-SAME: (%[[O:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<vmem>>, %[[R:[a-zA-Z0-9_]+]]: memref<64xf32, #accel.space<vmem>>)
// CHECK: accel.vfill %[[O]], 0.000000e+00 : memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vfill %[[O]], -1.500000e+00 : memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vfill %[[R]], 0xFF800000 {accel.op_id = 9 : i64} : memref<64xf32, #accel.space<vmem>>
func.func @vfill(%o: memref<8x128xf32, #accel.space<vmem>>, %r: memref<64xf32, #accel.space<vmem>>) {
  accel.vfill %o, 0.0 : memref<8x128xf32, #accel.space<vmem>>
  accel.vfill %o, -1.5 : memref<8x128xf32, #accel.space<vmem>>
  accel.vfill %r, 0xFF800000 {accel.op_id = 9 : i64} : memref<64xf32, #accel.space<vmem>>
  return
}

// A tiled matmul: scf.for over K, arith index arithmetic for the tile
// offset, subviews of HBM buffers with dynamic offsets, DMA in, MXU
// accumulate, DMA out.
// CHECK-LABEL: func.func @tiled_matmul_loop
// CHECK-SAME: (%[[AH:[a-zA-Z0-9_]+]]: memref<8x512xf32, #accel.space<hbm>>, %[[BH:[a-zA-Z0-9_]+]]: memref<512x128xf32, #accel.space<hbm>>, %[[CH:[a-zA-Z0-9_]+]]: memref<8x128xf32, #accel.space<hbm>>)
// CHECK-DAG: %[[C0:[a-zA-Z0-9_]+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:[a-zA-Z0-9_]+]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:[a-zA-Z0-9_]+]] = arith.constant 4 : index
// CHECK-DAG: %[[C128:[a-zA-Z0-9_]+]] = arith.constant 128 : index
// CHECK: %[[A:[a-zA-Z0-9_]+]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK: %[[B:[a-zA-Z0-9_]+]] = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
// CHECK: %[[C:[a-zA-Z0-9_]+]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.vfill %[[C]], 0.000000e+00 : memref<8x128xf32, #accel.space<vmem>>
// CHECK: scf.for %[[K:[a-zA-Z0-9_]+]] = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK:   %[[OFF:[a-zA-Z0-9_]+]] = arith.muli %[[K]], %[[C128]] : index
// CHECK:   %[[AS:[a-zA-Z0-9_]+]] = memref.subview %[[AH]][0, %[[OFF]]] [8, 128] [1, 1] : memref<8x512xf32, #accel.space<hbm>> to memref<8x128xf32, strided<[512, 1], offset: ?>, #accel.space<hbm>>
// CHECK:   %[[BS:[a-zA-Z0-9_]+]] = memref.subview %[[BH]][%[[OFF]], 0] [128, 128] [1, 1] : memref<512x128xf32, #accel.space<hbm>> to memref<128x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
// CHECK:   %[[TA:[a-zA-Z0-9_]+]] = accel.dma_start %[[AS]], %[[A]] : memref<8x128xf32, strided<[512, 1], offset: ?>, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK:   %[[TB:[a-zA-Z0-9_]+]] = accel.dma_start %[[BS]], %[[B]] : memref<128x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>, memref<128x128xf32, #accel.space<vmem>>
// CHECK:   accel.dma_wait %[[TA]]
// CHECK:   accel.dma_wait %[[TB]]
// CHECK:   accel.matmul %[[A]], %[[B]], %[[C]] {accumulate} : memref<8x128xf32, #accel.space<vmem>>, memref<128x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: }
// CHECK: %[[TC:[a-zA-Z0-9_]+]] = accel.dma_start %[[C]], %[[CH]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
// CHECK: accel.dma_wait %[[TC]]
// CHECK: return
func.func @tiled_matmul_loop(%ah: memref<8x512xf32, #accel.space<hbm>>, %bh: memref<512x128xf32, #accel.space<hbm>>, %ch: memref<8x128xf32, #accel.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %a = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  %b = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
  %c = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  accel.vfill %c, 0.0 : memref<8x128xf32, #accel.space<vmem>>
  scf.for %k = %c0 to %c4 step %c1 {
    %off = arith.muli %k, %c128 : index
    %as = memref.subview %ah[0, %off][8, 128][1, 1] : memref<8x512xf32, #accel.space<hbm>> to memref<8x128xf32, strided<[512, 1], offset: ?>, #accel.space<hbm>>
    %bs = memref.subview %bh[%off, 0][128, 128][1, 1] : memref<512x128xf32, #accel.space<hbm>> to memref<128x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    %ta = accel.dma_start %as, %a : memref<8x128xf32, strided<[512, 1], offset: ?>, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
    %tb = accel.dma_start %bs, %b : memref<128x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>, memref<128x128xf32, #accel.space<vmem>>
    accel.dma_wait %ta
    accel.dma_wait %tb
    accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #accel.space<vmem>>, memref<128x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  }
  %tc = accel.dma_start %c, %ch : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
  accel.dma_wait %tc
  return
}

// A token carried through scf.for iter_args (double buffering) and an
// scf.yield of !accel.token; a softmax-style row pipeline inside.
// CHECK-LABEL: func.func @token_iter_args
// CHECK-SAME: (%[[H:[a-zA-Z0-9_]+]]: memref<64x128xf32, #accel.space<hbm>>, %[[N:[a-zA-Z0-9_]+]]: index)
// CHECK: %[[X:[a-zA-Z0-9_]+]] = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
// CHECK: %[[M:[a-zA-Z0-9_]+]] = accel.alloc : memref<8x1xf32, #accel.space<vmem>>
// CHECK: %[[T0:[a-zA-Z0-9_]+]] = accel.dma_start %{{[a-zA-Z0-9_]+}}, %[[X]] : memref<8x128xf32, strided<[128, 1]>, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: %[[R:[a-zA-Z0-9_]+]] = scf.for %[[I:[a-zA-Z0-9_]+]] = %{{[a-zA-Z0-9_]+}} to %[[N]] step %{{[a-zA-Z0-9_]+}} iter_args(%[[T:[a-zA-Z0-9_]+]] = %[[T0]]) -> (!accel.token) {
// CHECK:   accel.dma_wait %[[T]]
// CHECK:   accel.vreduce_max %[[X]], %[[M]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
// CHECK:   accel.vsub %[[X]], %[[M]], %[[X]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK:   accel.vexp %[[X]], %[[X]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK:   accel.vreduce_sum %[[X]], %[[M]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
// CHECK:   accel.vdiv %[[X]], %[[M]], %[[X]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK:   %[[ROW:[a-zA-Z0-9_]+]] = arith.muli %[[I]], %{{[a-zA-Z0-9_]+}} : index
// CHECK:   %[[S:[a-zA-Z0-9_]+]] = memref.subview %[[H]][%[[ROW]], 0] [8, 128] [1, 1] : memref<64x128xf32, #accel.space<hbm>> to memref<8x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
// CHECK:   %[[TN:[a-zA-Z0-9_]+]] = accel.dma_start %[[X]], %[[S]] : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
// CHECK:   scf.yield %[[TN]] : !accel.token
// CHECK: }
// CHECK: accel.dma_wait %[[R]]
func.func @token_iter_args(%h: memref<64x128xf32, #accel.space<hbm>>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %x = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  %m = accel.alloc : memref<8x1xf32, #accel.space<vmem>>
  %s0 = memref.subview %h[0, 0][8, 128][1, 1] : memref<64x128xf32, #accel.space<hbm>> to memref<8x128xf32, strided<[128, 1]>, #accel.space<hbm>>
  %t0 = accel.dma_start %s0, %x : memref<8x128xf32, strided<[128, 1]>, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %t0) -> (!accel.token) {
    accel.dma_wait %t
    accel.vreduce_max %x, %m : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
    accel.vsub %x, %m, %x : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
    accel.vexp %x, %x : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
    accel.vreduce_sum %x, %m : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
    accel.vdiv %x, %m, %x : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
    %row = arith.muli %i, %c8 : index
    %s = memref.subview %h[%row, 0][8, 128][1, 1] : memref<64x128xf32, #accel.space<hbm>> to memref<8x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    %tn = accel.dma_start %x, %s : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, strided<[128, 1], offset: ?>, #accel.space<hbm>>
    scf.yield %tn : !accel.token
  }
  accel.dma_wait %r
  return
}

// accel.load: a scalar i32 from VMEM; i32 buffers and DMAs.

// CHECK-LABEL: func.func @scalar_load
// CHECK: %[[T:.*]] = accel.alloc : memref<4x16xi32, #accel.space<vmem>>
// CHECK: accel.dma_start %arg0, %[[T]] : memref<4x16xi32, #accel.space<hbm>>, memref<4x16xi32, #accel.space<vmem>>
// CHECK: %{{.*}} = accel.load %[[T]][%{{.*}}, %{{.*}}] : memref<4x16xi32, #accel.space<vmem>>
func.func @scalar_load(%tab: memref<4x16xi32, #accel.space<hbm>>) -> index {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t = accel.alloc : memref<4x16xi32, #accel.space<vmem>>
  %tok = accel.dma_start %tab, %t : memref<4x16xi32, #accel.space<hbm>>, memref<4x16xi32, #accel.space<vmem>>
  accel.dma_wait %tok
  %v = accel.load %t[%c1, %c2] : memref<4x16xi32, #accel.space<vmem>>
  return %v : index
}

// Chips: the SPMD entry, remote DMAs (either side on another chip, with or
// without a semaphore signal) and sem_wait.
// CHECK-LABEL: func.func @chips
// CHECK: %[[ME:.*]] = accel.chip_id
// CHECK: %[[N:.*]] = accel.chip_count
// CHECK: accel.dma_start %{{.*}}, %{{.*}} dst_chip %[[ME]] signal 3 : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.dma_start %{{.*}}, %{{.*}} src_chip %[[N]] : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.dma_start %{{.*}}, %{{.*}} signal 255 : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
// CHECK: accel.sem_wait 3, %[[N]]
func.func @chips(%x: memref<8x128xf32, #accel.space<hbm>>) {
  %me = accel.chip_id
  %n = accel.chip_count
  %v = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  %t0 = accel.dma_start %x, %v dst_chip %me signal 3 : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  %t1 = accel.dma_start %x, %v src_chip %n : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  %t2 = accel.dma_start %x, %v signal 255 : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  accel.sem_wait 3, %n
  accel.dma_wait %t0
  accel.dma_wait %t1
  accel.dma_wait %t2
  return
}
