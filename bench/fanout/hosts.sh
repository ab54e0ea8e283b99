#!/usr/bin/env bash
# Light hosts for the fan-out bench (root only): N network namespaces `kwfan<i>` on the bridge `kwfan0`
# (10.77.0.0/16, a test subnet nothing else here uses), each with its own sshd, its own ed25519 host key and a
# private tmpfs at /run/kwfan-upload (the namespaces share one file system; uploads must not collide) and a private
# /root with Debian's stock dotfiles (not this machine's).
# No Kubernetes. The sshd keeps Debian's default MaxStartups (10:30:100).
#
#   hosts.sh up N DIR     create the hosts; writes DIR/hosts (one address a line), DIR/known_hosts, DIR/client key
#   hosts.sh down DIR     stop every process in the namespaces and remove namespaces, bridge and upload dir
set -euo pipefail

[ "$(id -u)" = 0 ] || { echo "hosts.sh: needs root (network namespaces)" >&2; exit 2; }
BRIDGE=kwfan0
UPLOAD=/run/kwfan-upload
# The kernel's ARP table: past gc_thresh2 entries (512 by default) it drops new neighbours ("neighbor table
# overflow"), so a few hundred hosts on one bridge time out. Raised for the bench's life, the old values kept here.
NEIGH_SAVED=/run/kwfan-neigh.saved
NEIGH=net.ipv4.neigh.default

addr() { # host number (1-based) -> 10.77.x.y, skipping .0, .1 (the bridge) and .255
  local i=$(( $1 - 1 ))
  echo "10.77.$(( i / 250 )).$(( i % 250 + 2 ))"
}

our_namespaces() {
  ip netns list | awk '{print $1}' | grep -E '^kwfan[0-9]+$' || true
}

down() {
  local dir=${1:-}
  local ns
  for ns in $(our_namespaces); do
    # Every process in our namespaces (the sshd listeners and any session left over), nothing else.
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
  done
  our_namespaces | sed 's/^/netns del /' | ip -force -batch - 2>/dev/null || true
  ip link del "$BRIDGE" 2>/dev/null || true
  rmdir "$UPLOAD" 2>/dev/null || true
  if [ -f "$NEIGH_SAVED" ]; then
    read -r t2 t3 < "$NEIGH_SAVED" && sysctl -qw "$NEIGH.gc_thresh3=$t3" "$NEIGH.gc_thresh2=$t2" || true
    rm -f "$NEIGH_SAVED"
  fi
  if [ -n "$dir" ] && [ -d "$dir" ]; then rm -rf "$dir/hosts.d"; fi
}

up() {
  local n=$1 dir=$2
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 1000 ] || { echo "hosts.sh: N must be 1..1000" >&2; exit 2; }
  down "$dir"
  mkdir -p "$dir/hosts.d" "$UPLOAD"
  chmod 700 "$dir"
  ssh-keygen -q -t ed25519 -N '' -C kwfan-client -f "$dir/client" <<<y >/dev/null
  cp "$dir/client.pub" "$dir/authorized_keys"
  cat > "$dir/sshd_config" <<CFG
Port 22
AuthorizedKeysFile $dir/authorized_keys
StrictModes no
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
AllowTcpForwarding no
X11Forwarding no
PrintMotd no
UseDNS no
MaxSessions 10
MaxStartups 10:30:100
LogLevel ERROR
Subsystem sftp /usr/lib/openssh/sftp-server
CFG
  mkdir -p /run/sshd
  local t2 t3 want=$(( 2 * n + 1024 ))
  t2=$(sysctl -n "$NEIGH.gc_thresh2"); t3=$(sysctl -n "$NEIGH.gc_thresh3")
  if [ "$t2" -lt "$want" ]; then
    echo "$t2 $t3" > "$NEIGH_SAVED"
    sysctl -qw "$NEIGH.gc_thresh3=$(( t3 > 2 * want ? t3 : 2 * want ))" "$NEIGH.gc_thresh2=$want"
  fi
  ip link add "$BRIDGE" type bridge
  ip addr add 10.77.0.1/16 dev "$BRIDGE"
  ip link set "$BRIDGE" up
  : > "$dir/hosts"
  : > "$dir/known_hosts"
  local i batch="$dir/hosts.d/links.batch"
  : > "$batch"
  for i in $(seq 1 "$n"); do
    echo "netns add kwfan$i" >> "$batch"
  done
  for i in $(seq 1 "$n"); do
    echo "link add kwfh$i type veth peer name eth0 netns kwfan$i" >> "$batch"
    echo "link set kwfh$i master $BRIDGE up" >> "$batch"
  done
  ip -batch "$batch"
  for i in $(seq 1 "$n"); do
    local a h="$dir/hosts.d/$i"
    a=$(addr "$i")
    mkdir -p "$h"
    printf 'addr add %s/16 dev eth0\nlink set eth0 up\nlink set lo up\n' "$a" | ip -n "kwfan$i" -batch -
    ssh-keygen -q -t ed25519 -N '' -C "kwfan$i" -f "$h/host_ed25519" <<<y >/dev/null
    echo "$a $(cut -d' ' -f1,2 "$h/host_ed25519.pub")" >> "$dir/known_hosts"
    echo "$a" >> "$dir/hosts"
    # Root's home as on a stock Debian host (base-files' dot.bashrc and dot.profile on a private tmpfs): the
    # namespaces share this machine's file system, and its root's .bashrc (pyenv init…) ran in every SSH session —
    # 0.2-0.5 s of CPU each, more than the sessions' own work, paid by every tool.
    ip netns exec "kwfan$i" sh -c 'mount -t tmpfs -o size=8m,mode=0755 kwfan-upload "$1" && mount -t tmpfs -o size=32m,mode=0700 kwfan-root /root && cp /usr/share/base-files/dot.bashrc /root/.bashrc && cp /usr/share/base-files/dot.profile /root/.profile && exec /usr/sbin/sshd -f "$2" -o "ListenAddress=$3" -o "HostKey=$4" -o "PidFile=$5"' \
      sh "$UPLOAD" "$dir/sshd_config" "$a" "$h/host_ed25519" "$h/sshd.pid"
  done
  # Ready when every sshd has written its pid file (it does after binding).
  for _ in $(seq 1 200); do
    local missing=0
    for i in $(seq 1 "$n"); do [ -s "$dir/hosts.d/$i/sshd.pid" ] || missing=$((missing + 1)); done
    [ "$missing" = 0 ] && return 0
    sleep 0.1
  done
  echo "hosts.sh: $missing sshd did not start" >&2
  exit 1
}

case "${1:-}" in
  up) up "${2:?N}" "${3:?DIR}" ;;
  down) down "${2:-}" ;;
  *) echo "usage: hosts.sh up N DIR | down [DIR]" >&2; exit 2 ;;
esac
