#!/usr/bin/env bash
# Builds the lab's binaries from source through the Go module proxy, once per pinned version.
#
#   lab/build/build.sh [--current-minor] [component ...]
#       components: kube etcd coredns flannel cni flannelcni registry crictl webserver pause (default: all)
#       Both Kubernetes minors the lab serves are built: the current one's components first, then the previous
#       minor's kube, etcd, coredns and pause (PREVIOUS_* in versions.env), each under its own version, so a
#       component whose version both minors share is built once. --current-minor stops after the current one (what
#       `npm test` builds first, so that the lab tier can start while the previous minor builds beside it).
#       (--previous-minor, once needed to build it, is accepted and changes nothing.)
#
# Each component gets a tiny Go module of ours under $CACHE/src/<component>-<version>/ that `require`s the
# upstream module (with the replace directives upstream keeps only in its own go.mod), and its binaries land in
# $CACHE/bin/<component>-<version>/. A `.done` stamp makes re-runs free. Nothing is written into the repository.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../lib/common.sh
source "$HERE/../lib/common.sh"
mkdir -p "$CACHE/src" "$CACHE/bin" "$CACHE/logs"

export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local
LDFLAGS_BASE="-s -w"
log() { printf '[build %(%H:%M:%S)T] %s\n' -1 "$*"; }

# gomod DIR MODULE GO_DIRECTIVE [extra go.mod lines...]: writes a fresh go.mod that requires upstream.
gomod() {
  local dir=$1 mod=$2 gover=$3; shift 3
  rm -rf "$dir"; mkdir -p "$dir"
  { echo "module kwlab.local/build"; echo; echo "go $gover"; printf '%s\n' "$@"; } >"$dir/go.mod"
  # A placeholder package so the module is valid; the binaries are built from the dependency's packages.
  echo 'package build' >"$dir/doc.go"
  (cd "$dir" && go get "$mod")
}

# build NAME VERSION OUTDIR-COMPONENT: runs go build for the given packages inside the component's module dir.
done_or_run() { # component version fn
  local c=$1 v=$2 fn=$3 out="$CACHE/bin/$1-$2"
  if [[ -f "$out/.done" ]]; then log "$c $v: cached in $out"; return 0; fi
  local t0=$SECONDS
  log "$c $v: building"
  rm -rf "$out"; mkdir -p "$out"
  "$fn" "$CACHE/src/$c-$v" "$out" "$v"
  echo "$((SECONDS - t0))" >"$out/.build-seconds"
  touch "$out/.done"
  log "$c $v: done in $((SECONDS - t0)) s, $(du -sh "$out" | cut -f1)"
}

build_kube() {
  local src=$1 out=$2 v=$3 modfile staging
  staging=$(kube_staging_version "$v")
  # k/k's go.mod points every k8s.io staging module at ./staging/...; outside k/k those have to be replaced by
  # their published v0.x versions. Read the list from k/k's own go.mod so it never drifts.
  modfile=$(cd /tmp && go mod download -json "k8s.io/kubernetes@$v" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  local replaces=() m
  while read -r m; do replaces+=("replace $m => $m $staging"); done < <(
    awk '$2 == "=>" && $3 ~ /^\.\/staging/ {print $1}' "$modfile")
  gomod "$src" "k8s.io/kubernetes@$v" 1.25.0 "godebug default=go1.24" "${replaces[@]}"
  local major minor
  major=$(echo "${v#v}" | cut -d. -f1); minor=$(echo "${v#v}" | cut -d. -f2)
  local ld="$LDFLAGS_BASE" p
  # Without these the binaries say v0.0.0-master and kubeadm would pick wrong image tags and refuse the kubelet.
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $p.gitVersion=$v -X $p.gitMajor=$major -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
    ld+=" -X $p.gitCommit=0000000000000000000000000000000000000000 -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  (cd "$src" && go build -trimpath -ldflags "$ld" -o "$out/" \
    k8s.io/kubernetes/cmd/kubeadm k8s.io/kubernetes/cmd/kubectl k8s.io/kubernetes/cmd/kubelet \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-proxy)
}

build_etcd() {
  local src=$1 out=$2 v=$3 r=() m
  # etcd's modules replace each other with ../ paths; pin them all to the same published version instead.
  local mods=(api/v3 client/pkg/v3 client/v3 pkg/v3 server/v3) tools=(etcdctl/v3 etcdutl/v3)
  # 3.5 still has its own raft module. Its etcdctl and etcdutl modules of the late 3.5 patches are not on the module
  # proxy: the server alone then (the image takes the current minor's etcdctl, which speaks the same v3 API).
  [[ $v == v3.5.* ]] && { mods+=(raft/v3); tools=(); }
  for m in "${mods[@]}" "${tools[@]}"; do
    r+=("replace go.etcd.io/etcd/$m => go.etcd.io/etcd/$m $v")
  done
  gomod "$src" "go.etcd.io/etcd/server/v3@$v" 1.24 "${r[@]}"
  # etcdutl too: the restore's `etcdutl snapshot restore` and the backup's `snapshot status` run it on the nodes.
  local gets=() pkgs=(go.etcd.io/etcd/server/v3)
  for m in "${tools[@]}"; do gets+=("go.etcd.io/etcd/$m@$v"); pkgs+=("go.etcd.io/etcd/$m"); done
  (cd "$src" && { ((${#gets[@]} == 0)) || go get "${gets[@]}"; } &&
    go build -trimpath -ldflags "$LDFLAGS_BASE -X go.etcd.io/etcd/api/v3/version.GitSHA=kwlab" -o "$out/" "${pkgs[@]}")
  mv "$out/v3" "$out/etcd" 2>/dev/null || true
  [[ -x "$out/etcd" ]] || mv "$out/server" "$out/etcd"
}

build_coredns() {
  local src=$1 out=$2 v=$3
  gomod "$src" "github.com/coredns/coredns@$v" 1.24
  (cd "$src" && go build -trimpath -ldflags "$LDFLAGS_BASE" -o "$out/coredns" github.com/coredns/coredns)
}

build_flannel() {
  local src=$1 out=$2 v=$3 dir
  # flannel's legacy UDP backend needs cgo; the lab uses vxlan. Build flannel's own module (its go.mod and
  # go.sum pin everything) with that one backend import dropped, so the binary stays CGO-free and static.
  dir=$(cd /tmp && go mod download -json "github.com/flannel-io/flannel@$v" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  rm -rf "$src"; cp -r "$dir" "$src"; chmod -R u+w "$src"
  sed -i '/flannel\/pkg\/backend\/udp"/d' "$src/main.go"
  (cd "$src" && go build -trimpath -ldflags "$LDFLAGS_BASE -X github.com/flannel-io/flannel/pkg/version.Version=$v" \
    -o "$out/flanneld" .)
}

build_cni() {
  local src=$1 out=$2 v=$3 p=github.com/containernetworking/plugins/plugins
  gomod "$src" "github.com/containernetworking/plugins@$v" 1.24
  # The set the flannel CNI config chains: flannel delegates to bridge + host-local, then portmap; loopback for kubelet.
  (cd "$src" && go build -trimpath -ldflags "$LDFLAGS_BASE" -o "$out/" \
    $p/main/bridge $p/ipam/host-local $p/main/loopback $p/meta/portmap \
    $( [[ -d "$(go list -m -f '{{.Dir}}' github.com/containernetworking/plugins)/plugins/meta/flannel" ]] && echo $p/meta/flannel))
}

build_registry() {
  local src=$1 out=$2 v=$3
  gomod "$src" "github.com/distribution/distribution/v3@$v" 1.24
  (cd "$src" && go build -trimpath -ldflags "$LDFLAGS_BASE" -o "$out/registry" \
    github.com/distribution/distribution/v3/cmd/registry)
}

build_crictl() {
  local src=$1 out=$2 v=$3
  gomod "$src" "sigs.k8s.io/cri-tools@$v" 1.24
  (cd "$src" && go build -trimpath -ldflags "$LDFLAGS_BASE -X sigs.k8s.io/cri-tools/pkg/version.Version=$v" \
    -o "$out/crictl" sigs.k8s.io/cri-tools/cmd/crictl)
}

# flannel's CNI plugin: upstream's is not on the module proxy, so the lab builds its own (lab/images/flannel-cni).
build_flannelcni() {
  local src=$1 out=$2 v=$3
  rm -rf "$src"; mkdir -p "$src"
  cp "$HERE/../images/flannel-cni/"* "$src/"
  (cd "$src" && go build -trimpath -ldflags "$LDFLAGS_BASE -X main.Version=$v" -o "$out/flannel" .)
}

# Our own tiny web server for `kubectl run` tests (source lives in lab/images/webserver).
build_webserver() {
  local src=$1 out=$2
  rm -rf "$src"; mkdir -p "$src"; cp "$HERE/../images/webserver/"* "$src/"
  (cd "$src" && go build -trimpath -ldflags "$LDFLAGS_BASE" -o "$out/webserver" .)
}

# The pause container is C in k/k (build/pause/linux/pause.c); it ships in the k/k module zip, build it static
# from the release whose kubeadm asks for this pause tag.
build_pause() {
  local src=$1 out=$2 v=$3 dir
  dir=$(cd /tmp && go mod download -json "k8s.io/kubernetes@$PAUSE_KUBE_SOURCE" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  mkdir -p "$src"
  gcc -Os -static -Wall -DVERSION="v$v-kwlab" -o "$out/pause" "$dir/build/pause/linux/pause.c"
  strip "$out/pause"
}

previous=1 args=()
for a in "$@"; do
  case $a in
    --current-minor) previous=0 ;;
    --previous-minor) ;;
    *) args+=("$a") ;;
  esac
done
all=(kube etcd coredns flannel cni flannelcni registry crictl webserver pause)
if ((${#args[@]})); then set -- "${args[@]}"; else set -- "${all[@]}"; fi
PAUSE_KUBE_SOURCE=$KUBE_VERSION
for c in "$@"; do
  case $c in
    kube) done_or_run kube "$KUBE_VERSION" build_kube ;;
    etcd) done_or_run etcd "$ETCD_VERSION" build_etcd ;;
    coredns) done_or_run coredns "$COREDNS_VERSION" build_coredns ;;
    flannel) done_or_run flannel "$FLANNEL_VERSION" build_flannel ;;
    cni) done_or_run cni "$CNI_PLUGINS_VERSION" build_cni ;;
    flannelcni) done_or_run flannelcni "$(flannel_cni_build)" build_flannelcni ;;
    registry) done_or_run registry "$DISTRIBUTION_VERSION" build_registry ;;
    crictl) done_or_run crictl "$CRI_TOOLS_VERSION" build_crictl ;;
    webserver) done_or_run webserver "$(cat "$HERE/../images/webserver/"* | sha256sum | cut -c1-12)" build_webserver ;;
    pause) done_or_run pause "$PAUSE_VERSION" build_pause ;;
    *) echo "unknown component $c" >&2; exit 2 ;;
  esac
done
# The previous minor's own versions: what its kubeadm pulls by default (the same cache keys, so a version both
# minors share is the one already built).
if ((previous)); then
  PAUSE_KUBE_SOURCE=$PREVIOUS_KUBE_VERSION
  for c in "$@"; do
    case $c in
      kube) done_or_run kube "$PREVIOUS_KUBE_VERSION" build_kube ;;
      etcd) done_or_run etcd "$PREVIOUS_ETCD_VERSION" build_etcd ;;
      coredns) done_or_run coredns "$PREVIOUS_COREDNS_VERSION" build_coredns ;;
      pause) done_or_run pause "$PREVIOUS_PAUSE_VERSION" build_pause ;;
    esac
  done
fi
