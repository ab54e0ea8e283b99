# Shared settings of the lab (sourced by lab/lab.sh and the scripts it runs).
# shellcheck shell=bash
LAB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=../versions.env
source "$LAB_DIR/versions.env"

CACHE="${KW_LAB_CACHE:-/var/cache/kubeadm-workbench/lab}"
STATE="$CACHE/state"          # lab SSH key, apt signing key, generated configs: kept across up/down
NODES="$CACHE/nodes"          # node disks (overlay upper dirs, /var/lib/containerd): removed on down
RUN="${KW_LAB_RUN:-/run/kubeadm-workbench-lab}"   # pids and mounts of the running lab

NETNS=kwlab                   # the lab's network namespace (holds the bridge and the source servers)
BRIDGE=kwbr0
GW_IP=10.3.60.1               # bridge address inside the netns: apt repo and registry listen here
HOST_IP=10.3.60.254           # the root namespace's own address on the lab subnet (veth kwlab0)
HOST_VETH=kwlab0
SUBNET=10.3.60.0/24
VIP=10.3.60.100
APT_PORT=8080
REGISTRY="$GW_IP:5000"
APT_URL="http://$GW_IP:$APT_PORT"

# name  address  role  short (used in interface names, at most 4 chars)
# labs-k8s-m04 is a spare: a bare Debian node, control-plane capable, that neither the reference cluster nor the
# lab's inventory uses (the nodes tests replace a dead control-plane node with it).
LAB_HOSTS="
labs-k8s-balancer  10.3.60.50 loadbalancer  lb1
labs-k8s-balancer2 10.3.60.56 loadbalancer  lb2
labs-k8s-m01       10.3.60.51 control-plane m01
labs-k8s-m02       10.3.60.52 control-plane m02
labs-k8s-m03       10.3.60.53 control-plane m03
labs-k8s-w01       10.3.60.54 worker        w01
labs-k8s-w02       10.3.60.55 worker        w02
labs-k8s-m04       10.3.60.57 spare         m04
"
all_hosts() { awk 'NF {print $1}' <<<"$LAB_HOSTS"; }
host_field() { awk -v h="$1" -v f="$2" '$1 == h {print $f}' <<<"$LAB_HOSTS"; }
host_ip() { host_field "$1" 2; }
host_role() { host_field "$1" 3; }
host_short() { host_field "$1" 4; }
hosts_with_role() { awk -v r="$1" '$3 == r {print $1}' <<<"$LAB_HOSTS"; }
# Accepts a full name, a short one (m01, lb1) or an address.
resolve_host() {
  local h
  h=$(awk -v q="$1" '$1 == q || $2 == q || $4 == q || $1 == "labs-k8s-" q {print $1}' <<<"$LAB_HOSTS")
  [[ -n "$h" ]] || die "unknown lab host: $1 (one of: $(all_hosts | tr '\n' ' '))"
  echo "$h"
}

# The build key of the lab's own flannel CNI plugin: its source's hash, so an edit rebuilds it.
flannel_cni_build() {
  echo "kwlab-$(cat "$LAB_DIR/images/flannel-cni/"* | sha256sum | cut -c1-12)"
}

# The lab's own client tools (kubectl, etcdctl): the current minor's, which talk to both minors' clusters.
KUBE_BIN="$CACHE/bin/kube-$KUBE_VERSION"
ETCD_BIN="$CACHE/bin/etcd-$ETCD_VERSION"

# Two Kubernetes minors: the current one (KUBE_VERSION & co.) and the previous one (PREVIOUS_*, built on request).
minor_of() { local v=${1#v}; echo "${v%.*}"; }
kube_staging_version() { echo "v0.${1#v1.}"; }   # k8s.io/kubernetes v1.X.Y publishes its staging modules as v0.X.Y
CURRENT_MINOR=$(minor_of "$KUBE_VERSION")
PREVIOUS_MINOR=$(minor_of "$PREVIOUS_KUBE_VERSION")
CURRENT_KUBE_VERSION=$KUBE_VERSION CURRENT_ETCD_VERSION=$ETCD_VERSION CURRENT_COREDNS_VERSION=$COREDNS_VERSION
CURRENT_PAUSE_VERSION=$PAUSE_VERSION
# use_kube_minor X.Y: points KUBE_VERSION, ETCD_VERSION, COREDNS_VERSION and PAUSE_VERSION at what that minor's
# kubeadm installs and pulls by default (KUBE_BIN and ETCD_BIN stay the current minor's client tools).
use_kube_minor() {
  case ${1#v} in
    "$CURRENT_MINOR")
      KUBE_VERSION=$CURRENT_KUBE_VERSION
      ETCD_VERSION=$CURRENT_ETCD_VERSION COREDNS_VERSION=$CURRENT_COREDNS_VERSION PAUSE_VERSION=$CURRENT_PAUSE_VERSION ;;
    "$PREVIOUS_MINOR")
      KUBE_VERSION=$PREVIOUS_KUBE_VERSION
      ETCD_VERSION=$PREVIOUS_ETCD_VERSION COREDNS_VERSION=$PREVIOUS_COREDNS_VERSION PAUSE_VERSION=$PREVIOUS_PAUSE_VERSION ;;
    *) die "the lab serves Kubernetes $PREVIOUS_MINOR and $CURRENT_MINOR, not '$1'" ;;
  esac
}
# minor_built X.Y: that minor's kube, etcd, coredns and pause are all built (the previous one is opt-in).
minor_built() {
  ( use_kube_minor "$1"
    local c; for c in "kube-$KUBE_VERSION" "etcd-$ETCD_VERSION" "coredns-$COREDNS_VERSION" "pause-$PAUSE_VERSION"; do
      [[ -f "$CACHE/bin/$c/.done" ]] || exit 1
    done )
}

log() { printf '[lab %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { printf 'lab: %s\n' "$*" >&2; exit 1; }
in_netns() { nsenter --net="/run/netns/$NETNS" "$@"; }

require_root() {
  [[ "$(uname -s)" == Linux ]] || die "the lab runs only on Linux (it builds machines from network namespaces and systemd-nspawn)"
  [[ $EUID -eq 0 ]] || die "the lab needs root (network namespaces, mounts, systemd-nspawn); run it as root, e.g. sudo npm run lab -- $*"
  local t pkg missing=()
  for t in systemd-nspawn:systemd-container debootstrap:debootstrap apt-ftparchive:apt-utils ssh:openssh-client \
           ssh-keygen:openssh-client gpg:gnupg curl:curl nsenter:util-linux python3:python3; do
    command -v "${t%%:*}" >/dev/null || missing+=("${t#*:}")
  done
  ((${#missing[@]} == 0)) || die "missing tools; install them with: apt-get install -y ${missing[*]}"
}

# ssh to a lab host with the lab's own key and known_hosts (never trust-on-first-use).
lab_ssh() { ssh -F "$STATE/ssh_config" "$@"; }
lab_scp() { scp -F "$STATE/ssh_config" "$@"; }

# Runs FN HOST for every lab host at once; waits for exactly those jobs (the source servers are children too)
# and fails if any failed.
parallel_hosts() {
  local fn=$1 h pids=() rc=0 p
  for h in $(all_hosts); do "$fn" "$h" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  return $rc
}
