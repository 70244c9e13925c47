// Issue 33 kernel 6 (embedding_gather): an embedding bag (sum mode),
//   out[b, :] = sum_{j < 8} emb[ids[8 b + j], :]        (b = 0 .. 7)
// The 64 token ids are DMA'd once, whole, into a VMEM i32 table at the
// start. The bag loop b and the lookup loop j then read each id with
// accel.load, use it directly as the row offset of a 1 x 512 subview of the
// HBM embedding table, DMA that single row (2 KiB) into a VMEM row buffer,
// WAIT at once, and add it into the bag's row of a VMEM accumulator (a
// 1 x 512 view of the 8 x 512 result, taken in the bag loop). The 8 bags
// are stored with one DMA at the end. The ids come from an iota table, so
// bag b sums rows 8b .. 8b+7, but the kernel does not know that: every row
// address is the result of an sld of DMA'd data.
//
// Style: "6. embedding_gather" (ids DMA'd into a VMEM i32 table, each id
// accel.load'ed and used as a subview offset into an HBM table, rows DMA'd
// and summed on the VPU). Unlike gather_rows.mlir (table reloaded in
// chunks, 8-row tiles, a store per lookup) the table is loaded once, the
// DMAs are single rows and the rows are reduced in VMEM.
//
// Shapes: ids 64 x i32 (iota); emb 1024 x 512 f32; out 8 x 512 f32;
// 64 row DMAs of 2 KiB, 64 vadds of 1 x 512 (4 lane passes each).
// Config: the default machine (no --config).
//
// Ideal schedule: all 64 row DMAs depend only on the id table, so once it
// is in VMEM they can all be in flight together (into distinct buffers),
// paying one base latency instead of 64; the vadds then stream behind.
//
//   accel-replay fdo bench/fdo/kernels/issue33/embedding_gather.mlir -o out
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
!hrow = memref<1x512xf32, strided<[512, 1], offset: ?>, #hbm>
!arow = memref<1x512xf32, strided<[512, 1], offset: ?>, #vmem>
!row = memref<1x512xf32, #vmem>
func.func @main(%ids: memref<64xi32, #hbm> {accel.init = "iota"},
                %emb: memref<1024x512xf32, #hbm>,
                %out: memref<8x512xf32, #hbm> {accel.init = "zero"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %idv = accel.alloc : memref<64xi32, #vmem>
  %rowb = accel.alloc : !row
  %acc = accel.alloc : memref<8x512xf32, #vmem>
  %tt = accel.dma_start %ids, %idv : memref<64xi32, #hbm>, memref<64xi32, #vmem>
  accel.dma_wait %tt
  accel.vfill %acc, 0.0 : memref<8x512xf32, #vmem>
  scf.for %b = %c0 to %c8 step %c1 {
    %bag = memref.subview %acc[%b, 0] [1, 512] [1, 1] : memref<8x512xf32, #vmem> to !arow
    %base = arith.muli %b, %c8 : index
    scf.for %j = %c0 to %c8 step %c1 {
      %pos = arith.addi %base, %j : index
      %id = accel.load %idv[%pos] : memref<64xi32, #vmem>
      %src = memref.subview %emb[%id, 0] [1, 512] [1, 1] : memref<1024x512xf32, #hbm> to !hrow
      %tr = accel.dma_start %src, %rowb : !hrow, !row
      accel.dma_wait %tr
      accel.vadd %bag, %rowb, %bag : !arow, !row, !arow
    }
  }
  %to = accel.dma_start %acc, %out : memref<8x512xf32, #vmem>, memref<8x512xf32, #hbm>
  accel.dma_wait %to
  return
}
