#!/usr/bin/env bash
# Runs docs/sweep.md's Slurm recipe on a private single-node Slurm cluster
# on localhost and checks that the merged sweep is the unsharded one, byte
# for byte (test/Slurm/sweep-array.test):
#
#   run-slurm.sh ACCEL_REPLAY ACCEL_SRC OUT
#
# Starts munged with a fresh key, slurmctld and slurmd (Debian's packages:
# utils/install-deps.sh --slurm) on free ports with a generated config, all
# in a temporary directory; submits utils/slurm/sweep-array.sbatch as a
# 2-task array on examples/prefetch.mlir (4 points, with FDO) and
# utils/slurm/merge-shards.py after it (--dependency=afterok); then runs
# the same sweep unsharded into OUT/whole and compares sweep.csv and
# sweep.json with cmp. Prints one line per step; any failure prints the
# daemons' and jobs' logs and exits 1. The daemons and the temporary
# directory are gone when it exits, however it exits. Needs root (the
# daemons run as root, as does the job).
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: run-slurm.sh ACCEL_REPLAY ACCEL_SRC OUT" >&2
  exit 1
fi
accel_replay=$1
src=$2
out=$3
export PATH=/usr/sbin:/sbin:$PATH
# Nothing of an enclosing Slurm job or user setup reaches our commands.
for var in $(compgen -e); do
  case $var in SLURM_* | SBATCH_* | SQUEUE_* | SINFO_* | SCONTROL_* | SCANCEL_*)
    unset "$var" ;;
  esac
done
TIMEOUT=${ACCEL_SLURM_TIMEOUT:-120}

# A short path: munged's socket path must fit in a sockaddr_un.
tmp=$(mktemp -d /tmp/accel-slurm.XXXXXX)
pids=()
jobs_submitted=()

print_logs() {
  local f
  for f in "$tmp"/*.log "$out"/logs/*.out; do
    [[ -f $f ]] || continue
    echo "---- $f"
    tail -n 60 "$f"
  done
}

# Lists the submitted jobs still in the queue.
queued_jobs() {
  (( ${#jobs_submitted[@]} )) || return 0
  squeue -h -o %i -j "$(IFS=,; echo "${jobs_submitted[*]}")" 2>/dev/null
}

cleanup() {
  local rc=$? pid
  trap - EXIT INT TERM HUP
  if [[ $rc -ne 0 ]]; then
    echo "run-slurm.sh: failed (exit $rc); the logs:"
    print_logs
  fi
  # Jobs still queued or running (a failure or timeout): cancelled while
  # the daemons are up, so that no job outlives the test.
  if [[ -n $(queued_jobs) ]]; then
    scancel "${jobs_submitted[@]}" 2>/dev/null || true
    for _ in $(seq 50); do
      [[ -z $(queued_jobs) ]] && break
      sleep 0.1
    done
  fi
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

fail() {
  echo "run-slurm.sh: error: $*"
  exit 1
}

# Waits until COMMAND... succeeds, up to $1 seconds; returns 1 on timeout.
wait_for() {
  local seconds=$1 start=$SECONDS
  shift
  until "$@" >/dev/null 2>&1; do
    (( SECONDS - start < seconds )) || return 1
    sleep 0.2
  done
}

for tool in munged slurmctld slurmd sbatch squeue sinfo scontrol scancel; do
  command -v "$tool" >/dev/null ||
    fail "$tool is missing (bash utils/install-deps.sh --slurm)"
done
[[ $(id -u) -eq 0 ]] || fail "needs root (the daemons run as root)"

# MUNGE: its own key, socket, pid, log and seed files.
if command -v mungekey >/dev/null; then
  mungekey --create --keyfile="$tmp/munge.key"
else
  dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 status=none
fi
chmod 600 "$tmp/munge.key"
munged --foreground --force --socket="$tmp/munge.socket" \
  --key-file="$tmp/munge.key" --pid-file="$tmp/munged.pid" \
  --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed" \
  > "$tmp/munged.out.log" 2>&1 &
pids+=($!)
wait_for 20 munge --socket="$tmp/munge.socket" --no-input ||
  fail "munged did not start"
echo "munged: up"

# Two free TCP ports for slurmctld and slurmd.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

# The node as slurmd sees it (name, CPUs, memory), at 127.0.0.1.
node_line=$(slurmd -C | head -n 1)
node=$(sed -n 's/^NodeName=\([^ ]*\).*/\1/p' <<< "$node_line")
[[ -n $node ]] || fail "slurmd -C printed no NodeName: $node_line"
mkdir -p "$tmp/state" "$tmp/spool"
export SLURM_CONF=$tmp/slurm.conf
cat > "$SLURM_CONF" <<EOF
ClusterName=accel-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
# A one-node test cluster: batch jobs are scheduled at submit (Slurm's
# default batch_sched_delay lets that wait up to 3 s) and pending jobs, the
# merge whose array has ended among them, are tested every second (the
# default sched_interval is 60 s; the merge waited about 3 s).
SchedulerParameters=batch_sched_delay=0,sched_interval=1
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
$node_line NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=accel-test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -D -c > "$tmp/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D > "$tmp/slurmd.out.log" 2>&1 &
pids+=($!)
node_idle() {
  [[ $(sinfo -h -n "$node" -o %t) == idle ]]
}
wait_for 60 node_idle || fail "the node is not idle after 60 s: $(sinfo 2>&1)"
echo "slurm: node idle"

# The recipe of docs/sweep.md, "A Slurm job array".
prog=$src/examples/prefetch.mlir
sets=(--set 'hbm.bytes_per_cycle=571.4285,1142.857'
      --set 'dma.links[0].base_latency=500,1000')
rm -rf "$out/slurm" "$out/logs" "$out/whole"
mkdir -p "$out/logs"
cd "$out"
export ACCEL_REPLAY=$accel_replay
jobid=$(sbatch --parsable --array=0-1 --output="$out/logs/sweep-%A_%a.out" \
  "$src/utils/slurm/sweep-array.sbatch" "$out/slurm" "$prog" "${sets[@]}")
jobid=${jobid%%;*}
jobs_submitted+=("$jobid")
mergeid=$(sbatch --parsable --dependency="afterok:$jobid" \
  --output="$out/logs/merge-%j.out" \
  "$src/utils/slurm/merge-shards.py" "$out/slurm")
mergeid=${mergeid%%;*}
jobs_submitted+=("$mergeid")
echo "submitted: a 2-task array and its merge"
# Until the queue is empty; a merge whose dependency failed (a task that
# exited non-zero) would wait forever, and ends the wait at once.
start=$SECONDS
while [[ -n $(squeue -h -j "$jobid,$mergeid") ]]; do
  if [[ $(squeue -h -j "$mergeid" -o %r) == DependencyNeverSatisfied ]]; then
    fail "an array task failed, so the merge cannot run: $(squeue 2>&1)"
  fi
  (( SECONDS - start < TIMEOUT )) ||
    fail "the jobs did not finish in $TIMEOUT s: $(squeue 2>&1)"
  sleep 0.2
done
# Each task and the merge completed (Slurm keeps a finished job's record
# for MinJobAge, 300 s by default): one line per task and for the merge.
records=$(scontrol -o show job "$jobid" && scontrol -o show job "$mergeid") ||
  fail "scontrol show job failed: $records"
states=$(grep -o 'JobState=[A-Z_]*' <<< "$records" | tr '\n' ' ')
[[ $states == "JobState=COMPLETED JobState=COMPLETED JobState=COMPLETED " ]] ||
  fail "the jobs did not all complete: $states"
echo "jobs: 3 completed"
cat "$out/logs/merge-$mergeid.out"

# The same sweep, unsharded, on this machine.
"$accel_replay" sweep "$prog" "${sets[@]}" --plot=false -o "$out/whole" \
  > "$out/logs/whole.out" 2>&1 ||
  fail "the unsharded sweep failed: $(cat "$out/logs/whole.out")"
for f in sweep.csv sweep.json; do
  cmp "$out/slurm/$f" "$out/whole/$f" ||
    fail "the merged $f differs from the unsharded one"
  echo "$f: merged = unsharded"
done
