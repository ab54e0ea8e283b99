#!/usr/bin/env bash
# The reference procedure: builds the seed's HA cluster on the lab's bare Debian 12 nodes, step by step, the
# way an administrator would (over SSH, packages from the apt repositories, images from the registry):
#   1. every host: /etc/hosts with the cluster's names
#   2. balancers: ip_nonlocal_bind, HAProxy (mode tcp on the VIP, tcp-check, fall 3 rise 2) and Keepalived
#      (VRRP router 51, MASTER 100 on labs-k8s-balancer, BACKUP 90 on labs-k8s-balancer2, chk_haproxy weight -20)
#   3. Kubernetes nodes: overlay/br_netfilter, sysctls, swap off, containerd (systemd cgroups, registry mirrors),
#      kubelet/kubeadm/kubectl from the Kubernetes repository, held
#   4. labs-k8s-m01: kubeadm init --config kubeadm-config.yaml --upload-certs; flannel
#   5. m02, m03: kubeadm join --control-plane; w01, w02: kubeadm join
# Lab-only deviations, each forced by the machine the lab runs on (see lab/README.md):
#   --ignore-preflight-errors=SystemVerification (cgroup v1, no kernel config), containerd
#   restrict_oom_score_adj = true (no CAP_SYS_RESOURCE), modprobe tolerated when the module is built in.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$LAB_DIR/lib/state.sh"
# The minor to install (lab.sh up --kubernetes-version): its repository, kubeadm's kubernetesVersion, its pause tag.
use_kube_minor "${KW_LAB_KUBE_MINOR:-$CURRENT_MINOR}"
MINOR=$(kube_minor)
LOGDIR="$RUN/cluster"; mkdir -p "$LOGDIR"
t0=$SECONDS
step() { log "cluster: $* (+$((SECONDS - t0)) s)"; }

# on HOST SCRIPT: runs a bash script on HOST as root, its output in $LOGDIR/HOST.log
on() {
  local h=$1; shift
  printf '### %(%T)T %s\n' -1 "$(head -c 120 <<<"$*" | tr '\n' ' ')" >>"$LOGDIR/$h.log"
  if ! lab_ssh "$h" "bash -euo pipefail -s" >>"$LOGDIR/$h.log" 2>&1 <<<"$*"; then
    log "cluster: step failed on $h, last lines of $LOGDIR/$h.log:"; tail -n 25 "$LOGDIR/$h.log" >&2; return 1
  fi
}
on_all() { # HOSTS... -- SCRIPT   (in parallel)
  local hosts=() pids=() h rc=0 p
  while [[ $1 != -- ]]; do hosts+=("$1"); shift; done; shift
  for h in "${hosts[@]}"; do on "$h" "$@" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  return $rc
}

BALANCERS=$(hosts_with_role loadbalancer)
MASTERS=$(hosts_with_role control-plane)
WORKERS=$(hosts_with_role worker)
K8S_NODES="$MASTERS $WORKERS"
# shellcheck disable=SC2086
ALL="$BALANCERS $K8S_NODES"

hosts_file=$(printf "%s\t%s\n" "$VIP" labs-k8s-vip; while read -r n ip _; do if [[ -n $n ]]; then printf "%s\t%s\n" "$ip" "$n"; fi; done <<<"$LAB_HOSTS")

step "1/5 /etc/hosts on every host"
# shellcheck disable=SC2086
on_all $ALL -- "grep -q labs-k8s-vip /etc/hosts || cat >>/etc/hosts <<'H'
$hosts_file
H"

step "2/5 balancers: HAProxy + Keepalived (in the background while the nodes install)"
bal_pids=()
backend_servers=$(for m in $MASTERS; do echo "    server $m $(host_ip "$m"):6443 check fall 3 rise 2"; done)
for b in $BALANCERS; do
  if [[ $b == labs-k8s-balancer ]]; then state=MASTER prio=100; else state=BACKUP prio=90; fi
  on "$b" "
cat >/etc/sysctl.d/99-loadbalancer.conf <<'S'
# HAProxy binds the VIP even before Keepalived has put it on the interface (boot order, BACKUP balancers).
net.ipv4.ip_nonlocal_bind = 1
S
sysctl -q -p /etc/sysctl.d/99-loadbalancer.conf
export DEBIAN_FRONTEND=noninteractive
apt-get -qq update
apt-get -qq install -y --no-install-recommends haproxy keepalived psmisc socat
cat >/etc/haproxy/haproxy.cfg <<'CFG'
global
    log /dev/log local0
    stats socket /run/haproxy/admin.sock mode 660 level admin
    user haproxy
    group haproxy
    daemon

defaults
    log     global
    mode    tcp
    option  tcplog
    option  dontlognull
    timeout connect 5s
    timeout client  1h
    timeout server  1h

frontend kubernetes-api
    bind $VIP:6443
    mode tcp
    option tcplog
    default_backend kubernetes-master-nodes

backend kubernetes-master-nodes
    mode tcp
    balance roundrobin
    option tcp-check
$backend_servers
CFG
haproxy -c -f /etc/haproxy/haproxy.cfg
cat >/etc/keepalived/keepalived.conf <<'CFG'
global_defs {
    router_id $b
    enable_script_security
    script_user root
}

vrrp_script chk_haproxy {
    script \"/usr/bin/killall -0 haproxy\"
    interval 2
    weight -20
}

vrrp_instance VI_K8S_API {
    state $state
    interface ens192
    virtual_router_id 51
    priority $prio
    advert_int 1
    authentication {
        auth_type PASS
        auth_pass k8s-vip
    }
    virtual_ipaddress {
        $VIP/24
    }
    track_script {
        chk_haproxy
    }
}
CFG
systemctl enable -q haproxy keepalived
systemctl restart haproxy keepalived
" & bal_pids+=($!)
done

if [[ ${KW_LAB_CLUSTER_ONLY:-} == balancers ]]; then   # lab tests of the balancers alone
  for p in "${bal_pids[@]}"; do wait "$p"; done; step "balancers done"; exit 0
fi

step "3/5 Kubernetes nodes: kernel settings, containerd, kubelet/kubeadm/kubectl"
mirror_hosts() { # one hosts.toml per upstream registry: everything comes from the lab registry, no fallback
  local r
  for r in registry.k8s.io docker.io ghcr.io "$REGISTRY"; do
    echo "mkdir -p /etc/containerd/certs.d/$r; cat >/etc/containerd/certs.d/$r/hosts.toml <<'T'
server = \"http://$REGISTRY\"
[host.\"http://$REGISTRY\"]
  capabilities = [\"pull\", \"resolve\"]
T"
  done
}
# shellcheck disable=SC2086
on_all $K8S_NODES -- "
cat >/etc/modules-load.d/k8s.conf <<'M'
overlay
br_netfilter
M
# In the lab the modules are built into the kernel: modprobe cannot find them, which is fine as long as
# the kernel has what they provide.
modprobe overlay 2>/dev/null || grep -qw overlay /proc/filesystems
modprobe br_netfilter 2>/dev/null || test -d /proc/sys/net/bridge
cat >/etc/sysctl.d/99-kubernetes-cri.conf <<'S'
net.bridge.bridge-nf-call-iptables  = 1
net.bridge.bridge-nf-call-ip6tables = 1
net.ipv4.ip_forward                 = 1
S
sysctl -q -p /etc/sysctl.d/99-kubernetes-cri.conf
swapoff -a
sed -i '/\\sswap\\s/ s/^[^#]/#&/' /etc/fstab
export DEBIAN_FRONTEND=noninteractive
apt-get -qq update
apt-get -qq install -y --no-install-recommends containerd runc
mkdir -p /etc/containerd
containerd config default >/etc/containerd/config.toml
sed -i -e 's/SystemdCgroup = false/SystemdCgroup = true/' \
  -e 's#sandbox_image = .*#sandbox_image = \"$REGISTRY/pause:$PAUSE_VERSION\"#' \
  -e 's/restrict_oom_score_adj = false/restrict_oom_score_adj = true/' \
  -e 's#config_path = \"\"#config_path = \"/etc/containerd/certs.d\"#' /etc/containerd/config.toml
$(mirror_hosts)
systemctl restart containerd
mkdir -p -m 755 /etc/apt/keyrings
curl -fsSL $APT_URL/kubernetes/core:/stable:/v$MINOR/deb/Release.key | gpg --dearmor --yes -o /etc/apt/keyrings/kubernetes-apt-keyring.gpg
echo 'deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] $APT_URL/kubernetes/core:/stable:/v$MINOR/deb/ /' >/etc/apt/sources.list.d/kubernetes.list
apt-get -qq update
apt-get -qq install -y --no-install-recommends kubelet kubeadm kubectl
apt-mark hold kubelet kubeadm kubectl >/dev/null
systemctl enable -q kubelet
"
for p in "${bal_pids[@]}"; do wait "$p"; done

step "4/5 kubeadm init on labs-k8s-m01"
m01=labs-k8s-m01
sans=$(for x in "$VIP" $(for b in $BALANCERS; do host_ip "$b"; done) $MASTERS $(for m in $MASTERS; do host_ip "$m"; done); do echo "    - $x"; done)
on "$m01" "cat >/root/kubeadm-config.yaml <<'CFG'
apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: $(host_ip $m01)
  bindPort: 6443
nodeRegistration:
  name: $m01
  criSocket: unix:///run/containerd/containerd.sock
  ignorePreflightErrors:
    - SystemVerification
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
clusterName: labs-k8s
kubernetesVersion: $KUBE_VERSION
controlPlaneEndpoint: $VIP:6443
imageRepository: $REGISTRY
networking:
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
  dnsDomain: cluster.local
apiServer:
  certSANs:
$sans
---
$(cat "$STATE/kubeadm-extra.yaml")
CFG
kubeadm init --config /root/kubeadm-config.yaml --upload-certs | tee /root/kubeadm-init.log
mkdir -p /root/.kube && cp /etc/kubernetes/admin.conf /root/.kube/config"
lab_scp -q "$m01:/etc/kubernetes/admin.conf" "$STATE/admin.conf"
chmod 600 "$STATE/admin.conf"
certkey=$(lab_ssh "$m01" "grep -o -- '--certificate-key [0-9a-f]*' /root/kubeadm-init.log | head -1 | cut -d' ' -f2")
join=$(lab_ssh "$m01" "kubeadm token create --print-join-command")
[[ -n $certkey && -n $join ]] || die "could not read the join command / certificate key from m01"

step "4/5 flannel"
# The manifest with the lab's image tags, as lab/lib/state.sh renders it for the lab's inventory.
lab_ssh "$m01" "kubectl apply -f -" <"$STATE/kube-flannel.yml" >>"$LOGDIR/$m01.log" 2>&1

step "5/5 joins: control planes one at a time, then workers"
for m in $MASTERS; do
  [[ $m == "$m01" ]] && continue
  on "$m" "$join --control-plane --certificate-key $certkey --apiserver-advertise-address $(host_ip "$m") --ignore-preflight-errors=SystemVerification
mkdir -p /root/.kube && cp /etc/kubernetes/admin.conf /root/.kube/config"
done
# shellcheck disable=SC2086
on_all $WORKERS -- "$join --ignore-preflight-errors=SystemVerification"

step "waiting for 5 Ready nodes and CoreDNS"
kc() { KUBECONFIG="$STATE/admin.conf" "$KUBE_BIN/kubectl" --request-timeout=10s "$@"; }
for i in $(seq 1 120); do
  ready=$(kc get nodes --no-headers 2>/dev/null | awk '$2 == "Ready"' | wc -l)
  dns=$(kc -n kube-system get pods -l k8s-app=kube-dns --no-headers 2>/dev/null | awk '$3 == "Running"' | wc -l)
  ((ready == 5 && dns >= 1)) && break
  sleep 5
done
kc get nodes -o wide >&2 || true
((ready == 5)) || die "only $ready of 5 nodes Ready"
step "done: $ready Ready nodes, $dns CoreDNS pods Running"
