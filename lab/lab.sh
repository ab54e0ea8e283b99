#!/usr/bin/env bash
# The lab: an air-gapped datacenter on one machine (see lab/README.md).
#   lab.sh build [--current-minor] | snapshot save|restore|list|drop NAME | up [--cluster] [--kubernetes-version X.Y] | status | reset | down | env | fault ... | ssh HOST [CMD]
set -euo pipefail
# The lab's daemons (nodes, apt repo, registry) outlive this script: they must not inherit the caller's
# descriptors — a `flock LOCKFILE lab.sh up` would otherwise stay locked until the lab is taken down.
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  if ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
done
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
for f in net nodes state sources snapshot; do source "$LAB_DIR/lib/$f.sh"; done

usage() {
  cat <<USAGE
usage: npm run lab -- COMMAND
  build [--current-minor]    build everything from source (cached under $CACHE): Kubernetes $CURRENT_MINOR and,
                             after it, $PREVIOUS_MINOR (for upgrades); --current-minor stops after $CURRENT_MINOR
  snapshot save NAME         freeze the nodes, keep their disks and the lab's state files as NAME, thaw them
  snapshot restore NAME      power every node off, put NAME's disks back and start them (the cluster then boots)
  snapshot list | drop NAME|--all
  up [--cluster] [--kubernetes-version X.Y]
                             start the nodes and the apt/registry sources; --cluster also builds the HA cluster;
                             --kubernetes-version $PREVIOUS_MINOR: the inventory and the cluster at that minor (default $CURRENT_MINOR)
  status                     what runs, what answers
  built kube|etcd|previous-minor ...
                             exits 0 when these are built (kube, etcd: what the non-lab test tiers need of the
                             build; previous-minor: Kubernetes $PREVIOUS_MINOR built and served, for the upgrade tests)
  reset [--kubernetes-version X.Y]   all nodes back to bare Debian (seconds)
  down                       stop and remove everything the lab created (idempotent, also after a crash)
  stats [SECONDS]             memory and CPU (% of one core) of each node
  env                        shell exports: KUBECONFIG LAB_SSH_CONFIG LAB_INVENTORY PATH  (npm run -s lab -- env)
  ssh HOST [CMD...]          ssh into a lab host
  fault power-off|power-on|cut|restore HOST
                                    cut|restore: HOST's link on the bridge down/up (both directions, HOST keeps running)
  fault kill HOST UNIT|PROCESS      SIGKILL a systemd unit (or a process by name) on HOST
  fault stop HOST UNIT              systemctl stop UNIT on HOST (stop HOST haproxy: HAProxy only, keepalived stays)
  fault vrrp-block|vrrp-unblock HOST   drop VRRP (IP protocol 112) in and out of balancer HOST: split brain
  fault clone-identity FROM TO      copy FROM's machine-id, product_uuid and SSH host keys onto TO
  fault restore-identity HOST       give HOST back the identity clone-identity replaced
  fault swap-on|swap-off HOST       make HOST report an active swap (node-local, the VM has no swap)
USAGE
}

ensure_base() {
  local base
  base=$("$LAB_DIR/base/rootfs.sh") || die "building the base rootfs failed"
  echo "$base" >"$STATE/base-rootfs"
}

# The minors whose packages and images the lab serves right now (the previous one only once built).
served_minors() {
  local m
  for m in "$PREVIOUS_MINOR" "$CURRENT_MINOR"; do
    [[ -f "$REPO_WWW/kubernetes/core:/stable:/v$m/deb/Packages" ]] &&
      ( use_kube_minor "$m"
        [[ -d "$REGISTRY_DATA/docker/registry/v2/repositories/kube-apiserver/_manifests/tags/$KUBE_VERSION" ]] ) &&
      grep -q '^Package: kubeadm' "$REPO_WWW/kubernetes/core:/stable:/v$m/deb/Packages" && echo "$m"
  done
  return 0
}

cmd_up() {
  local cluster=0 t0=$SECONDS h minor=$CURRENT_MINOR
  while (($#)); do
    case $1 in
      --cluster) cluster=1 ;;
      --kubernetes-version) minor=${2:?--kubernetes-version X.Y}; shift ;;
      --kubernetes-version=*) minor=${1#*=} ;;
      *) usage; exit 2 ;;
    esac
    shift
  done
  minor=$(cut -d. -f1,2 <<<"${minor#v}")   # 1.33, v1.33, 1.33.13 -> 1.33
  use_kube_minor "$minor"
  require_root up
  if [[ $minor != "$CURRENT_MINOR" && " $(served_minors | tr '\n' ' ') " != *" $minor "* ]]; then
    die "Kubernetes $minor is not built or not served yet: run 'npm run lab -- build' first"
  fi
  state_init
  ensure_base
  net_up
  sources_up
  parallel_hosts node_prepare
  state_write_ssh
  state_write_inventory
  for h in $(all_hosts); do node_start "$h"; done
  parallel_hosts node_wait_ssh
  log "nodes up and reachable over SSH in $((SECONDS - t0)) s"
  local running=""
  if ((cluster)) && [[ -f "$STATE/admin.conf" ]]; then   # the kubelet versions of the Ready nodes, if a cluster runs
    running=$(KUBECONFIG="$STATE/admin.conf" "$KUBE_BIN/kubectl" --request-timeout=5s get nodes --no-headers 2>/dev/null |
      awk '$2 == "Ready" {print $5}' | sort | uniq -c | awk '{print $1 "x" $2}' | tr '\n' ' ' || true)
  fi
  if ((cluster)) && [[ $running == "5x$KUBE_VERSION " ]]; then
    log "the cluster is already up (5 Ready nodes at $KUBE_VERSION); 'lab reset' first for a fresh one"
  elif ((cluster)) && [[ -n $running && $running != *"x$KUBE_VERSION "* ]]; then
    die "a cluster at another version runs (Ready nodes: $running); 'npm run lab -- reset --kubernetes-version $minor' first"
  elif ((cluster)); then
    local t1=$SECONDS
    KW_LAB_STATE="$STATE" KW_LAB_KUBE_MINOR="$minor" bash "$LAB_DIR/cluster/up-cluster.sh"
    log "cluster up in $((SECONDS - t1)) s (total $((SECONDS - t0)) s)"
  fi
}

cmd_down() {
  require_root down
  local h
  parallel_hosts node_kill
  sources_down
  for h in $(all_hosts); do node_wipe "$h"; done
  # leftovers of a crashed run: overlay mounts below the node dir
  if [[ -d "$NODES" ]]; then
    { grep " $NODES/" /proc/mounts || true; } | awk '{print $2}' | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
    rm -rf "$NODES"
  fi
  net_down
  mountpoint -q /run/systemd/nspawn && umount /run/systemd/nspawn 2>/dev/null || true
  rm -rf "$RUN"
  rm -f "$STATE/admin.conf"
  log "lab is down"
}

cmd_reset() {
  require_root reset
  local t0=$SECONDS h
  parallel_hosts node_kill
  for h in $(all_hosts); do node_wipe "$h"; done
  rm -f "$STATE/admin.conf"
  cmd_up "$@"
  log "reset in $((SECONDS - t0)) s"
}

cmd_status() {
  local h ip state sshs
  [[ -f "$STATE/ssh_config" && -e "/run/netns/$NETNS" ]] || { echo "the lab is down ('npm run lab -- up')"; return 0; }
  printf '%-20s %-12s %-9s %-5s\n' HOST ADDRESS NODE SSH
  for h in $(all_hosts); do
    ip=$(host_ip "$h")
    if node_running "$h"; then state=running; else state=off; fi
    sshs=-
    [[ $state == running ]] && { lab_ssh -o ConnectTimeout=2 -o BatchMode=yes "$h" true 2>/dev/null && sshs=ok || sshs=FAIL; }
    printf '%-20s %-12s %-9s %-5s\n' "$h" "$ip" "$state" "$sshs"
  done
  printf 'apt repo   %s: %s (Kubernetes %s)\n' "$APT_URL" "$(curl -fsS -o /dev/null -w '%{http_code}' --max-time 2 "$APT_URL/" 2>/dev/null || echo down)" \
    "$(served_minors | tr '\n' ' ' | sed 's/ $//')"
  printf 'registry   http://%s: %s\n' "$REGISTRY" "$(curl -fsS --max-time 2 "http://$REGISTRY/v2/_catalog" 2>/dev/null | tr -d '\n' || echo down)"
  if [[ -f "$STATE/admin.conf" ]]; then
    echo "cluster (via VIP $VIP):"
    KUBECONFIG="$STATE/admin.conf" "$KUBE_BIN/kubectl" get nodes -o wide --request-timeout=5s 2>&1 | sed 's/^/  /'
  fi
}

# Memory and CPU of every node (its cgroups), CPU averaged over SECONDS (default 10).
cmd_stats() {
  local secs=${1:-10} h d mem cpu0 cpu1 tot_mem=0 tot_cpu=0
  declare -A c0
  for h in $(all_hosts); do
    d=$(tr ' ' '\n' <"$RUN/$h.cgdirs" 2>/dev/null | grep '/cpuacct/' || true)
    c0[$h]=$(cat "$d/cpuacct.usage" 2>/dev/null || echo 0)
  done
  sleep "$secs"
  printf '%-20s %10s %8s\n' HOST MEM_MIB CPU_%
  for h in $(all_hosts); do
    d=$(tr ' ' '\n' <"$RUN/$h.cgdirs" 2>/dev/null | grep '/cpuacct/' || true)
    cpu1=$(cat "$d/cpuacct.usage" 2>/dev/null || echo 0)
    d=$(tr ' ' '\n' <"$RUN/$h.cgdirs" 2>/dev/null | grep '/memory/' || true)
    # usage minus page cache: what the node's processes really hold
    mem=$(awk '$1 == "total_rss" || $1 == "total_mapped_file" || $1 == "total_shmem" {s += $2} END {print int(s / 1048576)}' "$d/memory.stat" 2>/dev/null || echo 0)
    cpu=$(awk -v a="${c0[$h]}" -v b="$cpu1" -v s="$secs" 'BEGIN {printf "%.1f", (b - a) / (s * 1e7)}')
    printf '%-20s %10s %8s\n' "$h" "$mem" "$cpu"
    tot_mem=$((tot_mem + mem)); tot_cpu=$(awk -v a="$tot_cpu" -v b="$cpu" 'BEGIN {print a + b}')
  done
  printf '%-20s %10s %8s\n' TOTAL "$tot_mem" "$tot_cpu"
}

cmd_env() {
  local built=() m inv
  for m in "$PREVIOUS_MINOR" "$CURRENT_MINOR"; do
    if minor_built "$m"; then built+=("$( use_kube_minor "$m"; echo "$KUBE_VERSION")"); fi
  done
  inv=$(sed -n 's/^  kubernetesVersion: "\(.*\)"$/v\1/p' "$STATE/inventory.yaml" 2>/dev/null) || true   # (no inventory before the first up)
  cat <<ENV
# Kubernetes versions built (the previous minor: 'npm run lab -- build'); the inventory's version.
export LAB_KUBE_VERSIONS="${built[*]}"
export LAB_KUBE_VERSION="${inv:-$KUBE_VERSION}"
export KUBECONFIG="$STATE/admin.conf"
export LAB_SSH_CONFIG="$STATE/ssh_config"
export LAB_KNOWN_HOSTS="$STATE/known_hosts"
export LAB_SSH_KEY="$STATE/id_ed25519"
export LAB_INVENTORY="$STATE/inventory.yaml"
export PATH="$STATE/bin:\$PATH"
ENV
}

cmd_fault() {
  require_root fault
  local what=${1:-}; shift || true
  [[ -n "$what" && -n "${1:-}" ]] || { usage; exit 2; }
  local h; h=$(resolve_host "$1"); shift
  case $what in
    power-off) node_kill "$h"; log "$h powered off" ;;
    power-on) node_start "$h"; node_wait_ssh "$h"; log "$h powered on" ;;
    cut) net_cut "$h"; log "$h link cut" ;;
    restore) net_restore "$h"; log "$h link restored" ;;
    kill)
      local u=${1:?fault kill HOST UNIT|PROCESS}
      if lab_ssh "$h" "systemctl cat '$u'" >/dev/null 2>&1; then
        lab_ssh "$h" "systemctl kill --signal=SIGKILL '$u'"
      else
        lab_ssh "$h" "pkill -KILL -x '$u'"
      fi
      log "$h: killed $u" ;;
    stop) lab_ssh "$h" "systemctl stop '${1:?fault stop HOST UNIT}'"; log "$h: stopped $1" ;;
    clone-identity)
      local to; to=$(resolve_host "${1:?fault clone-identity FROM TO}")
      local src dst keep; src="$(node_dir "$h")/root"; dst="$(node_dir "$to")/root"; keep="$(node_dir "$to")/identity-before-clone"
      # TO's own identity, kept beside its disk for `fault restore-identity TO` (the first clone's: a second keeps it)
      [[ -d $keep ]] || { mkdir -p "$keep"; cp -p "$dst/etc/machine-id" "$dst/etc/kw-lab/product_uuid" "$dst"/etc/ssh/ssh_host_* "$keep/"; }
      cp "$src/etc/machine-id" "$dst/etc/machine-id"
      cp "$src/etc/kw-lab/product_uuid" "$dst/etc/kw-lab/product_uuid"
      cp -p "$src"/etc/ssh/ssh_host_* "$dst/etc/ssh/"
      node_running "$to" && lab_ssh "$to" "systemctl restart ssh" 2>/dev/null || true
      state_write_ssh   # the lab's known_hosts describes the machines as they are: now with the same keys
      log "$to now has $h's machine-id, product_uuid and SSH host keys" ;;
    restore-identity)
      local keep d; keep="$(node_dir "$h")/identity-before-clone"; d="$(node_dir "$h")/root"
      [[ -d $keep ]] || die "$h has no identity kept by clone-identity"
      cp "$keep/machine-id" "$d/etc/machine-id"; cp "$keep/product_uuid" "$d/etc/kw-lab/product_uuid"
      cp -p "$keep"/ssh_host_* "$d/etc/ssh/"; rm -rf "$keep"
      state_write_ssh   # (sshd reads its host keys for each new connection: known_hosts first, then the restart)
      node_running "$h" && lab_ssh "$h" "systemctl restart ssh" 2>/dev/null || true
      log "$h has its own machine-id, product_uuid and SSH host keys again" ;;
    # on the balancer itself (nftables in its own table): this machine's kernel filters nothing on the lab's bridge
    vrrp-block)
      lab_ssh "$h" "nft add table inet kwlab_fault && nft add chain inet kwlab_fault in '{ type filter hook input priority -300; }' && nft add chain inet kwlab_fault out '{ type filter hook output priority -300; }' && nft add rule inet kwlab_fault in ip protocol 112 drop && nft add rule inet kwlab_fault out ip protocol 112 drop"
      log "$h: VRRP blocked" ;;
    vrrp-unblock) lab_ssh "$h" "nft delete table inet kwlab_fault 2>/dev/null || true"; log "$h: VRRP unblocked" ;;
    swap-on) lab_ssh "$h" bash -s <"$LAB_DIR/base/swap-on.sh"; log "$h: swap on" ;;
    swap-off) lab_ssh "$h" "swapoff -a"; log "$h: swap off" ;;
    *) usage; exit 2 ;;
  esac
}

cmd=${1:-}; shift || true
case $cmd in
  build)
    require_root build; t0=$SECONDS
    # One build at a time: a second one (a test's cache check while `npm test` builds the previous minor beside it)
    # waits for the first instead of racing it over the same cache directories.
    mkdir -p "$CACHE"; exec 9>"$CACHE/.build.lock"
    flock -n 9 || { log "another lab build runs: waiting for it"; flock 9; }
    bash "$LAB_DIR/build/build.sh" "$@"
    bash "$LAB_DIR/sources/apt-repo.sh"
    bash "$LAB_DIR/sources/images.sh"
    for d in "$CACHE"/bin/*/; do   # first-build time (recorded when it was built) and size of each component
      printf '  %-32s %6s s %6s\n' "$(basename "$d")" "$(cat "$d/.build-seconds" 2>/dev/null || echo ?)" "$(du -sh "$d" | cut -f1)" >&2
    done
    log "build (or cache check) done in $((SECONDS - t0)) s; cache $CACHE: $(du -sh "$CACHE" | cut -f1)" ;;
  up) cmd_up "$@" ;;
  down) cmd_down ;;
  reset) cmd_reset "$@" ;;
  built) # COMPONENT...: exits 0 when each is built at this lab's version (kube, etcd: what the editor and integration
          # tiers start), so `npm test` can start them while the rest of a cold build goes on beside them
    for c in "$@"; do
      case $c in
        kube) v=$KUBE_VERSION ;;
        etcd) v=$ETCD_VERSION ;;
        previous-minor) [[ " $(served_minors | tr '\n' ' ') " == *" $PREVIOUS_MINOR "* ]] || exit 1; continue ;;
        *) die "built: only kube, etcd and previous-minor are asked for, not $c" ;;
      esac
      [[ -f "$CACHE/bin/$c-$v/.done" ]] || exit 1
    done ;;
  status) cmd_status ;;
  stats) cmd_stats "$@" ;;
  env) cmd_env ;;
  ssh) h=$(resolve_host "${1:?ssh HOST}"); shift; exec ssh -F "$STATE/ssh_config" "$h" "$@" ;;
  fault) cmd_fault "$@" ;;
  snapshot)
    sub=${1:-}; shift || true
    case $sub in
      save) require_root snapshot; snapshot_save "$@" ;;
      restore) require_root snapshot; snapshot_restore "$@" ;;
      list) snapshot_list ;;
      drop) require_root snapshot; snapshot_drop "$@" ;;
      *) usage; exit 2 ;;
    esac ;;
  ""|-h|--help|help) usage ;;
  *) usage; exit 2 ;;
esac
