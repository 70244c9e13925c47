"""Runs accel-gen for seeds FIRST..LAST and checks that every program
parses and verifies (accel-opt), lowers and runs without a fault at
baseline (accel-replay run, exit 0) on its generated config. Prints one line
per seed; exits 1 after the first failure. Extra arguments go to accel-gen."""
import os
import subprocess
import sys
import tempfile

first, last = int(sys.argv[1]), int(sys.argv[2])
extra = sys.argv[3:]
with tempfile.TemporaryDirectory() as tmp:
    for seed in range(first, last + 1):
        prog = os.path.join(tmp, "p%d.mlir" % seed)
        cfg = os.path.join(tmp, "c%d.json" % seed)
        steps = [
            ["accel-gen", "--seed", str(seed), "-o", prog, "--config-out", cfg]
            + extra,
            ["accel-opt", "--verify-each", prog, "-o", os.devnull],
            ["accel-replay", "run", prog, "--config", cfg, "-o",
             os.path.join(tmp, "out%d" % seed)],
        ]
        for cmd in steps:
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print("seed %d: FAIL %s: %s" % (seed, cmd[0],
                                                r.stderr.strip()[:300]))
                sys.exit(1)
        print("seed %d: ok" % seed)
