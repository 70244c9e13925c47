#!/usr/bin/env bash
# Regenerates the trace and image seeds of fuzz/corpus from the MLIR seeds
# with the accel-replay of BUILD_DIR (default: build). Run it after a change
# of the trace format or of the ISA version (docs/trace-format.md,
# docs/isa.md "Versioning"), which makes the old seeds unreadable: every
# seed would then stop at the version check.
#
#   fuzz/make-seeds.sh [BUILD_DIR]
#
# The seeds run on the 1 MiB-VMEM, 64 MiB-HBM machine of
# corpus/fuzz-config/small-machine.json, which the harnesses accept.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:-build}" && pwd)"
replay="$build/bin/accel-replay"
translate="$build/bin/accel-translate"
for tool in "$replay" "$translate"; do
  [[ -x "$tool" ]] || { echo "make-seeds.sh: no $tool; build first" >&2; exit 1; }
done
mlir="$here/corpus/fuzz-mlir"
config="$here/corpus/fuzz-config/small-machine.json"
images="$here/corpus/fuzz-image"
traces="$here/corpus/fuzz-trace"
# Locations in the seeds name the source by its base name, whatever the
# directory this runs from.
cd "$mlir"

rm -f "$images"/*.bin "$traces"/*.trace
for program in tiny table-loop dma-scenarios matmul-loop constants; do
  "$translate" --mlir-to-accel-image "$program.mlir" --config "$config" \
    -o "$images/$program.bin"
done

record() { # NAME PROGRAM OPTIONS...
  local name="$1" program="$2"
  shift 2
  "$replay" record "$program.mlir" --config "$config" "$@" \
    -o "$traces/$name.trace" > /dev/null
}
record tiny-from-start tiny --count=100 --compress=false
record tiny-short tiny --break-at=pc:11 --count=12 --compress=false
record tiny-dma-in-flight tiny --break-at=pc:20 --hit=2 --count=40 --compress=false
record tiny-zstd tiny --break-at=pc:20 --count=40
record table-loop-plain table-loop --count=200 --compress=false
record table-loop-zstd table-loop --count=200
record table-loop-mid table-loop --break-at=pc:17 --hit=2 --count=60 --compress=false
record dma-scenarios-one dma-scenarios --count=1 --compress=false
record constants-plain constants --count=20 --compress=false
# Version 4: one chip of a system (ring3-neighbours.mlir, 3 chips).
record ring3-chip1 ring3-neighbours --chip=1 --count=60 --compress=false
record ring3-chip2-mid ring3-neighbours --chip=2 --break-at=pc:20 --count=12 --compress=false
# The .npy and CSV seeds need no build (make-input-seeds.py).
python3 "$here/make-input-seeds.py"
ls -l "$images" "$traces" "$here/corpus/fuzz-npy" "$here/corpus/fuzz-csv"
