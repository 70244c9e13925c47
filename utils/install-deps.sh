#!/usr/bin/env bash
# Installs what accel needs on a fresh Debian (bookworm) machine: LLVM/MLIR 22,
# nlohmann_json, xtensor (.npy I/O), fast-cpp-csv-parser (calibration tables),
# xxHash's header (result hashes), GoogleTest, Google Benchmark, Ninja, ccache, and Python's
# matplotlib for the plots, and jq (the docs' self-checks,
# utils/check-doc-claims.py, read JSON outputs with it). Idempotent; runs apt-get as root or via sudo.
# With --sanitizers, also clang-22 and its runtimes, for the ASan + UBSan and
# libFuzzer build (fuzz/README.md, .ci/run).
# With --slurm, also Slurm's controller, node daemon and client and MUNGE,
# for test/Slurm (a private single-node cluster on localhost; .ci/run). The
# system services these packages start on install are stopped and disabled:
# the test starts its own daemons with its own key and config.
set -euo pipefail
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
PKGS=(cmake ninja-build g++ ccache python3
      llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
      nlohmann-json3-dev libgtest-dev libbenchmark-dev
      python3-matplotlib python3-numpy libxtensor-dev libfccp-dev
      libxxhash-dev libzstd-dev jq)
SLURM_PKGS=(slurmctld slurmd slurm-client munge)
slurm=0
for arg in "$@"; do
  case $arg in
    --sanitizers) PKGS+=(clang-22 libclang-rt-22-dev) ;;
    --slurm) PKGS+=("${SLURM_PKGS[@]}"); slurm=1 ;;
    *) echo "install-deps.sh: unknown option '$arg' (--sanitizers, --slurm)" >&2
       exit 1 ;;
  esac
done
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if (( ${#missing[@]} )); then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  # Services that came with this install: stopped and not started at boot
  # (a cluster that was already installed is left alone).
  if (( slurm )); then
    for svc in munge slurmctld slurmd; do
      [[ " ${missing[*]} " == *" $svc "* ]] || continue
      if [[ -d /run/systemd/system ]]; then
        $SUDO systemctl disable --now --quiet "$svc" >/dev/null 2>&1 || true
        continue
      fi
      # No systemd running (a container): the init script, and the unit
      # symbolic links for a later boot with systemd.
      if [[ -x /etc/init.d/$svc ]]; then
        $SUDO service "$svc" stop >/dev/null 2>&1 || true
        $SUDO update-rc.d "$svc" disable >/dev/null 2>&1 || true
      fi
      if command -v systemctl >/dev/null; then
        $SUDO systemctl disable --quiet "$svc" >/dev/null 2>&1 || true
      fi
    done
  fi
else
  echo "all packages present"
fi
