// RUN: accel-opt %s -split-input-file -verify-diagnostics

// Issue 31: sizes from the user's dimensions are computed with overflow
// checks. 2^32 x 2^32 f32 elements are 2^66 bytes, which 64-bit arithmetic
// wraps to 0: the verifier names the exact size instead.

func.func @alloc_2_66_bytes() {
  // expected-error @+1 {{'accel.alloc' op result 'memref<4294967296x4294967296xf32, #accel.space<vmem>>' holds 4294967296 × 4294967296 × 4 bytes = 73786976294838206464 bytes (2^66), more than the 2^63 - 1 bytes a buffer can have}}
  %a = accel.alloc : memref<4294967296x4294967296xf32, #accel.space<vmem>>
  return
}

// -----

func.func @alloc_rank1_overflow() {
  // expected-error @+1 {{holds 1152921504606846976 × 16 × 4 bytes = 73786976294838206464 bytes (2^66), more than the 2^63 - 1 bytes}}
  %a = accel.alloc : memref<1152921504606846976x16xf32, #accel.space<vmem>>
  return
}

// -----

// bf16: 2 bytes per element. 2^62 elements are 2^63 bytes, one past the
// largest size.
func.func @alloc_bf16_just_over() {
  // expected-error @+1 {{holds 2147483648 × 2147483648 × 2 bytes = 9223372036854775808 bytes (2^63), more than the 2^63 - 1 bytes}}
  %a = accel.alloc : memref<2147483648x2147483648xbf16, #accel.space<vmem>>
  return
}

// -----

// A size that fits 64 bits but not the ISA's 16-bit tile fields: the tile
// rule, as before.
func.func @alloc_fits_but_too_wide() {
  // expected-error @+1 {{operand 'result' has a dimension or row stride above 65535 elements, the ISA limit}}
  %a = accel.alloc : memref<65536x65536xf32, #accel.space<vmem>>
  return
}

// -----

// A DMA from a 2^66-byte HBM argument: the tile rule refuses the 2^32-wide
// rows (the lowering names the argument's size: test/Target/AccelToISA/
// sizes.mlir).
func.func @dma_from_huge(%x: memref<4294967296x4294967296xf32, #accel.space<hbm>>,
                         %v: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{operand 'src' has a dimension or row stride above 65535 elements, the ISA limit}}
  %t = accel.dma_start %x, %v : memref<4294967296x4294967296xf32, #accel.space<hbm>>, memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// The largest matmul the ISA encodes is far from any overflow: 65535 x
// 65535 f32 tiles are 16 GiB; one dimension past the 16-bit fields is the
// tile rule.
func.func @matmul_too_wide(%a: memref<8x65536xf32, #accel.space<vmem>>,
                           %b: memref<65536x8xf32, #accel.space<vmem>>,
                           %c: memref<8x8xf32, #accel.space<vmem>>) {
  // expected-error @+1 {{operand 'a' has a dimension or row stride above 65535 elements, the ISA limit}}
  accel.matmul %a, %b, %c : memref<8x65536xf32, #accel.space<vmem>>, memref<65536x8xf32, #accel.space<vmem>>, memref<8x8xf32, #accel.space<vmem>>
  return
}
