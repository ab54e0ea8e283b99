# Saved lab states: the machines' disks and the lab's own state files, kept under a name so that a later test can
# start from that cluster instead of building it again (`lab snapshot save|restore|list|drop`).
#
# A node's disk is two directories: its overlay upper dir (everything it changed on the base rootfs) and its
# /var/lib/containerd (a bind mount from ext4). The cache is on ext4, which has no reflinks, so a snapshot is a copy
# with hard links where the files are never written in place: package payloads under usr/ (dpkg replaces a file by
# renaming a new one over it), containerd's content blobs (named by their digest) and its snapshotter's unpacked
# layers (read-only once committed; a container's writable layer belongs to a container the kubelet replaces after
# the next boot). Everything else — etcd's data, the kubelet's state, logs, /etc, the bolt databases — is copied.
# The nodes are frozen (cgroup freezer) while their disks are copied, so the copy is what a power cut at that
# instant would leave (etcd recovers from that as from any crash), and thawed after: the cluster runs on, having lost
# the seconds of the copy. A restore powers every node off, puts the saved disks in place and starts them again:
# the cluster boots as after a power cut of the whole datacenter; waiting until it is healthy is the caller's part.
# The lab's network (namespace, bridge, veths) is made again by `up`; each node's address and routes are on its disk.
# shellcheck shell=bash

SNAPSHOTS="$CACHE/snapshots"
# The lab state files a snapshot carries (the inventory folder with the workspace state beside it, the admin
# kubeconfig and the SSH files that match the saved host keys).
SNAPSHOT_STATE_FILES="inventory.yaml kubeadm-extra.yaml kube-flannel.yml admin.conf known_hosts ssh_config .kubeadm-workbench"

snapshot_dir() {
  [[ $1 =~ ^[a-z0-9][a-z0-9.-]{0,62}$ ]] || die "a snapshot name is lower-case letters, digits, dots and dashes: '$1'"
  echo "$SNAPSHOTS/$1"
}

# copy_tree SRC DST LINKED...: DST becomes a copy of SRC (owners, modes, times, xattrs such as overlayfs's opaque
# marks, device nodes such as its whiteouts), in which the relative paths LINKED are hard links instead.
copy_tree() {
  local src=$1 dst=$2 l; shift 2
  local excludes=()
  for l in "$@"; do excludes+=(--exclude="./$l"); done
  mkdir -p "$dst"
  # (sockets are left out: the kubelet's and containerd's are made again when they start; no line per socket in the log)
  tar -C "$src" --anchored "${excludes[@]}" --xattrs --xattrs-include='*' --numeric-owner --warning=no-file-ignored -cf - . |
    tar -C "$dst" --xattrs --xattrs-include='*' --numeric-owner -xpf -
  for l in "$@"; do
    [[ -e "$src/$l" ]] || continue
    mkdir -p "$(dirname "$dst/$l")"
    cp -al "$src/$l" "$dst/$l"
  done
}

# The linked parts of a node's disks (see above).
UPPER_LINKED=(usr)
CONTAINERD_LINKED=(io.containerd.content.v1.content/blobs io.containerd.snapshotter.v1.overlayfs/snapshots)

# copy_disks FROM TO: every host's upper dir and containerd dir under FROM/<host>/ copied to TO/<host>/, all at once.
copy_disks() {
  local from=$1 to=$2 h pids=() p rc=0
  for h in $(all_hosts); do
    [[ -d "$from/$h/upper" ]] || continue
    copy_tree "$from/$h/upper" "$to/$h/upper" "${UPPER_LINKED[@]}" & pids+=($!)
    copy_tree "$from/$h/containerd" "$to/$h/containerd" "${CONTAINERD_LINKED[@]}" & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  return $rc
}

node_freezer() { tr ' ' '\n' <"$RUN/$1.cgdirs" 2>/dev/null | grep '/freezer/' | head -1; }

# freeze_nodes FROZEN|THAWED HOST...: every node's processes stopped (or running again) at once; waits until they are.
# A node that cannot be frozen thaws the others again before the save stops.
freeze_nodes() {
  local want=$1 h f i bad=""; shift
  for h in "$@"; do
    f=$(node_freezer "$h")
    if [[ -n $f && -f $f/freezer.state ]]; then echo "$want" >"$f/freezer.state" || bad+=" $h"; else bad+=" $h"; fi
  done
  for h in "$@"; do
    f=$(node_freezer "$h"); [[ -n $f ]] || continue
    for i in $(seq 1 200); do [[ $(cat "$f/freezer.state" 2>/dev/null) == "$want" ]] && break; sleep 0.05; done
    [[ $(cat "$f/freezer.state" 2>/dev/null) == "$want" ]] || bad+=" $h"
  done
  [[ -z $bad ]] && return 0
  [[ $want == FROZEN ]] && freeze_nodes THAWED "$@" || true
  die "could not make these nodes $want:$bad"
}

snapshot_save() {
  local name=${1:?snapshot save NAME} dir h running=() t0=$SECONDS f
  dir=$(snapshot_dir "$name")
  for h in $(all_hosts); do node_running "$h" && running+=("$h"); done
  ((${#running[@]})) || die "the lab is down: nothing to save"
  rm -rf "$dir.tmp"; mkdir -p "$dir.tmp/hosts" "$dir.tmp/state"
  freeze_nodes FROZEN "${running[@]}"
  local rc=0
  copy_disks "$NODES" "$dir.tmp/hosts" || rc=$?
  for f in $SNAPSHOT_STATE_FILES; do [[ -e "$STATE/$f" ]] && { cp -a "$STATE/$f" "$dir.tmp/state/" || rc=1; }; done
  # Thawed whatever happened: a lab left frozen would look like a dead datacenter.
  freeze_nodes THAWED "${running[@]}"
  ((rc == 0)) || { rm -rf "$dir.tmp"; die "snapshot $name: copying the nodes' disks failed"; }
  { echo "saved=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "minor=$(sed -n 's/^  kubernetesVersion: "\([0-9]*\.[0-9]*\).*"$/\1/p' "$STATE/inventory.yaml")"
    echo "running=${running[*]}"; } >"$dir.tmp/meta"
  rm -rf "$dir"; mv "$dir.tmp" "$dir"
  log "snapshot $name saved in $((SECONDS - t0)) s (nodes frozen meanwhile): $(du -sh "$dir" | cut -f1) on disk, hard links counted once"
}

snapshot_restore() {
  local name=${1:?snapshot restore NAME} dir h minor running t0=$SECONDS
  dir=$(snapshot_dir "$name")
  [[ -f "$dir/meta" ]] || die "no snapshot '$name' (saved: $(snapshot_list | tr '\n' ' '))"
  minor=$(sed -n 's/^minor=//p' "$dir/meta"); running=$(sed -n 's/^running=//p' "$dir/meta")
  parallel_hosts node_kill
  for h in $(all_hosts); do node_wipe "$h"; done
  copy_disks "$dir/hosts" "$NODES" || die "snapshot $name: copying the saved disks back failed"
  cmd_up --kubernetes-version "$minor"   # the network, the sources, every node (a saved disk keeps its identity)
  # up writes the inventory and SSH files afresh: the saved ones (with the workspace state) go back over them.
  rm -rf "$STATE/.kubeadm-workbench"
  cp -a "$dir/state/." "$STATE/"
  for h in $(all_hosts); do   # a node that was off when saved is off again
    [[ " $running " == *" $h "* ]] || node_kill "$h"
  done
  log "snapshot $name restored in $((SECONDS - t0)) s (Kubernetes $minor); its cluster is booting"
}

snapshot_list() {
  local d
  for d in "$SNAPSHOTS"/*/; do [[ -f "$d/meta" ]] && echo "$(basename "$d") $(tr '\n' ' ' <"$d/meta")"; done
  return 0
}

snapshot_drop() {
  local name=${1:?snapshot drop NAME|--all}
  if [[ $name == --all ]]; then rm -rf "$SNAPSHOTS"; else rm -rf "$(snapshot_dir "$name")"; fi
}
