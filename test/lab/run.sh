#!/usr/bin/env bash
# The lab tier (`npm run test:lab`, root): the lab's reference cluster and its failovers, the bring-up from VS Code's
# palette and everything that runs on the cluster it leaves; then, at the previous Kubernetes minor, the engine's
# bring-up from bare nodes and its resume on rebuilt nodes, and the upgrade of that cluster to the current minor.
# The lab is taken down at the end whatever happened; the exit code is non-zero when any part failed.
#
# Saved cluster states. A file runs on what the file before it left, and may name the state it starts from
# (`--from NAME`): a cluster saved by an earlier file (`--save NAME`, lab/lib/snapshot.sh: the nodes' disks and the
# lab's state files, taken in a few seconds with the nodes frozen). When the cluster running then is not that state's
# — the file before failed, or took the lab over — the state is restored and the tier waits until it is healthy
# (test/lab/labState.ts) before the file runs, so one failure does not fail every file after it. A new file that needs
# a cluster names one of the states below (or saves its own after a file that builds one):
#   palette          the cluster the palette's bring-up builds (ui-bringup.test.ts), at the current minor
#   engine-previous  the engine's bring-up at the previous minor, resumed on rebuilt nodes (resume.test.ts)
# A file on the palette cluster leaves it as it found it: five Ready nodes, three voting etcd members, every HAProxy
# server UP (the files that power nodes off or replace them put them back), so that the next file can start on it.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
KEEP=${KW_LAB_KEEP:-}
# One key signs the runs of every file (src/adapters/fs/stateKey.ts keeps it under XDG_STATE_HOME): each file gives the
# CLI a HOME of its own, yet resume.test.ts continues the run bringup.test.ts left, and the editor the CLI's.
STATE_HOME=$(mktemp -d)
export XDG_STATE_HOME=$STATE_HOME
# At the end, whatever happened: the lab down, this run's saved states dropped, and a previous-minor build this tier
# started and never waited for (the tier stopped early) stopped with its whole process group.
trap 'bash lab/lab.sh down >/dev/null 2>&1; [ -n "$KEEP" ] || bash lab/lab.sh snapshot drop --all >/dev/null 2>&1; [ -z "${PREVIOUS_BUILD_PID:-}" ] || kill -- -"$PREVIOUS_BUILD_PID" 2>/dev/null; rm -rf "$STATE_HOME"' EXIT
rc=0
# Which file costs what is how the tier is kept inside CI's budget: each file's wall time (and each restore and save,
# and the wait for the previous minor's build) is printed in a table at the end.
declare -a TIMES=()
row() { TIMES+=("$(printf '%6ss  %s' "$1" "$2")"); }
LINEAGE=""   # the saved state the running cluster descends from ("" when none or when the file before failed)
LAST_OK=0    # whether the file before passed

# lab_file FILE [--from NAME | --after-previous] [--save NAME] [VAR=VALUE...]: runs one test file (node:test, one at a
# time) as above; --after-previous: the file starts from what the file before it leaves, so it runs only when that passed.
lab_file() {
  local file=$1 from="" save="" after="" envs=() s; shift
  while (($#)); do
    case $1 in
      --from) from=$2; shift ;;
      --save) save=$2; shift ;;
      --after-previous) after=1 ;;
      *=*) envs+=("$1") ;;
      *) echo "run.sh: lab_file: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
  done
  if [ -n "$after" ] && [ "$LAST_OK" != 1 ]; then
    rc=1; LINEAGE=""; row 0 "$file (not run: the file before it failed)"
    echo "✖ $file: not run — it starts from what the file before it leaves, and that file failed"
    return
  fi
  LAST_OK=0
  if [ -n "$from" ] && [ "$LINEAGE" != "$from" ]; then
    s=$SECONDS
    if ! node --import tsx test/lab/labState.ts restore "$from"; then
      rc=1; LINEAGE=""; row $((SECONDS - s)) "(restore $from for $file: FAILED)"
      # The line test-all.sh's summary lists a failure by (node:test's own "✖" form).
      echo "✖ $file: not run — its starting state $from could not be restored (see above)"
      return
    fi
    LINEAGE=$from; row $((SECONDS - s)) "(restore $from, healthy)"
  fi
  s=$SECONDS
  if env ${envs[@]+"${envs[@]}"} node --import tsx --test --test-reporter=spec --test-concurrency=1 "$file"; then
    row $((SECONDS - s)) "$file"; LAST_OK=1
    if [ -n "$save" ]; then
      s=$SECONDS
      if node --import tsx test/lab/labState.ts save "$save"; then LINEAGE=$save; row $((SECONDS - s)) "(save $save)"
      else rc=1; LINEAGE=""; row $((SECONDS - s)) "(save $save: FAILED)"; fi
    fi
  else
    rc=1; LINEAGE=""; row $((SECONDS - s)) "$file (failed)"
  fi
}

# The build. Under `npm test` (scripts/test-all.sh) the current minor was built before this tier and the previous one
# is building in the background (KW_LAB_PREVIOUS_BUILD_STATUS names its status file); alone, this tier builds the
# current minor first, then the previous one in the background at the lowest priority while the files that need only
# the current one run. The tests below do not build (KW_LAB_BUILT=1): a second build beside the first would race it.
mkdir -p test-results/logs
PREVIOUS_MINOR=$(sed -n 's/^PREVIOUS_KUBE_VERSION=v\([0-9]*\.[0-9]*\)\..*/\1/p' lab/versions.env)
PREVIOUS_STATUS=${KW_LAB_PREVIOUS_BUILD_STATUS:-}
PREVIOUS_BUILD_PID=""
if [ -z "$PREVIOUS_STATUS" ]; then
  s=$SECONDS
  bash lab/lab.sh build --current-minor || { echo "lab build failed: no lab test can run" >&2; exit 1; }
  row $((SECONDS - s)) "(lab build --current-minor)"
  PREVIOUS_STATUS=test-results/logs/lab-build-previous.status
  rm -f "$PREVIOUS_STATUS"
  setsid bash -c 's=$SECONDS; nice -n 19 bash lab/lab.sh build >test-results/logs/lab-build-previous-output.log 2>&1; echo "$? $((SECONDS - s))" >"$1"' _ "$PREVIOUS_STATUS" &
  PREVIOUS_BUILD_PID=$!
fi
export KW_LAB_BUILT=1
export KW_LAB_TIER=1   # (ui-upgrade.test.ts is opt-in here: KW_LAB_UI_UPGRADE=1)
# Waits until the previous minor is built and served (once, before the first file that needs it).
previous_minor() {
  local s=$SECONDS r secs
  until [ -f "$PREVIOUS_STATUS" ]; do sleep 5; done
  read -r r secs <"$PREVIOUS_STATUS"
  PREVIOUS_BUILD_PID=""   # ended: nothing to stop at exit
  row $((SECONDS - s)) "(waited for the previous minor's build: exit $r after ${secs}s of building)"
  if [ "$r" != 0 ] || ! bash lab/lab.sh built previous-minor; then
    echo "✖ the previous Kubernetes minor's lab build failed (exit $r): test-results/logs/lab-build-previous-output.log"
    tail -n 25 test-results/logs/lab-build-previous-output.log 2>/dev/null
    return 1
  fi
}

rm -f test-results/lab/bench.json   # each test records its numbers; printed with their ratios at the end
bash lab/lab.sh snapshot drop --all   # states are this run's own: a cluster saved by an older checkout proves nothing
# So is the lab workspace's state (.kubeadm-workbench/: runs, host locks, the VRRP password): an earlier tier's or an
# engineer's session signed them with another key, which the product rightly refuses to use ("is not used: its
# signature is not this user's"); each tier starts without them, as a fresh machine would.
rm -rf "${KW_LAB_CACHE:-/var/cache/kubeadm-workbench/lab}/state/.kubeadm-workbench"
# The tests below run the CLI from dist/ and the editor from the packaged .vsix: build both first, so that no part
# runs an older build.
npm run -s package:tests || rc=1

lab_file test/lab/containerd-oracle.test.ts   # the lab's containerd on configs; needs the build cache only
# The lab's reference cluster (lab/cluster/up-cluster.sh, the bring-up bench's yardstick) and its failovers.
lab_file test/lab/lab.test.ts
# Bring-up from the command palette in real VS Code on the nodes reset to bare Debian: the cluster it leaves (its admin
# context in `lab env`'s KUBECONFIG) is the one the files below run on.
lab_file test/lab/ui-bringup.test.ts --save palette
lab_file 'test/lab/live/cluster.test.ts' --from palette
# The live model row by row against `kubectl get -o wide` and `etcdctl endpoint status` (through `kubectl exec`),
# healthy and during an m03 power-off; then HAProxy stopped on the MASTER → the VIP and backend states on the BACKUP.
lab_file test/lab/live-rows.test.ts --from palette
# Maintenance on that cluster: a worker joined back by a sudo user.
lab_file test/lab/join.test.ts --from palette
# Drain / cordon / uncordon next to kubectl drain on the same cluster, --then over SSH, the control-plane guard.
lab_file test/lab/drain.test.ts --from palette
# The failure drill on the same cluster: power-off of a control-plane node, stop of a worker with evictions.
lab_file test/lab/drill.test.ts --from palette
# The balancer drills on the same cluster's pair (HAProxy stopped on the VIP holder, weights too small refused, the
# holder powered off, split brain) and the network partition of a follower and of the etcd leader, each number against
# the seed's formula from the hosts' files, with the tests' own probes of the VIP and the API through it.
lab_file test/lab/balancers.test.ts --from palette
lab_file test/lab/partition.test.ts --from palette
# Day-2 on the same cluster: certificates over SSH and by TLS handshake, a backup, a renewal, scheduled snapshots, a restore.
lab_file test/lab/day2.test.ts --from palette
# Day-2 from the palette in VS Code on the same cluster: certificates inspected, an etcd backup in the Backups view,
# the renewal approved in its modal while the API is polled through the VIP.
lab_file test/lab/ui-day2.test.ts --from palette
# Maintenance on the same cluster through the CLI: the rolling etcd defrag, drift of a hand-edited manifest, a
# reconfigure of an API server flag (API polled through the VIP); leaves it healthy.
lab_file test/lab/maintenance.test.ts --from palette
# The same family from the palette in VS Code: a defrag, a reconfigure's plan cancelled in its modal, a NOSPACE
# recovery within the node monitor's grace period, an embedded kubelet.conf fixed (the CLI's reads as witnesses).
lab_file test/lab/ui-maintenance.test.ts --from palette
# The live views in VS Code (the installed .vsix, default settings) on the same cluster, healthy and during a power-off
# of m03: screenshots and the editor's etcd "at risk" detection time.
lab_file test/lab/ui-live.test.ts --from palette
# A balancer drill from the balancer row's context menu in the Inventory, its report rendered in the Markdown preview.
lab_file test/lab/ui-balancers.test.ts --from palette
# The kubectl run timeline from the CLI on the same cluster (its API servers write the audit log: the lab inventory
# switches it on): a cold and a warm run on one worker, every hop of the seed's sequence from its source, in order.
lab_file test/lab/timeline.test.ts --from palette
# The same in VS Code: "Show kubectl run Timeline…" from the palette, cold then warm on one worker, every hop in the
# panel with its source, in causal order, nothing on the chart overlapping; screenshots of both runs.
lab_file test/lab/ui-timeline.test.ts --from palette
# Remove, replace and reset on the same cluster, last: a worker removed and joined back, a dead m01 replaced by the
# spare m04, a removal refused while it would lose quorum.
lab_file test/lab/nodes.test.ts --from palette
# The same from the palette in VS Code on what nodes.test.ts leaves: Remove of a worker, Join of it back, Replace of
# m04 by m01 typed in (the lab's topology restored). It starts from m04 in m01's place: only after nodes.test.ts passed.
lab_file test/lab/ui-nodes.test.ts --after-previous

# The previous minor from here on (built beside the files above).
if previous_minor; then
  # The engine's bring-up from bare nodes at the previous minor, killed in kubeadm init and at m02's and m03's etcd
  # joins, resumed each time; it leaves its runs finished (a changed host key is refused by the preflight before any run
  # starts): resume.test.ts makes its own unfinished run (an up killed at kubeadm init), resets the nodes to bare Debian
  # and resumes that run without --fresh, which must notice the rebuilt hosts and converge.
  lab_file test/lab/bringup.test.ts KW_LAB_KEEP=1 KW_LAB_MINOR="$PREVIOUS_MINOR"
  lab_file test/lab/resume.test.ts KW_LAB_KEEP=1 KW_LAB_MINOR="$PREVIOUS_MINOR" --save engine-previous
  # The product's upgrade of that cluster to the current minor (CLI), killed in m02's kubeadm upgrade node and resumed,
  # with the API through the VIP and a Service polled throughout. (Its workload once never became available here: every
  # node was under a disk-pressure taint, kubelet's default thresholds being shares of this machine's disk — the lab's
  # kubelet now has sizes.) KW_LAB_UPGRADE=0 leaves it out, reported skipped.
  if [ "${KW_LAB_UPGRADE:-1}" = 1 ]; then lab_file test/lab/upgrade.test.ts --from engine-previous KW_LAB_REUSE=1
  else lab_file test/lab/upgrade.test.ts; fi
  # The same from the palette ("Upgrade Cluster…"): about ten minutes more than CI's budget leaves, so opt-in
  # (KW_LAB_UI_UPGRADE=1); otherwise its tests are reported skipped, with that reason, and counted as such.
  if [ "${KW_LAB_UI_UPGRADE:-}" = 1 ]; then lab_file test/lab/ui-upgrade.test.ts --from engine-previous
  else lab_file test/lab/ui-upgrade.test.ts; fi
else
  rc=1
  for f in bringup resume upgrade ui-upgrade; do echo "✖ test/lab/$f.test.ts: not run — the previous minor was not built"; done
fi
node scripts/lab-bench.mjs
echo "lab tier, wall time per file:"
printf '  %s\n' "${TIMES[@]}"
exit $rc
