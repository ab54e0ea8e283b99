#!/usr/bin/env bash
# Builds the lab's base Debian 12 root filesystem once (debootstrap) into the cache; prints its path.
# Every node is an overlay of it, so it holds only what a freshly installed Debian server would have
# (plus psmisc/curl/gnupg that the seed's procedure uses); containerd, kubeadm, HAProxy ... come from the lab's
# apt repository later, exactly as on real machines.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${KW_LAB_CACHE:-/var/cache/kubeadm-workbench/lab}"
MIRROR="${KW_LAB_DEBIAN_MIRROR:-$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
INCLUDE=systemd,systemd-sysv,dbus,openssh-server,iproute2,kmod,iptables,nftables,procps,psmisc,iputils-ping,curl,ca-certificates,gnupg,less,netbase,sudo,apt-transport-https
# Bump RECIPE when the steps below change: the cache key is the recipe version and the package list.
RECIPE=2
KEY=$(echo "$RECIPE $INCLUDE" | sha256sum | cut -c1-12)
OUT="$CACHE/rootfs/bookworm-$KEY"
if [[ -f "$OUT/.done" ]]; then echo "$OUT"; exit 0; fi
command -v debootstrap >/dev/null || { echo "debootstrap missing: apt-get install debootstrap" >&2; exit 1; }
t0=$SECONDS
rm -rf "$OUT.tmp"; mkdir -p "$CACHE/rootfs" "$CACHE/debootstrap-debs"
# --cache-dir keeps the downloaded .debs so a rebuild after a recipe change does not download again.
debootstrap --variant=minbase --include="$INCLUDE" --cache-dir="$CACHE/debootstrap-debs" bookworm "$OUT.tmp" "$MIRROR" >&2
R="$OUT.tmp"
# Per-node identity is written at node creation; the base must not carry any.
rm -f "$R"/etc/ssh/ssh_host_* ; : >"$R/etc/machine-id"; rm -f "$R/var/lib/dbus/machine-id"
# No console, no udev, no timers eating the shared CPU.
for u in console-getty.service getty@tty1.service systemd-udevd.service systemd-udev-trigger.service \
         apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer systemd-timesyncd.service; do
  ln -sf /dev/null "$R/etc/systemd/system/$u"
done
chroot "$R" systemctl enable systemd-networkd.service ssh.service >/dev/null 2>&1
# Air-gapped: the only apt source is the lab's Debian mirror on the lab bridge (set up at `lab up`).
rm -f "$R/etc/apt/sources.list"; rm -rf "$R"/var/lib/apt/lists/* "$R"/var/cache/apt/archives/*.deb
echo "nameserver 10.3.60.1" >"$R/etc/resolv.conf"   # no DNS server answers there: queries fail fast, nothing leaves
touch "$R/.done"; mv "$R" "$OUT"; touch "$OUT/.done"
# older bases (from an earlier recipe) are dead weight once no node uses them
for old in "$CACHE"/rootfs/bookworm-*; do
  [[ "$old" == "$OUT" ]] || grep -q "lowerdir=$old[,:]" /proc/mounts || rm -rf "$old"
done
echo "base rootfs built in $((SECONDS - t0)) s, $(du -sh "$OUT" | cut -f1)" >&2
echo "$OUT"
