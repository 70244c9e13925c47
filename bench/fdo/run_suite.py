#!/usr/bin/env python3
"""FDO benchmark suite against the roofline (issue: feedback-directed
transforms).

For each kernel, runs `accel-replay fdo KERNEL --iterations 3` and reports:
cycles at iteration 0 and after FDO, the roofline lower bound on cycles
(metrics.json "roofline": the busiest unit's or DMA link's required cycles),
FDO cycles / bound, DMA stall cycles before and after, peak VMEM (static
allocation), and whether the results are bit-identical. Prints a Markdown
table and the geometric mean of FDO/bound; exits 1 if any kernel's results
differ or any kernel got slower.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

KERNELS = [
    ("prefetch (seed 000 §5.3.1)", "examples/prefetch.mlir"),
    ("Llama-2-7B MLP, decode (8 tokens)", "examples/llama2_mlp.mlir"),
    ("Llama-2-7B MLP, prefill (64 tokens)", "bench/fdo/kernels/llama2_mlp_prefill.mlir"),
    ("attention over a KV cache", "bench/fdo/kernels/attention_kv.mlir"),
    ("layer norm rows (VPU-heavy)", "bench/fdo/kernels/layernorm_rows.mlir"),
    ("weights re-loaded per step (pinning)", "bench/fdo/kernels/pin_weights.mlir"),
    ("weights through a shared buffer (pinning)", "bench/fdo/kernels/pin_shared_buffer.mlir"),
    ("serialized setup DMAs (parallel issue)", "bench/fdo/kernels/parallel_setup.mlir"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    args = ap.parse_args()
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    tool = os.path.join(args.build, "bin", "accel-replay")
    tmp = tempfile.mkdtemp(prefix="accel-fdo-suite-")
    rows, ratios, ok = [], [], True
    for name, path in KERNELS:
        out = os.path.join(tmp, os.path.basename(path))
        p = subprocess.run([tool, "fdo", os.path.join(src, path), "-o", out,
                            "--iterations", "3"], capture_output=True, text=True)
        if p.returncode:
            print("FAILED: %s\n%s" % (path, p.stderr), file=sys.stderr)
            ok = False
            continue
        fdo = json.load(open(os.path.join(out, "fdo.json")))
        it = fdo["iterations"]
        first, last = it[0], it[-1]
        m0 = json.load(open(os.path.join(out, "iter0", "metrics.json")))
        bound = m0["roofline"]["lower_bound_cycles"]
        by = m0["roofline"]["bound_by"]
        ratio = last["total_cycles"] / bound if bound else float("nan")
        ratios.append(ratio)
        same = all(r["results_match"] for r in it)
        slower = last["total_cycles"] > first["total_cycles"]
        ok &= same and not slower
        rows.append((name, first["total_cycles"], last["total_cycles"], bound, by,
                     ratio, first["dma_stall_cycles"], last["dma_stall_cycles"],
                     last["vmem_bytes"] // 1024, "yes" if same else "NO"))
    print("| kernel | cycles, iteration 0 | cycles after FDO | roofline bound (by) "
          "| FDO / bound | DMA stall before | after | peak VMEM KiB | identical |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %d | %d | %d (%s) | %.2f | %d | %d | %d | %s |" % r)
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else 0
    print("\nGeometric mean of FDO cycles / roofline lower bound: %.2f "
          "(target <= 1.10)" % geo)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
