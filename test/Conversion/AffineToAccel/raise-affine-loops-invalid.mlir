// Each nest that touches memory but cannot be one linalg op gets one error
// at its outermost loop naming the reason.
// RUN: accel-opt %s -split-input-file --accel-raise-affine-loops -verify-diagnostics

func.func @symbolic_bound(%a: memref<128xf32, 1>, %b: memref<128xf32, 1>, %n: index) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: a loop has a non-constant upper bound}}
  affine.for %i = 0 to %n {
    %x = affine.load %a[%i] : memref<128xf32, 1>
    affine.store %x, %b[%i] : memref<128xf32, 1>
  }
  return
}

// -----

func.func @step_two(%a: memref<32x128xf32, 1>, %b: memref<32x128xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: a loop has step 2; only step 1 is supported}}
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 128 step 2 {
      %x = affine.load %a[%i, %j] : memref<32x128xf32, 1>
      affine.store %x, %b[%i, %j] : memref<32x128xf32, 1>
    }
  }
  return
}

// -----

func.func @coefficient(%a: memref<256xf32, 1>, %b: memref<128xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: an index multiplies a loop index by a coefficient other than 1}}
  affine.for %i = 0 to 128 {
    %x = affine.load %a[2 * %i] : memref<256xf32, 1>
    affine.store %x, %b[%i] : memref<128xf32, 1>
  }
  return
}

// -----

func.func @index_in_mod(%a: memref<2x128xf32, 1>, %b: memref<128xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: an index takes a loop index into a mod, floordiv or ceildiv}}
  affine.for %i = 0 to 128 {
    %x = affine.load %a[%i mod 2, %i] : memref<2x128xf32, 1>
    affine.store %x, %b[%i] : memref<128xf32, 1>
  }
  return
}

// -----

func.func @diagonal(%a: memref<128x128xf32, 1>, %b: memref<128xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: a loop index indexes two dimensions of one access}}
  affine.for %i = 0 to 128 {
    %x = affine.load %a[%i, %i] : memref<128x128xf32, 1>
    affine.store %x, %b[%i] : memref<128xf32, 1>
  }
  return
}

// -----

func.func @index_computed_inside(%a: memref<128x8xf32, 1>, %b: memref<128xf32, 1>) {
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c1 : memref<128x8xf32, 1>
  // expected-error @below {{cannot raise this loop nest to a linalg op: an index is computed inside the nest}}
  affine.for %i = 0 to 128 {
    %last = arith.subi %n, %c1 : index
    %x = affine.load %a[%i, %last] : memref<128x8xf32, 1>
    affine.store %x, %b[%i] : memref<128xf32, 1>
  }
  return
}

// -----

func.func @two_stores(%a: memref<128xf32, 1>, %b: memref<128xf32, 1>, %c: memref<128xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: it stores more than once; exactly one affine.store is supported}}
  affine.for %i = 0 to 128 {
    %x = affine.load %a[%i] : memref<128xf32, 1>
    affine.store %x, %b[%i] : memref<128xf32, 1>
    affine.store %x, %c[%i] : memref<128xf32, 1>
  }
  return
}

// -----

func.func @loop_carried(%a: memref<128xf32, 1>, %b: memref<1xf32, 1>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @below {{cannot raise this loop nest to a linalg op: a loop carries a value (iter_args)}}
  %sum = affine.for %i = 0 to 128 iter_args(%acc = %zero) -> (f32) {
    %x = affine.load %a[%i] : memref<128xf32, 1>
    %s = arith.addf %acc, %x : f32
    affine.store %s, %b[0] : memref<1xf32, 1>
    affine.yield %s : f32
  }
  return
}

// -----

func.func @not_perfect(%a: memref<32x128xf32, 1>, %b: memref<32x128xf32, 1>, %s: memref<32xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: it is not perfectly nested (the loads and stores must all be in the innermost loop)}}
  affine.for %i = 0 to 32 {
    %scale = affine.load %s[%i] : memref<32xf32, 1>
    affine.for %j = 0 to 128 {
      %x = affine.load %a[%i, %j] : memref<32x128xf32, 1>
      %y = arith.mulf %x, %scale : f32
      affine.store %y, %b[%i, %j] : memref<32x128xf32, 1>
    }
  }
  return
}

// -----

func.func @single_element(%a: memref<128xf32, 1>, %b: memref<128xf32, 1>, %s: memref<4xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: it reads a single element of a buffer (no loop index indexes it); accel has no one-element operands}}
  affine.for %i = 0 to 128 {
    %x = affine.load %a[%i] : memref<128xf32, 1>
    %scale = affine.load %s[2] : memref<4xf32, 1>
    %y = arith.mulf %x, %scale : f32
    affine.store %y, %b[%i] : memref<128xf32, 1>
  }
  return
}

// -----

func.func @outside_scalar(%a: memref<128xf32, 1>, %b: memref<128xf32, 1>, %scale: f32) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: it computes with a scalar defined outside the nest}}
  affine.for %i = 0 to 128 {
    %x = affine.load %a[%i] : memref<128xf32, 1>
    %y = arith.mulf %x, %scale : f32
    affine.store %y, %b[%i] : memref<128xf32, 1>
  }
  return
}

// -----

func.func @index_as_scalar(%b: memref<128xi64, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: it uses a loop index as a scalar}}
  affine.for %i = 0 to 128 {
    %x = arith.index_cast %i : index to i64
    affine.store %x, %b[%i] : memref<128xi64, 1>
  }
  return
}

// -----

func.func @memref_load(%a: memref<128xf32, 1>, %b: memref<128xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: it accesses memory with 'memref.load'; use affine.load and affine.store}}
  affine.for %i = 0 to 128 {
    %x = memref.load %a[%i] : memref<128xf32, 1>
    affine.store %x, %b[%i] : memref<128xf32, 1>
  }
  return
}

// -----

func.func @other_op(%a: memref<128xf32, 1>, %b: memref<128xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: it holds 'affine.apply', which is not an affine.load, an affine.store or an arith or math op}}
  affine.for %i = 0 to 128 {
    %x = affine.load %a[%i] : memref<128xf32, 1>
    %j = affine.apply affine_map<(d0) -> (d0 * 2)>(%i)
    affine.store %x, %b[%i] : memref<128xf32, 1>
  }
  return
}

// -----

func.func @shifted_read_of_output(%a: memref<128xf32, 1>, %b: memref<129xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: it reads the buffer it writes at other elements}}
  affine.for %i = 0 to 128 {
    %x = affine.load %a[%i] : memref<128xf32, 1>
    %y = affine.load %b[%i + 1] : memref<129xf32, 1>
    %s = arith.addf %x, %y : f32
    affine.store %s, %b[%i] : memref<129xf32, 1>
  }
  return
}

// -----

func.func @load_after_store(%a: memref<128xf32, 1>, %b: memref<128xf32, 1>, %c: memref<128xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: it reads the buffer it writes after the store}}
  affine.for %i = 0 to 128 {
    %x = affine.load %a[%i] : memref<128xf32, 1>
    affine.store %x, %b[%i] : memref<128xf32, 1>
    %y = affine.load %b[%i] : memref<128xf32, 1>
    %z = arith.negf %y : f32
  }
  return
}

// -----

func.func @overwrite_in_reduction(%a: memref<32x128xf32, 1>, %b: memref<32xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: it overwrites its output in a reduction loop (the stored value does not depend on the value loaded from the stored element)}}
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 128 {
      %x = affine.load %a[%i, %j] : memref<32x128xf32, 1>
      affine.store %x, %b[%i] : memref<32xf32, 1>
    }
  }
  return
}

// -----

func.func @unused_loop(%a: memref<32xf32, 1>, %b: memref<32xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: a loop's index indexes no access}}
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 4 {
      %x = affine.load %a[%i] : memref<32xf32, 1>
      %y = affine.load %b[%i] : memref<32xf32, 1>
      %s = arith.addf %x, %y : f32
      affine.store %s, %b[%i] : memref<32xf32, 1>
    }
  }
  return
}

// -----

func.func @no_store(%a: memref<128xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: it has no affine.store}}
  affine.for %i = 0 to 128 {
    %x = affine.load %a[%i] : memref<128xf32, 1>
  }
  return
}

// -----

// Nests in a tile loop are checked one by one: the first is fine, the
// second is not.
func.func @in_tile_loop(%a: memref<4x128xf32, 1>, %b: memref<4x128xf32, 1>) {
  affine.for %t = 0 to 4 {
    affine.for %i = 0 to 128 {
      %x = affine.load %a[%t, %i] : memref<4x128xf32, 1>
      affine.store %x, %b[%t, %i] : memref<4x128xf32, 1>
    }
    // expected-error @below {{cannot raise this loop nest to a linalg op: a loop has step 4; only step 1 is supported}}
    affine.for %i = 0 to 128 step 4 {
      %x = affine.load %a[%t, %i] : memref<4x128xf32, 1>
      affine.store %x, %b[%t, %i] : memref<4x128xf32, 1>
    }
  }
  return
}

// -----

// Found by fuzz-mlir: a loop from -1 reads before the memref's start; the
// raise built a subview at offset -1, which has no type, and crashed.
func.func @starts_before_the_memref(%a: memref<8x128xf32, 1>, %b: memref<8x128xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: an access indexes [-1, 128) of dimension 1 of size 128, outside its memref}}
  affine.for %i = 0 to 8 {
    affine.for %j = -1 to 128 {
      %x = affine.load %a[%i, %j] : memref<8x128xf32, 1>
      affine.store %x, %b[%i, %j] : memref<8x128xf32, 1>
    }
  }
  return
}

// -----

func.func @runs_past_the_memref(%a: memref<8x128xf32, 1>, %b: memref<8x128xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: an access indexes [1, 129) of dimension 1 of size 128, outside its memref}}
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 128 {
      %x = affine.load %a[%i, %j + 1] : memref<8x128xf32, 1>
      affine.store %x, %b[%i, %j] : memref<8x128xf32, 1>
    }
  }
  return
}

// -----

// Found by fuzz-mlir: an empty loop became a linalg op with an empty
// dimension, on which upstream tiling crashed.
func.func @empty_loop(%a: memref<8x128xf32, 1>, %b: memref<8x128xf32, 1>) {
  // expected-error @below {{cannot raise this loop nest to a linalg op: a loop runs no iterations (upper bound 100 is not above lower bound 128)}}
  affine.for %i = 0 to 8 {
    affine.for %j = 128 to 100 {
      %x = affine.load %a[%i, %j] : memref<8x128xf32, 1>
      affine.store %x, %b[%i, %j] : memref<8x128xf32, 1>
    }
  }
  return
}
