#!/usr/bin/env bash
# The reference upgrade: the lab's HA cluster one minor up, by hand, following the kubernetes.io task "Upgrading
# kubeadm clusters" step by step (over SSH as root; kubectl with the lab's admin kubeconfig through the VIP). It is the
# yardstick for the product's own upgrade (same lab, same cluster, same target): it prints the total and per-node
# times, then checks where the cluster ended.
#
#   bash test/lab/upgrade-reference.sh [--to X.Y] [--json FILE]
#
# Needs root and the lab's cluster at the previous minor:
#   npm run lab -- build
#   npm run lab -- up --cluster --kubernetes-version 1.33
# Per node, as the task says: switch the node's package repository to the target minor; kubeadm unhold/upgrade/hold;
# `kubeadm upgrade plan` + `kubeadm upgrade apply vX.Y.Z` on the first control-plane node, `kubeadm upgrade node` on
# the others and on the workers; drain; kubelet and kubectl unhold/upgrade/hold; daemon-reload and kubelet restart;
# uncordon. Control-plane nodes one at a time first, then the workers one at a time. The only additions: the lab's
# cgroup v1 deviation (--ignore-preflight-errors=SystemVerification, as at `kubeadm init`) and a wait for the node to
# report Ready at the target version before the next one starts (what an administrator watches for).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=../../lab/lib/common.sh
source "$ROOT/lab/lib/common.sh"

target_minor=$CURRENT_MINOR json=""
while (($#)); do
  case $1 in
    --to) target_minor=$(cut -d. -f1,2 <<<"${2#v}"); shift ;;
    --json) json=$2; shift ;;
    *) echo "usage: $0 [--to X.Y] [--json FILE]" >&2; exit 2 ;;
  esac
  shift
done
require_root upgrade-reference
[[ -f "$STATE/admin.conf" ]] || die "no cluster: npm run lab -- up --cluster --kubernetes-version $PREVIOUS_MINOR"

LOGDIR="$RUN/upgrade-reference"; mkdir -p "$LOGDIR"
IGNORE=--ignore-preflight-errors=SystemVerification
kc() { KUBECONFIG="$STATE/admin.conf" "$KUBE_BIN/kubectl" --request-timeout=30s "$@"; }
# kubectl through the VIP while API servers restart: a request HAProxy sent to a restarting one fails; an
# administrator runs it again. Every retry is counted and reported.
retries=0
kc_retry() {
  local i
  for i in 1 2 3 4 5; do
    if kc "$@"; then return 0; fi
    retries=$((retries + 1)); sleep 3
  done
  return 1
}
# on HOST SCRIPT: a bash script on HOST as root, its output in $LOGDIR/HOST.log
on() {
  local h=$1; shift
  printf '### %(%T)T %s\n' -1 "$(head -c 160 <<<"$*" | tr '\n' ' ')" >>"$LOGDIR/$h.log"
  if ! lab_ssh "$h" "bash -euo pipefail -s" >>"$LOGDIR/$h.log" 2>&1 <<<"$*"; then
    log "upgrade: step failed on $h, last lines of $LOGDIR/$h.log:"; tail -n 30 "$LOGDIR/$h.log" >&2; return 1
  fi
}

MASTERS=$(hosts_with_role control-plane)
WORKERS=$(hosts_with_role worker)
FIRST=$(head -1 <<<"$MASTERS")
# shellcheck disable=SC2086
NODES="$(echo $MASTERS $WORKERS)"

# Where the cluster starts: every node at one version, one minor below the target.
from=$(kc get nodes -o jsonpath='{range .items[*]}{.status.nodeInfo.kubeletVersion}{"\n"}{end}' | sort -u)
[[ $(wc -l <<<"$from") == 1 ]] || die "the nodes are at different versions ($(tr '\n' ' ' <<<"$from")): not a clean start"
from_minor=$(minor_of "$from")
[[ "1.$(( ${from_minor#1.} + 1 ))" == "$target_minor" ]] ||
  die "the cluster is at $from; the reference upgrade goes exactly one minor up (to $target_minor), as kubeadm requires"
log "upgrade: cluster at $from, target minor $target_minor; logs in $LOGDIR"
: >"$LOGDIR/times"

# "Changing the package repository": the minor in the node's Kubernetes apt source.
switch_repo="sed -i 's#/core:/stable:/v$from_minor/deb/#/core:/stable:/v$target_minor/deb/#' /etc/apt/sources.list.d/kubernetes.list
grep -q 'core:/stable:/v$target_minor/deb/' /etc/apt/sources.list.d/kubernetes.list
export DEBIAN_FRONTEND=noninteractive
apt-get -qq update"

t_start=$SECONDS
declare -A node_seconds
t0=$SECONDS
on "$FIRST" "$switch_repo"
# "Determine which version to upgrade to": the newest patch of the target minor the repository offers.
pkg=$(lab_ssh "$FIRST" "apt-cache madison kubeadm" | awk -v m="$target_minor." 'index($3, m) == 1 {print $3; exit}')
[[ -n $pkg ]] || die "the $target_minor repository offers no kubeadm (npm run lab -- build)"
to="v${pkg%%-*}"
log "upgrade: target $to (package $pkg)"

kubeadm_upgrade="export DEBIAN_FRONTEND=noninteractive
apt-mark unhold kubeadm >/dev/null && apt-get -qq update && apt-get -qq install -y kubeadm='${to#v}-*' && apt-mark hold kubeadm >/dev/null
kubeadm version -o short"
kubelet_upgrade="export DEBIAN_FRONTEND=noninteractive
apt-mark unhold kubelet kubectl >/dev/null && apt-get -qq update && apt-get -qq install -y kubelet='${to#v}-*' kubectl='${to#v}-*' && apt-mark hold kubelet kubectl >/dev/null
systemctl daemon-reload
systemctl restart kubelet"

wait_node() { # NODE: Ready and its kubelet at the target
  local i st
  for i in $(seq 1 60); do
    st=$(kc get node "$1" -o jsonpath='{.status.nodeInfo.kubeletVersion} {.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null || true)
    [[ $st == "$to True" ]] && return 0
    sleep 2
  done
  die "$1 did not come back Ready at $to (last: $st)"
}

# drain, kubelet and kubectl, uncordon: the second half of every node's turn
node_rest() {
  local n=$1 t
  t=$SECONDS; kc_retry drain "$n" --ignore-daemonsets >>"$LOGDIR/$n.log" 2>&1 || die "drain of $n failed ($LOGDIR/$n.log)"
  echo "$n drain $((SECONDS - t))" >>"$LOGDIR/times"
  t=$SECONDS; on "$n" "$kubelet_upgrade"; echo "$n kubelet $((SECONDS - t))" >>"$LOGDIR/times"
  kc_retry uncordon "$n" >>"$LOGDIR/$n.log" 2>&1 || die "uncordon of $n failed"
  t=$SECONDS; wait_node "$n"; echo "$n ready-wait $((SECONDS - t))" >>"$LOGDIR/times"
}

# 1. The first control-plane node: kubeadm, plan, apply.
log "upgrade: $FIRST: kubeadm $to, upgrade plan, upgrade apply"
t=$SECONDS; on "$FIRST" "$kubeadm_upgrade"; echo "$FIRST kubeadm-pkg $((SECONDS - t))" >>"$LOGDIR/times"
t=$SECONDS; on "$FIRST" "kubeadm upgrade plan $IGNORE"; echo "$FIRST plan $((SECONDS - t))" >>"$LOGDIR/times"
t=$SECONDS; on "$FIRST" "kubeadm upgrade apply $to --yes $IGNORE"; echo "$FIRST apply $((SECONDS - t))" >>"$LOGDIR/times"
node_rest "$FIRST"
node_seconds[$FIRST]=$((SECONDS - t0))
log "upgrade: $FIRST done in ${node_seconds[$FIRST]} s"

# 2. The other control-plane nodes, then 3. the workers, one at a time: kubeadm upgrade node.
for n in $NODES; do
  [[ $n == "$FIRST" ]] && continue
  t0=$SECONDS
  log "upgrade: $n: repository $target_minor, kubeadm $to, upgrade node, drain, kubelet, uncordon"
  on "$n" "$switch_repo"
  t=$SECONDS; on "$n" "$kubeadm_upgrade"; echo "$n kubeadm-pkg $((SECONDS - t))" >>"$LOGDIR/times"
  t=$SECONDS; on "$n" "kubeadm upgrade node $IGNORE"; echo "$n upgrade-node $((SECONDS - t))" >>"$LOGDIR/times"
  node_rest "$n"
  node_seconds[$n]=$((SECONDS - t0))
  log "upgrade: $n done in ${node_seconds[$n]} s"
done
total=$((SECONDS - t_start))

# Where the cluster ended: every node and component at the target, etcd healthy with three voting members.
# The static pods of the node upgraded last report Ready again only after their first probes (seconds after its kubelet
# restarted), so the check is repeated until it holds, for up to 3 minutes; the time it took is reported.
etcd_tag=$(lab_ssh "$FIRST" "kubeadm config images list --kubernetes-version $to" | sed -n 's#.*/etcd:##p')
coredns_tag=$(lab_ssh "$FIRST" "kubeadm config images list --kubernetes-version $to" | sed -n 's#.*/coredns:##p')
check_target() {
  problems=()
  while read -r n v ready; do
    [[ $v == "$to" && $ready == True ]] || problems+=("node $n: kubelet $v, Ready=$ready")
  done < <(kc get nodes -o jsonpath='{range .items[*]}{.metadata.name} {.status.nodeInfo.kubeletVersion} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}')
  for n in $NODES; do
    v=$(lab_ssh "$n" "kubeadm version -o short; kubectl version --client -o json | sed -n 's/.*\"gitVersion\": \"\\(.*\\)\".*/\\1/p'; apt-mark showhold | sort | tr '\n' ' '" | tr '\n' ' ' || true)
    [[ $v == "$to $to kubeadm kubectl kubelet " ]] || problems+=("$n: kubeadm, kubectl, holds: $v")
  done
  # control-plane static pods and the add-ons: their images' tags, as kubeadm of the target pins them
  while read -r pod image ready; do
    case $pod in
      kube-apiserver-*|kube-controller-manager-*|kube-scheduler-*|kube-proxy-*) want=$to ;;
      etcd-*) want=$etcd_tag ;;
      coredns-*) want=$coredns_tag ;;
      *) continue ;;
    esac
    [[ ${image##*:} == "$want" && $ready == true ]] || problems+=("pod $pod: $image ready=$ready (want $want)")
  done < <(kc -n kube-system get pods -o jsonpath='{range .items[*]}{.metadata.name} {.spec.containers[0].image} {.status.containerStatuses[0].ready}{"\n"}{end}')
  [[ $(kc -n kube-system get pods --no-headers 2>/dev/null | grep -c '^kube-apiserver-' || true) == 3 ]] || problems+=("not 3 API servers")
  # etcd: three members, none a learner, every endpoint healthy (etcdctl inside the first etcd pod, kubeadm's client cert)
  etcdctl="kc -n kube-system exec etcd-$FIRST -- etcdctl --cacert /etc/kubernetes/pki/etcd/ca.crt \
    --cert /etc/kubernetes/pki/etcd/healthcheck-client.crt --key /etc/kubernetes/pki/etcd/healthcheck-client.key"
  members=$($etcdctl member list -w json 2>/dev/null | python3 -c 'import json, sys
ms = json.load(sys.stdin)["members"]
print(len(ms), sum(1 for m in ms if m.get("isLearner")), " ".join(sorted(u for m in ms for u in m["clientURLs"])))' || true)
  read -r n_members n_learners endpoints <<<"$members"
  [[ $n_members == 3 && $n_learners == 0 ]] || problems+=("etcd: $n_members members, $n_learners learners")
  health=$($etcdctl endpoint health --endpoints "${endpoints// /,}" 2>&1 || true)
  [[ $(grep -c 'is healthy' <<<"$health" || true) == 3 ]] || problems+=("etcd health: $(tr '\n' ';' <<<"$health")")
  etcd_version=$($etcdctl endpoint status --endpoints "${endpoints// /,}" -w json 2>/dev/null |
    python3 -c 'import json, sys; print(",".join(sorted({e["Status"]["version"] for e in json.load(sys.stdin)})))' || echo unknown)
}
t=$SECONDS
for i in $(seq 1 60); do
  check_target
  ((${#problems[@]} == 0 || SECONDS - t >= 180)) && break
  sleep 3
done
check_seconds=$((SECONDS - t))

# Report
{
  echo "reference upgrade (kubernetes.io steps by hand) $from -> $to: total $total s (checks after it, until they held: $check_seconds s)"
  for n in $NODES; do
    printf '  %-14s %4s s   %s\n' "$n" "${node_seconds[$n]}" \
      "$(awk -v n="$n" '$1 == n {printf "%s %s s, ", $2, $3}' "$LOGDIR/times" | sed 's/, $//')"
  done
  echo "  kubectl requests retried through the VIP: $retries"
  echo "  etcd: $n_members members, $n_learners learners, $(grep -c 'is healthy' <<<"$health" || true) healthy, server version $etcd_version"
  if ((${#problems[@]})); then printf '  NOT AT TARGET: %s\n' "${problems[@]}"; else echo "  every node and component at $to, etcd healthy with three voting members"; fi
} | tee "$LOGDIR/summary"
if [[ -n $json ]]; then
  python3 - "$json" "$total" "$from" "$to" "$retries" "${#problems[@]}" $(for n in $NODES; do echo "$n=${node_seconds[$n]}"; done) <<'PY'
import json, sys
path, total, frm, to, retries, problems, *nodes = sys.argv[1:]
json.dump({"from": frm, "to": to, "totalSeconds": int(total), "kubectlRetries": int(retries), "problems": int(problems),
           "nodeSeconds": {n.split("=")[0]: int(n.split("=")[1]) for n in nodes}}, open(path, "w"), indent=2)
PY
fi
# The lab bench (test-results/lab/bench.json, read by scripts/lab-bench.mjs): the product's upgrade in the same tier is
# compared with this run's total.
python3 - "$ROOT/test-results/lab/bench.json" "$total" "${#problems[@]}" $(for n in $NODES; do echo "$n=${node_seconds[$n]}"; done) <<'PY'
import json, os, sys
path, total, problems, *nodes = sys.argv[1:]
try:
    bench = json.load(open(path))
except (OSError, ValueError):
    bench = {}
bench.update({"upgradeReferenceSeconds": int(total), "upgradeReferenceProblems": int(problems)})
bench.update({f"upgradeReferenceNodeSeconds@{n.split('=')[0]}": int(n.split("=")[1]) for n in nodes})
os.makedirs(os.path.dirname(path), exist_ok=True)
json.dump(bench, open(path, "w"), indent=2)
open(path, "a").write("\n")
PY
((${#problems[@]} == 0))
