#!/bin/sh
# Regenerates the pictures of README.md ("The pictures") in docs/images/
# from a build of this tree: accel-replay plot of iteration 0 (the baseline)
# of the README's FDO run on examples/llama2_mlp.mlir, and of
# examples/prefetch.mlir.
#
#   docs/images/regenerate.sh [BUILD]     (BUILD: the build directory, default build)
set -eu
images=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$images/../.." && pwd)
build=$(cd "${1:-build}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src" # relative source locations in the row labels
"$build/bin/accel-replay" fdo examples/llama2_mlp.mlir -o "$tmp/mlp" \
    --iterations=0 > /dev/null
"$build/bin/accel-replay" run examples/prefetch.mlir -o "$tmp/prefetch" > /dev/null
for run in mlp/iter0:llama2_mlp prefetch:prefetch; do
  dir=$tmp/${run%%:*}
  "$build/bin/accel-replay" plot "$dir"
  for picture in dma_timeline utilization vmem_heatmap; do
    cp "$dir/$picture.png" "$images/${run##*:}_$picture.png"
  done
done
