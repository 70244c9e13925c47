// Issue 10, row 1 (gather_rows): an embedding-bag style gather. The row ids
// live in an i32 table in HBM; the kernel walks it in chunks of 8 entries:
// each chunk of the table is DMA'd into VMEM, then each entry is read with
// accel.load and the 8x512 row tile it names is DMA'd, scaled and shifted
// (y = e * w + b) and stored. The entries are read back to front inside each
// chunk, so the tiles are fetched in a data-dependent order, and every
// address of a row DMA comes from a scalar load of a DMA'd table.
//
// Shapes: table 64 x i32 (iota: entry k names row tile k); embedding matrix
// 512 x 512 f32 (64 row tiles of 8 x 512); w, b 8 x 512; out 512 x 512
// (gathered tile k of chunk c lands in output tile 8c + k).
// 8 chunks x 8 lookups = 64 row DMAs of 16 KiB, each behind a WAIT on the
// table DMA and an sld. Config: the default machine (no --config).
//
// Today `accel-replay run` runs it; `fdo` crashes (SIGSEGV) building
// iteration 1, in accel-pipeline-dma (PipelineDmaPass::transform, cloning
// the row DMA's address chain, which starts at the accel.load).
//
//   accel-replay fdo bench/fdo/kernels/gather_rows.mlir -o out --iterations 3
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%ids: memref<64xi32, #hbm> {accel.init = "iota"},
                %emb: memref<512x512xf32, #hbm>,
                %w: memref<8x512xf32, #hbm>, %b: memref<8x512xf32, #hbm>,
                %out: memref<512x512xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %wv = accel.alloc : memref<8x512xf32, #vmem>
  %bv = accel.alloc : memref<8x512xf32, #vmem>
  %chunk = accel.alloc : memref<8xi32, #vmem>
  %row = accel.alloc : memref<8x512xf32, #vmem>
  %res = accel.alloc : memref<8x512xf32, #vmem>
  // Parameters first, both in flight at once.
  %tw = accel.dma_start %w, %wv : memref<8x512xf32, #hbm>, memref<8x512xf32, #vmem>
  %tb = accel.dma_start %b, %bv : memref<8x512xf32, #hbm>, memref<8x512xf32, #vmem>
  accel.dma_wait %tw
  accel.dma_wait %tb
  // %base: the first table entry of the chunk (0, 8, 16, ...).
  scf.for %base = %c0 to %c64 step %c8 {
    %ids_c = memref.subview %ids[%base] [8] [1] : memref<64xi32, #hbm> to memref<8xi32, strided<[1], offset: ?>, #hbm>
    %tt = accel.dma_start %ids_c, %chunk : memref<8xi32, strided<[1], offset: ?>, #hbm>, memref<8xi32, #vmem>
    accel.dma_wait %tt
    scf.for %k = %c0 to %c8 step %c1 {
      // Back to front within the chunk.
      %e = arith.subi %c7, %k : index
      %id = accel.load %chunk[%e] : memref<8xi32, #vmem>
      %r = arith.muli %id, %c8 : index
      %src = memref.subview %emb[%r, 0] [8, 512] [1, 1] : memref<512x512xf32, #hbm> to memref<8x512xf32, strided<[512, 1], offset: ?>, #hbm>
      %tr = accel.dma_start %src, %row : memref<8x512xf32, strided<[512, 1], offset: ?>, #hbm>, memref<8x512xf32, #vmem>
      accel.dma_wait %tr
      accel.vmul %row, %wv, %res : memref<8x512xf32, #vmem>, memref<8x512xf32, #vmem>, memref<8x512xf32, #vmem>
      accel.vadd %res, %bv, %res : memref<8x512xf32, #vmem>, memref<8x512xf32, #vmem>, memref<8x512xf32, #vmem>
      // Output tile base + k.
      %o = arith.addi %base, %k : index
      %orow = arith.muli %o, %c8 : index
      %dst = memref.subview %out[%orow, 0] [8, 512] [1, 1] : memref<512x512xf32, #hbm> to memref<8x512xf32, strided<[512, 1], offset: ?>, #hbm>
      %ts = accel.dma_start %res, %dst : memref<8x512xf32, #vmem>, memref<8x512xf32, strided<[512, 1], offset: ?>, #hbm>
      accel.dma_wait %ts
    }
  }
  return
}
