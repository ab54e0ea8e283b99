# Node lifecycle: each lab host is a Debian 12 machine booting its own systemd under systemd-nspawn, on an
# overlay of the cached base rootfs (resetting a node = dropping its upper dir).
# shellcheck shell=bash

node_dir() { echo "$NODES/$1"; }
node_pidfile() { echo "$RUN/$1.nspawn.pid"; }

# The nspawn launcher's pid if it is alive and really ours (pid files can outlive a crash/reboot).
node_nspawn_pid() {
  local f p; f=$(node_pidfile "$1")
  [[ -f "$f" ]] || return 1
  p=$(cat "$f")
  [[ -r "/proc/$p/cmdline" ]] && tr '\0' ' ' <"/proc/$p/cmdline" | grep -q "systemd-nspawn.* -M $1 " || return 1
  echo "$p"
}
# The node's PID 1 (its systemd), as seen from the host.
node_pid1() {
  local p; p=$(node_nspawn_pid "$1") || return 1
  pgrep -P "$p" | head -1
}
node_running() { node_pid1 "$1" >/dev/null 2>&1; }
# Run a command inside the node without SSH (all its namespaces), for the lab's own plumbing.
node_exec() { local p; p=$(node_pid1 "$1") || die "$1 is not running"; shift; nsenter -t "$p" -a "$@"; }

# Mounts the node's disk and, the first time, gives it its identity: hostname, machine-id, product_uuid, SSH
# host keys, the lab's SSH key, its address on ens192 and the lab's Debian mirror as apt source.
node_prepare() {
  local h=$1 d ip base
  d=$(node_dir "$h"); ip=$(host_ip "$h"); base=$(cat "$STATE/base-rootfs")
  mkdir -p "$d/upper" "$d/work" "$d/root" "$d/containerd"
  mountpoint -q "$d/root" ||
    mount -t overlay overlay -o "lowerdir=$base,upperdir=$d/upper,workdir=$d/work" "$d/root"
  local r="$d/root"
  install -m 0755 "$LAB_DIR/base/node-init" "$r/usr/local/sbin/kw-node-init"
  [[ -f "$d/upper/.kw-identity" ]] && return 0
  echo "$h" >"$r/etc/hostname"
  printf '127.0.0.1\tlocalhost\n%s\t%s\n' "$ip" "$h" >"$r/etc/hosts"
  tr -d '-' </proc/sys/kernel/random/uuid >"$r/etc/machine-id"
  # No DMI on this VM (/sys/class/dmi/id does not exist, and sysfs cannot be written): the node's
  # product_uuid lives in a file the lab owns, so that clone-identity can duplicate it too.
  mkdir -p "$r/etc/kw-lab"; tr 'a-f' 'A-F' </proc/sys/kernel/random/uuid >"$r/etc/kw-lab/product_uuid"
  rm -f "$r"/etc/ssh/ssh_host_*
  ssh-keygen -q -t ed25519 -N '' -C "root@$h" -f "$r/etc/ssh/ssh_host_ed25519_key"
  ssh-keygen -q -t ecdsa -N '' -C "root@$h" -f "$r/etc/ssh/ssh_host_ecdsa_key"
  install -d -m 0700 "$r/root/.ssh"
  install -m 0600 "$STATE/id_ed25519.pub" "$r/root/.ssh/authorized_keys"
  mkdir -p "$r/etc/systemd/network"
  cat >"$r/etc/systemd/network/10-ens192.network" <<NET
[Match]
Name=ens192

[Network]
Address=$ip/24
Gateway=$GW_IP
LinkLocalAddressing=no
IPv6AcceptRA=no
# keepalived adds and removes the VIP; networkd must leave foreign addresses alone
KeepConfiguration=static
NET
  # Air-gapped: Debian's packages come from the lab's mirror, signed with the lab's key.
  install -m 0644 "$STATE/apt-key.gpg" "$r/usr/share/keyrings/kwlab-debian-archive-keyring.gpg"
  cat >"$r/etc/apt/sources.list.d/debian.sources" <<SRC
Types: deb
URIs: $APT_URL/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/kwlab-debian-archive-keyring.gpg
SRC
  touch "$d/upper/.kw-identity"
}

# (--network-interface would need udev's device database, which a host without systemd lacks; nspawn's
# --network-veth-extra creates the pair itself and names the node's end ens192 like the seed's VMs.)

# Each node gets its own child cgroup in every v1 hierarchy (there is no systemd on the host to give it one),
# so nodes do not share cgroup namespace roots.
node_cgroups() {
  local h=$1 dirs=() id ctrl path m d
  while IFS=: read -r id ctrl path; do
    case "$ctrl" in
      "") m=/sys/fs/cgroup/unified ;;
      name=systemd) m=/sys/fs/cgroup/systemd ;;
      *) m=/sys/fs/cgroup/$ctrl ;;
    esac
    [[ -d "$m" ]] || continue
    d="$m${path%/}/kwlab/$h"
    mkdir -p "$d"
    if [[ "$ctrl" == cpuset ]]; then
      cat "$(dirname "$(dirname "$d")")/cpuset.cpus" >"$(dirname "$d")/cpuset.cpus"
      cat "$(dirname "$(dirname "$d")")/cpuset.mems" >"$(dirname "$d")/cpuset.mems"
      cat "$(dirname "$d")/cpuset.cpus" >"$d/cpuset.cpus"; cat "$(dirname "$d")/cpuset.mems" >"$d/cpuset.mems"
    fi
    dirs+=("$d")
  done </proc/self/cgroup
  echo "${dirs[*]}" >"$RUN/$h.cgdirs"
}

node_cgroups_remove() {
  local d
  for d in $(cat "$RUN/$1.cgdirs" 2>/dev/null); do
    if [[ -d "$d" ]]; then find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null || true; fi
    rmdir "$(dirname "$d")" 2>/dev/null || true   # the lab's parent "kwlab" cgroup, once its last node is gone
  done
  rm -f "$RUN/$1.cgdirs"
}

node_start() {
  local h=$1 d s
  node_running "$h" && return 0
  d=$(node_dir "$h"); s=$(host_short "$h")
  node_prepare "$h"
  ip -n "$NETNS" link del "kw-$s" 2>/dev/null || true
  node_cgroups "$h"
  mountpoint -q /run/systemd/nspawn || { mkdir -p /run/systemd/nspawn; mount -t tmpfs tmpfs /run/systemd/nspawn; }
  # --capability=all: kubelet, containerd and keepalived need the capabilities a VM's root has;
  # @keyring: runc creates session keyrings. /var/lib/containerd must be on ext4 (overlay on overlay is refused).
  setsid bash -c '
    for c in $(cat "$1"); do echo $$ >"$c/cgroup.procs"; done
    shift; exec "$@"' _ "$RUN/$h.cgdirs" \
    nsenter --net="/run/netns/$NETNS" systemd-nspawn --register=no --keep-unit --kill-signal=SIGRTMIN+3 \
      -D "$d/root" -M "$h" --console=read-only --capability=all --system-call-filter=@keyring \
      --network-veth-extra="kw-$s:ens192" \
      --bind="$d/containerd:/var/lib/containerd" --bind=/dev/kmsg \
      /usr/local/sbin/kw-node-init </dev/null >"$RUN/$h.console.log" 2>&1 &
  echo $! >"$(node_pidfile "$h")"
  net_plug_node "$h"
}

# Hard power-off: kill the node's systemd (its PID 1): the kernel kills everything in the node at once.
node_kill() {
  local h=$1 p n i
  n=$(node_nspawn_pid "$h") || { node_cgroups_remove "$h"; return 0; }
  p=$(pgrep -P "$n" | head -1)
  [[ -n "$p" ]] && kill -KILL "$p" 2>/dev/null
  for i in $(seq 1 100); do kill -0 "$n" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$n" 2>/dev/null && kill -KILL "$n" 2>/dev/null
  rm -f "$(node_pidfile "$h")"
  # cgroups empty out a moment after the processes are gone
  for i in $(seq 1 20); do node_cgroups_remove "$h"; [[ -f "$RUN/$h.cgdirs" ]] || break; sleep 0.2; done
  ip -n "$NETNS" link del "kw-$(host_short "$h")" 2>/dev/null || true
}

node_unmount() {
  local d; d=$(node_dir "$1")
  # whatever the node mounted below its root (containerd snapshots are in its own mount namespace, gone with it)
  if mountpoint -q "$d/root"; then umount "$d/root" 2>/dev/null || umount -l "$d/root"; fi
}

node_wipe() { node_unmount "$1"; rm -rf "$(node_dir "$1")"; }

node_wait_ssh() {
  local h=$1 i
  for i in $(seq 1 300); do
    lab_ssh -o ConnectTimeout=2 -o BatchMode=yes "$h" true 2>/dev/null && return 0
    node_running "$h" || die "$h died while booting, see $RUN/$h.console.log"
    sleep 0.2
  done
  die "$h: no SSH after 60 s, see $RUN/$h.console.log"
}
