#!/usr/bin/env bash
# Builds the lab's container images by hand (there is no Docker engine here) and pushes them into the lab
# registry's storage. An image is a few deterministic tar.gz layers + an OCI config + an OCI manifest; pushing
# uses the registry's HTTP API (a temporary registry on loopback over the same storage the lab serves).
#
#   per Kubernetes minor served (the current one; the previous one once built), the tags its kubeadm pulls:
#     kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy, etcd (X.Y.Z-0), pause, coredns
#     (also as coredns/coredns)
#   flannel-io/flannel, flannel-io/flannel-cni-plugin, kwlab/web:1.0 (the tiny web server for `kubectl run` tests)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
IMAGES="$CACHE/images"
REGISTRY_DATA="$CACHE/registry"
PUSH_ADDR=127.0.0.1:5055
mkdir -p "$IMAGES" "$REGISTRY_DATA"
bin() { local d="$CACHE/bin/$1"; [[ -f "$d/.done" ]] || die "$1 not built yet: run 'npm run lab -- build'"; echo "$d"; }

# Layers ----------------------------------------------------------------------------------------------------
# layer NAME DIR: a reproducible tar.gz of DIR (sorted, owner root, mtime 0), cached by name — every caller names a
# layer by what it holds (a version or a hash of its files), so a cached one is never stale. gzip's default level:
# -9 took 4.6 times as long on kube-apiserver (32.6 s against 7.0 s here) for a layer 0.9 % smaller.
layer() {
  local name=$1 dir=$2 f="$IMAGES/layers/$1.tar.gz"
  mkdir -p "$IMAGES/layers"
  if [[ ! -f "$f" ]]; then
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$dir" -cf - . | gzip -6n >"$f.tmp"
    mv "$f.tmp" "$f"
  fi
  echo "$f" >>"$IMAGES/layers.used"
  echo "$f"
}

# busybox (from Debian's busybox-static package): cp and sh for flannel's init containers.
busybox_layer() {
  local d="$IMAGES/src/busybox" deb
  if [[ ! -x "$d/bin/busybox" ]]; then
    mkdir -p "$IMAGES/src/debs"
    (cd "$IMAGES/src/debs" && ls busybox-static_*.deb >/dev/null 2>&1 || apt-get download -qq busybox-static)
    deb=$(ls "$IMAGES"/src/debs/busybox-static_*.deb | head -1)
    rm -rf "$d"; mkdir -p "$d/x" "$d/bin"; dpkg-deb -x "$deb" "$d/x"
    cp "$d/x/bin/busybox" "$d/bin/busybox"; rm -rf "$d/x"
    local a; for a in $("$d/bin/busybox" --list); do [[ -e "$d/bin/$a" ]] || ln -s busybox "$d/bin/$a"; done
    mkdir -p "$d/tmp" "$d/etc"; chmod 1777 "$d/tmp"
  fi
  layer "busybox-$(basename "$(ls "$IMAGES"/src/debs/busybox-static_*.deb | head -1)" .deb)" "$d"
}

# iptables (nft backend, as on the Debian 12 nodes) with its libraries, copied from the lab's base rootfs:
# kube-proxy (iptables mode; no IPVS in this kernel) and flanneld program the node's netfilter with it.
iptables_layer() {
  local d base lib
  base=$(cat "$STATE/base-rootfs" 2>/dev/null || "$LAB_DIR/base/rootfs.sh")
  d="$IMAGES/src/iptables-$(basename "$base")"   # the base rootfs is keyed by its recipe
  if [[ ! -x "$d/usr/sbin/xtables-nft-multi" ]]; then
    rm -rf "$d"; mkdir -p "$d/usr/sbin" "$d/etc"
    cp -a "$base/usr/sbin/xtables-nft-multi" "$d/usr/sbin/"
    local t; for t in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore \
        iptables-nft iptables-nft-save iptables-nft-restore ip6tables-nft ip6tables-nft-save ip6tables-nft-restore; do
      ln -s xtables-nft-multi "$d/usr/sbin/$t"
    done
    cp -a "$base/usr/lib/x86_64-linux-gnu/xtables" "$d/.xt"; mkdir -p "$d/usr/lib/x86_64-linux-gnu"
    mv "$d/.xt" "$d/usr/lib/x86_64-linux-gnu/xtables"
    # every shared library the binary and its extensions need, resolved inside the base rootfs
    for lib in $( { chroot "$base" ldd /usr/sbin/xtables-nft-multi; for x in "$base"/usr/lib/x86_64-linux-gnu/xtables/*.so; do
          chroot "$base" ldd "${x#"$base"}"; done; } | awk '/=>/ {print $3} /^\t\/lib64/ {print $1}' | sort -u); do
      mkdir -p "$d$(dirname "$lib")"; cp -L "$base$lib" "$d$lib"
    done
    cp "$base/etc/protocols" "$base/etc/services" "$base/etc/ethertypes" "$d/etc/" 2>/dev/null || true
    [[ -e "$d/lib64" ]] || { mkdir -p "$d/lib64"; cp -L "$base/lib64/ld-linux-x86-64.so.2" "$d/lib64/"; }
  fi
  layer "iptables-$(basename "$base")" "$d"
}

# files_layer NAME SRC:DEST... : a layer holding the given files (mode 0755), named by NAME and a hash of the files and
# where they go (a layer already made of the same files is reused: adding the previous minor compresses only its own).
files_layer() {
  local name=$1 m key; shift
  key=$(for m in "$@"; do echo "${m#*:} $(sha256sum <"${m%%:*}")"; done | sha256sum | cut -c1-12)
  local d="$IMAGES/src/$name-$key"
  if [[ ! -f "$IMAGES/layers/$name-$key.tar.gz" ]]; then
    rm -rf "$d"; mkdir -p "$d"
    for m in "$@"; do install -D -m 0755 "${m%%:*}" "$d/${m#*:}"; done
  fi
  layer "$name-$key" "$d"
  rm -rf "$d"
}

# Image assembly ----------------------------------------------------------------------------------------------
sha() { sha256sum "$1" | cut -d' ' -f1; }
# image REPO TAG ENTRYPOINT_JSON LAYER... : writes blobs + config + manifest under $IMAGES/oci/<repo>/<tag>/
image() {
  local repo=$1 tag=$2 entry=$3; shift 3
  local out="$IMAGES/oci/$repo/$tag" l diffids=() layers=() ld
  rm -rf "$out"; mkdir -p "$out/blobs"
  for l in "$@"; do
    ld=$(sha "$l"); cp -l "$l" "$out/blobs/$ld" 2>/dev/null || cp "$l" "$out/blobs/$ld"
    diffids+=("\"sha256:$(gzip -dc "$l" | sha256sum | cut -d' ' -f1)\"")
    layers+=("{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar+gzip\",\"digest\":\"sha256:$ld\",\"size\":$(stat -c %s "$l")}")
  done
  local IFS=,
  printf '{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z","config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Entrypoint":%s,"WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":[%s]},"history":[{"created":"1970-01-01T00:00:00Z","created_by":"kubeadm-workbench lab/sources/images.sh"}]}' \
    "$entry" "${diffids[*]}" >"$out/config.json"
  local cd; cd=$(sha "$out/config.json"); cp "$out/config.json" "$out/blobs/$cd"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[%s]}' \
    "$cd" "$(stat -c %s "$out/config.json")" "${layers[*]}" >"$out/manifest.json"
  echo "$repo:$tag" >>"$IMAGES/list.tmp"
}

# Push ---------------------------------------------------------------------------------------------------------
push() { # repo tag
  local repo=$1 tag=$2 dir="$IMAGES/oci/$1/$2" R="http://$PUSH_ADDR" b loc sep
  for b in "$dir"/blobs/*; do
    b=$(basename "$b")
    [[ "$(curl -s -o /dev/null -w '%{http_code}' -I "$R/v2/$repo/blobs/sha256:$b")" == 200 ]] && continue
    loc=$(curl -fsS -D - -o /dev/null -X POST "$R/v2/$repo/blobs/uploads/" | sed -n 's/^[Ll]ocation: *//p' | tr -d '\r')
    [[ "$loc" == http* ]] || loc="$R$loc"
    sep='?'; [[ "$loc" == *\?* ]] && sep='&'
    curl -fsS -o /dev/null -X PUT -H 'Content-Type: application/octet-stream' --data-binary "@$dir/blobs/$b" "$loc${sep}digest=sha256:$b"
  done
  curl -fsS -o /dev/null -X PUT -H 'Content-Type: application/vnd.oci.image.manifest.v1+json' \
    --data-binary "@$dir/manifest.json" "$R/v2/$repo/manifests/$tag"
}

t0=$SECONDS
# One registry for every minor the lab serves, as registry.k8s.io: the current minor's images always, the previous
# minor's when its binaries are built (npm run lab -- build). Each minor gets the tags its kubeadm
# pulls by default; a tag both minors name is the same binary, pushed once.
minor_built "$CURRENT_MINOR" || die "Kubernetes $KUBE_VERSION, its etcd, CoreDNS or pause not built yet: run 'npm run lab -- build'"
minors=("$CURRENT_MINOR")
if minor_built "$PREVIOUS_MINOR"; then minors+=("$PREVIOUS_MINOR")
elif [[ -f "$CACHE/bin/kube-$PREVIOUS_KUBE_VERSION/.done" ]]; then
  log "images: Kubernetes $PREVIOUS_MINOR is only partly built ('npm run lab -- build'): serving $CURRENT_MINOR only"
fi
bins=()
for minor in "${minors[@]}"; do
  bins+=("$( use_kube_minor "$minor"; echo "kube-$KUBE_VERSION etcd-$ETCD_VERSION coredns-$COREDNS_VERSION pause-$PAUSE_VERSION")")
done
F=$(bin "flannel-$FLANNEL_VERSION"); FC=$(bin "flannelcni-$(flannel_cni_build)")
W=$(ls -d "$CACHE"/bin/webserver-* | head -1); [[ -f "$W/.done" ]] || die "webserver not built"
# Everything above is keyed by version; rebuild the images only when a binary or this recipe changed.
KEY=$( { cat "$0"; echo "${bins[*]} $F $FC $W"; } | sha256sum | cut -c1-12)
if [[ -f "$IMAGES/.done-$KEY" && -d "$REGISTRY_DATA/docker/registry/v2/repositories/kwlab/web" ]]; then
  log "images: cached ($IMAGES; Kubernetes ${minors[*]})"; exit 0
fi
: >"$IMAGES/list.tmp"
: >"$IMAGES/layers.used"
BB=$(busybox_layer); IPT=$(iptables_layer)

# kube_images: the images kubeadm of the selected minor (use_kube_minor) pulls; layers are named by version.
kube_images() {
  local K E C P c kv=$KUBE_VERSION
  K=$(bin "kube-$KUBE_VERSION"); E=$(bin "etcd-$ETCD_VERSION"); C=$(bin "coredns-$COREDNS_VERSION"); P=$(bin "pause-$PAUSE_VERSION")
  for c in kube-apiserver kube-controller-manager kube-scheduler; do
    image "$c" "$kv" "[\"/usr/local/bin/$c\"]" "$(files_layer "$c-$kv" "$K/$c:usr/local/bin/$c")"
  done
  image kube-proxy "$kv" '["/usr/local/bin/kube-proxy"]' "$IPT" "$(files_layer "kube-proxy-$kv" "$K/kube-proxy:usr/local/bin/kube-proxy")"
  # etcd, etcdctl and etcdutl, as registry.k8s.io's etcd images carry them (a restore runs the image's etcdutl on an
  # air-gapped node): the tools of the same release when the module proxy has them (lab/build/build.sh), else the
  # lab's current ones (etcd 3.5.24's tools are not on the proxy; 3.6's speak the same v3 API and snapshot format).
  local ctl="$E/etcdctl" utl="$E/etcdutl"
  [[ -x $ctl ]] || ctl="$ETCD_BIN/etcdctl"
  [[ -x $utl ]] || utl="$ETCD_BIN/etcdutl"
  image etcd "${ETCD_VERSION#v}-0" '["/usr/local/bin/etcd"]' \
    "$(files_layer "etcd-$ETCD_VERSION" "$E/etcd:usr/local/bin/etcd" "$ctl:usr/local/bin/etcdctl" "$utl:usr/local/bin/etcdutl")"
  image pause "$PAUSE_VERSION" '["/pause"]' "$(files_layer "pause-$PAUSE_VERSION" "$P/pause:pause")"
  local CL; CL=$(files_layer "coredns-$COREDNS_VERSION" "$C/coredns:coredns")
  image coredns "$COREDNS_VERSION" '["/coredns"]' "$CL"
  image coredns/coredns "$COREDNS_VERSION" '["/coredns"]' "$CL"
}
for minor in "${minors[@]}"; do ( use_kube_minor "$minor"; kube_images ); done
image flannel-io/flannel "$FLANNEL_VERSION" '["/opt/bin/flanneld"]' "$BB" "$IPT" "$(files_layer flanneld "$F/flanneld:opt/bin/flanneld")"
image flannel-io/flannel-cni-plugin "$(flannel_cni_build)" '["/bin/sh"]' "$BB" "$(files_layer flannel-cni "$FC/flannel:flannel")"
image kwlab/web 1.0 '["/webserver"]' "$(files_layer web "$W/webserver:webserver")"
sort -u -o "$IMAGES/list.tmp" "$IMAGES/list.tmp"

# push through a registry on loopback that uses the lab registry's storage
reg="$(bin "registry-$DISTRIBUTION_VERSION")/registry"
cfg=$(mktemp); cat >"$cfg" <<YML
version: 0.1
log: { level: warn, accesslog: { disabled: true } }
storage: { filesystem: { rootdirectory: $REGISTRY_DATA } }
http: { addr: "$PUSH_ADDR", secret: kwlab-not-secret }
YML
"$reg" serve "$cfg" >"$IMAGES/push-registry.log" 2>&1 &
regpid=$!
trap 'kill $regpid 2>/dev/null; rm -f "$cfg"' EXIT
for i in $(seq 1 50); do curl -fsS -o /dev/null "http://$PUSH_ADDR/v2/" 2>/dev/null && break; sleep 0.1; done
while read -r ref; do push "${ref%%:*}" "${ref#*:}"; done <"$IMAGES/list.tmp"
mv "$IMAGES/list.tmp" "$IMAGES/list"
# Layers no image of this build uses (a version bumped since) go; the registry keeps what was pushed.
for f in "$IMAGES"/layers/*.tar.gz; do grep -qxF "$f" "$IMAGES/layers.used" || rm -f "$f"; done
rm -f "$IMAGES"/.done-*; touch "$IMAGES/.done-$KEY"
log "images built and pushed in $((SECONDS - t0)) s: $(wc -l <"$IMAGES/list") images (Kubernetes ${minors[*]}), registry storage $(du -sh "$REGISTRY_DATA" | cut -f1)"
