# Runs on a lab node (fed to bash over SSH by `lab fault swap-on`).
# The VM has no swap and enabling real swap would change the whole machine, so the node gets a swap file, an
# fstab line like a fresh Debian install, and a node-local /proc/swaps that lists it — what kubelet and
# kubeadm's preflight read. A swapoff wrapper undoes the view, so the seed's `swapoff -a` + fstab edit work.
set -e
[ -f /swap.img ] || { dd if=/dev/zero of=/swap.img bs=1M count=64 status=none; chmod 600 /swap.img; mkswap /swap.img >/dev/null; }
grep -q '^/swap.img' /etc/fstab || echo '/swap.img none swap sw 0 0' >>/etc/fstab
printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/swap.img                               file\t\t65532\t\t0\t\t-2\n' >/run/kw-lab-swaps
mountpoint -q /proc/swaps || mount --bind /run/kw-lab-swaps /proc/swaps
cat >/usr/local/sbin/swapoff <<'WRAP'
#!/bin/sh
# lab: the node's swap is a node-local view (see lab fault swap-on); turning it off removes the view.
if mountpoint -q /proc/swaps; then umount /proc/swaps; fi
exec /sbin/swapoff "$@" 2>/dev/null || exit 0
WRAP
chmod 755 /usr/local/sbin/swapoff
