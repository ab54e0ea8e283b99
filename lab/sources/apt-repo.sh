#!/usr/bin/env bash
# Builds the lab's apt repository under $CACHE/repo/www (served at http://10.3.60.1:8080 on the lab bridge):
#   /debian                                 a Debian bookworm mirror holding just what the procedure installs
#                                           (containerd, runc, haproxy, keepalived, ... and their dependencies)
#   /kubernetes/core:/stable:/vX.Y/deb/     kubeadm, kubelet, kubectl, kubernetes-cni, cri-tools as .debs built
#                                           from the lab's binaries, laid out like pkgs.k8s.io: one repository per
#                                           minor, the current one and (once built) the previous one
# All are signed with the lab's archive key (state/apt-key.*).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$LAB_DIR/lib/state.sh"
state_init

# What the seed's procedure apt-installs from Debian, plus what the Kubernetes packages depend on.
DEBIAN_PKGS="containerd runc haproxy keepalived socat conntrack ebtables ethtool"
WWW="$CACHE/repo/www"
GPG() { GNUPGHOME="$STATE/gnupg" gpg -q --batch --yes "$@"; }

# 1. Debian packages: resolved and downloaded by apt inside a throw-away overlay of the base rootfs, so the set
#    is exactly what is missing on a bare node (recommends included, as apt on the nodes installs them).
debian_debs() {
  local base key out tmp
  base=$("$LAB_DIR/base/rootfs.sh")
  key=$(echo "$base $DEBIAN_PKGS" | sha256sum | cut -c1-12)
  out="$CACHE/repo/debian-debs-$key"
  [[ -f "$out/.done" ]] && { echo "$out"; return; }
  tmp=$(mktemp -d "$CACHE/repo/dl.XXXX")
  mkdir -p "$tmp/u" "$tmp/w" "$tmp/r"
  mount -t overlay overlay -o "lowerdir=$base,upperdir=$tmp/u,workdir=$tmp/w" "$tmp/r"
  cp /etc/apt/sources.list.d/debian.sources "$tmp/r/etc/apt/sources.list.d/"
  rm -f "$tmp/r/etc/apt/sources.list.d/"*.list
  cp -L /etc/resolv.conf "$tmp/r/etc/resolv.conf"
  chroot "$tmp/r" apt-get -qq update >&2
  # shellcheck disable=SC2086
  chroot "$tmp/r" apt-get -qq -y --download-only install $DEBIAN_PKGS >&2
  mkdir -p "$out.tmp"; cp "$tmp"/r/var/cache/apt/archives/*.deb "$out.tmp/"
  umount "$tmp/r"; rm -rf "$tmp"
  rm -rf "$out"; mv "$out.tmp" "$out"; touch "$out/.done"
  echo "$out"
}

# 2. Kubernetes packages, shaped like the upstream ones (same names, files, unit files and dependencies).
# kube_debs VERSION: that release's packages (cached per version), echoes their directory.
kube_debs() {
  local kv=$1 out="$CACHE/repo/kube-debs-$1" ver="${1#v}-1.1" pkgroot p bin="$CACHE/bin/kube-$1"
  local cni="$CACHE/bin/cni-$CNI_PLUGINS_VERSION" crictl="$CACHE/bin/crictl-$CRI_TOOLS_VERSION"
  [[ -f "$out/.done" ]] && { echo "$out"; return; }
  if ! [[ -f "$bin/.done" && -f "$cni/.done" && -f "$crictl/.done" ]]; then
    log "Kubernetes, CNI plugins or cri-tools not built yet ('npm run lab -- build'): publishing Debian packages only"
    return 0
  fi
  rm -rf "$out.tmp"; mkdir -p "$out.tmp"
  mkpkg() { # name version depends description; files already in $pkgroot
    mkdir -p "$pkgroot/DEBIAN"
    cat >"$pkgroot/DEBIAN/control" <<CTL
Package: $1
Version: $2
Architecture: amd64
Maintainer: kubeadm-workbench lab <lab@kubeadm-workbench.invalid>
Installed-Size: $(du -sk --exclude=DEBIAN "$pkgroot" | cut -f1)
${3:+Depends: $3
}Section: admin
Priority: optional
Homepage: https://kubernetes.io
Description: $4
 Built from source by the kubeadm-workbench lab.
CTL
    dpkg-deb --root-owner-group -Zgzip --build "$pkgroot" "$out.tmp/${1}_${2}_amd64.deb" >/dev/null
    rm -rf "$pkgroot"
  }
  pkgroot=$(mktemp -d); install -D -m 0755 "$bin/kubectl" "$pkgroot/usr/bin/kubectl"
  mkpkg kubectl "$ver" "" "Command-line utility for interacting with a Kubernetes cluster"

  pkgroot=$(mktemp -d); install -D -m 0755 "$bin/kubelet" "$pkgroot/usr/bin/kubelet"
  install -D -m 0644 /dev/stdin "$pkgroot/lib/systemd/system/kubelet.service" <<'UNIT'
[Unit]
Description=kubelet: The Kubernetes Node Agent
Documentation=https://kubernetes.io/docs/
Wants=network-online.target
After=network-online.target

[Service]
ExecStart=/usr/bin/kubelet
Restart=always
StartLimitInterval=0
RestartSec=10

[Install]
WantedBy=multi-user.target
UNIT
  install -D -m 0755 /dev/stdin "$pkgroot/DEBIAN/postinst" <<'POST'
#!/bin/sh
set -e
if [ "$1" = configure ]; then systemctl enable kubelet.service >/dev/null 2>&1 || true; fi
POST
  mkpkg kubelet "$ver" "iptables (>= 1.4.21), kubernetes-cni (>= 1.1.1), iproute2, socat, util-linux, mount, ethtool, ebtables, conntrack" \
    "Node agent for Kubernetes clusters"

  pkgroot=$(mktemp -d); install -D -m 0755 "$bin/kubeadm" "$pkgroot/usr/bin/kubeadm"
  install -D -m 0644 /dev/stdin "$pkgroot/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf" <<'DROP'
# Note: This dropin only works with kubeadm and kubelet v1.11+
[Service]
Environment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf"
Environment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"
# This is a file that "kubeadm init" and "kubeadm join" generates at runtime, populating the KUBELET_KUBEADM_ARGS variable dynamically
EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env
# This is a file that the user can use for overrides of the kubelet args as a last resort.
EnvironmentFile=-/etc/default/kubelet
ExecStart=
ExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS
DROP
  # kubeadm's own floor for kubelet and kubectl, as upstream's packages of that release state it: three minors back
  local floor; floor="1.$(( $(minor_of "$kv" | cut -d. -f2) - 4 )).0"
  mkpkg kubeadm "$ver" "kubelet (>= $floor), kubectl (>= $floor), kubernetes-cni (>= 1.1.1), cri-tools (>= 1.30.0)" \
    "Command-line utility for administering a Kubernetes cluster"

  pkgroot=$(mktemp -d); mkdir -p "$pkgroot/opt/cni/bin"
  for p in "$cni"/*; do install -m 0755 "$p" "$pkgroot/opt/cni/bin/"; done
  mkpkg kubernetes-cni "${CNI_PLUGINS_VERSION#v}-1.1" "" "Binaries required to provision kubernetes container networking"

  pkgroot=$(mktemp -d); install -D -m 0755 "$crictl/crictl" "$pkgroot/usr/bin/crictl"
  mkpkg cri-tools "${CRI_TOOLS_VERSION#v}-1.1" "" "Command-line utility for interacting with a container runtime"
  rm -rf "$out"; mv "$out.tmp" "$out"; touch "$out/.done"
  echo "$out"
}

sign_release() { # dir
  GPG --clearsign -o "$1/InRelease" "$1/Release"
  GPG --detach-sign --armor -o "$1/Release.gpg" "$1/Release"
}

t0=$SECONDS
deb_dir=$(debian_debs)
rm -rf "$WWW.tmp"; mkdir -p "$WWW.tmp"
# Debian mirror: pool + dists/bookworm/main/binary-amd64
d="$WWW.tmp/debian"; mkdir -p "$d/pool/main" "$d/dists/bookworm/main/binary-amd64"
cp -l "$deb_dir"/*.deb "$d/pool/main/" 2>/dev/null || cp "$deb_dir"/*.deb "$d/pool/main/"
(cd "$d" && apt-ftparchive packages pool/main >dists/bookworm/main/binary-amd64/Packages &&
  gzip -9nk dists/bookworm/main/binary-amd64/Packages &&
  apt-ftparchive -o APT::FTPArchive::Release::Origin=kwlab -o APT::FTPArchive::Release::Suite=bookworm \
    -o APT::FTPArchive::Release::Codename=bookworm -o APT::FTPArchive::Release::Architectures=amd64 \
    -o APT::FTPArchive::Release::Components=main release dists/bookworm >dists/bookworm/Release.tmp &&
  mv dists/bookworm/Release.tmp dists/bookworm/Release)
sign_release "$d/dists/bookworm"
# Kubernetes repositories, flat like pkgs.k8s.io/core:/stable:/vX.Y/deb/, one per minor: the current one always,
# the previous one when its binaries are built (npm run lab -- build)
minors=("$CURRENT_MINOR")
if [[ -f "$CACHE/bin/kube-$PREVIOUS_KUBE_VERSION/.done" ]]; then minors=("$PREVIOUS_MINOR" "${minors[@]}"); fi
for minor in "${minors[@]}"; do
  kube_dir=$( use_kube_minor "$minor"; kube_debs "$KUBE_VERSION" )
  k="$WWW.tmp/kubernetes/core:/stable:/v$minor/deb"; mkdir -p "$k"
  if [[ -n "$kube_dir" ]]; then cp "$kube_dir"/*.deb "$k/"; fi
  (cd "$k" && apt-ftparchive packages . >Packages && gzip -9nk Packages &&
    apt-ftparchive -o APT::FTPArchive::Release::Origin=kwlab -o APT::FTPArchive::Release::Label="kubernetes v$minor" \
      release . >Release.tmp && mv Release.tmp Release)
  sign_release "$k"
  cp "$STATE/apt-key.asc" "$k/Release.key"
done
cp "$STATE/apt-key.asc" "$WWW.tmp/lab-archive-key.asc"
GNUPGHOME="$STATE/gnupg" gpgconf --kill gpg-agent   # signing started one; leave nothing running
rm -rf "$WWW.old"; [[ -d "$WWW" ]] && mv "$WWW" "$WWW.old"; mv "$WWW.tmp" "$WWW"; rm -rf "$WWW.old"
log "apt repository ready in $((SECONDS - t0)) s: $(find "$WWW" -name '*.deb' | wc -l) packages, Kubernetes ${minors[*]}, $(du -sh "$WWW" | cut -f1)"
