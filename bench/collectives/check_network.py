#!/usr/bin/env python3
"""Checks the simulator's ICI network against the independent per-hop model
(network_model.py) on the four patterns of issue 35: the All-Gather
(make_all_gather.py), a one-to-all, an all-to-all and a neighbour exchange
(make_pattern.py), over rings, 2-D and 3-D tori and full connection, two
message sizes and both switchings.

For each case it runs `accel-replay run --analyze=false` and the model with
oldest-first link arbitration (the simulator's: a DMA's packets yield only
to DMAs issued before it) and, as a second opinion, with FIFO arbitration
in packet arrival order; it prints a markdown table and exits 1 when any
case's simulated cycles are more than --tolerance (default 10%) from the
oldest-first model's.

    check_network.py --build build [--quick] [-j 2] [--tolerance 0.10]
                     [--accel-replay PATH]
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import network_model  # noqa: E402


def cases(quick):
    """(pattern, topology, dims, chips, rows, switching) tuples."""
    out = []
    if quick:
        tops = [("ring", [], 8), ("torus2d", [4, 2], 8),
                ("torus3d", [2, 2, 2], 8), ("full", [], 8)]
        for top, dims, chips in tops:
            for pat in ("one_to_all", "all_to_all", "neighbours"):
                out.append((pat, top, dims, chips, 8, "cut_through"))
        out.append(("all_gather", "ring", [], 8, 8, "cut_through"))
        out.append(("all_to_all", "ring", [], 8, 8, "store_and_forward"))
        return out
    tops = [("ring", [], 8), ("ring", [], 16), ("ring", [], 64),
            ("torus2d", [4, 4], 16), ("torus2d", [8, 8], 64),
            ("torus3d", [2, 2, 2], 8), ("torus3d", [4, 4, 4], 64),
            ("full", [], 16)]
    for top, dims, chips in tops:
        for pat in ("one_to_all", "all_to_all", "neighbours"):
            for rows in (8, 64):
                if pat == "all_to_all" and chips == 64 and rows == 64:
                    continue  # the Python model would take minutes
                out.append((pat, top, dims, chips, rows, "cut_through"))
        out.append(("all_to_all", top, dims, chips, 8, "store_and_forward"))
    for chips in (8, 16, 32, 64):
        out.append(("all_gather", "ring", [], chips, 8, "cut_through"))
    out.append(("all_gather", "torus2d", [8, 8], 64, 8, "cut_through"))
    return out


def run_case(tool, case, tmp):
    pat, top, dims, chips, rows, switching = case
    name = "%s-%s%s-%d-%d-%s" % (pat, top, "x".join(map(str, dims)), chips,
                                 rows, switching)
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    prog = os.path.join(d, "prog.mlir")
    if pat == "all_gather":
        gen = [sys.executable, os.path.join(HERE, "make_all_gather.py"),
               "--chips", str(chips), "--rows", str(rows)]
    else:
        gen = [sys.executable, os.path.join(HERE, "make_pattern.py"),
               "--pattern", pat, "--chips", str(chips), "--rows", str(rows)]
        if dims:
            gen += ["--dims", ",".join(map(str, dims))]
    with open(prog, "w") as f:
        subprocess.run(gen, stdout=f, check=True)
    cfg = os.path.join(d, "config.json")
    with open(cfg, "w") as f:
        json.dump({"chips": chips, "ici": {"topology": top, "dims": dims,
                                           "switching": switching}}, f)
    subprocess.run([tool, "run", prog,
                    "--config", cfg, "--analyze=false", "-o",
                    os.path.join(d, "out")], check=True,
                   stdout=subprocess.DEVNULL)
    with open(os.path.join(d, "out", "metrics.json")) as f:
        m = json.load(f)
    oldest = network_model.model(m, arbitration="oldest")["cycles"]
    fifo = network_model.model(m, arbitration="fifo")["cycles"]
    return {"case": case, "sim": m["total_cycles"], "oldest": oldest,
            "fifo": fifo,
            "bound": m["system"]["bound"]["lower_bound_cycles"],
            "busiest": m["system"]["ici"]["busiest_link_busy_cycles"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--accel-replay",
                    help="the tool to run (default: BUILD/bin/accel-replay)")
    ap.add_argument("--quick", action="store_true",
                    help="8 chips only (what the lit test runs)")
    ap.add_argument("--max-chips", type=int, default=None,
                    help="only the cases of the full set with at most this "
                    "many chips")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--tolerance", type=float, default=0.10)
    a = ap.parse_args()
    rows, bad = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        with concurrent.futures.ProcessPoolExecutor(a.j) as pool:
            tool = a.accel_replay or os.path.join(a.build, "bin",
                                                  "accel-replay")
            futures = [pool.submit(run_case, tool, c, tmp)
                       for c in cases(a.quick)
                       if a.max_chips is None or c[3] <= a.max_chips]
            for f in futures:
                rows.append(f.result())
    print("| pattern | topology | chips | message | switching | sim cycles "
          "| model (oldest-first) | sim / model | model (FIFO) | sim / FIFO "
          "| busiest link | bound |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        pat, top, dims, chips, nrows, switching = r["case"]
        ratio = r["sim"] / r["oldest"]
        ok = abs(ratio - 1) <= a.tolerance
        bad += not ok
        print("| %s | %s%s | %d | %d B | %s | %d | %d | %.3f%s | %d | %.3f "
              "| %d | %d |" % (
                  pat, top, " " + "x".join(map(str, dims)) if dims else "",
                  chips, nrows * 512, switching, r["sim"], round(r["oldest"]),
                  ratio, "" if ok else " **out**", round(r["fifo"]),
                  r["sim"] / r["fifo"], r["busiest"], r["bound"]))
    print("\n%d cases, %d outside %.0f%% of the oldest-first model" %
          (len(rows), bad, a.tolerance * 100))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
