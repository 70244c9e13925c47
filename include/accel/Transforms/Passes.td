//===- Passes.td - accel transformation passes -------------*- tablegen -*-===//

#ifndef ACCEL_TRANSFORMS_PASSES_TD
#define ACCEL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AccelAssignOpIds : Pass<"accel-assign-op-ids", "mlir::ModuleOp"> {
  let summary = "Give every accel op and scf.for a stable `accel.op_id`";
  let description = [{
    Assigns the integer attribute `accel.op_id` to every accel dialect op and
    every `scf.for` that lacks one, numbering from one above the largest id
    already present, in program (pre-order) order. Existing ids are never
    changed, so ids stay stable across transforms: metrics.json is keyed by
    them and `--accel-attach-metrics` maps them back. Duplicate ids are an
    error.

    Example: `accel.dma_wait %t` becomes `accel.dma_wait %t {accel.op_id = 4 : i64}`.
  }];
}

def AccelAttachMetrics : Pass<"accel-attach-metrics", "mlir::ModuleOp"> {
  let summary = "Attach per-op metrics from metrics.json as attributes";
  let description = [{
    Reads a metrics.json written by `accel-replay run` (schema
    docs/metrics.md) and, for every op whose `accel.op_id` appears under
    "ops", sets:
      - `accel.executions` (i64): times the op's instructions ran,
      - on `accel.dma_start`: `accel.dma_count`, `accel.dma_bytes`,
        `accel.stall_base`, `accel.stall_transfer`, `accel.slack` (i64
        cycles summed over the op's DMAs; SnR (Zarkadas et al., SoCC '25) Fig. 4).
    When the metrics carry the analyzer's sections, also:
      - `accel.backtail` on DMA ops: {conservative_cycles,
        conservative_instructions, relaxed_cycles, relaxed_instructions,
        relaxed_bound_op_id (-1: nothing in the run binds it)}, the
        smallest over the op's
        DMAs (SnR (Zarkadas et al., SoCC '25) Fig. 9);
      - `accel.suggestions` on every op a suggestion names: an array of
        {kind = "hoist" | "pin" | "parallelize", expected_cycles_saved,
        with_op_id (parallelize), bytes (pin)}.
    The metrics must be of this program: their "program_fingerprint" (a
    hash of the op ids with their op names and locations, written by
    `accel-replay run`) must be the module's, or the pass fails with one
    error (`force=true` makes it one warning). An id in the metrics that no
    op carries, or that an op of another name carries (stale), and a
    `dma_start` with an id the metrics lack (missing) each give one warning.
    A file that cannot be read or parsed, has another schema version, or a
    field of the wrong type or out of range (counts and cycles in
    [0, 2^48]) is one error naming the file's byte or the field; the module
    is then unchanged.

    accel-opt also accepts the short spelling
    `--accel-attach-metrics=metrics.json`.
  }];
  let options = [
    Option<"metricsFile", "metrics", "std::string", /*default=*/"\"\"",
           "Path of the metrics.json to attach">,
    Option<"force", "force", "bool", /*default=*/"false",
           "Attach metrics whose program_fingerprint is not the module's "
           "(one warning instead of the error)">
  ];
  let statistics = [
    Statistic<"numAttached", "num-attached", "Ops that received metrics">,
    Statistic<"numStale", "num-stale", "Metric entries with no matching op">
  ];
}

def AccelLowerCollectives : Pass<"accel-lower-collectives",
                                  "mlir::func::FuncOp"> {
  let summary = "Lower collectives to remote DMAs, semaphores and VPU adds";
  let description = [{
    Rewrites `accel.all_gather`, `accel.reduce_scatter`, `accel.all_reduce`,
    `accel.all_to_all`, `accel.send` and `accel.recv` into the ops a chip
    runs: `accel.dma_start ... dst_chip %peer signal S` to the peers of an
    algorithm, `accel.sem_wait S, n` for what arrives, `accel.dma_wait` on
    each send before the collective ends, and `accel.vadd` for sums.

    For each collective it estimates every algorithm that applies with an
    alpha-beta model of the machine's ICI (docs/collectives.md): per step,
    T_b + (hops of its longest message) x hop latency + (the bytes of the
    most loaded link) / link bandwidth, loads counted over the topology's
    routes; plus the VPU adds of a sum. Algorithms: `direct` (every chip
    to every chip at once), `ring` (N - 1 steps to the next chip),
    `bidirectional_ring` (half each way round), `torus2d` (a bidirectional
    ring along X, then along Y, on a 2-D torus), `recursive_doubling`
    (log2 N steps, partner chip ^ 2^k; N a power of two; recursive halving
    for a reduce-scatter). It takes the cheapest, or the op's `algorithm`
    attribute, or this pass's `algorithm` option, and with `remarks`
    explains the choice in a remark listing every estimate. An all-reduce
    is a reduce-scatter then an all-gather of the same algorithm where its
    rows divide among the chips, else direct.

    Groups: a collective with `groups` (a 2-D tensor of chip ids, one row
    per group) runs within each group; N is then the group's size and the
    ranks and peers are computed from the chip id, which the groups allow
    when they partition the chips into progressions of one size and stride
    (contiguous or strided; docs/collectives.md, "Groups").

    Semaphores: `accel.send` / `accel.recv` use their `tag` as the
    semaphore; each collective takes fresh semaphores from 255 down that
    nothing in the function uses. Scratch buffers are `accel.alloc`s in
    front of the collective.

    Errors (located): a collective on one chip's system is a copy (no
    error); more semaphores than are free; out's rows not N times in's
    (all_gather) and the like, for N the pass's chips (the group's size);
    groups that do not partition the chips into progressions; an algorithm
    that does not apply (e.g. torus2d on a ring or within a group,
    recursive_doubling on 6 chips).

    Example (4 chips, ring): `accel.all_gather %a, %b` becomes a local copy
    of %a into its rows of %b, then 3 steps of a DMA of one block to chip
    (me + 1) mod 4, a `sem_wait` for the block from chip (me - 1) and a
    `dma_wait` of the DMA.
  }];
  let options = [
    Option<"chips", "chips", "unsigned", /*default=*/"0",
           "Chips of the system (0: the module's accel.chips, else 1)">,
    Option<"topology", "topology", "std::string", /*default=*/"\"ring\"",
           "ICI topology: ring, torus2d, torus3d or full">,
    ListOption<"dims", "dims", "unsigned",
               "The torus's dims (X,Y or X,Y,Z)">,
    Option<"hopLatency", "hop-latency", "uint64_t", /*default=*/"300",
           "Cycles per ICI hop">,
    Option<"bytesPerCycle", "bytes-per-cycle", "double", /*default=*/"48",
           "Bandwidth of one ICI link in bytes per cycle">,
    Option<"baseLatency", "base-latency", "uint64_t", /*default=*/"100",
           "Base latency of a VMEM to VMEM DMA in cycles">,
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"\"",
           "Use this algorithm for every collective where it applies">,
    Option<"emitRemarks", "remarks", "bool", /*default=*/"false",
           "Explain each choice in a remark with every estimate">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def AccelHoistDma : Pass<"accel-hoist-dma", "mlir::func::FuncOp"> {
  let summary = "Hoist stalled DMA ISSUEs earlier, out of op sequences and loops";
  let description = [{
    Moves each `accel.dma_start` whose attached metrics show a stall
    (`accel.stall_base` + `accel.stall_transfer` > 0; all of them with
    `all=true`) as early as is provably legal, so its base latency and
    transfer overlap preceding work (SnR (Zarkadas et al., SoCC '25) §5.3.1 prefetching, §5.4
    Algorithm 2 hoisting). Pure ops that compute its operands
    (`memref.subview`, `arith` index math) move with it.

    The pass proves legality in the IR. The DMA never moves above:
      - an op that writes (a buffer aliasing) its source,
      - an op that reads or writes (a buffer aliasing) its destination, or
        the WAIT of a DMA that does,
      - another `accel.dma_start` (the ISSUE order of a link's FIFO is
        kept), unless the DMA moves at most `reorder-bytes` bytes: a small
        DMA (an offset table, a scalar) may go first, delaying the
        transfers it passes by at most its own transfer; only the memory
        effects of the ISSUEs it passes then stop it,
      - an op with unknown memory effects,
      - the definition of one of its operands that is not pure (dominance).
    Once at the top of an `scf.for` body it leaves the loop when all its
    operands are defined outside the loop, no other op in the loop writes its
    source or its destination (reads of the destination are fine: the data
    is then loaded once and only read), and the loop has constant bounds with
    at least one iteration; the WAITs stay in the loop (later ones find the
    DMA complete).
    Buffers are roots of `memref.subview` chains; distinct allocations and
    distinct function arguments are assumed not to alias. Two unit-stride
    subviews of one buffer do not overlap when, in some dimension, their
    offsets (linear in SSA values through arith.addi/subi/muli by a
    constant) differ by a constant at least the lower one's size (rows 8k
    and 8(k+1) of an 8-row tile loop).

    VMEM: lowering reserves every `accel.alloc` for the whole function, so a
    hoist never raises peak VMEM; the pass refuses every hoist when the
    function's allocations exceed `vmem-capacity`.

    Registers: the lowering does not spill, and a hoisted ISSUE keeps its
    token and addresses live longer. When the function lowered before the
    pass and would not after (more than 255 scalar registers live at
    once), every hoist of the run is undone, with a remark (`remarks=true`)
    giving the lowering's error; the same holds for `accel-sink-dma-wait`,
    `accel-parallelize-dma` and `accel-pin-vmem` (docs/transforms.md,
    "Register budget").

    Each moved op gets `accel.hoisted` (i64: how many ops it crossed). With
    `remarks=true` every refusal is reported as a remark on the DMA naming
    the reason.

    Runs on each `func.func`, on its own (functions run in parallel):
    `--pass-pipeline='builtin.module(func.func(accel-hoist-dma))'`, or `--accel-hoist-dma`,
    which nests it.
  }];
  let options = [
    Option<"hoistAll", "all", "bool", /*default=*/"false",
           "Hoist every DMA, not only those whose metrics show a stall">,
    Option<"reorderBytes", "reorder-bytes", "uint64_t", /*default=*/"1024",
           "A DMA of at most this many bytes may move above other ISSUEs "
           "(0: never)">,
    Option<"vmemPage", "vmem-page", "uint64_t", /*default=*/"1024",
           "VMEM allocation granularity in bytes (the lowering aligns each "
           "allocation to it)">,
    Option<"vmemCapacity", "vmem-capacity", "uint64_t",
           /*default=*/"33554432", "VMEM capacity in bytes">,
    Option<"emitRemarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark for each DMA that is not moved, with the reason">
  ];
  let statistics = [
    Statistic<"numHoisted", "num-hoisted", "DMA starts moved earlier">,
    Statistic<"numHoistedOutOfLoops", "num-hoisted-out-of-loops",
              "DMA starts moved out of an scf.for">
  ];
}

def AccelParallelizeDma : Pass<"accel-parallelize-dma", "mlir::func::FuncOp"> {
  let summary = "Issue independent DMAs back to back so base latencies overlap";
  let description = [{
    SnR (Zarkadas et al., SoCC '25) §5.2.1: DMAs serialized by ISSUE -> WAIT
    -> ISSUE pay their base latencies one after another; issued together
    they pay them in parallel (the base latency is non-accumulative,
    Fig. 4). For each `accel.dma_start` B with a `parallelize` entry in
    `accel.suggestions` (from --accel-attach-metrics; every DMA with
    `all=true`), the pass moves B, with the pure ops and scalar loads
    computing its operands, up its block as far as the rules of
    --accel-hoist-dma allow (no write to B's source, no access to B's
    destination or the WAIT of a DMA that does, no op with unknown effects,
    dominance), and places it right after the highest `accel.dma_start` A
    it reaches (and after the ISSUEs that follow A back to back, so a group
    keeps its order). A move that reaches no ISSUE is not made.

    B passes other ISSUEs of its link (reordering the link's FIFO) only when
    its metrics show that each of its WAITs stalled on base latency for at
    least its transfer (`accel.stall_base` / `accel.dma_count` >=
    `accel.transfer_cycles`): issued earlier it hides up to that stall,
    while each DMA it passes completes at most its transfer later.
    Otherwise, and without metrics, the preceding ISSUE of its link stops
    it, as the FIFO order is kept.

    A chain (SnR's setup groups: a table DMA, then DMAs whose addresses are
    loaded from the table) joins the group ahead of it when the suggestion
    names a `wait_op_id`: the analyzer saw that WAIT's DMA complete before
    the `with_op_id` DMA was issued, so the WAIT moves up to just before
    that DMA (it then costs no stall) and B follows. If B still cannot
    reach that DMA, the WAIT goes back. Otherwise WAITs never move, so the
    program still waits for each DMA before using its data.

    As in `accel-hoist-dma`, a run whose result would need more than 255
    scalar registers (and whose input did not) is undone, with a remark.

    Each moved op gets `accel.parallelized` (i64: the op id of A). With
    `remarks=true` every refusal is reported as a remark naming the reason.

    Runs on each `func.func`, on its own (functions run in parallel):
    `--pass-pipeline='builtin.module(func.func(accel-parallelize-dma))'`, or `--accel-parallelize-dma`,
    which nests it.
  }];
  let options = [
    Option<"parallelizeAll", "all", "bool", /*default=*/"false",
           "Consider every DMA, not only those with a parallelize suggestion">,
    Option<"emitRemarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark for each DMA that is not moved, with the reason">
  ];
  let statistics = [
    Statistic<"numParallelized", "num-parallelized",
              "DMA starts moved next to an earlier ISSUE">,
    Statistic<"numWaitsMoved", "num-waits-moved",
              "WAITs moved up out of a dependent DMA's way">
  ];
}

def AccelRenameVmem : Pass<"accel-rename-vmem", "mlir::func::FuncOp"> {
  let summary = "Give a reused VMEM buffer a fresh allocation where the reuse "
                "stops a stalled DMA from moving";
  let description = [{
    A VMEM buffer reused for unrelated data orders the DMAs on it as a
    reused register orders instructions (write-after-read): the store of
    tile k must be waited for before the buffer takes tile k + 1, and the
    load of a new tile cannot be issued before the last read of the old
    one. Fully unrolled code (after --accel-pipeline-dma flattens short
    loops) keeps the few rotating copies of the loop, so these reuses are
    what stops --accel-sink-dma-wait and --accel-hoist-dma. Register
    renaming removes such false dependences; this pass does the same for
    VMEM, trading capacity for fewer stalls (SnR (Zarkadas et al., SoCC '25) §5.3.2 makes the
    same trade when it pins data).

    Two cases, both chosen from the attached metrics:
      - a WAIT whose DMA stalled or is near-critical (`accel.min_slack` <
        `accel.transfer_cycles`, as in --accel-sink-dma-wait) and whose
        sinking stops at an op X that overwrites all of the DMA's source:
        the uses of that buffer from X on get a new `accel.alloc`;
      - a DMA that stalled, writes all of its destination buffer, and
        whose hoisting stops at an access to that buffer (the last reads
        of the tile it replaces): the uses from the DMA on get a new one.
    "Overwrites all": the op names the allocation itself (not a view) as
    its only write and reads none of it (a VPU op's output, a DMA's
    destination, a matmul's C without `accumulate`).

    A DMA of either case whose buffer is a view of a larger allocation (a
    slot of a hand-written ring buffer, once the loop is fully unrolled)
    first has that allocation split, one new allocation per view, when
    every use of it is a unit-stride `memref.subview` with constant
    offsets (folded: `(i + 2) mod 3` with `i` known) and static sizes, of
    the same rank, and any two views are the same bytes or disjoint: the
    parts are then independent buffers (scalar replacement of an
    aggregate), each renamed alone. The views' users must be ops without
    regions (not views, terminators or calls) that still verify with the
    part's identity layout, and the parts, each rounded up to a page, must
    fit in VMEM.

    A third case, for compute overlap: an MXU or VPU op of the function
    body (that ran: `accel.busy_cycles`) that overwrites all of a buffer
    whose last access before it is a read on the other unit (the next
    block's scores computed on the MXU into the buffer the VPU's softmax
    of this block still reads) gets a new allocation from it on, so that
    `accel-schedule` may run both units at once.

    When VMEM has no room for a fresh allocation, an allocation of the
    same type that no op accesses from the rename point on serves instead
    (a register allocator's free register): made before that point in the
    same block, flowing nowhere but into the block's ops, and with no
    access at or after the point, the WAIT of a DMA counting as the DMA's
    access (a store still in flight holds its source) and an op of unknown
    effects as an access of every buffer.

    Renaming is legal when the buffer is an `accel.alloc` used only in the
    op's block, that block is a function body (nothing after it reads the
    old contents; in a loop the next iteration might), no view made before
    X is used after it, and the buffer never flows into a region, a call
    or a terminator. Each new allocation is placed just before X and
    costs its tile size rounded up to `vmem-page`; the pass stops when the
    function's allocations would exceed `vmem-capacity`, and undoes every
    rename when the program would no longer lower (255 scalar registers).

    New allocations get `accel.renamed` (i64, in order) and no op id. With
    `remarks=true` each rename and each refusal is reported.

    Runs on each `func.func`, on its own (functions run in parallel):
    `--pass-pipeline='builtin.module(func.func(accel-rename-vmem))'`, or `--accel-rename-vmem`,
    which nests it.
  }];
  let options = [
    Option<"vmemPage", "vmem-page", "uint64_t", /*default=*/"1024",
           "VMEM allocation granularity in bytes (the lowering aligns each "
           "allocation to it)">,
    Option<"vmemCapacity", "vmem-capacity", "uint64_t",
           /*default=*/"33554432", "VMEM capacity in bytes">,
    Option<"emitRemarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark for each rename and each refusal, with the reason">
  ];
  let statistics = [
    Statistic<"numRenamed", "num-renamed",
              "VMEM buffers given a fresh allocation">,
    Statistic<"numSplit", "num-split",
              "VMEM buffers split into one buffer per constant view">
  ];
}

def AccelSchedule : Pass<"accel-schedule", "mlir::func::FuncOp"> {
  let summary = "List-schedule each block for the in-order core, on the "
                "measured costs";
  let description = [{
    The core issues in program order and stalls on a busy MXU or VPU, a
    data hazard or a WAIT (docs/isa.md, "Timing"); whatever follows the
    stalled op waits with it. After pipelining and unrolling a block often
    holds independent chains one after another (one tile's VPU ops, the
    next tile's address math, scalar loads and DMA ISSUEs), so the core
    stalls behind one chain while the other could run. The pass reorders
    each block by list scheduling: at each step it issues, among the ops
    whose dependences are met, the one the model says can issue first
    (ties: the longest path of costs to the end of the block, then program
    order).

    The model (llvm-mca style, per block): one op issues at a time; an MXU
    or VPU op waits for its unit and for the ops it depends on, and keeps
    its unit busy for its measured cycles (`accel.busy_cycles` /
    `accel.executions`); a scalar op costs its measured cycles; a DMA
    completes `accel.dma_cycles` after its ISSUE, at most
    `accel.dma_max_outstanding` (a module attribute) in flight; a WAIT
    waits for its DMA. Ops without metrics (clones made by this run's
    passes) take the cost of the op of the same name and location. All of
    these come from --accel-attach-metrics; without them the pass does
    nothing. A block is reordered only when the model says its schedule is
    shorter than the program order.

    Dependences (what keeps its order): SSA uses (also from ops nested in
    a region), conflicting memory accesses (a write and another access of
    overlapping views of one buffer, as --accel-hoist-dma decides), where a
    WAIT counts as its DMA's reads and writes; the ISSUE order on each DMA
    link (one FIFO per link); ops with unknown effects, and WAITs whose DMA
    is not an `accel.dma_start` of the block, against every op that touches
    memory; the terminator last. When the scheduled program would not lower
    (255 scalar registers), every block is put back.

    With `remarks=true` each scheduled block is reported with the model's
    cycles before and after.

    Not part of `accel-fdo-pipeline`: the model times each block alone
    (not the DMAs a loop's other iterations have in flight, nor what runs
    inside the loops it fences), so only function bodies are scheduled, and
    applied to every iteration on bench/fdo (2026-11-24) it made 5 of the 15
    kernels slower (STREAM 7629 -> 7804 cycles) while it made the gather
    faster (4628 -> 4209). `accel-replay fdo` therefore runs it as a trial
    (`--trial-passes`, default `accel-schedule,cse`): each iteration's
    program is scheduled, run, and the scheduled one kept only when it is
    faster (docs/metrics.md, fdo.json).

    Runs on each `func.func`, on its own (functions run in parallel):
    `--pass-pipeline='builtin.module(func.func(accel-schedule))'`, or `--accel-schedule`,
    which nests it.
  }];
  let options = [
    Option<"vmemPage", "vmem-page", "uint64_t", /*default=*/"1024",
           "VMEM allocation granularity in bytes (for the lowering check)">,
    Option<"vmemCapacity", "vmem-capacity", "uint64_t",
           /*default=*/"33554432", "VMEM capacity in bytes">,
    Option<"emitRemarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark for each block scheduled">
  ];
  let statistics = [
    Statistic<"numScheduled", "num-blocks-scheduled",
              "blocks reordered">
  ];
}

def AccelSinkDmaWait : Pass<"accel-sink-dma-wait", "mlir::func::FuncOp"> {
  let summary = "Move stalled DMA WAITs down to the first use of the data";
  let description = [{
    The mirror of --accel-hoist-dma (SnR (Zarkadas et al., SoCC '25) §5.2, §5.4): a WAIT placed
    right after its ISSUE stalls for the whole base and transfer latency
    while independent work waits behind it. For each `accel.dma_wait` whose
    DMA has a stall in its attached metrics (`accel.stall_base` +
    `accel.stall_transfer` > 0; every WAIT with `all=true`), the pass moves
    the WAIT down its block past every op that may run while the DMA is in
    flight, and stops before the first op that reads or writes the DMA's
    destination, writes its source, waits for a DMA that touches them, has
    unknown memory effects, or is the block's terminator. ISSUEs of other
    DMAs may be crossed (their order does not change), so their base
    latencies overlap this one's. Ops inside a crossed region (an scf.for)
    are checked too. Aliasing follows --accel-hoist-dma (disjoint subviews
    of one buffer do not stop the WAIT). WAITs never leave their block, and
    a WAIT moves only past ops that do work (not past only allocations or
    other WAITs).

    As in `accel-hoist-dma`, a run whose result would need more than 255
    scalar registers (and whose input did not) is undone, with a remark.

    Each moved WAIT gets `accel.sunk` (i64: the ops crossed). With
    `remarks=true` the pass reports where each WAIT stopped and why.

    Runs on each `func.func`, on its own (functions run in parallel):
    `--pass-pipeline='builtin.module(func.func(accel-sink-dma-wait))'`, or `--accel-sink-dma-wait`,
    which nests it.
  }];
  let options = [
    Option<"sinkAll", "all", "bool", /*default=*/"false",
           "Consider every WAIT, not only those of DMAs that stalled">,
    Option<"emitRemarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark for each WAIT: where it stopped, and why">
  ];
  let statistics = [
    Statistic<"numSunk", "num-sunk", "DMA WAITs moved later">
  ];
}

def AccelPipelineDma : Pass<"accel-pipeline-dma", "mlir::func::FuncOp"> {
  let summary = "Software-pipeline a loop's DMAs (prefetch distance d, "
                "multi-buffered) on upstream scf::pipelineForLoop";
  let description = [{
    Overlaps each iteration's DMAs with the work of earlier iterations
    (issue 5, issue 10; SnR (Zarkadas et al., SoCC '25) §5.3.1 "prefetch more aggressively"). The
    pass chooses a stage for every op of an `scf.for` body and proves the
    schedule legal; upstream's `scf::pipelineForLoop` (epilogue peeled)
    builds the prologue, kernel and epilogue. Loops of a single iteration
    (a peeled K loop's remainder, a K loop of one tile) are first inlined
    (`promoteIfSingleIteration`, results replaced by the yielded values),
    so their DMAs join the enclosing body.
    Loops are visited innermost first; an outer loop sees an inner
    pipelined loop's prologue DMAs as its own. A loop of 2 to 4 trips
    with DMAs that is refused because its trip count is not above its last
    stage, inside another loop, is fully unrolled instead (its allocations
    hoisted first; the later iterations without op ids), so that the
    enclosing loop overlaps those DMAs across its own iterations.

    A loop nest in the function body whose metrics show at most 8
    iterations in all (the largest accel.executions in it, read before any
    loop changes), with a constant trip count and DMAs that stall, is
    fully unrolled instead, nested loops of constant trip counts included,
    when the function still lowers after it (not with `all=true`: no
    metrics say the DMAs stall): so few iterations pipeline poorly, the
    prologue and epilogue being most of the run, while as straight-line
    code the DMA-motion passes of the next FDO iteration issue every load
    early and wait for every store late (remark: "unrolled fully").

    A loop whose bounds are known only at run time (a trip count loaded
    with `accel.load`) is strip-mined (issue 33, item 3): with n =
    max(ub - lb, 0) ceildiv step iterations and a chunk of T, a loop
    (marked `accel.strip_mined`) over n / T chunks runs a unit-step loop of
    T iterations, which is pipelined as any other, and a loop after it runs
    the iterations left over as written; iter_args go through all three. T
    is the trip count per entry the metrics show (the executions of the
    body over those of the ops beside the loop; at most 4096), so the
    profiled input runs as one pipelined chunk; 8 with `all=true` and no
    metrics. The rewrite keeps every iteration and its order, so it is
    legal whatever the body does; it needs a constant step, and is undone
    when the chunk loop is refused (both reasons are remarked).

    A loop refused for any other reason (a ring too short to unroll, a
    buffer every iteration shares) keeps its order, but each WAIT of a stalled DMA (its metrics
    show a stall, or a WAIT less than a transfer after the completion) that
    can sink to the end of the body is deferred across the back edge: it
    waits in the next iteration, on the token carried in a new iter_arg,
    just before the first op that may touch the bytes the DMA reads or
    writes (the shared memory dependence analysis at distance 1; a WAIT on
    a carried token stands for every DMA the token may come from, compared
    by buffer), and at the latest before the DMA's next ISSUE. The first
    iteration is peeled (the loop needs a constant trip count of at least
    2), and the last DMA is waited for after the loop. Kept only when the
    function still lowers with room (as for pipelining); remark: "deferred
    across the back edge: the WAIT at LOC waits in the next iteration,
    before OP at LOC".

    A loop whose iter_args are yielded other iter_args, either rotating
    (ping-pong accumulators `yield %b, %a` passed as memref iter_args; a
    cycle of length L) or shifting (a hand-pipelined ring's tokens in
    flight, `yield %next, %new`; a chain of length L into a value the body
    computes), with P the smallest multiple of every cycle's length that is
    at least every chain's length (P <= 8), and that runs at least 2P
    times, is unrolled by P (loopUnrollByFactor, the trips % P left over in
    a loop after it): each copy names its buffers directly, a rotation
    yields every iter_arg unchanged and they are dropped, a shift yields
    values computed in the body; the buffers allocated before the loop and private to an
    iteration (a tile each step DMAs in) get one allocation per copy, so
    the copies' DMAs do not wait for each other's reads. The unrolled loop
    is then pipelined as any other, or the unrolling is undone.

    A store (a DMA from VMEM to HBM, waited in the body) whose metrics show
    a stall and whose source carries data from one iteration to the next
    (not private: an accumulator, a state) is staged on the working copy:
    `accel.vcopy` of the source into a fresh buffer right before it, and
    the store reads that buffer. The buffer is private, so it is
    multi-buffered and the store waited for ds stages later; without the
    copy its WAIT had to come before the next iteration's write of the
    source (ds = 0), exposing the store's whole latency every iteration.
    The copies cost a VPU op each, so they are kept only when the schedule
    without them is refused or waits for the stores sooner than the
    metrics ask (a smaller ds) and the one with them does better.

    Schedule: every op at the earliest stage its dependences allow, where
    a DMA into VMEM waits `d` stages after its ISSUE (prefetch distance), a
    DMA into HBM (a store) `ds` stages, an MXU or VPU op's result read on
    another unit or by a DMA ISSUE (a matmul's result read by the VPU, a
    VPU result stored) `compute-distance` stages later, and every other
    dependence (SSA values; two accesses of overlapping memory, one a
    write, a DMA accessing its source and destination from its ISSUE to
    its WAIT) allows the same stage. So loads are issued at stage 0 and
    waited for, with the compute, at stage d; a store of the result is
    issued one stage later (the in-order core would otherwise stall on the
    unit at the ISSUE while the unit idles) and waited for ds stages after
    that, while the next iterations compute into other output buffers; a
    dependent chain (table DMA, accel.load of an offset, the row DMA at
    that offset) takes d stages per link. Every op but an ISSUE then moves
    as late as its users allow. Pure address math goes to the first stage
    that uses it, with a copy for each later stage. A tile offset carried
    in an iter_arg (off' = off + c through arith.addi/subi, c a multiple of
    the step, counting up or down) is first rewritten wherever it is read
    as init + (c / step) (iv - lb), so the DMAs that use it can move to
    stage 0 without carrying it across stages; other iter_args must be
    computed and used in one stage.

    d: `distance` when set; else from the attached metrics, d =
    ceil(L / P), L the largest stall per execution of the body's DMAs into
    VMEM (accel.stall_base + accel.stall_transfer over accel.executions:
    T_b plus transfer, SnR (Zarkadas et al., SoCC '25) Fig. 4), P the cycles of an iteration once
    DMAs overlap: the larger of the body's work (accel.busy_cycles summed
    over the body, per execution) and the transfer time of its DMAs per
    iteration; ds likewise from the stores; both at most `max-distance`
    and 1 without metrics. While the schedule is refused (trip count, VMEM,
    registers, legality) the compute distance drops to 0 first, then d and
    ds are lowered (d first).

    Legality: the kernel runs stage s of iteration k + S - s together, in
    (stage, body position) order. Two conflicting accesses of iterations k
    and k + m that this would reorder must be on provably disjoint views
    (subview offsets linear in the induction variable), or on buffers
    private to each iteration. A buffer reached through an scf.for
    iter_arg (an inner loop pipelined earlier rotates its copies that way)
    may be any buffer its init and yielded values may be; such buffers form
    one group. A group is private when its buffers are VMEM allocations
    made outside the loop (an allocation in the body, or in a nested
    loop, is hoisted first: it has one static address anyway) whose
    contents neither enter an iteration nor leave the loop: every read of
    them in an iteration reads bytes written earlier in the same iteration,
    by a write of the whole buffer (a DMA into it, a VPU op or a matmul
    without `accumulate` writing it) or by writes through subviews whose
    rectangles cover the read (unit strides; offsets from constants and
    the induction variables of nested loops with constant bounds: a row
    band written tile by tile), and on every path after the loop (through
    the rest of the enclosing loops' bodies, their next iterations and
    past their ends) each is written (whole, or by covering subviews) before it is read. The program
    may use the buffers before and after the loop for other tensors. The
    pass executes the code symbolically, binding nested loops' induction
    variables and iter_args to their values (offsets, the buffers they
    hold) in each of their (constant) iterations. Each
    buffer of the group gets N copies (N - 1 new allocations), N the
    largest such m plus one (with `unroll-rotation`, raised to the loop's
    largest N when VMEM has room): the prologue and epilogue use copy (k mod N) directly and the
    kernel rotates the copies through iter_args (memref::multiBuffer
    indexes the copies with a remainder, which the ISA lacks). With
    `unroll-rotation`, the kernel is then unrolled by N (modulo variable
    expansion; scf's loopUnrollByFactor, the remainder iterations
    unrolled after it, and only when the kernel runs at least N times and
    the unrolled body with the remainder stays under 2048 ops): each
    unrolled body names its
    copies directly and the rotation's register moves, one per copy and
    iteration, go away. With `async-copies`, a buffer an MXU
    or VPU op uses in a later stage than another op accesses it gets one
    copy more when it fits (VMEM, registers): the unit runs on after the
    core issues the op, and the next kernel iteration's access (a DMA
    ISSUE into the copy the running matmul reads) would otherwise stall
    the core until it ends. A WAIT on a DMA issued before the loop
    ends that DMA's window where it stands. So does a top-level WAIT on a
    token carried in an iter_arg (a hand-pipelined ring), for every DMA the
    token may come from: DMAs before the loop, and DMAs at the top level of
    the body whose token is yielded (their whole buffers then: their views
    name another iteration's bytes); those DMAs have no window of their
    own in the iteration that issues them. Registers: the lowering does
    not spill, so each loop is first pipelined on a copy of the module,
    which must still lower within 7/8 of the 255 scalar registers (room
    for later passes), and within all 255 after cse (which the FDO
    pipeline runs next and which lengthens live ranges by merging equal
    values); if it does not, the largest distance is halved and
    tried again, down to 1. Refusals, as remarks on the loop with `remarks=true`:
    non-constant bounds, fewer than 2 iterations, a trip count not above
    the last stage, unknown memory effects, a DMA never waited for, waited
    outside the loop or carried to the next iteration other than by a
    yield of the token itself, a shared buffer
    accessed in two stages, an iter_arg used in another stage, the copies
    exceeding VMEM, a pipelined program that would not lower (registers),
    no DMA waited in a later stage,
    and (without `all=true`) no stall in the metrics. The loop is copied,
    normalized and checked; a refused copy is erased, so a refused loop is
    unchanged.

    A loop pipelined by hand (`depipeline`, on by default): a DMA issued
    d iterations before its WAIT, its token carried in iter_args that
    shift (`yield %t1, ..., %new`), the first d issued before the loop
    and the last d waited for after it. Its prefetch distance is the
    programmer's d, bounded by the slots they allocated (a ring's
    `(i + c) mod K` views). The loop is rewritten as the plain loop it
    pipelines: each DMA issued where it is waited for (with the operands of
    the iteration d earlier), the prologue's DMAs dropped (they must be the
    loop's DMA of iterations -d .. -1: their views fold to the same
    constants) and the epilogue's issued after the loop. Legal when no op
    in a DMA's window (which the rewrite shortens to nothing) depends on
    the DMA, by the shared dependence analysis (which compares ring slots
    `S * ((x + c) mod K)`); a ring's slot then gets an allocation of its
    own in the loop when every view of the ring there names the DMA's slot
    and every read of the ring after the loop reads bytes written after
    it (and nothing before the loop in its block reads the ring). The DMA, waited for at once, would stall for its measured latency
    (`accel.dma_cycles`): its stall attributes are set to that, and its
    distance is at least the programmer's. The rewrite is tried on a copy
    of the function and made only when that copy's plain loop pipelines.
    A loop this pass pipelined (its kernel carries
    `accel.pipelined_kernel`) is not rewritten.

    The prologue's first DMA carries `accel.pipelined` (accel-replay counts
    them); every op made carries no `accel.*` attribute of the original (op
    id, metrics) and gets a new op id when ids are assigned again.

    Runs on each `func.func`, on its own (functions run in parallel):
    `--pass-pipeline='builtin.module(func.func(accel-pipeline-dma))'`, or `--accel-pipeline-dma`,
    which nests it.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
  let options = [
    Option<"pipelineAll", "all", "bool", /*default=*/"false",
           "Pipeline loops whose DMAs show no stall too">,
    Option<"distance", "distance", "int64_t", /*default=*/"0",
           "Prefetch distance in iterations (0: from the metrics, 1 "
           "without them)">,
    Option<"maxDistance", "max-distance", "int64_t", /*default=*/"32",
           "Largest prefetch distance chosen from the metrics">,
    Option<"computeDistance", "compute-distance", "int64_t", /*default=*/"1",
           "Stages between an MXU or VPU op and a reader of its result on "
           "another unit or a DMA ISSUE (0 or 1)">,
    Option<"asyncCopies", "async-copies", "bool", /*default=*/"true",
           "One more copy of a private buffer an MXU or VPU op uses in a "
           "later stage than an op of a later iteration accesses it (the "
           "unit runs on after the core issues the op)">,
    Option<"depipeline", "depipeline", "bool", /*default=*/"true",
           "Rewrite a loop pipelined by hand (DMA tokens carried in "
           "shifting iter_args to a later iteration's WAIT) as the plain "
           "loop, and pipeline that one">,
    Option<"unrollRotation", "unroll-rotation", "bool", /*default=*/"true",
           "Unroll the kernel by its buffer rotation's period, so that no "
           "register moves rotate the copies (modulo variable expansion)">,
    Option<"vmemPage", "vmem-page", "uint64_t", /*default=*/"1024",
           "VMEM allocation granularity in bytes (the lowering aligns each "
           "allocation to it)">,
    Option<"vmemCapacity", "vmem-capacity", "uint64_t",
           /*default=*/"33554432", "VMEM capacity in bytes">,
    Option<"emitRemarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark for each loop that is not pipelined, with the reason">
  ];
  let statistics = [
    Statistic<"numPipelined", "num-pipelined", "Loops software-pipelined">,
    Statistic<"numStages", "num-stages",
              "Stages of the pipelined loops, summed">,
    Statistic<"numBuffers", "num-buffers",
              "VMEM buffer copies added by multi-buffering">,
    Statistic<"numUnrolled", "num-unrolled",
              "Loop nests of a few iterations fully unrolled instead">
  ];
}

def AccelPinVmem : Pass<"accel-pin-vmem", "mlir::func::FuncOp"> {
  let summary = "Keep data re-DMA'd from unchanged bytes resident in VMEM";
  let description = [{
    SnR (Zarkadas et al., SoCC '25) §5.2.1 (pin the All-Gather node addresses in VMEM) and FAST (Zhang et al., ASPLOS '22)
    §5.5 (weight pinning under a capacity constraint). An `accel.dma_start`
    D directly in an `scf.for`, with a `pin` suggestion (from the analyzer,
    via --accel-attach-metrics; every DMA with `all=true`), that brings the
    same, unchanged bytes into a shared VMEM buffer B on every iteration
    becomes one load, before the loop, into a new resident buffer P (a copy
    of B's allocation, marked `accel.pinned`); the ops that read the bytes D
    brought (after D's WAIT, up to the next write of B) read P instead, and
    D and its WAIT leave the loop. Other data keeps passing through B.
    When an earlier pin before the same loop already loaded the same bytes
    (a source holding the same value, the same type, and no write to the
    source since), D's readers read that resident buffer instead, at no
    VMEM cost: a loop body unrolled over two layers pins each table once.

    Nothing in the loop writes P, so the scalar loads of P whose indices are
    defined outside the loop, and then the pure ops that only use values
    defined outside it by then (address arithmetic, subviews), move before
    the loop too, when the loop has constant bounds and runs at least once.
    A DMA whose source was such a subview no longer changes in the loop and
    can be pinned in the next round: SnR's node tables, whose rows come from
    the pinned directories (SnR, Zarkadas et al., SoCC '25, §5.2.1; see
    examples/all_gather.mlir).

    Conditions, proved on the IR: D's source is defined outside the loop and
    the loop never writes it; B is a whole VMEM allocation made outside the
    loop and used only in it; D is waited once, later in the body; every
    read of B in the loop lies in D's range and uses B directly (not through
    a view or inside a region); some op reads the range.

    Pins across an outer loop (a stack): when D's source changes only with
    its own loop K's induction variable (tile k of a weight, a bias tile per
    column), K has constant bounds and at most 64 iterations, and a loop L
    around K neither changes the values the source is computed from nor
    writes the source, the tiles of all K iterations are the same in every
    iteration of L. L must not be inside another loop (the stack would be
    filled again, a serial head, in each of that loop's iterations; a tiled
    GEMM's A tiles, reused only across one row of C tiles, stay streamed
    and pipelined). P then holds K's tiles stacked along the first
    dimension (a 1-D or 2-D tile; K's trip count times B's bytes, the
    knapsack's weight), loaded before the outermost such L: up to 16 tiles
    by straight-line ISSUEs, all before the first WAIT, else by a copy of
    K that waits for each; in K, D's readers read iteration k's slice of P.
    The other conditions are those above, with "the loop" K for B and L
    for the source. `remarks=true` says "pinned across the loop at LOC".

    Capacity rule (`solver=exact`, the default): per function, the pins
    maximize the sum of expected cycles saved (the suggestions'
    `expected_cycles_saved`; 1 cycle each with `all=true`) subject to the
    sum of the resident buffers' bytes staying within `vmem-capacity` minus
    the bytes of the function's allocations: a 0/1 knapsack (FAST (Zhang et al., ASPLOS '22)
    §5.5), solved exactly, with no external solver linked (GLPK is GPL; CBC
    is a large dependency for one knapsack constraint).
    Dynamic programming over the free capacity in units of the GCD of the
    candidates' sizes and the free capacity (exact, not a rounding); when
    that table would exceed 50 million cells (or a row of 8 Mi units), a
    branch-and-bound over the candidates in decreasing cycles saved per
    byte, pruned by the fractional (LP) bound, exact as well (it stops at
    2^26 nodes, never reached so far, keeping the best choice found, at
    least the greedy one; a remark says so). Deterministic: among equal
    savings the DP takes the earliest DMAs (op order); the branch-and-bound
    keeps the first optimum it meets (ties in op order). A pin can make
    another DMA legal (a shared buffer loses a reader before it) or free
    its shared buffer, so the choice is made in rounds on the current IR
    until a round pins nothing; each round's choice is optimal over the
    DMAs legal in that round.

    The budget is shared with `accel-pipeline-dma`, which runs later and
    multi-buffers the private buffers of each loop it pipelines, all of
    them or the loop is refused. Each round runs that pass's driver (its
    default options, this pass's capacity) on a copy of the function: a
    loop it pipelines, with a stalled DMA on a buffer it copies, is an item
    of the budget (the bytes of all the copies it adds against its stalled
    DMAs' stall cycles, which pipelining hides); a loop it refuses or
    unrolls fully needs no room. For each subset of these loops whose
    copies fit (every subset of up to 8 loops, else the prefixes in
    decreasing cycles per byte) the pins are the knapsack over the bytes
    left, a pin of a DMA in a kept loop counting only what the pipelining
    does not hide (a pipelined DMA's hidden stalls count at most its pin's
    value: a pin removes the stalls and the transfers too). That estimate
    takes each loop's copies as they are before any pin, and a pin can
    shrink them (a buffer left with fewer writers) or free a shared
    buffer; so its best plan, the plan keeping no loop and the one keeping
    the most are each measured: the pins applied to a copy of the function
    and the driver run on it, the plan's value being its pins' cycles plus
    the stalls of the loops pipelined then. The best measured plan wins
    (on a tie, the one whose pins save more). The chosen pins are
    applied in decreasing expected cycles saved, each checked again on the
    IR the pins before it left (a pin can make another DMA illegal; that
    one stays for the next round). A legal pin left out for the loops'
    copies says so: "... with the N bytes kept for the buffer copies of
    the loops --accel-pipeline-dma pipelines".

    `solver=greedy`: the former rule. Candidates are taken once each, in
    decreasing expected cycles saved per byte (over B's size), each adding
    its size to the function's allocations, which must stay within
    `vmem-capacity`; not always optimal (bench/fdo/PIN_GAP.md measures the
    gap). Refusals, and legal candidates left out for capacity ("its N
    bytes do not fit the VMEM capacity of C bytes"), are remarks with
    `remarks=true`.

    As in `accel-hoist-dma`, a run whose result would not lower (more than
    255 scalar registers live at once, or the VMEM capacity passed) while
    its input did is undone, with a remark.

    Runs on each `func.func`, on its own (functions run in parallel):
    `--pass-pipeline='builtin.module(func.func(accel-pin-vmem))'`, or `--accel-pin-vmem`,
    which nests it.
  }];
  let options = [
    Option<"pinAll", "all", "bool", /*default=*/"false",
           "Consider every DMA, not only those with a pin suggestion">,
    Option<"vmemPage", "vmem-page", "uint64_t", /*default=*/"1024",
           "VMEM allocation granularity in bytes (the lowering aligns each "
           "allocation to it)">,
    Option<"vmemCapacity", "vmem-capacity", "uint64_t",
           /*default=*/"33554432", "VMEM capacity in bytes">,
    Option<"emitRemarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark for each DMA that is not pinned, with the reason">,
    Option<"solver", "solver", "std::string", /*default=*/"\"exact\"",
           "Pin choice under the capacity: 'exact' (0/1 knapsack) or " #
           "'greedy' (by expected cycles saved per byte)">
  ];
  let statistics = [
    Statistic<"numPinned", "num-pinned", "DMAs pinned into resident buffers">,
    Statistic<"cyclesSaved", "total-cycles-saved",
              "Expected cycles saved by the pins (cycles)">,
    Statistic<"bytesPinned", "pinned-bytes",
              "Bytes of the resident buffers added (bytes)">
  ];
}

#endif // ACCEL_TRANSFORMS_PASSES_TD
