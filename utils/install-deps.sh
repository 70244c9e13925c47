#!/usr/bin/env bash
# Installs what accel needs on a fresh Debian (bookworm) machine: LLVM/MLIR 22,
# nlohmann_json, xtensor (.npy I/O), fast-cpp-csv-parser (calibration tables), GoogleTest, Google Benchmark, Ninja, ccache, and Python's
# matplotlib for the plots. Idempotent; runs apt-get as root or via sudo.
# With --sanitizers, also clang-22 and its runtimes, for the ASan + UBSan and
# libFuzzer build (fuzz/README.md, .ci/run).
set -euo pipefail
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
PKGS=(cmake ninja-build g++ ccache python3
      llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
      nlohmann-json3-dev libgtest-dev libbenchmark-dev
      python3-matplotlib python3-numpy libxtensor-dev libfccp-dev
      libzstd-dev)
if [[ ${1:-} == --sanitizers ]]; then
  PKGS+=(clang-22 libclang-rt-22-dev)
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if (( ${#missing[@]} )); then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "all packages present"
fi
