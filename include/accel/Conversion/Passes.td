//===- Passes.td - conversions into the accel dialect ------*- tablegen -*-===//

#ifndef ACCEL_CONVERSION_PASSES_TD
#define ACCEL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertLinalgToAccel : Pass<"convert-linalg-to-accel"> {
  let summary = "Convert linalg and memref ops on accel tiles to accel ops";
  let description = [{
    The last step of a frontend: after tiling and bufferization every
    operand is a static 1-D or 2-D f32 memref in `#accel.space<hbm>` or
    `#accel.space<vmem>` (docs/isa.md, "Tiles"), and each op becomes the
    unit that executes it:

      - `memref.copy` and `linalg.copy` between HBM and VMEM (or within
        VMEM): `accel.dma_start` then `accel.dma_wait` (a synchronous copy;
        the FDO passes move the WAIT and the ISSUE later).
      - `linalg.fill` of a VMEM tile with an f32 constant: `accel.vfill`.
      - `linalg.matmul` on VMEM tiles (C += A * B): `accel.matmul
        {accumulate}`; when the last write of C before it is a
        `linalg.fill` with 0.0 that nothing reads in between, the fill is
        dropped and the matmul overwrites C (`accumulate` unset).
      - `linalg.generic` and named linalg ops (`linalg.add`, `linalg.exp`,
        `linalg.elementwise`, `linalg.reduce`, ...) with one or two loops,
        all parallel or with the last of two a reduction. Each operand is a
        VMEM tile of the iteration space (`(i, j) -> (i, j)`), a column
        read by the rows (`(i, j) -> (i)` on R elements, viewed as R x 1
        with `memref.expand_shape`, or `(i, j) -> (i, 0)` on R x 1), a row
        read by the columns (`(i, j) -> (j)` or `(0, j)`: the VPU's row
        broadcast) or an f32 constant. The body (`arith.addf`, `subf`,
        `mulf`, `divf`, `maximumf`, `maxnumf`, `negf`, `math.exp`,
        `math.sqrt`, f32 constants) becomes one VPU op per body op (`negf`
        is a `vmul` by -1; constant-only ops fold); intermediate values get
        VMEM temporaries (`accel.alloc`), or the output itself while its
        value is dead when no input may share it, and only the last op
        writes the output, so an output that is also an input is read
        before it is overwritten. A reduction `acc + x` or `max(acc, x)`
        (x any such expression) computes x as a tile, then
        `accel.vreduce_sum` / `accel.vreduce_max` into the R x 1 output;
        when the output was just filled with the identity (0.0, -inf; or NaN
        for `maxnumf`, whose identity it is) the
        fill goes, otherwise the row results are added to (or maxed with)
        the output. A reduction of the first of two loops into a row
        (`(i, j) -> (j)`, a sum or maximum over the rows) halves the rows:
        the lower half combined with the upper half into an f32 temporary,
        then that halved in place, ceil(log2 R) VPU ops on row subviews. A
        reduction of both loops into one element (`(i, j) -> (0)`) reduces
        the rows into a column, then halves the column.
      - An input read transposed (`(i, j) -> (j, i)`) is transposed into a
        VMEM temporary first (`accel.vtranspose`, docs/isa.md
        "Transposes"); `linalg.transpose`, or a generic that only yields
        such an input, is one `accel.vtranspose` into the output.
      - Masks: `arith.cmpf` becomes `accel.vcmp` (a 1.0 / 0.0 tile, the
        same predicate), `arith.select` `accel.vselect` into the output
        after the false value, `arith.andi` / `ori` of masks `vmul` /
        `vmax`. Integer values of the body (`linalg.index`, integer
        constants and values defined outside it such as tile offsets,
        `addi`, `subi`, `muli` by a constant, integer casts) are read as
        affine functions of the row and the column and become f32 values
        where `arith.cmpi` (signed or equality predicates) or
        `arith.sitofp` / `uitofp` uses them: `accel.viota` along the rows
        or the columns, based at the tile's offset (exact below 2^24).

    Anything else that still touches memory fails with one error at the op
    naming what is not supported (a tensor operand: run
    one-shot-bufferize first; an HBM operand of a compute op: stage it
    through VMEM; an output written transposed; a reduction of the first
    loop or by another combiner; a body op without a VPU counterpart; index
    arithmetic that is not affine (a product of indices, a remainder); an
    unsigned comparison of indices; a non-f32 element type; a dynamic
    shape; more than two loops).
  }];
  let dependentDialects = ["accel::AccelDialect"];
}

def ConvertMemorySpacesToAccel
    : Pass<"convert-memory-spaces-to-accel", "mlir::ModuleOp"> {
  let summary = "Put memrefs in accel's memory spaces: HBM by default, "
                "VMEM for one numbered space";
  let description = [{
    Upstream passes leave memrefs without a memory space (function
    arguments, results of bufferization) or in a numbered fast space
    (`affine-data-copy-generate="generate-dma fast-mem-space=1"`). This
    pass rewrites every memref type in the module, in function signatures,
    op results and block arguments alike: no memory space (or space 0)
    becomes `#accel.space<hbm>`, the space numbered `vmem-space` becomes
    `#accel.space<vmem>`. Then `memref.alloc` of a VMEM buffer becomes
    `accel.alloc` (static VMEM allocation; a buffer of rank > 2, such as a
    double buffer `2 x R x C`, is allocated as rows and viewed with
    `memref.expand_shape`) and its `memref.dealloc` goes, and `memref.alloc` of an HBM buffer (a temporary of bufferization)
    becomes a new last argument of its function, marked
    `{accel.init = "zero", accel.temporary}`: accel's HBM buffers are the
    entry function's arguments. An allocation used only as the tag of
    affine DMAs is synchronization state, not data: it keeps its
    allocation for `--convert-affine-dma-to-accel`.

    Any other memory space, a VMEM `memref.alloc` that accel.alloc cannot
    express (a dynamic size, a non-identity layout), and an HBM one that
    cannot become an argument (dynamic, or in a function that is called)
    is one error at the op or function that holds it.
  }];
  let options = [
    Option<"vmemSpace", "vmem-space", "unsigned", /*default=*/"1",
           "The numbered memory space that is VMEM (upstream's fast memory "
           "space)">
  ];
  let dependentDialects = ["accel::AccelDialect"];
}

def AccelRaiseAffineLoops
    : Pass<"accel-raise-affine-loops", "mlir::func::FuncOp"> {
  let summary = "Raise scalar affine loop nests on buffers to linalg ops";
  let description = [{
    Affine programs (upstream's `affine-data-copy-generate`,
    `affine-pipeline-data-transfer` and hand-written DMA kernels) compute
    with perfectly nested `affine.for` loops of scalar `affine.load`,
    arithmetic and one `affine.store`. accel has no scalar f32 unit: such a
    nest becomes one `linalg.generic` on `memref.subview`s of the buffers
    it touches, which `--convert-linalg-to-accel` then turns into MXU or
    VPU ops.

    A nest is raised when every loop has constant bounds, step 1 and no
    iter_args, and its innermost body holds only `affine.load`, one
    `affine.store`, `arith`/`math` ops on scalars and constants. Each
    index of each access is an expression of values defined outside the
    nest (the view's offset: outer loop IVs, slot arithmetic such as
    `%i mod 2`, constants) plus at most one of the nest's IVs with
    coefficient 1; a memref dimension indexed by no IV of the nest is
    dropped from the view (rank reduction). The store is the output; a
    load of the stored element is the output's current value; a loop
    whose IV the store does not use is a reduction. The generic's loops
    are the store's dimensions in order, then the reductions, so a nest
    written in any loop order gets the iteration space
    `--convert-linalg-to-accel` expects. The result is specialized to a
    named op where upstream can (`linalg-specialize-generic-ops`: a
    `C[i, j] += A[i, k] * B[k, j]` nest becomes `linalg.matmul`).

    A nest that touches memory but does not fit (a non-constant bound or
    step, an index with a coefficient, a loop-carried scalar, two stores,
    an op other than the above) is one error at its outermost loop naming
    the reason: accel cannot run scalar f32 code.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::affine::AffineDialect"];
}

def ConvertAffineDmaToAccel
    : Pass<"convert-affine-dma-to-accel", "mlir::ModuleOp"> {
  let summary = "Convert affine.dma_start / dma_wait with tag memrefs to "
                "accel DMAs with tokens";
  let description = [{
    Upstream describes a DMA by element counts and a tag memref:
    `affine.dma_start %src[...], %dst[...], %tag[...], %n [, %stride,
    %per_stride]` copies `%n` elements (in chunks of `%per_stride` elements
    every `%stride` elements of the slower memory, when strided), and
    `affine.dma_wait %tag[...], %n` blocks until the DMA that signals that
    tag element has completed. accel's DMAs copy one 2-D tile and return a
    token (docs/isa.md). Run after `--convert-memory-spaces-to-accel`
    (which leaves tag memrefs alone); this pass:

      - rebuilds each side of a DMA as a 2-D tile view (`memref.subview`,
        after a `memref.collapse_shape` / `memref.expand_shape` of the
        memref when its rows are not the transfer's rows): a contiguous
        transfer of whole rows is rows x width; a strided one is
        `%n / %per_stride` rows of `%per_stride` elements, `%stride`
        elements apart; a transfer that is neither (it crosses a row of a
        memref part-way, or its stride is not a whole number of rows of
        the memref) is an error;
      - pairs each `affine.dma_wait` with the `affine.dma_start`s that
        signal the same tag element, comparing tag indices as affine
        functions of the loop IVs (by simplification, else by evaluating
        them over the loops' constant ranges). A start waited in the same
        iteration gives its token directly; one waited d iterations
        later (multi-buffered tags: upstream's pipelining signals slot
        `%i mod 2` and waits slot `(%i - 1) mod 2`) is carried through
        the loop as d `iter_args`, initialised from the starts before the
        loop that signal the first iterations' slots, and the last
        iterations' tokens are the loop's results for waits after it;
      - replaces index arithmetic with `mod` of a loop IV (buffer slots)
        by rotating `iter_args` that hold the slot of the next iterations
        (accel's scalar core has no division), so the program needs only
        additions and multiplications;
      - erases the tag memrefs.

    A wait that no start signals, a start never waited, a DMA inside an
    `affine.if` or a loop with non-constant bounds that would need to
    carry a token, and index arithmetic the scalar core cannot do
    (`floordiv`, `ceildiv`, `mod` of anything but one loop IV) are each
    one error at the op.
  }];
  let dependentDialects = ["accel::AccelDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::affine::AffineDialect"];
}

#endif // ACCEL_CONVERSION_PASSES_TD
