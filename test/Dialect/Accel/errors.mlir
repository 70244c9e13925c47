// RUN: accel-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of lib/Dialect/Accel/AccelOps.cpp, plus parse
// errors for the accel attribute and type.

// Unknown memory space keyword.
// expected-error @+2 {{expected ::accel::MemorySpace to be one of: hbm, vmem}}
// expected-error @+1 {{failed to parse Accel_MemorySpaceAttr parameter 'value'}}
func.func @unknown_space(%x: memref<8x128xf32, #accel.space<sram>>) {
  return
}

// -----

// Unknown memory space keyword in an alloc type.
func.func @unknown_space_alloc() {
  // expected-error @+2 {{expected ::accel::MemorySpace to be one of: hbm, vmem}}
  // expected-error @+1 {{failed to parse Accel_MemorySpaceAttr parameter 'value'}}
  %a = accel.alloc : memref<8x128xf32, #accel.space<sram>>
  return
}

// -----

// dma_wait on a value that is not a token (custom form).
// expected-note @+1 {{prior use here}}
func.func @dma_wait_not_token(%i: index) {
  // expected-error @+1 {{use of value '%i' expects different type than prior uses: '!accel.token' vs 'index'}}
  accel.dma_wait %i
  return
}

// -----

// dma_wait on a value that is not a token (generic form).
func.func @dma_wait_not_token_generic(%i: i32) {
  // expected-error @+1 {{'accel.dma_wait' op operand #0 must be Completion token of an in-flight DMA, but got 'i32'}}
  "accel.dma_wait"(%i) : (i32) -> ()
  return
}

// -----

// Unranked memref operands are rejected by the ODS type constraint.
func.func @unranked_operand(%u: memref<*xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vfill' op operand #0 must be memref of any type values, but got 'memref<*xf32, #accel.space<vmem>>'}}
  "accel.vfill"(%u) <{value = 0.0 : f32}> : (memref<*xf32, #accel.space<vmem>>) -> ()
  return
}

// -----

// alloc: non-identity layout.
func.func @alloc_layout() {
  // expected-error @+1 {{'accel.alloc' op result must have the identity layout}}
  %a = accel.alloc : memref<8x128xf32, strided<[256, 1]>, #accel.space<vmem>>
  return
}

// -----

// alloc: non-identity affine layout.
func.func @alloc_affine_layout() {
  // expected-error @+1 {{'accel.alloc' op result must have the identity layout}}
  %a = accel.alloc : memref<8x128xf32, affine_map<(d0, d1) -> (d1, d0)>, #accel.space<vmem>>
  return
}

// -----

// alloc: HBM space.
func.func @alloc_hbm() {
  // expected-error @+1 {{'accel.alloc' op operand 'result' must be in vmem, not hbm}}
  %a = accel.alloc : memref<8x128xf32, #accel.space<hbm>>
  return
}

// -----

// alloc: missing memory space.
func.func @alloc_no_space() {
  // expected-error @+1 {{'accel.alloc' op operand 'result' must be in memory space #accel.space<hbm> or #accel.space<vmem>}}
  %a = accel.alloc : memref<8x128xf32>
  return
}

// -----

// alloc: non-accel memory space.
func.func @alloc_int_space() {
  // expected-error @+1 {{'accel.alloc' op operand 'result' must be in memory space #accel.space<hbm> or #accel.space<vmem>}}
  %a = accel.alloc : memref<8x128xf32, 1>
  return
}

// -----

// alloc: non-f32.
func.func @alloc_f16() {
  // expected-error @+1 {{'accel.alloc' op operand 'result' must have f32, bf16 or i32 elements}}
  %a = accel.alloc : memref<8x128xf16, #accel.space<vmem>>
  return
}

// -----

// alloc: dynamic shape.
func.func @alloc_dynamic() {
  // expected-error @+1 {{'accel.alloc' op operand 'result' must have a static shape}}
  %a = accel.alloc : memref<?x128xf32, #accel.space<vmem>>
  return
}

// -----

// alloc: rank 3.
func.func @alloc_rank3() {
  // expected-error @+1 {{'accel.alloc' op operand 'result' must have rank 1 or 2}}
  %a = accel.alloc : memref<2x8x128xf32, #accel.space<vmem>>
  return
}

// -----

// alloc: rank 0.
func.func @alloc_rank0() {
  // expected-error @+1 {{'accel.alloc' op operand 'result' must have rank 1 or 2}}
  %a = accel.alloc : memref<f32, #accel.space<vmem>>
  return
}

// -----

// alloc: dimension above the ISA limit.
func.func @alloc_too_wide() {
  // expected-error @+1 {{'accel.alloc' op operand 'result' has a dimension or row stride above 65535 elements, the ISA limit}}
  %a = accel.alloc : memref<1x65536xf32, #accel.space<vmem>>
  return
}

// -----

// dma_start: src missing memory space.
func.func @dma_src_no_space(%s: memref<8x128xf32>, %d: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op operand 'src' must be in memory space #accel.space<hbm> or #accel.space<vmem>}}
  %t = accel.dma_start %s, %d : memref<8x128xf32>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// dma_start: dst missing memory space.
func.func @dma_dst_no_space(%s: memref<8x128xf32, #accel.space<hbm>>, %d: memref<8x128xf32>) {
  // expected-error @+1 {{'accel.dma_start' op operand 'dst' must be in memory space #accel.space<hbm> or #accel.space<vmem>}}
  %t = accel.dma_start %s, %d : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32>
  return
}

// -----

// dma_start: i32 source into an f32 destination.
func.func @dma_src_i32(%s: memref<8x128xi32, #accel.space<hbm>>, %d: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op src and dst element types differ}}
  %t = accel.dma_start %s, %d : memref<8x128xi32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// dma_start: a DMA copies bytes, it does not convert f32 to bf16.
func.func @dma_dst_bf16(%s: memref<8x128xf32, #accel.space<hbm>>, %d: memref<8x128xbf16, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op src and dst element types differ ('f32' vs 'bf16'): a DMA copies bytes, convert with accel.vcopy}}
  %t = accel.dma_start %s, %d : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xbf16, #accel.space<vmem>>
  return
}

// -----

// dma_start: dst of a type the machine has not.
func.func @dma_dst_f16(%s: memref<8x128xf16, #accel.space<hbm>>, %d: memref<8x128xf16, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op operand 'src' must have f32, bf16 or i32 elements}}
  %t = accel.dma_start %s, %d : memref<8x128xf16, #accel.space<hbm>>, memref<8x128xf16, #accel.space<vmem>>
  return
}

// -----

// dma_start: src dynamic shape.
func.func @dma_src_dynamic(%s: memref<8x?xf32, #accel.space<hbm>>, %d: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op operand 'src' must have a static shape}}
  %t = accel.dma_start %s, %d : memref<8x?xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// dma_start: dst dynamic shape.
func.func @dma_dst_dynamic(%s: memref<8x128xf32, #accel.space<hbm>>, %d: memref<?x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op operand 'dst' must have a static shape}}
  %t = accel.dma_start %s, %d : memref<8x128xf32, #accel.space<hbm>>, memref<?x128xf32, #accel.space<vmem>>
  return
}

// -----

// dma_start: src rank 3.
func.func @dma_src_rank3(%s: memref<1x8x128xf32, #accel.space<hbm>>, %d: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op operand 'src' must have rank 1 or 2}}
  %t = accel.dma_start %s, %d : memref<1x8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// dma_start: dst rank 3.
func.func @dma_dst_rank3(%s: memref<8x128xf32, #accel.space<hbm>>, %d: memref<1x8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op operand 'dst' must have rank 1 or 2}}
  %t = accel.dma_start %s, %d : memref<8x128xf32, #accel.space<hbm>>, memref<1x8x128xf32, #accel.space<vmem>>
  return
}

// -----

// dma_start: src non-unit innermost stride.
func.func @dma_src_stride(%s: memref<8x128xf32, strided<[512, 2]>, #accel.space<hbm>>, %d: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op operand 'src' must have unit innermost stride}}
  %t = accel.dma_start %s, %d : memref<8x128xf32, strided<[512, 2]>, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// dma_start: dst non-unit innermost stride (rank 1).
func.func @dma_dst_stride_1d(%s: memref<128xf32, #accel.space<hbm>>, %d: memref<128xf32, strided<[2]>, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op operand 'dst' must have unit innermost stride}}
  %t = accel.dma_start %s, %d : memref<128xf32, #accel.space<hbm>>, memref<128xf32, strided<[2]>, #accel.space<vmem>>
  return
}

// -----

// dma_start: src dynamic strides.
func.func @dma_src_dyn_stride(%s: memref<8x128xf32, strided<[?, 1], offset: ?>, #accel.space<hbm>>, %d: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op operand 'src' must have static strides}}
  %t = accel.dma_start %s, %d : memref<8x128xf32, strided<[?, 1], offset: ?>, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// dma_start: src non-strided layout.
func.func @dma_src_nonstrided(%s: memref<8x128xf32, affine_map<(d0, d1) -> (d0 floordiv 2, d1)>, #accel.space<hbm>>, %d: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op operand 'src' must have static strides}}
  %t = accel.dma_start %s, %d : memref<8x128xf32, affine_map<(d0, d1) -> (d0 floordiv 2, d1)>, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// dma_start: src row stride above the ISA limit.
func.func @dma_src_big_stride(%s: memref<8x128xf32, strided<[70000, 1], offset: ?>, #accel.space<hbm>>, %d: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op operand 'src' has a dimension or row stride above 65535 elements, the ISA limit}}
  %t = accel.dma_start %s, %d : memref<8x128xf32, strided<[70000, 1], offset: ?>, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// dma_start: shape mismatch (columns).
func.func @dma_shape_cols(%s: memref<8x128xf32, #accel.space<hbm>>, %d: memref<8x64xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op src shape 8x128 differs from dst shape 8x64}}
  %t = accel.dma_start %s, %d : memref<8x128xf32, #accel.space<hbm>>, memref<8x64xf32, #accel.space<vmem>>
  return
}

// -----

// dma_start: shape mismatch (rows).
func.func @dma_shape_rows(%s: memref<8x128xf32, #accel.space<hbm>>, %d: memref<16x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op src shape 8x128 differs from dst shape 16x128}}
  %t = accel.dma_start %s, %d : memref<8x128xf32, #accel.space<hbm>>, memref<16x128xf32, #accel.space<vmem>>
  return
}

// -----

// dma_start: shape mismatch (rank 1 vs rank 2).
func.func @dma_shape_rank(%s: memref<128xf32, #accel.space<hbm>>, %d: memref<2x64xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.dma_start' op src shape 1x128 differs from dst shape 2x64}}
  %t = accel.dma_start %s, %d : memref<128xf32, #accel.space<hbm>>, memref<2x64xf32, #accel.space<vmem>>
  return
}

// -----

// dma_start: HBM to HBM.
func.func @dma_hbm_to_hbm(%s: memref<8x128xf32, #accel.space<hbm>>, %d: memref<8x128xf32, #accel.space<hbm>>) {
  // expected-error @+1 {{'accel.dma_start' op HBM to HBM copies are not supported; one side must be in VMEM}}
  %t = accel.dma_start %s, %d : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<hbm>>
  return
}

// -----

// dma_start: HBM to HBM with a subview source.
func.func @dma_hbm_to_hbm_subview(%h: memref<8x4096xf32, #accel.space<hbm>>, %d: memref<8x128xf32, #accel.space<hbm>>, %i: index) {
  %s = memref.subview %h[0, %i][8, 128][1, 1] : memref<8x4096xf32, #accel.space<hbm>> to memref<8x128xf32, strided<[4096, 1], offset: ?>, #accel.space<hbm>>
  // expected-error @+1 {{'accel.dma_start' op HBM to HBM copies are not supported; one side must be in VMEM}}
  %t = accel.dma_start %s, %d : memref<8x128xf32, strided<[4096, 1], offset: ?>, #accel.space<hbm>>, memref<8x128xf32, #accel.space<hbm>>
  return
}

// -----

// matmul: a in HBM.
func.func @matmul_a_hbm(%a: memref<8x128xf32, #accel.space<hbm>>, %b: memref<128x128xf32, #accel.space<vmem>>, %c: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.matmul' op operand 'a' must be in vmem, not hbm}}
  accel.matmul %a, %b, %c : memref<8x128xf32, #accel.space<hbm>>, memref<128x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// matmul: b in HBM.
func.func @matmul_b_hbm(%a: memref<8x128xf32, #accel.space<vmem>>, %b: memref<128x128xf32, #accel.space<hbm>>, %c: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.matmul' op operand 'b' must be in vmem, not hbm}}
  accel.matmul %a, %b, %c : memref<8x128xf32, #accel.space<vmem>>, memref<128x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// matmul: c in HBM.
func.func @matmul_c_hbm(%a: memref<8x128xf32, #accel.space<vmem>>, %b: memref<128x128xf32, #accel.space<vmem>>, %c: memref<8x128xf32, #accel.space<hbm>>) {
  // expected-error @+1 {{'accel.matmul' op operand 'c' must be in vmem, not hbm}}
  accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #accel.space<vmem>>, memref<128x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
  return
}

// -----

// matmul: a missing memory space.
func.func @matmul_a_no_space(%a: memref<8x128xf32>, %b: memref<128x128xf32, #accel.space<vmem>>, %c: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.matmul' op operand 'a' must be in memory space #accel.space<hbm> or #accel.space<vmem>}}
  accel.matmul %a, %b, %c : memref<8x128xf32>, memref<128x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// matmul: a non-f32.
func.func @matmul_a_f16(%a: memref<8x128xf16, #accel.space<vmem>>, %b: memref<128x128xf32, #accel.space<vmem>>, %c: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.matmul' op operand 'a' must have f32 or bf16 elements}}
  accel.matmul %a, %b, %c : memref<8x128xf16, #accel.space<vmem>>, memref<128x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// matmul: b dynamic shape.
func.func @matmul_b_dynamic(%a: memref<8x128xf32, #accel.space<vmem>>, %b: memref<128x?xf32, #accel.space<vmem>>, %c: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.matmul' op operand 'b' must have a static shape}}
  accel.matmul %a, %b, %c : memref<8x128xf32, #accel.space<vmem>>, memref<128x?xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// matmul: c rank 3.
func.func @matmul_c_rank3(%a: memref<8x128xf32, #accel.space<vmem>>, %b: memref<128x128xf32, #accel.space<vmem>>, %c: memref<1x8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.matmul' op operand 'c' must have rank 1 or 2}}
  accel.matmul %a, %b, %c : memref<8x128xf32, #accel.space<vmem>>, memref<128x128xf32, #accel.space<vmem>>, memref<1x8x128xf32, #accel.space<vmem>>
  return
}

// -----

// matmul: c non-unit innermost stride.
func.func @matmul_c_stride(%a: memref<8x128xf32, #accel.space<vmem>>, %b: memref<128x128xf32, #accel.space<vmem>>, %c: memref<8x128xf32, strided<[256, 2]>, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.matmul' op operand 'c' must have unit innermost stride}}
  accel.matmul %a, %b, %c : memref<8x128xf32, #accel.space<vmem>>, memref<128x128xf32, #accel.space<vmem>>, memref<8x128xf32, strided<[256, 2]>, #accel.space<vmem>>
  return
}

// -----

// matmul: contraction mismatch.
func.func @matmul_contraction(%a: memref<8x128xf32, #accel.space<vmem>>, %b: memref<64x128xf32, #accel.space<vmem>>, %c: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.matmul' op contraction mismatch: a is 8x128 but b is 64x128}}
  accel.matmul %a, %b, %c : memref<8x128xf32, #accel.space<vmem>>, memref<64x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// matmul: contraction mismatch with a rank-1 a (one row).
func.func @matmul_contraction_1d(%a: memref<64xf32, #accel.space<vmem>>, %b: memref<128x128xf32, #accel.space<vmem>>, %c: memref<128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.matmul' op contraction mismatch: a is 1x64 but b is 128x128}}
  accel.matmul %a, %b, %c : memref<64xf32, #accel.space<vmem>>, memref<128x128xf32, #accel.space<vmem>>, memref<128xf32, #accel.space<vmem>>
  return
}

// -----

// matmul: c has the wrong number of columns.
func.func @matmul_c_cols(%a: memref<8x128xf32, #accel.space<vmem>>, %b: memref<128x64xf32, #accel.space<vmem>>, %c: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.matmul' op c must be 8x64, not 8x128}}
  accel.matmul %a, %b, %c : memref<8x128xf32, #accel.space<vmem>>, memref<128x64xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// matmul: c has the wrong number of rows.
func.func @matmul_c_rows(%a: memref<8x128xf32, #accel.space<vmem>>, %b: memref<128x128xf32, #accel.space<vmem>>, %c: memref<16x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.matmul' op c must be 8x128, not 16x128}}
  accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #accel.space<vmem>>, memref<128x128xf32, #accel.space<vmem>>, memref<16x128xf32, #accel.space<vmem>>
  return
}

// -----

// matmul: b is a non-contiguous subview.
func.func @matmul_b_not_contiguous(%a: memref<8x128xf32, #accel.space<vmem>>, %big: memref<128x256xf32, #accel.space<vmem>>, %c: memref<8x128xf32, #accel.space<vmem>>) {
  %b = memref.subview %big[0, 0][128, 128][1, 1] : memref<128x256xf32, #accel.space<vmem>> to memref<128x128xf32, strided<[256, 1]>, #accel.space<vmem>>
  // expected-error @+1 {{'accel.matmul' op operand 'b' must be contiguous (row stride equal to its column count)}}
  accel.matmul %a, %b, %c : memref<8x128xf32, #accel.space<vmem>>, memref<128x128xf32, strided<[256, 1]>, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vadd: x in HBM.
func.func @vadd_x_hbm(%x: memref<8x128xf32, #accel.space<hbm>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op operand 'x' must be in vmem, not hbm}}
  accel.vadd %x, %y, %o : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vadd: y in HBM.
func.func @vadd_y_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x1xf32, #accel.space<hbm>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op operand 'y' must be in vmem, not hbm}}
  accel.vadd %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vadd: out in HBM.
func.func @vadd_out_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<hbm>>) {
  // expected-error @+1 {{'accel.vadd' op operand 'out' must be in vmem, not hbm}}
  accel.vadd %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
  return
}

// -----

// vadd: out shape differs from x.
func.func @vadd_out_shape(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x64xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op x is 8x128 but out is 8x64}}
  accel.vadd %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x64xf32, #accel.space<vmem>>
  return
}

// -----

// vadd: y is neither x's shape nor Rx1.
func.func @vadd_bad_y(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x64xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op y must be 8x128, 8x1 (column broadcast) or 1x128 (row broadcast), not 8x64}}
  accel.vadd %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x64xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vsub: x in HBM.
func.func @vsub_x_hbm(%x: memref<8x128xf32, #accel.space<hbm>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vsub' op operand 'x' must be in vmem, not hbm}}
  accel.vsub %x, %y, %o : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vsub: y in HBM.
func.func @vsub_y_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x1xf32, #accel.space<hbm>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vsub' op operand 'y' must be in vmem, not hbm}}
  accel.vsub %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vsub: out in HBM.
func.func @vsub_out_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<hbm>>) {
  // expected-error @+1 {{'accel.vsub' op operand 'out' must be in vmem, not hbm}}
  accel.vsub %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
  return
}

// -----

// vsub: out shape differs from x.
func.func @vsub_out_shape(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x64xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vsub' op x is 8x128 but out is 8x64}}
  accel.vsub %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x64xf32, #accel.space<vmem>>
  return
}

// -----

// vsub: y is neither x's shape nor Rx1.
func.func @vsub_bad_y(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x64xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vsub' op y must be 8x128, 8x1 (column broadcast) or 1x128 (row broadcast), not 8x64}}
  accel.vsub %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x64xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vmul: x in HBM.
func.func @vmul_x_hbm(%x: memref<8x128xf32, #accel.space<hbm>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vmul' op operand 'x' must be in vmem, not hbm}}
  accel.vmul %x, %y, %o : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vmul: y in HBM.
func.func @vmul_y_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x1xf32, #accel.space<hbm>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vmul' op operand 'y' must be in vmem, not hbm}}
  accel.vmul %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vmul: out in HBM.
func.func @vmul_out_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<hbm>>) {
  // expected-error @+1 {{'accel.vmul' op operand 'out' must be in vmem, not hbm}}
  accel.vmul %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
  return
}

// -----

// vmul: out shape differs from x.
func.func @vmul_out_shape(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x64xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vmul' op x is 8x128 but out is 8x64}}
  accel.vmul %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x64xf32, #accel.space<vmem>>
  return
}

// -----

// vmul: y is neither x's shape nor Rx1.
func.func @vmul_bad_y(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x64xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vmul' op y must be 8x128, 8x1 (column broadcast) or 1x128 (row broadcast), not 8x64}}
  accel.vmul %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x64xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vdiv: x in HBM.
func.func @vdiv_x_hbm(%x: memref<8x128xf32, #accel.space<hbm>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vdiv' op operand 'x' must be in vmem, not hbm}}
  accel.vdiv %x, %y, %o : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vdiv: y in HBM.
func.func @vdiv_y_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x1xf32, #accel.space<hbm>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vdiv' op operand 'y' must be in vmem, not hbm}}
  accel.vdiv %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vdiv: out in HBM.
func.func @vdiv_out_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<hbm>>) {
  // expected-error @+1 {{'accel.vdiv' op operand 'out' must be in vmem, not hbm}}
  accel.vdiv %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
  return
}

// -----

// vdiv: out shape differs from x.
func.func @vdiv_out_shape(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x64xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vdiv' op x is 8x128 but out is 8x64}}
  accel.vdiv %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x64xf32, #accel.space<vmem>>
  return
}

// -----

// vdiv: y is neither x's shape nor Rx1.
func.func @vdiv_bad_y(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x64xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vdiv' op y must be 8x128, 8x1 (column broadcast) or 1x128 (row broadcast), not 8x64}}
  accel.vdiv %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x64xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vmax: x in HBM.
func.func @vmax_x_hbm(%x: memref<8x128xf32, #accel.space<hbm>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vmax' op operand 'x' must be in vmem, not hbm}}
  accel.vmax %x, %y, %o : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vmax: y in HBM.
func.func @vmax_y_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x1xf32, #accel.space<hbm>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vmax' op operand 'y' must be in vmem, not hbm}}
  accel.vmax %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vmax: out in HBM.
func.func @vmax_out_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<hbm>>) {
  // expected-error @+1 {{'accel.vmax' op operand 'out' must be in vmem, not hbm}}
  accel.vmax %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
  return
}

// -----

// vmax: out shape differs from x.
func.func @vmax_out_shape(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x64xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vmax' op x is 8x128 but out is 8x64}}
  accel.vmax %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x64xf32, #accel.space<vmem>>
  return
}

// -----

// vmax: y is neither x's shape nor Rx1.
func.func @vmax_bad_y(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x64xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vmax' op y must be 8x128, 8x1 (column broadcast) or 1x128 (row broadcast), not 8x64}}
  accel.vmax %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x64xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vadd: a row broadcast must have x's column count.
func.func @vadd_row_bcast_cols(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<1x64xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op y must be 8x128, 8x1 (column broadcast) or 1x128 (row broadcast), not 1x64}}
  accel.vadd %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<1x64xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vadd: broadcast column with the wrong number of rows.
func.func @vadd_bcast_rows(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<4x1xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op y must be 8x128, 8x1 (column broadcast) or 1x128 (row broadcast), not 4x1}}
  accel.vadd %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<4x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vadd: out rows differ from x.
func.func @vadd_out_rows(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<16x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op x is 8x128 but out is 16x128}}
  accel.vadd %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<16x128xf32, #accel.space<vmem>>
  return
}

// -----

// vadd: x missing memory space.
func.func @vadd_x_no_space(%x: memref<8x128xf32>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op operand 'x' must be in memory space #accel.space<hbm> or #accel.space<vmem>}}
  accel.vadd %x, %y, %o : memref<8x128xf32>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vadd: y non-f32.
func.func @vadd_y_f64(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x128xf64, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op operand 'y' must have f32 or bf16 elements}}
  accel.vadd %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf64, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vadd: out dynamic shape.
func.func @vadd_out_dynamic(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x?xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op operand 'out' must have a static shape}}
  accel.vadd %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x?xf32, #accel.space<vmem>>
  return
}

// -----

// vadd: x rank 3.
func.func @vadd_x_rank3(%x: memref<1x8x128xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op operand 'x' must have rank 1 or 2}}
  accel.vadd %x, %y, %o : memref<1x8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vadd: y non-unit innermost stride.
func.func @vadd_y_stride(%x: memref<8x128xf32, #accel.space<vmem>>, %y: memref<8x1xf32, strided<[2, 2]>, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op operand 'y' must have unit innermost stride}}
  accel.vadd %x, %y, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, strided<[2, 2]>, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vexp: x in HBM.
func.func @vexp_x_hbm(%x: memref<8x128xf32, #accel.space<hbm>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vexp' op operand 'x' must be in vmem, not hbm}}
  accel.vexp %x, %o : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vexp: out in HBM.
func.func @vexp_out_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<hbm>>) {
  // expected-error @+1 {{'accel.vexp' op operand 'out' must be in vmem, not hbm}}
  accel.vexp %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
  return
}

// -----

// vtanh, vmin: the new VPU ops verify like the others.
func.func @vtanh_x_hbm(%x: memref<8x128xf32, #accel.space<hbm>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vtanh' op operand 'x' must be in vmem, not hbm}}
  accel.vtanh %x, %o : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

func.func @vrsqrt_out_rows(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<4x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vrsqrt' op out must be 8x128, not 4x128}}
  accel.vrsqrt %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<4x128xf32, #accel.space<vmem>>
  return
}

// -----

func.func @vmin_out_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<hbm>>) {
  // expected-error @+1 {{'accel.vmin' op operand 'out' must be in vmem, not hbm}}
  accel.vmin %x, %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
  return
}

// -----

// vexp: out columns differ.
func.func @vexp_out_cols(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x1xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vexp' op out must be 8x128, not 8x1}}
  accel.vexp %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
  return
}

// -----

// vexp: out rows differ.
func.func @vexp_out_rows(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<4x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vexp' op out must be 8x128, not 4x128}}
  accel.vexp %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<4x128xf32, #accel.space<vmem>>
  return
}

// -----

// vsqrt: x in HBM.
func.func @vsqrt_x_hbm(%x: memref<8x128xf32, #accel.space<hbm>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vsqrt' op operand 'x' must be in vmem, not hbm}}
  accel.vsqrt %x, %o : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vsqrt: out in HBM.
func.func @vsqrt_out_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<hbm>>) {
  // expected-error @+1 {{'accel.vsqrt' op operand 'out' must be in vmem, not hbm}}
  accel.vsqrt %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
  return
}

// -----

// vsqrt: out columns differ.
func.func @vsqrt_out_cols(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x1xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vsqrt' op out must be 8x128, not 8x1}}
  accel.vsqrt %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
  return
}

// -----

// vsqrt: out rows differ.
func.func @vsqrt_out_rows(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<4x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vsqrt' op out must be 8x128, not 4x128}}
  accel.vsqrt %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<4x128xf32, #accel.space<vmem>>
  return
}

// -----

// vcopy: x in HBM.
func.func @vcopy_x_hbm(%x: memref<8x128xf32, #accel.space<hbm>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vcopy' op operand 'x' must be in vmem, not hbm}}
  accel.vcopy %x, %o : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vcopy: out in HBM.
func.func @vcopy_out_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<hbm>>) {
  // expected-error @+1 {{'accel.vcopy' op operand 'out' must be in vmem, not hbm}}
  accel.vcopy %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<hbm>>
  return
}

// -----

// vcopy: out columns differ.
func.func @vcopy_out_cols(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x1xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vcopy' op out must be 8x128, not 8x1}}
  accel.vcopy %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
  return
}

// -----

// vcopy: out rows differ.
func.func @vcopy_out_rows(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<4x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vcopy' op out must be 8x128, not 4x128}}
  accel.vcopy %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<4x128xf32, #accel.space<vmem>>
  return
}

// -----

// vexp: out non-f32.
func.func @vexp_out_f16(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf16, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vexp' op operand 'out' must have f32 or bf16 elements}}
  accel.vexp %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf16, #accel.space<vmem>>
  return
}

// -----

// vexp: x dynamic shape.
func.func @vexp_x_dynamic(%x: memref<?x?xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vexp' op operand 'x' must have a static shape}}
  accel.vexp %x, %o : memref<?x?xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vexp: out rank 3.
func.func @vexp_out_rank3(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128x1xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vexp' op operand 'out' must have rank 1 or 2}}
  accel.vexp %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128x1xf32, #accel.space<vmem>>
  return
}

// -----

// vexp: x missing memory space.
func.func @vexp_x_no_space(%x: memref<8x128xf32>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vexp' op operand 'x' must be in memory space #accel.space<hbm> or #accel.space<vmem>}}
  accel.vexp %x, %o : memref<8x128xf32>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vexp: x non-unit innermost stride.
func.func @vexp_x_stride(%x: memref<8x128xf32, strided<[256, 2]>, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vexp' op operand 'x' must have unit innermost stride}}
  accel.vexp %x, %o : memref<8x128xf32, strided<[256, 2]>, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vreduce_sum: x in HBM.
func.func @vreduce_sum_x_hbm(%x: memref<8x128xf32, #accel.space<hbm>>, %o: memref<8x1xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vreduce_sum' op operand 'x' must be in vmem, not hbm}}
  accel.vreduce_sum %x, %o : memref<8x128xf32, #accel.space<hbm>>, memref<8x1xf32, #accel.space<vmem>>
  return
}

// -----

// vreduce_sum: out in HBM.
func.func @vreduce_sum_out_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x1xf32, #accel.space<hbm>>) {
  // expected-error @+1 {{'accel.vreduce_sum' op operand 'out' must be in vmem, not hbm}}
  accel.vreduce_sum %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<hbm>>
  return
}

// -----

// vreduce_sum: out not reduced (RxC instead of Rx1).
func.func @vreduce_sum_out_full(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vreduce_sum' op out must be 8x1, not 8x128}}
  accel.vreduce_sum %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vreduce_sum: out rows differ.
func.func @vreduce_sum_out_rows(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<4x1xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vreduce_sum' op out must be 8x1, not 4x1}}
  accel.vreduce_sum %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<4x1xf32, #accel.space<vmem>>
  return
}

// -----

// vreduce_sum: rank-1 x reduces to 1x1.
func.func @vreduce_sum_x_rank1(%x: memref<128xf32, #accel.space<vmem>>, %o: memref<8x1xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vreduce_sum' op out must be 1x1, not 8x1}}
  accel.vreduce_sum %x, %o : memref<128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
  return
}

// -----

// vreduce_sum: out non-f32.
func.func @vreduce_sum_out_i32(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x1xi32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vreduce_sum' op operand 'out' must have f32 or bf16 elements}}
  accel.vreduce_sum %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xi32, #accel.space<vmem>>
  return
}

// -----

// vreduce_max: x in HBM.
func.func @vreduce_max_x_hbm(%x: memref<8x128xf32, #accel.space<hbm>>, %o: memref<8x1xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vreduce_max' op operand 'x' must be in vmem, not hbm}}
  accel.vreduce_max %x, %o : memref<8x128xf32, #accel.space<hbm>>, memref<8x1xf32, #accel.space<vmem>>
  return
}

// -----

// vreduce_max: out in HBM.
func.func @vreduce_max_out_hbm(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x1xf32, #accel.space<hbm>>) {
  // expected-error @+1 {{'accel.vreduce_max' op operand 'out' must be in vmem, not hbm}}
  accel.vreduce_max %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<hbm>>
  return
}

// -----

// vreduce_max: out not reduced (RxC instead of Rx1).
func.func @vreduce_max_out_full(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vreduce_max' op out must be 8x1, not 8x128}}
  accel.vreduce_max %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vreduce_max: out rows differ.
func.func @vreduce_max_out_rows(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<4x1xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vreduce_max' op out must be 8x1, not 4x1}}
  accel.vreduce_max %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<4x1xf32, #accel.space<vmem>>
  return
}

// -----

// vreduce_max: rank-1 x reduces to 1x1.
func.func @vreduce_max_x_rank1(%x: memref<128xf32, #accel.space<vmem>>, %o: memref<8x1xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vreduce_max' op out must be 1x1, not 8x1}}
  accel.vreduce_max %x, %o : memref<128xf32, #accel.space<vmem>>, memref<8x1xf32, #accel.space<vmem>>
  return
}

// -----

// vreduce_max: out non-f32.
func.func @vreduce_max_out_i32(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x1xi32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vreduce_max' op operand 'out' must have f32 or bf16 elements}}
  accel.vreduce_max %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x1xi32, #accel.space<vmem>>
  return
}

// -----

// vfill: out in HBM.
func.func @vfill_hbm(%o: memref<8x128xf32, #accel.space<hbm>>) {
  // expected-error @+1 {{'accel.vfill' op operand 'out' must be in vmem, not hbm}}
  accel.vfill %o, 0.0 : memref<8x128xf32, #accel.space<hbm>>
  return
}

// -----

// vfill: missing memory space.
func.func @vfill_no_space(%o: memref<8x128xf32>) {
  // expected-error @+1 {{'accel.vfill' op operand 'out' must be in memory space #accel.space<hbm> or #accel.space<vmem>}}
  accel.vfill %o, 0.0 : memref<8x128xf32>
  return
}

// -----

// vfill: non-f32.
func.func @vfill_f16(%o: memref<8x128xf16, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vfill' op operand 'out' must have f32 or bf16 elements}}
  accel.vfill %o, 0.0 : memref<8x128xf16, #accel.space<vmem>>
  return
}

// -----

// vfill: dynamic shape.
func.func @vfill_dynamic(%o: memref<?xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vfill' op operand 'out' must have a static shape}}
  accel.vfill %o, 0.0 : memref<?xf32, #accel.space<vmem>>
  return
}

// -----

// vfill: rank 3.
func.func @vfill_rank3(%o: memref<2x2x2xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vfill' op operand 'out' must have rank 1 or 2}}
  accel.vfill %o, 0.0 : memref<2x2x2xf32, #accel.space<vmem>>
  return
}

// -----

// vfill: non-unit innermost stride.
func.func @vfill_stride(%o: memref<8x64xf32, strided<[128, 2]>, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vfill' op operand 'out' must have unit innermost stride}}
  accel.vfill %o, 0.0 : memref<8x64xf32, strided<[128, 2]>, #accel.space<vmem>>
  return
}

// -----

// vfill: dynamic strides.
func.func @vfill_dyn_stride(%o: memref<8x128xf32, strided<[?, 1]>, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vfill' op operand 'out' must have static strides}}
  accel.vfill %o, 0.0 : memref<8x128xf32, strided<[?, 1]>, #accel.space<vmem>>
  return
}

// -----

// vfill: row stride above the ISA limit.
func.func @vfill_big_stride(%o: memref<2x128xf32, strided<[65536, 1]>, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vfill' op operand 'out' has a dimension or row stride above 65535 elements, the ISA limit}}
  accel.vfill %o, 0.0 : memref<2x128xf32, strided<[65536, 1]>, #accel.space<vmem>>
  return
}

// -----

// Tile rules: a row stride below the column count makes rows overlap.
func.func @overlapping_rows(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, strided<[0, 1]>, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vcopy' op operand 'out' must have a row stride of at least its column count (rows must not overlap)}}
  accel.vcopy %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, strided<[0, 1]>, #accel.space<vmem>>
  return
}

// -----

// Tile rules: negative row stride.
func.func @negative_stride(%x: memref<8x128xf32, strided<[-128, 1], offset: 1024>, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vcopy' op operand 'x' must have a row stride of at least its column count (rows must not overlap)}}
  accel.vcopy %x, %o : memref<8x128xf32, strided<[-128, 1], offset: 1024>, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// Tile rules: negative static offset.
func.func @negative_offset(%x: memref<8x128xf32, strided<[128, 1], offset: -5>, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vcopy' op operand 'x' must not have a negative offset}}
  accel.vcopy %x, %o : memref<8x128xf32, strided<[128, 1], offset: -5>, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// Tile rules: empty tiles.
func.func @empty_alloc() {
  // expected-error @+1 {{'accel.alloc' op operand 'result' must not be empty}}
  %a = accel.alloc : memref<0x128xf32, #accel.space<vmem>>
  return
}

// -----

// load: the buffer must hold i32.
func.func @load_f32(%b: memref<16xf32, #accel.space<vmem>>, %i: index) -> index {
  // expected-error @+1 {{'accel.load' op operand 'buffer' must have i32 elements}}
  %v = accel.load %b[%i] : memref<16xf32, #accel.space<vmem>>
  return %v : index
}

// -----

// load: one index per dimension.
func.func @load_rank(%b: memref<4x16xi32, #accel.space<vmem>>, %i: index) -> index {
  // expected-error @+1 {{'accel.load' op expects 2 indices, one per dimension, not 1}}
  %v = accel.load %b[%i] : memref<4x16xi32, #accel.space<vmem>>
  return %v : index
}

// -----

// load: from VMEM only.
func.func @load_hbm(%b: memref<16xi32, #accel.space<hbm>>, %i: index) -> index {
  // expected-error @+1 {{'accel.load' op operand 'buffer' must be in vmem, not hbm}}
  %v = accel.load %b[%i] : memref<16xi32, #accel.space<hbm>>
  return %v : index
}

// -----

// A DMA has one side on the issuing chip.
func.func @dma_two_remote_chips(%x: memref<8x128xf32, #accel.space<hbm>>, %c: index) {
  %v = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  // expected-error @+1 {{'accel.dma_start' op takes src_chip or dst_chip, not both: one side of a DMA is on the issuing chip}}
  %t = accel.dma_start %x, %v src_chip %c dst_chip %c : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// Semaphores are 0-255.
func.func @dma_signal_out_of_range(%x: memref<8x128xf32, #accel.space<hbm>>) {
  %v = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  // expected-error @+1 {{'accel.dma_start' op attribute 'signal' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative whose maximum value is 255}}
  %t = accel.dma_start %x, %v signal 256 : memref<8x128xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

func.func @sem_wait_negative(%n: index) {
  // expected-error @+1 {{'accel.sem_wait' op attribute 'semaphore' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative whose maximum value is 255}}
  accel.sem_wait -1, %n
  return
}

// -----

// The count is an index.
// expected-note @+1 {{prior use here}}
func.func @sem_wait_count_type(%n: i32) {
  // expected-error @+1 {{use of value '%n' expects different type than prior uses: 'index' vs 'i32'}}
  accel.sem_wait 0, %n
  return
}

// -----

// vtranspose: out has x's shape instead of its transpose.
func.func @vtranspose_not_transposed(%x: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vtranspose' op out must be 128x8 (x transposed), not 8x128}}
  accel.vtranspose %x, %o : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vtranspose: x in HBM (the transpose unit reads VMEM).
func.func @vtranspose_x_hbm(%x: memref<8x128xf32, #accel.space<hbm>>, %o: memref<128x8xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vtranspose' op operand 'x' must be in vmem, not hbm}}
  accel.vtranspose %x, %o : memref<8x128xf32, #accel.space<hbm>>, memref<128x8xf32, #accel.space<vmem>>
  return
}

// -----

// vcmp: x must be the full tile (only y broadcasts).
func.func @vcmp_x_column(%x: memref<8x1xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vcmp' op x is 8x1 but out is 8x128}}
  accel.vcmp olt, %x, %y, %o : memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vcmp: a predicate that is not one of arith.cmpf's.
func.func @vcmp_bad_predicate(%x: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'predicate' [false, oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, uge, ult, ule, une, uno, true]}}
  accel.vcmp slt, %x, %x, %x : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vselect: the mask has out's shape.
func.func @vselect_mask_shape(%m: memref<8x1xf32, #accel.space<vmem>>, %y: memref<8x128xf32, #accel.space<vmem>>, %o: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vselect' op mask is 8x1 but out is 8x128}}
  accel.vselect %m, %y, %o : memref<8x1xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// vselect: y neither out's shape nor a broadcast of it.
func.func @vselect_y_shape(%m: memref<8x128xf32, #accel.space<vmem>>, %y: memref<4x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vselect' op y must be 8x128, 8x1 (column broadcast) or 1x128 (row broadcast), not 4x128}}
  accel.vselect %m, %y, %m : memref<8x128xf32, #accel.space<vmem>>, memref<4x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// viota: out in HBM.
func.func @viota_hbm(%i: index, %o: memref<8x128xf32, #accel.space<hbm>>) {
  // expected-error @+1 {{'accel.viota' op operand 'out' must be in vmem, not hbm}}
  accel.viota %i, %o : memref<8x128xf32, #accel.space<hbm>>
  return
}

// -----

// Tile shapes of identity layouts (getTileShape computes their row-major
// strides itself; a zero size leaves it to getStridesAndOffset, which gives
// a dynamic stride before a zero-size last dimension).
func.func @tile_zero_cols(%x: memref<4x0xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op operand 'x' must have static strides}}
  accel.vadd %x, %x, %x : memref<4x0xf32, #accel.space<vmem>>, memref<4x0xf32, #accel.space<vmem>>, memref<4x0xf32, #accel.space<vmem>>
  return
}

// -----

func.func @tile_zero_rows(%x: memref<0x8xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op operand 'x' must not be empty}}
  accel.vadd %x, %x, %x : memref<0x8xf32, #accel.space<vmem>>, memref<0x8xf32, #accel.space<vmem>>, memref<0x8xf32, #accel.space<vmem>>
  return
}

// -----

func.func @tile_zero_rank1(%x: memref<0xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op operand 'x' must not be empty}}
  accel.vadd %x, %x, %x : memref<0xf32, #accel.space<vmem>>, memref<0xf32, #accel.space<vmem>>, memref<0xf32, #accel.space<vmem>>
  return
}

// -----

// A column-major affine-map layout is not row-major: its innermost stride
// is 4.
func.func @tile_column_major(%x: memref<4x8xf32, affine_map<(d0, d1) -> (d1 * 4 + d0)>, #accel.space<vmem>>) {
  // expected-error @+1 {{'accel.vadd' op operand 'x' must have unit innermost stride}}
  accel.vadd %x, %x, %x : memref<4x8xf32, affine_map<(d0, d1) -> (d1 * 4 + d0)>, #accel.space<vmem>>, memref<4x8xf32, affine_map<(d0, d1) -> (d1 * 4 + d0)>, #accel.space<vmem>>, memref<4x8xf32, affine_map<(d0, d1) -> (d1 * 4 + d0)>, #accel.space<vmem>>
  return
}
