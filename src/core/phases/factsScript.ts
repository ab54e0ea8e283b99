/**
 * The fact-gathering script: read-only, POSIX sh, no data from the inventory in it (it is a
 * constant), so it can run on any host as-is. Each fact is printed as `@@name` followed by its raw
 * value lines; parsing happens on our side where it can be tested.
 * Machines without DMI (containers, the project's lab nodes) have no product_uuid in sysfs; the lab
 * keeps the equivalent in /etc/kw-lab/product_uuid, read as a fallback.
 * Held packages come from dpkg's selections (what `apt-mark showhold` reports), read with dpkg-query: apt-mark
 * loads apt's whole package cache first, about half a second of CPU — most of the script's cost, paid on every
 * host of a fan-out.
 * No `kubectl version`: nothing checks or shows kubectl's version on a node (kubeadm and kubelet are what must match
 * the cluster), and that Go binary's start was 40 % of the script's CPU.
 */
export const FACTS_SCRIPT = String.raw`
export LC_ALL=C PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
f() { echo "@@$1"; shift; "$@" 2>/dev/null; true; }
# Every unit's state from one systemctl (one line per unit, in order): a systemctl costs ~6 ms of CPU, nine of
# them a third of the script, paid on every host of a fan-out.
set -- $(systemctl is-active containerd kubelet haproxy keepalived systemd-timesyncd chrony chronyd ntp ntpsec 2>/dev/null)
st_containerd=$1 st_kubelet=$2 st_haproxy=$3 st_keepalived=$4
st_time="systemd-timesyncd=$5
chrony=$6
chronyd=$7
ntp=$8
ntpsec=$9"
f os cat /etc/os-release
f kernel uname -r
f hostname hostname
f machine-id cat /etc/machine-id
f product-uuid sh -c 'cat /sys/class/dmi/id/product_uuid || cat /etc/kw-lab/product_uuid'
f host-keys sh -c 'cat /etc/ssh/ssh_host_*_key.pub'
f swaps cat /proc/swaps
f fstab-swap sh -c "grep -E '^[^#].*[[:space:]]swap[[:space:]]' /etc/fstab"
f modules cat /proc/modules
f sys-modules sh -c 'for m in overlay br_netfilter; do [ -d /sys/module/$m ] && echo $m; done'
f filesystems cat /proc/filesystems
f bridge-nf sh -c '[ -d /proc/sys/net/bridge ] && echo present'
f sysctl sh -c 'for k in net.bridge.bridge-nf-call-iptables net.bridge.bridge-nf-call-ip6tables net.ipv4.ip_forward net.ipv4.ip_nonlocal_bind; do printf "%s=%s\n" $k "$(sysctl -n $k 2>/dev/null)"; done'
f ntp sh -c 'timedatectl show -p NTPSynchronized --value || true'
f time-services echo "$st_time"
f cgroup stat -fc %T /sys/fs/cgroup
f containerd containerd --version
f containerd-state echo "$st_containerd"
f containerd-systemd-cgroup sh -c "grep -E '^[[:space:]]*SystemdCgroup[[:space:]]*=' /etc/containerd/config.toml"
f kubelet kubelet --version
f kubelet-state echo "$st_kubelet"
f kubelet-cgroup-driver sh -c "grep -E '^cgroupDriver:' /var/lib/kubelet/config.yaml"
f kubeadm kubeadm version -o short
f held sh -c 'dpkg-query -W -f "\${db:Status-Want} \${Package}\n" | while read -r w p; do [ "$w" = hold ] && echo "$p"; done'
f addresses ip -o -4 addr show
f joined sh -c '[ -f /etc/kubernetes/kubelet.conf ] && echo kubelet.conf; [ -f /etc/kubernetes/admin.conf ] && echo admin.conf; [ -f /etc/kubernetes/manifests/etcd.yaml ] && echo etcd'
f haproxy sh -c 'haproxy -v | head -1; echo "$1"' sh "$st_haproxy"
f keepalived sh -c 'keepalived --version 2>&1 | head -1; echo "$1"' sh "$st_keepalived"
echo "@@end"
`;
