#!/usr/bin/env bash
# Installs the accel of build directory BUILD into a fresh prefix, builds
# test/Install/Inputs/consumer against the installed package (find_package(Accel
# CONFIG)) and checks that it registers the dialect and runs a pass; also
# runs the installed tools. Exit 0 on success.
#
#   test/Install/Inputs/run.sh BUILD
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:?usage: run.sh BUILD}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$here/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DAccel_DIR="$work/prefix/lib/cmake/accel" \
  > "$work/configure.log"
cmake --build "$work/consumer" > "$work/build.log"
cat > "$work/p.mlir" <<'MLIR'
func.func @main() {
  %a = accel.alloc : memref<8x128xf32, #accel.space<vmem>>
  accel.vfill %a, 1.0 : memref<8x128xf32, #accel.space<vmem>>
  return
}
MLIR
out="$("$work/consumer/accel-consumer" "$work/p.mlir")"
grep -q 'accel.vfill %0, 1.000000e+00 {accel.op_id = 2 : i64}' <<<"$out" || {
  echo "run.sh: the consumer's output lacks the op ids:"; echo "$out"; exit 1; }
# The installed tools run, and find the scripts installed next to them.
"$work/prefix/bin/accel-replay" run "$work/p.mlir" -o "$work/out" > /dev/null
"$work/prefix/bin/accel-translate" --mlir-to-accel-asm "$work/p.mlir" |
  grep -q 'vpu.fill' || { echo "run.sh: accel-translate gave no listing"; exit 1; }
test -e "$work/prefix/bin/accel-plot.py"
test -e "$work/prefix/bin/accel_output.py"
# The installed plot script imports its helpers from beside itself: a
# missing metrics.json is its own one-line error, not an ImportError.
if python3 "$work/prefix/bin/accel-plot.py" "$work" 2> "$work/plot.err"; then
  echo "run.sh: accel-plot.py accepted a directory without metrics.json"; exit 1
fi
grep -q '^accel-plot: error: ' "$work/plot.err" || {
  echo "run.sh: accel-plot.py gave:"; cat "$work/plot.err"; exit 1; }
test -e "$work/prefix/lib/AccelPlugin.so"
echo "install: the package, a consumer built against it and the tools: ok"
