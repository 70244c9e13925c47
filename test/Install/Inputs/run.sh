#!/usr/bin/env bash
# Installs the accel of build directory BUILD into a fresh prefix, builds
# test/Install/Inputs/consumer against the installed package (find_package(Accel
# CONFIG) and the imported targets alone, as README.md describes) and checks
# that it registers the dialect and runs a pass, that every package variable
# (ACCEL_INCLUDE_DIRS, ACCEL_TOOLS_DIR, ACCEL_PLUGIN) lies in the prefix and
# names what it says, and that no test library is installed; also runs the
# installed tools. Exit 0 on success.
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
# Every package variable lies inside the prefix and names what it says.
prefix="$work/prefix"
for var in ACCEL_INCLUDE_DIRS ACCEL_TOOLS_DIR ACCEL_PLUGIN; do
  value="$(sed -n "s/^-- package: $var=//p" "$work/configure.log")"
  case "$value" in
    "$prefix"/*) ;;
    *) echo "run.sh: $var is '$value', not inside $prefix"; exit 1 ;;
  esac
done
incdir="$(sed -n 's/^-- package: ACCEL_INCLUDE_DIRS=//p' "$work/configure.log")"
tools="$(sed -n 's/^-- package: ACCEL_TOOLS_DIR=//p' "$work/configure.log")"
plugin="$(sed -n 's/^-- package: ACCEL_PLUGIN=//p' "$work/configure.log")"
test -e "$incdir/accel/Dialect/Accel/AccelOps.h" ||
  { echo "run.sh: no accel headers in ACCEL_INCLUDE_DIRS $incdir"; exit 1; }
for tool in accel-opt accel-replay accel-translate accel-gen; do
  test -x "$tools/$tool" ||
    { echo "run.sh: no $tool in ACCEL_TOOLS_DIR $tools"; exit 1; }
done
test -e "$plugin" || { echo "run.sh: ACCEL_PLUGIN $plugin does not exist"; exit 1; }
# Test-only libraries are not part of the package.
if ls "$prefix"/lib*/libAccelTest* > /dev/null 2>&1; then
  echo "run.sh: a test library is installed:" "$prefix"/lib*/libAccelTest*
  exit 1
fi
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
