//===- Passes.td - accel's frontend passes -----------------*- tablegen -*-===//
//
// The passes that bring a linalg, tensor or memref program to the shape
// the conversions into the accel dialect accept (include/accel/Conversion/
// Passes.td): decompositions, constants, gathers, shapes, and on buffers the
// VMEM promotion, tiling and staging. buildFrontendPipeline (Frontend.h)
// runs them with the conversions; `accel-opt --accel-from-linalg` is that
// pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_FRONTEND_PASSES_TD
#define ACCEL_FRONTEND_PASSES_TD

include "mlir/Pass/PassBase.td"

def AccelDecomposeLinalg
    : Pass<"accel-decompose-linalg", "mlir::func::FuncOp"> {
  let summary = "Decompose aggregate linalg ops (linalg.softmax, "
                "convolutions, pooling, vector contractions, transposes that "
                "move the lanes) into the ops they are made of";
  let description = [{
    The first step of the frontend, on tensors: an op that implements
    upstream's `linalg::AggregatedOpInterface` (`linalg.softmax`: a max
    reduction, `exp(x - max)`, a sum reduction and a division) is replaced
    by the ops its `decomposeOperation` builds, which the rest of the
    frontend tiles and converts like any other. An op whose decomposition
    fails is one error at the op.

    First, any linalg op with a loop of zero iterations (a convolution
    over zero channels, a matmul over an empty reduction, an empty batch)
    computes no element: on tensors its results are its inits (the fill it
    writes into), on buffers it is erased.

    A 1x1 convolution (`linalg.conv_2d_nhwc_hwcf` with a 1 x 1 kernel,
    strides and dilations 1, static shapes) is a matmul on the MXU: the
    input collapsed to (N*H*W) x C, the filter to C x F and the init to
    (N*H*W) x F (`tensor.collapse_shape`), one `linalg.matmul`, the result
    expanded back. Any other `linalg.conv_2d_nhwc_hwcf` on floats (strides,
    dilations; SAME padding comes as a `tensor.pad` of its input) with
    static shapes is a sum of shifted matmuls: for each kernel tap (kh, kw)
    a contraction of the input pixels the tap reads (a strided
    `tensor.extract_slice`, N x OH x OW x C) with the tap's C x F filter,
    accumulated into the output tap after tap. accel-tile-linalg runs its
    n and oh loops one iteration at a time around an OW x C by C x F
    matmul; the pixel rows of a strided convolution are strided DMAs. A
    `linalg.depthwise_conv_2d_nhwc_hwc` is the same sum with an elementwise
    product per tap (the pixels times the tap's C weights, broadcast along
    the pixels) on the VPU.

    A float pooling window on NHWC (`linalg.pooling_nhwc_max`, `_min` and
    `_sum`: reduce_window, flax's max_pool and avg_pool) is the same
    reduction without weights: per window tap, an elementwise maximum,
    minimum or sum of the strided pixels it reads into the output.

    With stride 1 in both dimensions (and an output at least half as wide
    as the input), these tap sums run over flattened rows instead: each
    image's H x W pixels are H*W rows of C, the output is OH x W rows, and
    tap (kh, kw) reads the OH*W contiguous rows from kh*dh*W + kw*dw on.
    The W - OW columns per output row that read across a row's end are
    computed and dropped (a final `tensor.extract_slice`); the input grows
    by the zero rows the last tap reads past its end (the frontend's
    `tensor.pad` of the halo grows instead when it is the input). One op of
    N x OH*W rows per tap replaces OH ops of OW rows: for a convolution, a
    tall matmul that pays the MXU's fill and drain once per 128 rows, not
    once per output row. The rows are cut into tiles of `tile-rows` per
    image (an `scf.for` on tensors): each tile's accumulator is a VMEM
    tensor (`bufferization.alloc_tensor` in `vmem-space`) that starts as the
    init's fill or a copy of its rows, takes every tap in turn, and is
    copied out once, so it goes through HBM once per tile rather than once
    per tap. A tile holds whole output rows (`tile-rows` / W of them), and
    only their OW columns are copied into the result, which is dense like
    the init. Each image's pixel rows are themselves a VMEM tensor when
    they take at most an eighth of `vmem-bytes`: filled with the pad's
    value and the unpadded input rows copied in at their places, so a SAME
    halo (the frontend's `tensor.pad`) is made in VMEM, never as a padded
    copy in HBM, and the taps read VMEM. With `vmem-space=0`, or when a
    tile's accumulator, pixels and tap would take more than a quarter of
    `vmem-bytes` (or a row is wider than `tile-rows`), each tap is one op
    over all rows instead.

    A strided window (or one whose output is too narrow for flattened
    rows) whose image fits an eighth of VMEM works the same way one output
    row at a time: the image in VMEM, an accumulator of OW rows in VMEM,
    and per tap the row's pixels read from the image as strided rows (every
    stride-th pixel: a row stride the MXU and VPU take), then copied out
    once. Otherwise it keeps the per-row ops on the input's strided slices
    described above.

    A contraction with a vector operand is a matmul: `linalg.matvec` with
    the vector as one column (K x 1), `linalg.vecmat` with it as one row
    (1 x K), `linalg.dot` as a 1 x K row times a K x 1 column into a 1 x 1
    result (rank 0 again after), the init reshaped alike
    (`tensor.expand_shape`) and the result collapsed back.

    NCHW, torch-mlir's layout (`linalg.conv_2d_nchw_fchw`,
    `linalg.pooling_nchw_max` and `_sum`), is the NHWC op between
    transposes: the input and init to NHWC, the FCHW filter to HWCF, the
    result back to NCHW; the NHWC op is then decomposed as above.

    A `linalg.transpose` of rank 3 or more that moves the lane (last)
    dimension (those above, torch's `permute`) is 2-D transposes in a loop
    nest over the other dimensions: each [A x L] slice of the input (rows
    strided, lanes contiguous: one DMA) is transposed on the VPU into the
    output's [L x A] slice. (A tile has rank 2; a transpose that keeps the
    lanes is left to the tiles.)
  }];
  let options = [
    Option<"tileRows", "tile-rows", "int64_t", /*default=*/"128",
           "Flattened rows per tile of a stride-1 window's taps (whole "
           "output rows; the accumulator tile stays in VMEM across the "
           "taps)">,
    Option<"vmemSpace", "vmem-space", "unsigned", /*default=*/"1",
           "The numbered memory space that is VMEM (0: no accumulator "
           "tiles in VMEM)">,
    Option<"vmemBytes", "vmem-bytes", "uint64_t", /*default=*/"33554432",
           "VMEM capacity in bytes (the machine config's vmem.bytes); a "
           "tile's accumulator, pixels and tap take at most a quarter, an "
           "image's pixels in VMEM at most an eighth">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::math::MathDialect",
                           "mlir::scf::SCFDialect"];
}

def AccelFoldScalars : Pass<"accel-fold-scalars", "mlir::func::FuncOp"> {
  let summary = "Fold scalar and splat constants into the linalg ops that "
                "read them (on tensors)";
  let description = [{
    The frontend's second step, on tensors. Frontends spell a scalar
    constant as a rank-0 tensor (`arith.constant dense<0.5> : tensor<f32>`)
    read by a `linalg.generic` through a map with no results
    (`(d0, d1) -> ()`), or broadcast it into a full tensor first by a
    generic with no inputs; a splat constant (`dense<1.0> :
    tensor<32x128xf32>`) is the same value everywhere. Each becomes an
    `arith.constant` scalar in the body of the op that reads it, where the
    linalg-to-accel conversion folds it or emits a VPU fill, instead of a
    buffer in HBM:

      - a generic's input that is a scalar or splat constant, or a rank-0
        constant read through a map with constant results, becomes a
        scalar constant in its body (upstream's FoldScalarOrSplatConstant
        and InlineScalarOperands patterns, then folding of the
        `tensor.extract` they leave);
      - a generic with no tensor inputs (a broadcast of constants, after
        the step above) is fused into each elementwise consumer (upstream's
        elementwise-op fusion, restricted to such producers), so the
        broadcast tensor is never materialized; one read by anything else
        stays, and is converted as a VPU fill;
      - an elementwise generic whose result no VMEM tile can hold (a mask
        of `i1` from a comparison, read by a later `arith.select`) is fused
        into each elementwise consumer the same way, so the mask is
        computed where it is used and never stored;
      - an elementwise generic (all loops parallel) read only by one
        elementwise consumer (a scale, a bias, an activation after it), or
        one that only moves its input (a broadcast: its body yields its
        input), is fused into that consumer the same way, so a chain such
        as batchnorm's broadcasts, multiply, add and ReLU is one op and its
        intermediates never go through HBM. Contractions and reductions
        are not fused into: their structure is what the later steps tile;
      - except for a transpose of leading dimensions (a copy through a
        permutation that keeps the lanes last: attention's heads split out
        of the rows), which any generic reads in place, contractions
        included (a `linalg.batch_matmul` reading one becomes a generic
        first): its tiles then read strided rows;
      - a generic's input that is a `tensor.expand_shape` adding unit
        dimensions (a vector expanded to 1x1x1xC, read through
        `(d0, 0, 0, d3)`) is read from the vector itself (`(d3)`);
      - and an op whose only reader is such a transpose (the heads put back
        after the per-head `P @ V`) writes in the transposed layout
        instead: its output map is composed with the inverse permutation,
        into a tensor of the transposed shape (filled like its init when
        it accumulates).

    Rank-0 tensors that are not constants (a rank-0 function argument or a
    value computed into one) are left as they are.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def AccelLowerGathers : Pass<"accel-lower-gathers", "mlir::func::FuncOp"> {
  let summary = "Lower reads at data-dependent indices (gathers) and masks "
                "computed from integer data to scalar code and DMAs (on "
                "tensors)";
  let description = [{
    The frontend's step after accel-fold-scalars, on tensors. An embedding
    lookup or a `stablehlo.gather` arrives as a `linalg.generic` whose body
    reads a tensor with `tensor.extract` at indices computed from another
    tensor's values (clamped, offset, selected), often with a mask from
    the same integer indices. The VPU computes on float tiles; it cannot
    read at addresses held in a tile, nor compare i32 values. So each such
    generic (all loops parallel, static shape) gets a loop nest in front of
    it over every loop but the last:

      - a gathered read `T[f(i), k]` whose last index is the generic's last
        loop becomes one DMA of that row per iteration, into a new tensor of
        the generic's shape; other gathered reads become one DMA per
        element, in a loop over the last dimension as well;
      - an `i1` value made from integer data that a float op reads (the
        condition of an `arith.select` between floats, a `uitofp` of it)
        becomes a tensor of 0.0/1.0, one 4-byte DMA per element from a
        two-element constant, compared with 0.0 again where it was read;
      - the indices and masks are computed by scalar code: an operand of
        the generic is read at the loop's indices, and a tensor an
        elementwise generic made (a broadcast, an offset, a clamp of the
        indices; a reduction over one element) is computed again from that
        generic's body, down to the i32 data the scalar core loads with
        `accel.load` (a function argument or a constant).

    The generic then reads the new tensors elementwise and is converted
    like any other; its old mask input and the index producers nothing
    reads any more are removed.

    When the new tensors of one generic take at most a quarter of
    `vmem-bytes`, they are VMEM buffers (`bufferization.alloc_tensor` in
    `vmem-space`, 2-D, viewed at the generic's rank), and the outermost
    loop of the nest is marked `accel.gather`: convert-linalg-to-accel then
    issues its copies as DMAs that signal semaphore 255 instead of waiting
    each, and waits for all of them once after the loop (`accel.sem_wait`),
    so the rows' DMAs overlap up to `dma.max_outstanding`. Larger ones are
    HBM tensors, each copy staged through VMEM and waited.

    Refused, with an error at the generic: an index computed from float
    values, an integer value other than a mask used by float code, a
    reduction over more than one element inside an index computation,
    reads of f32 data by scalar code, dynamic loop bounds.
  }];
  let options = [
    Option<"vmemSpace", "vmem-space", "unsigned", /*default=*/"1",
           "The numbered memory space that is VMEM">,
    Option<"vmemBytes", "vmem-bytes", "uint64_t", /*default=*/"33554432",
           "VMEM capacity in bytes (the machine config's vmem.bytes); the "
           "tensors one generic's gathers fill are in VMEM when they take "
           "at most a quarter">,
  ];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect"];
}

def AccelBindShapes : Pass<"accel-bind-shapes", "mlir::ModuleOp"> {
  let summary = "Specialize dynamic dimensions of function arguments to given "
                "shapes (on tensors or buffers)";
  let description = [{
    The frontend's first step after inlining. accel's programs have static
    shapes; a frontend export may not (`tensor<?x128xf32>`, a batch size
    left open, an unranked `tensor<*xf32>`). Each public function with a
    body whose arguments have dynamic dimensions gets them from `shapes`,
    a list of `ARG=D0xD1x...` (argument position, then the whole shape:
    `0=16x128`, `2=256`; `()` for rank 0), which `accel-replay` fills from
    the `.npy` files of `--input` and from `--bind`:

      - the argument's type becomes the static one, and a `tensor.cast`
        (`memref.cast`) back to the old type takes its uses;
      - the canonicalization patterns of the loaded dialects then carry the
        static shapes through the body (`tensor.dim` folds to a constant,
        `tensor.empty` and linalg ops become static, cast chains, also
        through unranked types, fold);
      - a result returned through a cast from a more static type returns
        that type.

    Errors (one each, at the function): a dynamic argument that `shapes`
    does not fix, naming the argument, its type and the dimension, and what
    to pass; a shape of another rank, or one that contradicts a static
    dimension; a malformed entry. Arguments with static shapes ignore
    `shapes` (their `.npy` is checked against them later).
  }];
  let options = [
    ListOption<"shapes", "shapes", "std::string",
               "Shapes of arguments as ARG=D0xD1x... (e.g. 0=16x128)">,
  ];
  let dependentDialects = ["mlir::tensor::TensorDialect",
                           "mlir::memref::MemRefDialect"];
}

def AccelExpandRank0 : Pass<"accel-expand-rank0", "mlir::ModuleOp"> {
  let summary = "Give rank-0 tensors one dimension of size 1 (on tensors)";
  let description = [{
    The frontend's step after accel-fold-scalars. accel's tiles have rank 1
    or 2, so a rank-0 tensor that is not a folded constant (a loss reduced
    to a scalar, a rank-0 argument or result, a 0-loop `linalg.generic`)
    becomes `tensor<1xT>`, and the ops on it follow:

      - a `linalg.generic` operand that was rank 0 is indexed by
        `(d...) -> (0)`; a generic with no loops gets one parallel loop of
        one iteration (`(d0) -> (d0)` on each such operand);
      - a generic whose only loop reduces into one element (a reduction to
        a scalar) gets a leading parallel loop of one iteration that
        indexes the output, so it is a row reduction of the VPU;
      - `arith.constant`, `tensor.empty`, `linalg.fill`, `tensor.extract`
        (index 0), `tensor.expand_shape` and `tensor.collapse_shape` follow
        the new type;
      - the function's rank-0 arguments and results become `tensor<1xT>`,
        and its `accel.rank0` attribute lists them in the numbering of the
        HBM arguments after buffer-results-to-out-params (the arguments,
        then the results): `accel-replay --input` takes a .npy of shape ()
        for them, and `--output-dir` writes one.

    Any other op on a rank-0 tensor is one error at the op, and so is a
    function with a rank-0 argument or result that is called. A module
    pass: it runs on each function of the module in turn (whether a
    function is called depends on the others).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def AccelCheckOutParams
    : Pass<"accel-check-out-params", "mlir::func::FuncOp"> {
  let summary = "Refuse what buffer-results-to-out-params cannot convert: "
                "one allocation returned twice";
  let description = [{
    The frontend step between `one-shot-bufferize` and upstream's
    `buffer-results-to-out-params{hoist-static-allocs}`, which turns each
    returned buffer into an output argument and, for a static
    allocation, replaces the allocation by that argument. One allocation
    returned as two results (a tensor returned twice) would become two
    arguments of one buffer, which upstream does not handle (it crashes):
    such a `func.return` is one error naming both results. Return the
    value once, or return a copy.
  }];
}

def AccelPromoteBuffers
    : Pass<"accel-promote-buffers", "mlir::func::FuncOp"> {
  let summary = "Allocate intermediate buffers in VMEM when they fit (on "
                "buffers)";
  let description = [{
    The frontend's step after bufferization (and
    `buffer-results-to-out-params`), before tiling. Every value that is
    neither an argument nor a result of the function (a norm's squares,
    attention's scores and probabilities, an MLP's hidden activations) is a
    `memref.alloc` in HBM there, which each op that writes it stores with
    DMAs and each op that reads it loads again: one base latency out and
    one in per op boundary (SnR, Zarkadas et al., SoCC '25, §5.2: a DMA's
    base latency is paid however few its bytes). Such an allocation is
    allocated in VMEM (`vmem-space`) instead when:

      - it has a static shape, an identity layout and f32 or bf16
        elements;
      - every user, through its views (`memref.subview`, `expand_shape`,
        `collapse_shape`, `cast`), is a linalg op on buffers, a
        `memref.copy` or a `memref.dealloc` (a buffer returned, passed to a
        call, carried by a loop or read by scalar code stays in HBM);
      - it takes at most an eighth of `vmem-bytes`, and the buffers moved
        so far, in program order, with it at most a quarter; the rest of
        VMEM is left to the tiles the other ops stage through it
        (accel-tile-linalg sizes each op's tiles to at most a quarter).

    The ops then read and write the buffer in place: accel-stage-operands
    stages only what is left in HBM, and the DMAs between the ops are gone.
  }];
  let options = [
    Option<"vmemSpace", "vmem-space", "unsigned", /*default=*/"1",
           "The numbered memory space that is VMEM">,
    Option<"vmemBytes", "vmem-bytes", "uint64_t", /*default=*/"33554432",
           "VMEM capacity in bytes (the machine config's vmem.bytes)">,
  ];
}

def AccelHoistInvariantOps
    : Pass<"accel-hoist-invariant-ops", "mlir::func::FuncOp"> {
  let summary = "Move ops that compute the same tile on every iteration in "
                "front of their loop";
  let description = [{
    Loop-invariant code motion for accel's ops on buffers (upstream's
    `--loop-invariant-code-motion` moves only ops without memory effects,
    and every VPU op writes its output buffer). A tiled op that reads a
    scalar broadcasts it with `accel.vfill` in every tile; a causal mask
    (`viota`, `vcmp`) is made again for every head. Such ops, and the
    buffers they write, move in front of the `scf.for` around them when:

      - the loop runs at least once (constant bounds);
      - the op has no results and no regions, and its only memory effects
        are reads and writes of its operand buffers (not a DMA, a WAIT or
        a scalar load);
      - each buffer operand is the loop's own: an `accel.alloc` in the
        loop body, used only by ops of the body itself (no view of it, no
        use in a nested loop); each other operand is defined outside the
        loop;
      - for each of those buffers, every op that writes it moves too, the
        first op in the body to touch it writes it without reading it (an
        accel op writes the whole of its output tile, so no value flows
        from one iteration to the next), and every op that stays and
        touches it comes after the last writer that moves.

    Every iteration then computes the same tiles; computed once before the
    loop, every op that stays reads the same values, bit for bit. Inner
    loops go first, so an op that leaves a loop may then leave the loop
    around it. The frontend runs it after convert-linalg-to-accel.
  }];
  let statistics = [
    Statistic<"numHoisted", "num-hoisted", "Ops moved in front of a loop">
  ];
}

def AccelFuseLinalg : Pass<"accel-fuse-linalg", "mlir::func::FuncOp"> {
  let summary = "Tile elementwise consumers of a matmul and fuse the matmul "
                "into their tile loop (on tensors)";
  let description = [{
    On tensors, before bufferization: each elementwise linalg op (two
    parallel loops) that reads, through other elementwise ops, the result
    of a `linalg.matmul` is tiled into `tile-rows` x `tile-cols` tiles with
    upstream's `scf::tileConsumerAndFuseProducersUsingSCF`, and the
    elementwise producers, the matmul and its fill are fused into the tile
    loop (never the producers of a matmul's A or B, which each tile reads
    whole). The fused intermediates of a tile (the matmul's result tile,
    an elementwise producer's) become `bufferization.alloc_tensor`s in
    memory space `vmem-space`, so they bufferize to VMEM buffers: the
    matmul's result tile goes straight to the VPU instead of through an
    HBM temporary. Only producers whose results go to that consumer alone
    are fused, and only where the tiles (no larger than the op) divide it:
    a partial last tile would give the intermediates dynamic shapes, so
    such an op is left to `accel-tile-linalg`, which peels the remainder.
    An elementwise op of more loops reading a matmul's result through a
    `tensor.expand_shape` (a 1x1 convolution's N x H x W x F pixels before
    its batchnorm) is first collapsed to the matmul's two dimensions
    (upstream's fold of the reshape by collapsing its consumer), so it is
    such a consumer too.
  }];
  let options = [
    Option<"tileRows", "tile-rows", "int64_t", /*default=*/"128",
           "Output rows per tile">,
    Option<"tileCols", "tile-cols", "int64_t", /*default=*/"512",
           "Output columns per tile">,
    Option<"vmemSpace", "vmem-space", "unsigned", /*default=*/"1",
           "The numbered memory space of the fused intermediates">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::tensor::TensorDialect"];
}

def AccelTileLinalg : Pass<"accel-tile-linalg", "mlir::func::FuncOp"> {
  let summary = "Tile linalg ops on buffers into loops over VMEM-sized tiles";
  let description = [{
    The first step of the frontend on buffers (after one-shot-bufferize):
    every linalg op with one or two loops is tiled with upstream's
    `scf::tileUsingSCF` into `scf.for` loops over `memref.subview` tiles.
    `linalg.matmul`, and any contraction of two matrices (its operands
    in order or transposed, its loops in any order: by their M, N and K
    roles), gets `tile-rows` x `tile-cols` output tiles and a reduction
    loop of `tile-k` (rows of B); other ops `tile-rows` x
    `tile-cols` (a 1-loop op: `tile-cols`). A dimension no larger than its
    tile size is not tiled. The sizes then shrink (halving the largest)
    until the tile's operands, all staged in VMEM at once, take at most a
    quarter of `vmem-bytes`, leaving room for the FDO passes' extra
    buffers. A size that does not divide its dimension leaves a partial
    last tile: `scf-for-loop-peeling` and `canonicalize` after this pass
    peel it into a loop of full tiles and one static remainder tile.

    A `memref.copy` between two HBM memrefs (bufferization copies
    a tensor used by two ops) first becomes a `linalg.copy`, tiled like
    the rest. An op with more than two loops whose leading loops are
    parallel and read in order by every operand (a batch of rows) first
    has them folded into one (upstream's `collapseOpIterationDims` on its
    generic form, with `memref.collapse_shape` views), unless its body
    reads `linalg.index`. Any other op with
    more than two loops (a contraction: more than three) becomes loops of
    one iteration per leading index around an op on 2-D tiles: the batch
    dimensions of a contraction (`linalg.batch_matmul`, an einsum with a
    batch dimension; upstream's `inferContractionDims`) and all but the
    last of several M or N dimensions (a convolution tap's n, oh, ow) or,
    of another op (heads split out of the rows or put back, a broadcast of
    a unit dimension), every loop but the last (the lanes) and the longest
    parallel loop before it (the tiles' rows; the loop before the last
    when that one is a reduction) are tiled by 1, and the unit dimensions this
    leaves are dropped with rank-reducing `memref.subview`s; a contraction
    left in matmul form ((m, k) x (k, n) -> (m, n)) becomes `linalg.matmul`.
    An op whose leading loops index an operand other than alone (a
    convolution's `oh + kh`) is left as it is (accel-stage-operands names
    it). A reduction over the first dimension written with its input read
    transposed (`(d0, d1) -> (d1, d0)`, the reduced loop last: the
    StableHLO conversion's `sum(x, 0)`) has its loops interchanged, so the
    input is read in order and the rows of its tiles are reduced.
  }];
  let options = [
    Option<"tileRows", "tile-rows", "int64_t", /*default=*/"128",
           "Output rows per tile (MXU and VPU ops)">,
    Option<"tileCols", "tile-cols", "int64_t", /*default=*/"512",
           "Output columns per tile">,
    Option<"tileK", "tile-k", "int64_t", /*default=*/"512",
           "Reduction depth (rows of B) per matmul tile">,
    Option<"vmemBytes", "vmem-bytes", "uint64_t", /*default=*/"33554432",
           "VMEM capacity in bytes (the machine config's vmem.bytes); one "
           "op's tiles take at most a quarter">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::memref::MemRefDialect"];
}

def AccelStageOperands : Pass<"accel-stage-operands", "mlir::func::FuncOp"> {
  let summary = "Stage the HBM operands of linalg ops through VMEM buffers";
  let description = [{
    The MXU and the VPU read and write VMEM only. For every linalg op with
    an operand in HBM (no memory space, space 0 or #accel.space<hbm>), this pass
    allocates a VMEM buffer of the operand's shape (`memref.alloc` in space
    `vmem-space`), copies each input in before the op (`memref.copy`),
    copies in each output whose old value the op reads (an accumulating
    matmul, a body that reads its output), and copies each output back
    after the op; a `linalg.copy` gets its source staged only (it becomes
    one DMA from VMEM). The copies become synchronous DMAs in
    `--convert-linalg-to-accel`; the FDO passes overlap them.

    A contraction of three loops not in matmul form, its operands read
    transposed (`x @ w.T`: `(m, k) x (n, k)`; `u.T @ v`: `(k, m)`; an
    einsum contracting the last dimensions of both sides), becomes a
    `linalg.matmul`: each transposed operand, once staged, is transposed
    into a VMEM buffer in matmul order by a `linalg.transpose` (the VPU's
    `accel.vtranspose`, docs/isa.md "Transposes"). A tile of the operand
    is transposed each time it is staged.
  }];
  let options = [
    Option<"vmemSpace", "vmem-space", "unsigned", /*default=*/"1",
           "The numbered memory space of the VMEM buffers">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

#endif // ACCEL_FRONTEND_PASSES_TD
