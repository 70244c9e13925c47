"""Runs accel-replay fdo with `accel-pipeline-dma{all=true distance=D}` as the
only transform on a loop of T iterations, for every T in 2..13 and G in
1..4, and prints one line per case: the cycles before and after, whether
the loop was pipelined, whether the final HBM is bit-identical to the
original program's, and whether it got faster. Each iteration loads weight tile k, multiplies it into
a fresh 8x128 result and stores that to row block k of the output, so a
wrong tile index, buffer or ordering changes the output."""
import json
import os
import subprocess
import sys

KERNEL = """
#hbm = #accel.space<hbm>
#vmem = #accel.space<vmem>
func.func @main(%w: memref<{rows}x128xf32, #hbm>, %x: memref<8x128xf32, #hbm>,
                %out: memref<{outrows}x128xf32, #hbm> {{accel.init = "zero"}}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cT = arith.constant {trips} : index
  %c128 = arith.constant 128 : index
  %a = accel.alloc : memref<8x128xf32, #vmem>
  %b = accel.alloc : memref<128x128xf32, #vmem>
  %c = accel.alloc : memref<8x128xf32, #vmem>
  %tx = accel.dma_start %x, %a : memref<8x128xf32, #hbm>, memref<8x128xf32, #vmem>
  accel.dma_wait %tx
  scf.for %k = %c0 to %cT step %c1 {{
    %r = arith.muli %k, %c128 : index
    %s = memref.subview %w[%r, 0] [128, 128] [1, 1] : memref<{rows}x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %t = accel.dma_start %s, %b : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #vmem>
    accel.dma_wait %t
    accel.matmul %a, %b, %c : memref<8x128xf32, #vmem>, memref<128x128xf32, #vmem>, memref<8x128xf32, #vmem>
    %o = arith.muli %k, %c8 : index
    %os = memref.subview %out[%o, 0] [8, 128] [1, 1] : memref<{outrows}x128xf32, #hbm> to memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %ts = accel.dma_start %c, %os : memref<8x128xf32, #vmem>, memref<8x128xf32, strided<[128, 1], offset: ?>, #hbm>
    accel.dma_wait %ts
  }}
  return
}}
"""


def main():
    out = sys.argv[1]
    # Optional second argument: the trip counts, e.g. "2,3,4,5,6,13"
    # (default 2..13).
    trip_counts = ([int(t) for t in sys.argv[2].split(",")]
                   if len(sys.argv) > 2 else range(2, 14))
    os.makedirs(out, exist_ok=True)
    for trips in trip_counts:
        for group in range(1, 5):
            name = os.path.join(out, "t%d_g%d" % (trips, group))
            with open(name + ".mlir", "w") as f:
                f.write(KERNEL.format(rows=128 * trips, outrows=8 * trips,
                                      trips=trips))
            p = subprocess.run(
                ["accel-replay", "fdo", name + ".mlir", "-o", name,
                 "--iterations", "1",
                 "--passes=accel-pipeline-dma{all=true distance=%d}" % group],
                capture_output=True, text=True)
            if p.returncode:
                print("trips %d group %d: FAILED\n%s" % (trips, group,
                                                         p.stderr))
                continue
            it = json.load(open(os.path.join(name, "fdo.json")))["iterations"]
            before, after = it[0]["total_cycles"], it[1]["total_cycles"]
            print("trips %d group %d: pipelined %d, %s, %s (%d -> %d cycles)"
                  % (trips, group, it[1]["transforms"][0]["applied"],
                     "identical" if it[1]["results_match"] else "DIFFER",
                     "faster" if after < before else "NOT FASTER", before,
                     after))


if __name__ == "__main__":
    main()
