// Each affine DMA the conversion cannot pair or express as a tile gets one
// error at the op that names the reason.
// RUN: accel-opt %s -split-input-file --convert-memory-spaces-to-accel --convert-affine-dma-to-accel -verify-diagnostics

func.func @wait_without_start() {
  %tag = memref.alloc() : memref<2xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 32 : index
  // expected-error @+1 {{waits on tag element [0] but no affine.dma_start signals it before}}
  affine.dma_wait %tag[%c0], %n : memref<2xi32>
  return
}

// -----

func.func @wrong_slot(%A: memref<64xf32>) {
  %buf = memref.alloc() : memref<32xf32, 1>
  %tag = memref.alloc() : memref<2xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 32 : index
  affine.dma_start %A[%c0], %buf[%c0], %tag[%c0], %n : memref<64xf32>, memref<32xf32, 1>, memref<2xi32>
  // expected-error @+1 {{waits on tag element [1]}}
  affine.dma_wait %tag[%c1], %n : memref<2xi32>
  return
}

// -----

func.func @never_waited(%A: memref<64xf32>) {
  %buf = memref.alloc() : memref<32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 32 : index
  // expected-error @+1 {{starts a DMA that is never waited}}
  affine.dma_start %A[%c0], %buf[%c0], %tag[%c0], %n : memref<64xf32>, memref<32xf32, 1>, memref<1xi32>
  return
}

// -----

func.func @never_waited_in_loop(%A: memref<256xf32>) {
  %buf = memref.alloc() : memref<32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 32 : index
  affine.for %i = 0 to 8 {
    // expected-error @+1 {{starts a DMA that is never waited in its loop's iteration or a later one}}
    affine.dma_start %A[%i * 32], %buf[%c0], %tag[%c0], %n : memref<256xf32>, memref<32xf32, 1>, memref<1xi32>
  }
  affine.dma_wait %tag[%c0], %n : memref<1xi32>
  return
}

// -----

func.func @no_prologue(%A: memref<256xf32>) {
  %buf = memref.alloc() : memref<2x32xf32, 1>
  %tag = memref.alloc() : memref<2xi32>
  %n = arith.constant 32 : index
  affine.for %i = 1 to 8 {
    affine.dma_start %A[%i * 32], %buf[%i mod 2, 0], %tag[%i mod 2], %n : memref<256xf32>, memref<2x32xf32, 1>, memref<2xi32>
    // expected-error @+1 {{waits for the DMA started 1 iteration(s) earlier, but before the loop no affine.dma_start signals tag element [0] for its first iteration(s)}}
    affine.dma_wait %tag[(%i - 1) mod 2], %n : memref<2xi32>
  }
  affine.dma_wait %tag[1], %n : memref<2xi32>
  return
}

// -----

func.func @carried_in_dynamic_loop(%A: memref<256xf32>, %ub: index) {
  %buf = memref.alloc() : memref<2x32xf32, 1>
  %tag = memref.alloc() : memref<2xi32>
  %n = arith.constant 32 : index
  affine.dma_start %A[0], %buf[0, 0], %tag[0], %n : memref<256xf32>, memref<2x32xf32, 1>, memref<2xi32>
  affine.for %i = 1 to %ub {
    affine.dma_start %A[%i * 32], %buf[%i mod 2, 0], %tag[%i mod 2], %n : memref<256xf32>, memref<2x32xf32, 1>, memref<2xi32>
    // expected-error @+1 {{waits for a DMA started in an earlier iteration of a loop without constant bounds}}
    affine.dma_wait %tag[(%i - 1) mod 2], %n : memref<2xi32>
  }
  return
}

// -----

func.func @inside_if(%A: memref<64xf32>, %c: index) {
  %buf = memref.alloc() : memref<32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 32 : index
  // expected-error @+1 {{holds affine DMAs: accel pairs them with their waits along straight-line code and affine.for loops only, not inside 'affine.if'}}
  affine.if affine_set<(d0) : (d0 >= 0)>(%c) {
    affine.dma_start %A[%c0], %buf[%c0], %tag[%c0], %n : memref<64xf32>, memref<32xf32, 1>, memref<1xi32>
    affine.dma_wait %tag[%c0], %n : memref<1xi32>
  }
  return
}

// -----

func.func @dynamic_count(%A: memref<64xf32>, %n: index) {
  %buf = memref.alloc() : memref<32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{needs a positive constant element count: accel's DMAs move static tiles}}
  affine.dma_start %A[%c0], %buf[%c0], %tag[%c0], %n : memref<64xf32>, memref<32xf32, 1>, memref<1xi32>
  affine.dma_wait %tag[%c0], %n : memref<1xi32>
  return
}

// -----

func.func @partial_chunks(%A: memref<64x64xf32>) {
  %buf = memref.alloc() : memref<1000xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 1000 : index
  %stride = arith.constant 64 : index
  %per = arith.constant 32 : index
  // expected-error @+1 {{moves 1000 elements in chunks of 32 every 64 elements: accel's tiles need whole, non-overlapping rows}}
  affine.dma_start %A[%c0, %c0], %buf[%c0], %tag[%c0], %n, %stride, %per : memref<64x64xf32>, memref<1000xf32, 1>, memref<1xi32>
  affine.dma_wait %tag[%c0], %n : memref<1xi32>
  return
}

// -----

func.func @stride_not_rows(%A: memref<64x256xf32>) {
  %buf = memref.alloc() : memref<8x32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 256 : index
  %stride = arith.constant 100 : index
  %per = arith.constant 32 : index
  // expected-error @+1 {{cannot be a tile DMA: the source memref<64x256xf32, #accel.space<hbm>> at [0, 0] cannot hold 8 row(s) of 32 element(s) 100 elements apart as a tile}}
  affine.dma_start %A[%c0, %c0], %buf[%c0, %c0], %tag[%c0], %n, %stride, %per : memref<64x256xf32>, memref<8x32xf32, 1>, memref<1xi32>
  affine.dma_wait %tag[%c0], %n : memref<1xi32>
  return
}

// -----

func.func @strided_same_space(%A: memref<64x64xf32, 1>) {
  %buf = memref.alloc() : memref<8x32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 256 : index
  %stride = arith.constant 64 : index
  %per = arith.constant 32 : index
  // expected-error @+1 {{is strided between two memrefs in the same memory space}}
  affine.dma_start %A[%c0, %c0], %buf[%c0, %c0], %tag[%c0], %n, %stride, %per : memref<64x64xf32, 1>, memref<8x32xf32, 1>, memref<1xi32>
  affine.dma_wait %tag[%c0], %n : memref<1xi32>
  return
}

// -----

func.func @division_of_an_argument(%A: memref<64x64xf32>, %k: index) {
  %buf = memref.alloc() : memref<8x64xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 512 : index
  // expected-error @+1 {{computes (d0 floordiv 2) * 8: accel's scalar core has no division; only division of one affine.for IV}}
  affine.dma_start %A[(%k floordiv 2) * 8, %c0], %buf[%c0, %c0], %tag[%c0], %n : memref<64x64xf32>, memref<8x64xf32, 1>, memref<1xi32>
  affine.dma_wait %tag[%c0], %n : memref<1xi32>
  return
}

// -----

// Found by fuzz-mlir: `%buf[0 - 0]` is one subscript of a 2-D memref, which
// the parser accepts; the planner indexed one subscript per dimension and
// crashed.
func.func @subscripts_short_of_the_rank(%y: memref<64x128xf32>) {
  %buf = memref.alloc() : memref<8x128xf32, 1>
  %tag = memref.alloc() : memref<2xi32>
  %n = arith.constant 1024 : index
  // expected-error @+1 {{indexes its source 'memref<8x128xf32, #accel.space<vmem>>' with 1 subscripts; it has rank 2}}
  affine.dma_start %buf[0 - 0], %y[0, 0], %tag[1], %n : memref<8x128xf32, 1>, memref<64x128xf32>, memref<2xi32>
  affine.dma_wait %tag[1], %n : memref<2xi32>
  return
}
