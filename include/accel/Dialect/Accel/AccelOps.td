//===- AccelOps.td - accel dialect operations --------------*- tablegen -*-===//

#ifndef ACCEL_OPS_TD
#define ACCEL_OPS_TD

include "accel/Dialect/Accel/AccelDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// VMEM allocation
//===----------------------------------------------------------------------===//

def Accel_AllocOp : Accel_Op<"alloc", [
    MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "Allocate a static VMEM buffer";
  let description = [{
    Reserves a statically shaped VMEM buffer of f32, bf16 or i32 (index
    table) elements. Lowering assigns every allocation a fixed VMEM address
    (a bump allocator over the function) and rejects programs whose
    allocations exceed the configured VMEM capacity.

    ```mlir
    %w = accel.alloc : memref<128x128xf32, #accel.space<vmem>>
    ```
  }];
  let results = (outs Res<AnyMemRef, "", [MemAlloc<DefaultResource>]>:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// DMA
//===----------------------------------------------------------------------===//

def Accel_DmaStartOp : Accel_Op<"dma_start", [AttrSizedOperandSegments]> {
  let summary = "ISSUE an asynchronous DMA between memories of one or two chips";
  let description = [{
    Starts copying `src` to `dst` (equal shapes, unit innermost stride, the
    same element type: f32, bf16 or i32) and returns at once with a token
    (SnR (Zarkadas et al., SoCC '25) §5.2, Fig. 3: ISSUE). A DMA copies bytes and never converts:
    use `accel.vcopy` between f32 and bf16. The copy travels the link
    (source memory, destination memory): it first pays the link's constant,
    non-accumulative base latency, then waits in the link's FIFO and
    transfers at the link bandwidth. `dst` must not be read before
    the matching `accel.dma_wait`.

    ```mlir
    %t = accel.dma_start %w_tile, %w : memref<128x128xf32, strided<[4096, 1], offset: ?>, #accel.space<hbm>>, memref<128x128xf32, #accel.space<vmem>>
    ```

    On a system of several chips (docs/isa.md, "Chips") every chip runs the
    same function, so a buffer names the same addresses on every chip.
    `dst_chip %c` makes the destination that buffer on chip `%c`, `src_chip
    %c` the source (at most one of the two); the chip id is a run-time
    value (e.g. loaded from an address table, as the node addresses of SnR's
    All-Gather, Zarkadas et al., SoCC '25, §5.2.1). Such a remote DMA crosses
    the ICI links between the chips in packets: base latency, then per
    link the hop latency and the packets' time at the ICI bandwidth,
    sharing each link with the other chips' DMAs (docs/config.md, "ICI"). `signal N` makes its
    completion signal semaphore N (0-255) of the destination's chip, which
    `accel.sem_wait` on that chip waits for.

    ```mlir
    %t = accel.dma_start %shard, %slot dst_chip %peer signal 0 : memref<256xf32, #accel.space<vmem>>, memref<256xf32, strided<[1], offset: ?>, #accel.space<vmem>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "source", [MemRead]>:$src,
                       Arg<AnyMemRef, "destination", [MemWrite]>:$dst,
                       Optional<Index>:$srcChip,
                       Optional<Index>:$dstChip,
                       OptionalAttr<ConfinedAttr<I32Attr,
                           [IntNonNegative, IntMaxValue<255>]>>:$signal);
  let results = (outs Accel_TokenType:$token);
  let assemblyFormat = [{
    $src `,` $dst (`src_chip` $srcChip^)? (`dst_chip` $dstChip^)?
    (`signal` $signal^)? attr-dict `:` type($src) `,` type($dst)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$src, "::mlir::Value":$dst), [{
      build($_builder, $_state, TokenType::get($_builder.getContext()), src,
            dst, ::mlir::Value(), ::mlir::Value(), ::mlir::IntegerAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    /// The chip operand of a remote DMA (src_chip or dst_chip), or null.
    ::mlir::Value getRemoteChip() {
      return getSrcChip() ? getSrcChip() : getDstChip();
    }
  }];
  let hasVerifier = 1;
}

def Accel_SemWaitOp : Accel_Op<"sem_wait"> {
  let summary = "WAIT until DMAs have signalled a semaphore `count` times";
  let description = [{
    Blocks the scalar core until semaphore `semaphore` (0-255) of this chip
    has received `count` signals from DMAs that completed (`accel.dma_start`
    with `signal`, from this chip or another), and consumes them. A wait
    that no DMA will ever satisfy is a deadlock: the simulator stops with a
    fault naming every chip, its PC and what it waits for.

    ```mlir
    accel.sem_wait 0, %n
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr,
                           [IntNonNegative, IntMaxValue<255>]>:$semaphore,
                       Index:$count);
  let assemblyFormat = "$semaphore `,` $count attr-dict";
}

def Accel_ChipIdOp : Accel_Op<"chip_id", [Pure]> {
  let summary = "This chip's id: 0 to the system's chip count - 1";
  let description = [{
    The SPMD entry: every chip of a system runs the same function, and
    `accel.chip_id` tells each which it is (`accel.chip_count` how many
    there are), from which it computes its shard and its peers.

    ```mlir
    %me = accel.chip_id
    %n = accel.chip_count
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
}

def Accel_ChipCountOp : Accel_Op<"chip_count", [Pure]> {
  let summary = "The number of chips of the system";
  let description = [{
    The machine config's `chips` (1 unless a system is configured).
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

class Accel_CollectiveOp<string mnemonic, string summaryText, string doc>
    : Accel_Op<mnemonic> {
  let summary = summaryText;
  let description = doc # [{

    Every chip of the system runs it (SPMD) on its own `in` and `out`,
    VMEM tiles of f32 (or bf16 where nothing is summed). `accel-replay`
    lowers it before simulating (`--accel-lower-collectives`, which
    `accel-opt` runs too): to remote DMAs, semaphores and, for sums, VPU
    adds, with an algorithm chosen from the topology and the size by an
    alpha-beta cost model and named in a remark; `algorithm` (`"direct"`,
    `"ring"`, `"bidirectional_ring"`, `"torus2d"`, `"recursive_doubling"`)
    overrides the choice (docs/collectives.md).

    `groups` (a 2-D i64 tensor, as StableHLO's `replica_groups`) runs it
    within groups of chips instead of over the whole system: each row lists
    one group's chips in rank order, and N below is the group size and
    "chip i" the group's i-th member. The groups partition the system's
    chips, each an arithmetic progression of one stride: contiguous
    (`[[0, 1, 2, 3], [4, 5, 6, 7]]`, tensor parallelism within a node) or
    strided (`[[0, 4], [1, 5], [2, 6], [3, 7]]`, data parallelism across
    nodes).

    ```mlir
    accel.all_reduce %partial, %sum {groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>} : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "in", [MemRead]>:$in,
                       Arg<AnyMemRef, "out", [MemWrite]>:$out,
                       OptionalAttr<StrAttr>:$algorithm,
                       OptionalAttr<I64ElementsAttr>:$groups);
  let assemblyFormat = [{
    $in `,` $out attr-dict `:` type($in) `,` type($out)
  }];
  let hasVerifier = 1;
}

def Accel_AllGatherOp : Accel_CollectiveOp<"all_gather",
    "Every chip's tile, gathered on every chip", [{
    With N chips, `in` is R x C and `out` (N * R) x C: rows [i * R, (i + 1)
    * R) of `out` receive chip i's `in`, on every chip.

    ```mlir
    accel.all_gather %shard, %full : memref<8x128xf32, #accel.space<vmem>>, memref<64x128xf32, #accel.space<vmem>>
    ```
  }]>;

def Accel_ReduceScatterOp : Accel_CollectiveOp<"reduce_scatter",
    "The sum over the chips, each chip keeping its block", [{
    With N chips, `in` is (N * R) x C and `out` R x C: chip i's `out` is
    the sum over every chip j of rows [i * R, (i + 1) * R) of chip j's
    `in` (f32 arithmetic on the VPU).

    ```mlir
    accel.reduce_scatter %partial, %mine : memref<64x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
    ```
  }]>;

def Accel_AllReduceOp : Accel_CollectiveOp<"all_reduce",
    "The sum over the chips, on every chip", [{
    `in` and `out` have one shape: every chip's `out` is the sum of every
    chip's `in` (f32 arithmetic on the VPU). A reduce-scatter then an
    all-gather where the rows divide among the chips, else each chip sums
    every chip's whole tile.

    ```mlir
    accel.all_reduce %partial, %sum : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
    ```
  }]>;

def Accel_AllToAllOp : Accel_CollectiveOp<"all_to_all",
    "Each chip's i-th block to chip i", [{
    With N chips, `in` and `out` are (N * R) x C: rows [j * R, (j + 1) * R)
    of chip i's `out` receive rows [i * R, (i + 1) * R) of chip j's `in`.

    ```mlir
    accel.all_to_all %tokens, %routed : memref<64x128xf32, #accel.space<vmem>>, memref<64x128xf32, #accel.space<vmem>>
    ```
  }]>;

def Accel_SendOp : Accel_Op<"send"> {
  let summary = "Copy a tile into a buffer of another chip, and signal it";
  let description = [{
    Copies `src` into `dst` on chip `peer` (a buffer names the same
    addresses on every chip), signals that chip's receive of the same
    `tag`, and returns once the copy has arrived. Lowers to an
    `accel.dma_start ... dst_chip %peer signal S` and its `accel.dma_wait`,
    S the semaphore of `tag`.

    ```mlir
    accel.send %x, %inbox to %peer tag 3 : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "src", [MemRead]>:$src,
                       Arg<AnyMemRef, "dst on the peer", [MemWrite]>:$dst,
                       Index:$peer,
                       ConfinedAttr<I32Attr, [IntNonNegative,
                                              IntMaxValue<255>]>:$tag);
  let assemblyFormat = [{
    $src `,` $dst `to` $peer `tag` $tag attr-dict `:` type($src) `,`
    type($dst)
  }];
  let hasVerifier = 1;
}

def Accel_RecvOp : Accel_Op<"recv"> {
  let summary = "Wait for a send of the same tag into a buffer";
  let description = [{
    Waits until a send of `tag` from another chip has written `dst` (its
    signal): an `accel.sem_wait S, 1`, S the semaphore of `tag`. `dst` is
    the buffer the sender names; it may be read after the receive. Sends
    of one tag are counted, not matched by sender: give concurrent senders
    to one chip distinct tags.

    ```mlir
    accel.recv %inbox tag 3 : memref<8x128xf32, #accel.space<vmem>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "dst", [MemWrite]>:$dst,
                       ConfinedAttr<I32Attr, [IntNonNegative,
                                              IntMaxValue<255>]>:$tag);
  let assemblyFormat = "$dst `tag` $tag attr-dict `:` type($dst)";
}

def Accel_DmaWaitOp : Accel_Op<"dma_wait"> {
  let summary = "WAIT until a DMA has completed";
  let description = [{
    Blocks the scalar core until the DMA of `token` has completed (SnR (Zarkadas et al., SoCC '25)
    Fig. 3: WAIT). Stall cycles spent here are split into base-latency and
    transfer-latency stalls as in SnR (Zarkadas et al., SoCC '25) Fig. 4.

    ```mlir
    accel.dma_wait %t
    ```
  }];
  let arguments = (ins Accel_TokenType:$token);
  let assemblyFormat = "$token attr-dict";
}

def Accel_LoadOp : Accel_Op<"load"> {
  let summary = "Scalar load of an i32 from VMEM into an index";
  let description = [{
    Reads one i32 element of a VMEM buffer into a scalar register (the
    scalar unit's `sld`), e.g. a loop bound or a table entry that a DMA
    brought in. Data-dependent control flow and DMA addresses start here
    (SnR (Zarkadas et al., SoCC '25) §5.2.1: node addresses loaded by setup DMAs).

    ```mlir
    %n = accel.load %table[%c3] : memref<16xi32, #accel.space<vmem>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "buffer", [MemRead]>:$buffer,
                       Variadic<Index>:$indices);
  let results = (outs Index:$result);
  let assemblyFormat = "$buffer `[` $indices `]` attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// MXU
//===----------------------------------------------------------------------===//

def Accel_MatmulOp : Accel_Op<"matmul"> {
  let summary = "MXU matrix multiply on VMEM tiles: C (+)= A * B";
  let description = [{
    Computes `c = a * b`, or `c += a * b` with `accumulate`, on the MXU, a
    weight-stationary systolic array. Shapes: a is MxK, b is KxN (contiguous),
    c is MxN; all in VMEM, each f32 or bf16. Products are summed in an f32
    accumulator (with `accumulate`, starting from c) and a bf16 c is rounded
    to nearest even once, at the end (docs/isa.md, "Element types").
    Latency model: docs/isa.md ("MXU").

    ```mlir
    accel.matmul %a, %b, %c {accumulate} : memref<8x128xf32, #accel.space<vmem>>, memref<128x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "lhs", [MemRead]>:$a,
                       Arg<AnyMemRef, "rhs", [MemRead]>:$b,
                       Arg<AnyMemRef, "accumulator", [MemRead, MemWrite]>:$c,
                       UnitAttr:$accumulate);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// VPU
//===----------------------------------------------------------------------===//

class Accel_VBinaryOp<string mnemonic, string what, dag extraArgs = (ins),
                      string extraDoc = "">
    : Accel_Op<mnemonic> {
  let summary = "VPU elementwise " # what # " of two VMEM tiles";
  let description = [{
    `out = x }] # what # [{ y` elementwise on the VPU. All operands are VMEM
    tiles of one shape, except that `y` may be an Rx1 column broadcast along
    the columns of `x` or a 1xC row broadcast along its rows. Each operand is
    f32 or bf16; the arithmetic is f32 and the result is rounded to `out`'s
    type.
  }] # extraDoc;
  let arguments = !con((ins Arg<AnyMemRef, "x", [MemRead]>:$x,
                            Arg<AnyMemRef, "y", [MemRead]>:$y,
                            Arg<AnyMemRef, "out", [MemWrite]>:$out),
                       extraArgs);
  let assemblyFormat = [{
    $x `,` $y `,` $out attr-dict `:` type($x) `,` type($y) `,` type($out)
  }];
  let hasVerifier = 1;
}

def Accel_VAddOp : Accel_VBinaryOp<"vadd", "+">;
def Accel_VSubOp : Accel_VBinaryOp<"vsub", "-">;
def Accel_VMulOp : Accel_VBinaryOp<"vmul", "*">;
def Accel_VDivOp : Accel_VBinaryOp<"vdiv", "/">;
def Accel_VCopySignOp : Accel_VBinaryOp<"vcopysign", "copysign", (ins), [{

    `copysign` is not an infix operator: `out = copysign(x, y)`, the
    magnitude of `x` with the sign bit of `y` (`math.copysign`; also for
    NaN and -0.0).
  }]>;
def Accel_VMaxOp : Accel_VBinaryOp<"vmax", "max", (ins UnitAttr:$ignore_nan),
                                   [{

    NaN (docs/isa.md, "NaN"): by default the IEEE 754-2019 `maximum`
    (`arith.maximumf`): the result is NaN when either operand is NaN, in
    either position, and -0.0 < +0.0. With `ignore_nan` it is the IEEE
    754-2008 `maxNum` (`arith.maxnumf`): a NaN operand is ignored, and the
    result is NaN only when both are.
  }]>;

def Accel_VMinOp : Accel_VBinaryOp<"vmin", "min", (ins UnitAttr:$ignore_nan),
                                   [{

    NaN (docs/isa.md, "NaN"): by default the IEEE 754-2019 `minimum`
    (`arith.minimumf`): the result is NaN when either operand is NaN, in
    either position, and -0.0 < +0.0. With `ignore_nan` it is the IEEE
    754-2008 `minNum` (`arith.minnumf`): a NaN operand is ignored, and the
    result is NaN only when both are.
  }]>;

class Accel_VUnaryOp<string mnemonic, string what>
    : Accel_Op<mnemonic> {
  let summary = "VPU elementwise " # what # " of a VMEM tile";
  let description = [{
    `out = }] # what # [{(x)` elementwise on the VPU; VMEM tiles of one
    shape, each f32 or bf16. The arithmetic is f32 and the result is rounded
    to `out`'s type, so `vcopy` between f32 and bf16 converts (bf16 to f32
    exactly, f32 to bf16 to nearest even).
  }];
  let arguments = (ins Arg<AnyMemRef, "x", [MemRead]>:$x,
                       Arg<AnyMemRef, "out", [MemWrite]>:$out);
  let assemblyFormat = [{
    $x `,` $out attr-dict `:` type($x) `,` type($out)
  }];
  let hasVerifier = 1;
}

def Accel_VExpOp : Accel_VUnaryOp<"vexp", "exp">;
def Accel_VSqrtOp : Accel_VUnaryOp<"vsqrt", "sqrt">;
def Accel_VCopyOp : Accel_VUnaryOp<"vcopy", "copy">;
def Accel_VRsqrtOp : Accel_VUnaryOp<"vrsqrt", "rsqrt">;
def Accel_VTanhOp : Accel_VUnaryOp<"vtanh", "tanh">;
def Accel_VLogOp : Accel_VUnaryOp<"vlog", "log">;
def Accel_VLog1pOp : Accel_VUnaryOp<"vlog1p", "log1p">;
def Accel_VErfOp : Accel_VUnaryOp<"verf", "erf">;
def Accel_VAbsOp : Accel_VUnaryOp<"vabs", "abs">;
def Accel_VExpm1Op : Accel_VUnaryOp<"vexpm1", "expm1">;
def Accel_VFloorOp : Accel_VUnaryOp<"vfloor", "floor">;
def Accel_VCeilOp : Accel_VUnaryOp<"vceil", "ceil">;
def Accel_VRoundEvenOp : Accel_VUnaryOp<"vroundeven", "roundeven">;
def Accel_VRoundOp : Accel_VUnaryOp<"vround", "round">;

class Accel_VReduceOp<string mnemonic, string what, dag extraArgs = (ins),
                      string extraDoc = "">
    : Accel_Op<mnemonic> {
  let summary = "VPU row " # what # " reduction of a VMEM tile";
  let description = [{
    `out[r, 0] = }] # what # [{(x[r, :])` on the VPU: x is RxC, out is Rx1,
    each f32 or bf16. The row is folded in f32 and rounded once to `out`'s
    type.
  }] # extraDoc;
  let arguments = !con((ins Arg<AnyMemRef, "x", [MemRead]>:$x,
                            Arg<AnyMemRef, "out", [MemWrite]>:$out),
                       extraArgs);
  let assemblyFormat = [{
    $x `,` $out attr-dict `:` type($x) `,` type($out)
  }];
  let hasVerifier = 1;
}

def Accel_VReduceSumOp : Accel_VReduceOp<"vreduce_sum", "sum">;
def Accel_VReduceMaxOp : Accel_VReduceOp<"vreduce_max", "max",
                                          (ins UnitAttr:$ignore_nan), [{

    The row is folded from its first element with `vmax`'s operation, so a
    NaN in the row makes the result NaN; with `ignore_nan` NaNs are skipped
    and only a row of NaNs gives NaN.
  }]>;

def Accel_VTransposeOp : Accel_Op<"vtranspose"> {
  let summary = "VPU transpose of a VMEM tile";
  let description = [{
    `out[c, r] = x[r, c]`: x is RxC, out is CxR, each f32 or bf16 (a value
    moves unchanged, rounded to nearest even into a bf16 out). It runs on
    the VPU's cross-lane path, as a TPU's transpose unit (XLU) does, and
    costs `vpu.cost.transpose` cycles per lane-pass of x or of out,
    whichever has more (docs/isa.md, "Transposes"). The frontend uses it
    for an operand a linalg op reads transposed (`x @ w.T`, `q @ k.T`, a
    `linalg.transpose`), once per staged tile.

    ```mlir
    accel.vtranspose %x, %xt : memref<128x256xf32, #accel.space<vmem>>, memref<256x128xf32, #accel.space<vmem>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "x", [MemRead]>:$x,
                       Arg<AnyMemRef, "out", [MemWrite]>:$out);
  let assemblyFormat = [{
    $x `,` $out attr-dict `:` type($x) `,` type($out)
  }];
  let hasVerifier = 1;
}

def Accel_VCmpOp : Accel_Op<"vcmp"> {
  let summary = "VPU comparison of two VMEM tiles into a mask";
  let description = [{
    `out = (x PRED y) ? 1.0 : 0.0` elementwise on the VPU, with `arith.cmpf`'s
    predicates and IEEE 754 semantics: an ordered predicate (`olt`, `oge`,
    ...) is false and an unordered one (`ult`, `une`, ...) true when either
    operand is NaN. Shapes as for `vadd` (y may be a column or a row
    broadcast); each operand f32 or bf16. The mask feeds `vselect`.

    ```mlir
    accel.vcmp oge, %x, %y, %mask : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
    ```
  }];
  let arguments = (ins Accel_CmpPredicate:$predicate,
                       Arg<AnyMemRef, "x", [MemRead]>:$x,
                       Arg<AnyMemRef, "y", [MemRead]>:$y,
                       Arg<AnyMemRef, "out", [MemWrite]>:$out);
  let assemblyFormat = [{
    $predicate `,` $x `,` $y `,` $out attr-dict `:` type($x) `,` type($y) `,`
    type($out)
  }];
  let hasVerifier = 1;
}

def Accel_VSelectOp : Accel_Op<"vselect"> {
  let summary = "VPU select by a mask: out = mask != 0 ? y : out";
  let description = [{
    Where `mask` is not 0.0 (a `vcmp` result is 1.0 there), `out` takes `y`'s
    value; where it is 0.0 (or -0.0), `out` keeps its own. `arith.select %m,
    %a, %b` is `out = b` then `vselect %m, %a, %out`. Shapes as for `vadd`
    with x = mask (y may be a column or a row broadcast); each operand f32
    or bf16.

    ```mlir
    accel.vselect %mask, %y, %out : memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>, memref<8x128xf32, #accel.space<vmem>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "mask", [MemRead]>:$mask,
                       Arg<AnyMemRef, "y", [MemRead]>:$y,
                       Arg<AnyMemRef, "out", [MemRead, MemWrite]>:$out);
  let assemblyFormat = [{
    $mask `,` $y `,` $out attr-dict `:` type($mask) `,` type($y) `,` type($out)
  }];
  let hasVerifier = 1;
}

def Accel_VIotaOp : Accel_Op<"viota"> {
  let summary = "VPU iota: out[r, c] = base + r (or base + c)";
  let description = [{
    Writes `base + r` (with `columns`, `base + c`) to every element of `out`
    (f32 or bf16), converted from the signed integer to the nearest float:
    exact while the magnitude is below 2^24 in f32, 2^8 in bf16. `base` is
    an index, typically a tile's offset, so a linalg body's `linalg.index`
    is the global index (docs/isa.md, "vpu.iota").

    ```mlir
    accel.viota %i0, %rows : memref<8x1xf32, #accel.space<vmem>>
    accel.viota %j0, %cols {columns} : memref<1x128xf32, #accel.space<vmem>>
    ```
  }];
  let arguments = (ins Index:$base, Arg<AnyMemRef, "out", [MemWrite]>:$out,
                       UnitAttr:$columns);
  let assemblyFormat = "$base `,` $out attr-dict `:` type($out)";
  let hasVerifier = 1;
}

def Accel_VFillOp : Accel_Op<"vfill"> {
  let summary = "VPU fill of a VMEM tile with a constant";
  let description = [{
    Writes the f32 `value` to every element of `out` (f32 or bf16; rounded
    to nearest even in a bf16 tile).

    ```mlir
    accel.vfill %acc, 0.0 : memref<8x128xf32, #accel.space<vmem>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "out", [MemWrite]>:$out, F32Attr:$value);
  let assemblyFormat = "$out `,` $value attr-dict `:` type($out)";
  let hasVerifier = 1;
}

#endif // ACCEL_OPS_TD
