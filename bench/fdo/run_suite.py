#!/usr/bin/env python3
"""FDO benchmark suite against the roofline (issue: feedback-directed
transforms).

For each kernel, runs `accel-replay fdo KERNEL` (default options: up to 10
iterations, ending at the first that is not faster; with
`--config CONFIG` when the kernel's entry names a machine config) and reports:
cycles at iteration 0 and after FDO, the roofline lower bound on cycles
(metrics.json "roofline": the busiest unit's or DMA link's required cycles,
issue 4's definition) and the latency-aware bound (the largest of that, the
dataflow critical path, and each unit's or link's bound with heads and
tails; docs/metrics.md#roofline), FDO cycles over each, DMA stall
cycles before and after, peak VMEM (static allocation), and whether the
results are bit-identical. "After FDO" is the best iteration; each bound
is the smaller of iteration 0's and the best program's (a transform such as
pinning removes work, so only the smaller one bounds both programs), as
fdo.json's summary gives them. Prints a Markdown table and the
geometric means; exits 1 if any kernel's results differ or any kernel got
slower.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

# Each entry: (name, kernel path[, machine config path]), paths relative to
# the source tree; without a config the embedded default machine is used.
KERNELS = [
    ("prefetch (SnR §5.3.1)", "examples/prefetch.mlir"),
    ("Llama-2-7B MLP, decode (8 tokens)", "examples/llama2_mlp.mlir"),
    ("Llama-2-7B MLP, prefill (64 tokens)", "bench/fdo/kernels/llama2_mlp_prefill.mlir"),
    ("Llama-2-7B MLP, decode, bf16", "examples/llama2_mlp_bf16.mlir"),
    ("Llama-2-7B MLP, prefill, bf16", "bench/fdo/kernels/llama2_mlp_prefill_bf16.mlir"),
    ("attention over a KV cache", "bench/fdo/kernels/attention_kv.mlir"),
    ("layer norm rows (VPU-heavy)", "bench/fdo/kernels/layernorm_rows.mlir"),
    ("weights re-loaded per step (pinning)", "bench/fdo/kernels/pin_weights.mlir"),
    ("weights through a shared buffer (pinning)", "bench/fdo/kernels/pin_shared_buffer.mlir"),
    ("serialized setup DMAs (parallel issue)", "bench/fdo/kernels/parallel_setup.mlir"),
    # Issue 10: kernels written in other people's styles.
    ("gather: row ids from a DMA'd table (issue 10, 1)", "bench/fdo/kernels/gather_rows.mlir"),
    ("tile offset in an iter_arg (issue 10, 2)", "bench/fdo/kernels/iterarg_offsets.mlir"),
    ("STREAM triad (issue 10, 3)", "bench/fdo/kernels/stream_triad.mlir"),
    ("GEMM, A and B tiles in the K loop (issue 10, 4)", "bench/fdo/kernels/gemm_ab_tiles.mlir"),
    ("alloc inside the tile loop (issue 10, 5)", "bench/fdo/kernels/alloc_in_loop.mlir"),
    ("fused matmul + bias + ReLU, strided tiles (issue 10, 6)",
     "bench/fdo/kernels/fused_mm_bias_relu.mlir"),
    ("small DMAs, 2 DMA slots (issue 10, 7)", "bench/fdo/kernels/slot_bound.mlir",
     "bench/fdo/kernels/slot_bound.json"),
    # Issue 33: twelve kernels in the styles its list names (each file's
    # header says which).
    ("decode step: xv rewritten at the step's end (issue 33, 1)",
     "bench/fdo/kernels/issue33/decode_step_xv.mlir"),
    ("1-D convolution, halo window views (issue 33, 2)",
     "bench/fdo/kernels/issue33/conv1d_halo.mlir"),
    ("ragged RMSNorm, run-time row count (issue 33, 3)",
     "bench/fdo/kernels/issue33/ragged_rmsnorm.mlir"),
    ("ping-pong accumulators as iter_args (issue 33, 4)",
     "bench/fdo/kernels/issue33/pingpong_acc.mlir"),
    ("hand-pipelined ring, distance 2 (issue 33, 5)",
     "bench/fdo/kernels/issue33/ring_prefetch2.mlir"),
    ("embedding bag gather (issue 33, 6)",
     "bench/fdo/kernels/issue33/embedding_gather.mlir"),
    ("independent softmax and matmul nests (issue 33, 7)",
     "bench/fdo/kernels/issue33/softmax_and_matmul.mlir"),
    ("producer/consumer phases through HBM (issue 33, 8)",
     "bench/fdo/kernels/issue33/producer_consumer.mlir"),
    ("two layers, own weights each (issue 33, 9)",
     "bench/fdo/kernels/issue33/two_layers.mlir"),
    ("same weight bytes loaded twice per step (issue 33, 10)",
     "bench/fdo/kernels/issue33/repeated_weight.mlir"),
    ("weight indexed by the inner loop only (issue 33, 11)",
     "bench/fdo/kernels/issue33/invariant_inner_src.mlir"),
    ("bf16 causal attention block, triangular loop (issue 33, 12)",
     "bench/fdo/kernels/issue33/bf16_mixed_units.mlir"),
    # Issue 33's resolving set: kernels in styles none of the above uses
    # (each file's header says which), written after the fixes to test
    # them (A-E in session 26, F-H in session 27); their geometric mean is
    # printed apart (RESOLVING_SET).
    ("column stats, reverse row traversal (issue 33, A)",
     "bench/fdo/kernels/issue33b/colsum_reverse.mlir"),
    ("GEMM under a 448 KiB VMEM, pins vs. double buffers (issue 33, B)",
     "bench/fdo/kernels/issue33b/tight_vmem_gemm.mlir",
     "bench/fdo/kernels/issue33b/tight_vmem_gemm.json"),
    ("2-D 5-point stencil, halo windows (issue 33, C)",
     "bench/fdo/kernels/issue33b/stencil2d_halo.mlir"),
    ("scatter through loaded indices (issue 33, D)",
     "bench/fdo/kernels/issue33b/scatter_rows.mlir"),
    ("online-softmax attention, running max (issue 33, E)",
     "bench/fdo/kernels/issue33b/online_softmax_attn.mlir"),
    ("two independent streaming nests, long loops (issue 33, F)",
     "bench/fdo/kernels/issue33b/two_streams.mlir"),
    ("hand-pipelined ring, 257 tiles, not unrolled (issue 33, G)",
     "bench/fdo/kernels/issue33b/ring_prefetch2_long.mlir"),
    ("Pallas-style double-buffered GEMM, nested K loop (issue 33, H)",
     "bench/fdo/kernels/issue33b/pallas_gemm.mlir"),
]

# The kernels from this one on are issue 33's resolving set.
RESOLVING_SET = "column stats, reverse row traversal (issue 33, A)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--only", nargs="+", metavar="KERNEL",
                    help="run only these kernels (their names in the table)")
    args = ap.parse_args()
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    tool = os.path.join(args.build, "bin", "accel-replay")
    tmp = tempfile.mkdtemp(prefix="accel-fdo-suite-")
    rows, ratios, lratios, ok = [], [], [], True
    for name, path, *config in KERNELS:
        if args.only and name not in args.only:
            continue
        out = os.path.join(tmp, os.path.basename(path))
        cmd = [tool, "fdo", os.path.join(src, path), "-o", out]
        if config:
            cmd += ["--config", os.path.join(src, config[0])]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            how = (" (killed by signal %d)" % -p.returncode) if p.returncode < 0 else ""
            print("FAILED: %s%s\n%s" % (path, how, p.stderr), file=sys.stderr)
            ok = False
            continue
        fdo = json.load(open(os.path.join(out, "fdo.json")))
        it = fdo["iterations"]
        first, last = it[0], it[fdo["summary"]["best_iteration"]]
        # The bounds: accel-replay fdo's summary (each the smaller of
        # iteration 0's and the best program's).
        summ = fdo["summary"]
        bound, by = summ["lower_bound_cycles"], summ["bound_by"]
        lbound, lby = summ["latency_lower_bound_cycles"], summ["latency_bound_by"]
        ratio = last["total_cycles"] / bound if bound else float("nan")
        lratio = last["total_cycles"] / lbound if lbound else float("nan")
        ratios.append(ratio)
        lratios.append(lratio)
        same = all(r["results_match"] for r in it)
        slower = last["total_cycles"] > first["total_cycles"]
        ok &= same and not slower
        rows.append((name, first["total_cycles"], last["total_cycles"], bound, by,
                     ratio, lbound, lby, lratio,
                     first["dma_stall_cycles"], last["dma_stall_cycles"],
                     last["vmem_bytes"] // 1024, "yes" if same else "NO"))
    print("| kernel | cycles, iteration 0 | cycles after FDO | roofline bound (by) "
          "| FDO / bound | latency-aware bound (by) | FDO / latency-aware bound "
          "| DMA stall before | after | peak VMEM KiB | identical |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %d | %d | %d (%s) | %.2f | %d (%s) | %.2f | %d | %d | %d | %s |" % r)

    def geomean(xs):
        return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else 0
    print("\nGeometric mean of FDO cycles / roofline lower bound: %.3f "
          "(target <= 1.10)" % geomean(ratios))
    print("Geometric mean of FDO cycles / latency-aware lower bound: %.3f"
          % geomean(lratios))
    names = [r[0] for r in rows]
    if RESOLVING_SET in names:
        k = names.index(RESOLVING_SET)
        suite, fresh = lratios[:k], lratios[k:]
        print("  over the suite's %d kernels: %.3f (largest %.2f); over the "
              "resolving set's %d: %.3f" % (len(suite), geomean(suite),
                                             max(suite), len(fresh),
                                             geomean(fresh)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
