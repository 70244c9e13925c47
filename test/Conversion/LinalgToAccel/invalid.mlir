// Each op the conversion cannot express on the accel units gets one error
// at the op that names the reason; the op is left as it was.
// RUN: accel-opt %s -split-input-file --convert-linalg-to-accel -verify-diagnostics

func.func @tensor_operands(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @below {{cannot convert 'linalg.add' to accel: it works on tensors; bufferize first (--one-shot-bufferize)}}
  %r = linalg.add ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%a : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

#hbm = #accel.space<hbm>
func.func @hbm_to_hbm(%a: memref<8x128xf32, #hbm>, %b: memref<8x128xf32, #hbm>) {
  // expected-error @below {{cannot convert 'memref.copy' to accel: it copies HBM to HBM, which no DMA link does; stage the data through a VMEM buffer}}
  memref.copy %a, %b : memref<8x128xf32, #hbm> to memref<8x128xf32, #hbm>
  return
}

// -----

func.func @no_space(%a: memref<8x128xf32>, %b: memref<8x128xf32, #accel.space<vmem>>) {
  // expected-error @below {{cannot convert 'memref.copy' to accel: the source must be in memory space #accel.space<hbm> or #accel.space<vmem>}}
  memref.copy %a, %b : memref<8x128xf32> to memref<8x128xf32, #accel.space<vmem>>
  return
}

// -----

#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @matmul_hbm(%a: memref<8x128xf32, #hbm>, %b: memref<128x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.matmul' to accel: A is in HBM; the MXU and the VPU read VMEM only: copy it to a VMEM buffer first}}
  linalg.matmul ins(%a, %b : memref<8x128xf32, #hbm>, memref<128x128xf32, #vmem>) outs(%c : memref<8x128xf32, #vmem>)
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @matmul_transposed(%a: memref<128x8xf32, #vmem>, %b: memref<128x128xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.matmul' to accel: its indexing maps transpose or broadcast an operand}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<128x8xf32, #vmem>, memref<128x128xf32, #vmem>) outs(%c : memref<8x128xf32, #vmem>)
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @matmul_strided_b(%a: memref<8x128xf32, #vmem>, %b: memref<128x256xf32, #vmem>, %c: memref<8x128xf32, #vmem>) {
  %s = memref.subview %b[0, 0] [128, 128] [1, 1] : memref<128x256xf32, #vmem> to memref<128x128xf32, strided<[256, 1]>, #vmem>
  // expected-error @below {{cannot convert 'linalg.matmul' to accel: B is a strided view (row stride 256, 128 columns); the MXU loads B contiguously}}
  linalg.matmul ins(%a, %s : memref<8x128xf32, #vmem>, memref<128x128xf32, strided<[256, 1]>, #vmem>) outs(%c : memref<8x128xf32, #vmem>)
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @fill_not_constant(%c: memref<8x128xf32, #vmem>, %v: f32) {
  // expected-error @below {{cannot convert 'linalg.fill' to accel: the fill value is not an f32 or bf16 constant}}
  linalg.fill ins(%v : f32) outs(%c : memref<8x128xf32, #vmem>)
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @transposed_output(%x: memref<8x8xf32, #vmem>, %y: memref<8x8xf32, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.generic' to accel: it writes its output transposed ((i, j) -> (j, i)); write the output in loop order and transpose an input instead}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x8xf32, #vmem>) outs(%y : memref<8x8xf32, #vmem>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @no_vpu_op(%x: memref<8x128xf32, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.generic' to accel: its body has 'math.sin', which has no VPU counterpart}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%x : memref<8x128xf32, #vmem>) {
  ^bb0(%a: f32):
    %t = math.sin %a : f32
    linalg.yield %t : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @integer_tile(%x: memref<8x128xi32, #vmem>) {
  %c = arith.constant 0 : i32
  // expected-error @below {{cannot convert 'linalg.fill' to accel: the output must have f32 or bf16 elements}}
  linalg.fill ins(%c : i32) outs(%x : memref<8x128xi32, #vmem>)
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @dynamic(%x: memref<?x128xf32, #vmem>, %y: memref<?x128xf32, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.exp' to accel: its loop bounds are dynamic; tiles have static shapes}}
  linalg.exp ins(%x : memref<?x128xf32, #vmem>) outs(%y : memref<?x128xf32, #vmem>)
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @captured_scalar(%x: memref<8x128xf32, #vmem>, %s: f32) {
  // expected-error @below {{cannot convert 'linalg.generic' to accel: its body uses a value defined outside it that is not a constant (the VPU ops take f32 and bf16 constants only)}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%x : memref<8x128xf32, #vmem>) {
  ^bb0(%a: f32):
    %t = arith.mulf %a, %s : f32
    linalg.yield %t : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @reduce_only_loop(%x: memref<128xf32, #vmem>, %o: memref<1xf32, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.generic' to accel: it reduces its only loop; the VPU reduces the last dimension of a 2-D tile only (rows x cols -> rows x 1)}}
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (0)>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<128xf32, #vmem>) outs(%o : memref<1xf32, #vmem>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @reduce_all(%x: memref<128xf32, #vmem>, %o: memref<f32, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.reduce' to accel: it reduces its only loop; the VPU reduces the last dimension of a 2-D tile only (rows x cols -> rows x 1)}}
  linalg.reduce ins(%x : memref<128xf32, #vmem>) outs(%o : memref<f32, #vmem>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @product_reduction(%x: memref<8x128xf32, #vmem>, %o: memref<8xf32, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.reduce' to accel: its reduction is not acc + x or max(acc, x) with acc the output's value used once (the VPU reduces rows by sum or maximum)}}
  linalg.reduce ins(%x : memref<8x128xf32, #vmem>) outs(%o : memref<8xf32, #vmem>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %s = arith.mulf %a, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @reduction_reads_acc(%x: memref<8x128xf32, #vmem>, %o: memref<8xf32, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.generic' to accel: its reduction is not acc + x or max(acc, x) with acc the output's value used once}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x128xf32, #vmem>) outs(%o : memref<8xf32, #vmem>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.mulf %a, %acc : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @row_read_as_column(%x: memref<8x128xf32, #vmem>, %b: memref<1x8xf32, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.generic' to accel: operand #1 is a vector read along the other loop than its own dimension}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0, i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<8x128xf32, #vmem>, memref<1x8xf32, #vmem>) outs(%x : memref<8x128xf32, #vmem>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>
func.func @shifted_index(%x: memref<8x128xf32, #vmem>, %y: memref<8x129xf32, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.generic' to accel: operand #0's indexing map (d0, d1) -> (d0, d1 + 1) indexes a dimension by neither a loop index nor 0}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j + 1)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<8x129xf32, #vmem>) outs(%x : memref<8x128xf32, #vmem>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

#hbm = #accel.space<hbm>
func.func @scalar_loop(%a: memref<64x128xf32, #hbm>, %b: memref<64x128xf32, #hbm>) {
  %c2 = arith.constant 2.0 : f32
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 128 {
      // expected-error @below {{cannot convert 'affine.load' to accel: a scalar float access (a loop nest over elements); accel computes on tiles: write the computation as linalg ops (linalg.generic, linalg.matmul, ...)}}
      %v = affine.load %a[%i, %j] : memref<64x128xf32, #hbm>
      %w = arith.mulf %v, %c2 : f32
      affine.store %w, %b[%i, %j] : memref<64x128xf32, #hbm>
    }
  }
  return
}

// -----

func.func @no_accel_space(%a: memref<8x128xf32>, %b: memref<8x128xf32>) {
  // expected-error @below {{cannot convert 'linalg.exp' to accel: the output must be in memory space #accel.space<hbm> or #accel.space<vmem> (upstream's memory spaces map to accel's with --convert-memory-spaces-to-accel; --accel-from-linalg runs the whole frontend)}}
  linalg.exp ins(%a : memref<8x128xf32>) outs(%b : memref<8x128xf32>)
  return
}

// -----

// arith.truncf with another rounding mode than to nearest even, and a
// conversion to a type the VPU has not, have no VPU counterpart.
#vmem = #accel.space<vmem>
func.func @truncf_toward_zero(%x: memref<8x128xf32, #vmem>, %y: memref<8x128xbf16, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.generic' to accel: its body has 'arith.truncf', which has no VPU counterpart (the VPU adds, subtracts, multiplies, divides, takes the maximum and minimum, exp, expm1, log, log1p, sqrt, rsqrt, tanh, erf, abs, copysign, floor, ceil, round and roundeven, and negates f32 and bf16, converts between them to nearest even, compares and selects, and reads linalg.index)}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x128xf32, #vmem>) outs(%y : memref<8x128xbf16, #vmem>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a toward_zero : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

// -----

#vmem = #accel.space<vmem>
// An unsigned comparison of indices: the VPU compares f32 values, signed.
func.func @unsigned_index_compare(%x: memref<8x128xf32, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.generic' to accel: its body compares integers unsigned ('ult'); the VPU compares index values as signed f32}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%x : memref<8x128xf32, #vmem>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = arith.cmpi ult, %i, %j : index
    %z = arith.constant 0.0 : f32
    %s = arith.select %c, %o, %z : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>
// i * j is no affine function of the indices.
func.func @index_product(%x: memref<8x128xf32, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.generic' to accel: its body multiplies two index values}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%x : memref<8x128xf32, #vmem>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %p = arith.muli %i, %j : index
    %pi = arith.index_cast %p : index to i32
    %f = arith.sitofp %pi : i32 to f32
    linalg.yield %f : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>
// i mod 4 (a block pattern) is not affine either: the op is named.
func.func @index_remainder(%x: memref<8x128xf32, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.generic' to accel: its body computes an index with 'arith.remsi'}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%x : memref<8x128xf32, #vmem>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %four = arith.constant 4 : index
    %r = arith.remsi %i, %four : index
    %ri = arith.index_cast %r : index to i32
    %f = arith.sitofp %ri : i32 to f32
    linalg.yield %f : f32
  }
  return
}

// -----

#vmem = #accel.space<vmem>
// An i32 operand compared in the body (a table of labels): the VPU holds
// f32 and bf16 tiles only, and says so at the operand.
func.func @integer_operand(%labels: memref<8x128xi32, #vmem>, %x: memref<8x128xf32, #vmem>) {
  // expected-error @below {{cannot convert 'linalg.generic' to accel: operand #0 must have f32 or bf16 elements}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%labels : memref<8x128xi32, #vmem>) outs(%x : memref<8x128xf32, #vmem>) {
  ^bb0(%l: i32, %o: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %c = arith.cmpi eq, %l, %ji : i32
    %one = arith.constant 1.0 : f32
    %z = arith.constant 0.0 : f32
    %s = arith.select %c, %one, %z : f32
    linalg.yield %s : f32
  }
  return
}
