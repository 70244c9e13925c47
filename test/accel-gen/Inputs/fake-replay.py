#!/usr/bin/env python3
"""Stands in for `accel-replay fdo PROG --config CFG -o DIR`: writes a
fdo.json whose iteration 0 ran 100 cycles and an iter0/metrics.json whose
latency-aware bound says 120, a bound above the cycles, which
bench/fuzz_fdo.py must report as class "bound"."""
import json
import os
import sys

out = sys.argv[sys.argv.index("-o") + 1]
os.makedirs(os.path.join(out, "iter0"), exist_ok=True)
with open(os.path.join(out, "iter0", "metrics.json"), "w") as f:
    json.dump({"total_cycles": 100,
               "roofline": {"latency_lower_bound_cycles": 120,
                            "latency_bound_by": "vpu",
                            "lower_bound_cycles": 50,
                            "bound_by": "vpu"}}, f)
with open(os.path.join(out, "fdo.json"), "w") as f:
    json.dump({"iterations": [{"iteration": 0, "total_cycles": 100,
                               "metrics": "iter0/metrics.json"}],
               "summary": {"best_iteration": 0,
                           "best_over_latency_bound": 0.8333}}, f)
