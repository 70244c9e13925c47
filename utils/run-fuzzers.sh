#!/usr/bin/env bash
# Runs accel's libFuzzer targets (fuzz/README.md) from a build directory
# configured with -DACCEL_FUZZ=ON, each for SECONDS seconds, on a copy of
# its seed corpus (fuzz/corpus/<target>; the repository's corpus is not
# modified). Prints the executions and crashes of each target; exits 1 if
# any target crashed (a crash, a sanitizer report, a leak, an out-of-memory
# or a timeout), printing the reproducer's path, 2 on a usage error.
#
#   utils/run-fuzzers.sh [-j JOBS] DIR SECONDS [TARGET...]
#
#   JOBS     how many targets run at once (default 1; CI uses 2, one per
#            core). The table is printed in target order either way.
#   DIR      the build directory (build-fuzz); the targets are DIR/bin/fuzz-*
#   SECONDS  time per target (libFuzzer's -max_total_time)
#   TARGET   only these (fuzz-trace fuzz-config fuzz-image fuzz-metrics
#            fuzz-mlir fuzz-output fuzz-npy fuzz-csv; default: all)
#
# A reproducer replays with: DIR/bin/TARGET REPRODUCER
# Each target runs with -rss_limit_mb=2048 (and so -malloc_limit_mb=2048)
# and -timeout=10; extra libFuzzer flags can be given in FUZZ_FLAGS (e.g.
# FUZZ_FLAGS="-fork=1 -ignore_crashes=1" to go on after a crash and collect
# every reproducer).
set -u

usage() {
  echo "usage: $0 [-j JOBS] DIR SECONDS [TARGET...]" >&2
  exit 2
}
jobs=1
if [ "${1:-}" = -j ]; then
  [ $# -ge 2 ] || usage
  jobs=$2
  shift 2
fi
case $jobs in
'' | *[!0-9]* | 0) usage ;;
esac
[ $# -ge 2 ] || usage
dir=$1
seconds=$2
shift 2
case $seconds in
'' | *[!0-9]*) usage ;;
esac
src=$(cd "$(dirname "$0")/.." && pwd)
targets=("$@")
[ ${#targets[@]} -gt 0 ] ||
  targets=(fuzz-trace fuzz-config fuzz-image fuzz-metrics fuzz-mlir)
[ $# -gt 0 ] || targets+=(fuzz-output)
[ $# -gt 0 ] || targets+=(fuzz-npy fuzz-csv)

# LLVM's allocator poisoning from instrumented headers does not agree with
# the uninstrumented libMLIR.so (test/lit.cfg.py): user poisoning off.
export ASAN_OPTIONS="allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
work=$(mktemp -d "${TMPDIR:-/tmp}/accel-fuzz.XXXXXX")
# run_target T: fuzzes T for SECONDS, then writes its table row to
# $work/T/row and its crash count to $work/T/crashes (the messages about a
# crash go to $work/T/report).
run_target() {
  local t=$1 exe=$dir/bin/$1
  mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
  if [ ! -x "$exe" ]; then
    echo "$t: $exe not found (configure with -DACCEL_FUZZ=ON and build it)" \
      >"$work/$t/report"
    echo 1 >"$work/$t/crashes"
    return
  fi
  cp -R "$src/fuzz/corpus/$t/." "$work/$t/corpus/"
  local extra=()
  [ "$t" = fuzz-mlir ] && extra+=("-dict=$src/fuzz/mlir.dict")
  local start status elapsed execs crashes reproducers
  start=$(date +%s)
  # shellcheck disable=SC2086 # FUZZ_FLAGS is a list of flags
  "$exe" "$work/$t/corpus" "${extra[@]}" -max_total_time="$seconds" \
    -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$work/$t/artifacts/" ${FUZZ_FLAGS:-} \
    >"$work/$t/log" 2>&1
  status=$?
  elapsed=$(($(date +%s) - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t/log" |
    tail -n 1)
  # With -fork=N (in FUZZ_FLAGS) the jobs' total is on the last "#N:" line.
  [ -n "$execs" ] ||
    execs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$work/$t/log" | tail -n 1)
  reproducers=("$work/$t/artifacts"/*)
  [ -e "${reproducers[0]}" ] || reproducers=()
  crashes=${#reproducers[@]}
  if [ "$status" -ne 0 ] && [ "$crashes" -eq 0 ]; then
    crashes=1 # died without writing a reproducer
  fi
  printf '%-14s %14s %8s %8s  %s\n' "$t" "${execs:-?}" "$elapsed" \
    "$crashes" "${reproducers[*]:-}" >"$work/$t/row"
  echo "$crashes" >"$work/$t/crashes"
  if [ "$crashes" -ne 0 ]; then
    { grep -m 1 -E '^SUMMARY|ERROR: libFuzzer|==ERROR' "$work/$t/log"
      echo "  log: $work/$t/log"; } >"$work/$t/report"
  fi
}

# At most JOBS targets at a time; each runs in a subshell of its own.
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait

failed=0
printf '%-14s %14s %8s %8s  %s\n' target executions seconds crashes reproducer
for t in "${targets[@]}"; do
  [ -f "$work/$t/row" ] && cat "$work/$t/row"
  if [ "$(cat "$work/$t/crashes" 2>/dev/null || echo 1)" -ne 0 ]; then
    failed=1
    cat "$work/$t/report" >&2 2>/dev/null
  fi
done
if [ "$failed" -eq 0 ]; then
  rm -rf "$work"
else
  echo "kept $work (logs, corpora and reproducers)" >&2
fi
exit "$failed"
