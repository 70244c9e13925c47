// RUN: accel-opt %s -split-input-file --accel-assign-op-ids -verify-diagnostics | FileCheck %s

// Existing ids are kept; new ids count up from the largest one, in program
// order; scf.for gets an id, arith ops do not.
// CHECK-LABEL: func.func @ids
// CHECK: accel.alloc {accel.op_id = 8 : i64}
// CHECK: accel.alloc {accel.op_id = 7 : i64}
// CHECK: arith.constant 0 : index
// CHECK-NOT: accel.op_id
// CHECK: scf.for
// CHECK: accel.vfill %{{.*}} {accel.op_id = 10 : i64}
// CHECK: } {accel.op_id = 9 : i64}
func.func @ids() {
  %a = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  %b = accel.alloc {accel.op_id = 7} : memref<8x128xf32, #accel.space<vmem>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    accel.vfill %a, 0.0 : memref<8x128xf32, #accel.space<vmem>>
  }
  return
}

// -----

func.func @dup() {
  // expected-remark @+1 {{first use of accel.op_id 3}}
  %a = accel.alloc {accel.op_id = 3} : memref<8x128xf32, #accel.space<vmem>>
  // expected-error @+1 {{duplicate accel.op_id 3}}
  %b = accel.alloc {accel.op_id = 3} : memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

func.func @negative() {
  // expected-error @+1 {{accel.op_id must be in [1, 2147483647], not -2}}
  %a = accel.alloc {accel.op_id = -2} : memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// INT64_MAX is DenseMap's empty key: it crashed --accel-assign-op-ids and
// --accel-attach-metrics (issue 12). Now no id above 2^31 - 1 gets past the
// verifier, whose limit is the program image's 32-bit origin field.
func.func @empty_key() {
  // expected-error @+1 {{accel.op_id must be in [1, 2147483647], not 9223372036854775807}}
  %a = accel.alloc {accel.op_id = 9223372036854775807} : memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

func.func @too_large() {
  // expected-error @+1 {{accel.op_id must be in [1, 2147483647], not 4294967301}}
  %a = accel.alloc {accel.op_id = 4294967301} : memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

func.func @not_an_integer() {
  // expected-error @+1 {{accel.op_id must be an integer, not "7"}}
  %a = accel.alloc {accel.op_id = "7"} : memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

// The largest id is taken: a new one would overflow (++maxId was signed
// overflow for INT64_MAX).
func.func @exhausted() {
  %a = accel.alloc {accel.op_id = 2147483647} : memref<8x128xf32, #accel.space<vmem>>
  // expected-error @+1 {{no accel.op_id left: the module already uses 2147483647}}
  %b = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  return
}
