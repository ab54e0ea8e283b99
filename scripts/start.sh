#!/usr/bin/env bash
# `npm start`: installs what is missing (scripts/setup.sh), builds and packages the extension, installs it into a
# code-server (real VS Code 1.139) of its own and serves it on 127.0.0.1 with examples/labs-k8s open. Prints the URL
# and runs until Ctrl-C.
# Options:
#   --port N      port on 127.0.0.1 (default 8088, or $KW_PORT)
#   --lab         bring the lab up (root only; its first build takes about half an hour, later ones seconds) and open
#                 its workspace, whose inventory points at the lab's bare Debian nodes
#   --lab-cluster the same, with the reference HA cluster already built on the nodes (lab up --cluster)
#   --folder DIR  open another folder
#   --no-setup    skip scripts/setup.sh
# State (settings, installed extension) lives in ${XDG_STATE_HOME:-~/.local/state}/kubeadm-workbench/code-server.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib/tools.sh"
cd "$ROOT"

PORT=${KW_PORT:-8088}
FOLDER="$ROOT/examples/labs-k8s"
LAB=0
LAB_CLUSTER=0
SETUP=1
while [ $# -gt 0 ]; do
  case $1 in
    --port) PORT=$2; shift ;;
    --port=*) PORT=${1#--port=} ;;
    --lab) LAB=1 ;;
    --lab-cluster) LAB=1; LAB_CLUSTER=1 ;;
    --folder) FOLDER=$(cd "$2" && pwd); shift ;;
    --no-setup) SETUP=0 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) kw_die "start.sh: unknown option $1 (see --help)" ;;
  esac
  shift
done
t0=$(date +%s%N)

[ "$SETUP" = 0 ] || bash scripts/setup.sh

# ---- the lab hook: `npm run -s lab -- env` prints shell assignments, LAB_INVENTORY among them.
if [ "$LAB" = 1 ]; then
  [ "$(id -u)" = 0 ] || kw_die "--lab needs root (the lab runs the cluster's nodes in network namespaces)"
  node -e 'process.exit(require("./package.json").scripts?.lab ? 0 : 1)' || kw_die "--lab: package.json has no 'lab' script in this checkout"
  kw_log "bringing the lab up (npm run lab -- build, then up$([ "$LAB_CLUSTER" = 1 ] && echo " --cluster"))"
  npm run -s lab -- build || kw_die "--lab: building the lab failed (see above)"
  if [ "$LAB_CLUSTER" = 1 ]; then npm run -s lab -- up --cluster; else npm run -s lab -- up; fi || kw_die "--lab: 'npm run lab -- up' failed (see above)"
  lab_env=$(npm run -s lab -- env) || kw_die "--lab: 'npm run lab -- env' failed; is the lab up? (npm run lab -- up)"
  eval "$lab_env"   # export KUBECONFIG=... LAB_SSH_CONFIG=... LAB_INVENTORY=... PATH=...: code-server and its extension host inherit them
  [ -n "${LAB_INVENTORY:-}" ] && [ -f "$LAB_INVENTORY" ] || kw_die "--lab: 'npm run lab -- env' gave no LAB_INVENTORY file (is the lab up? npm run lab -- up)"
  FOLDER=$(dirname "$LAB_INVENTORY")
fi
[ -d "$FOLDER" ] || kw_die "folder to open does not exist: $FOLDER"

# ---- build and package the extension, then install the .vsix into this code-server's own extensions dir
STATE="${XDG_STATE_HOME:-$HOME/.local/state}/kubeadm-workbench/code-server"
[ "$LAB" = 0 ] || STATE="$STATE-lab"   # the lab gets a profile of its own (its settings point at the lab)
mkdir -p "$STATE/user-data/User" "$STATE/extensions"
[ -f "$STATE/user-data/User/settings.json" ] || cat > "$STATE/user-data/User/settings.json" <<'JSON'
{
  "workbench.startupEditor": "none",
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "chat.disableAIFeatures": true,
  "workbench.colorTheme": "Default Dark Modern"
}
JSON
if [ "$LAB" = 1 ]; then
  # The lab's own kubeconfig, SSH config and known_hosts, as this (lab-only) code-server's Remote settings. They are
  # machine-overridable: once the folder is trusted, code-server's window did not apply them from the User settings
  # file, and every lab host's key was asked about (test/lab/ui-bringup.test.ts).
  mkdir -p "$STATE/user-data/Machine"
  node -e 'const [f, kube, ssh, known] = process.argv.slice(1); const fs = require("fs");
    let s = {}; try { s = JSON.parse(fs.readFileSync(f, "utf8")); } catch {}
    Object.assign(s, { "kubeadmWorkbench.kubeconfig": kube, "kubeadmWorkbench.sshConfigFile": ssh, "kubeadmWorkbench.knownHostsFile": known });
    fs.writeFileSync(f, JSON.stringify(s, null, 2));' "$STATE/user-data/Machine/settings.json" "${KUBECONFIG:-}" "${LAB_SSH_CONFIG:-}" "${LAB_KNOWN_HOSTS:-}"
fi
kw_log "building and packaging the extension"
VSIX="$STATE/kubeadm-workbench.vsix"
npm run -s package -- --out "$VSIX" > "$STATE/package.log" 2>&1 || { cat "$STATE/package.log" >&2; kw_die "npm run package failed"; }
printf 'cert: false\n' > "$STATE/config.yaml"
CS=("$KW_NODE24" "$KW_CS_ENTRY" --config "$STATE/config.yaml" --user-data-dir "$STATE/user-data" --extensions-dir "$STATE/extensions")
"${CS[@]}" --force --install-extension "$VSIX" >/dev/null || kw_die "installing $VSIX into code-server failed"

URL="http://127.0.0.1:$PORT/?folder=$FOLDER"
kw_log "starting code-server $KW_CODE_SERVER_VERSION on 127.0.0.1:$PORT (log: $STATE/code-server.log)"
"${CS[@]}" --bind-addr "127.0.0.1:$PORT" --auth none \
  --disable-telemetry --disable-update-check --disable-getting-started-override \
  "$FOLDER" > "$STATE/code-server.log" 2>&1 &
CS_PID=$!
trap 'kill "$CS_PID" 2>/dev/null; wait "$CS_PID" 2>/dev/null; echo; kw_log "code-server stopped"' EXIT
trap 'exit 130' INT TERM
for _ in $(seq 1 600); do
  if node -e 'require("http").get(process.argv[1],r=>process.exit(r.statusCode===200?0:1)).on("error",()=>process.exit(1))' "http://127.0.0.1:$PORT/healthz"; then
    break
  fi
  kill -0 "$CS_PID" 2>/dev/null || { tail -20 "$STATE/code-server.log" >&2; kw_die "code-server exited (port $PORT in use? try --port)"; }
  sleep 0.1
done
echo
echo "  Kubeadm Workbench is running in VS Code (code-server $KW_CODE_SERVER_VERSION), ready after $(( ($(date +%s%N) - t0) / 1000000 )) ms:"
echo
echo "      $URL"
echo
echo "  Folder: $FOLDER    Press Ctrl-C to stop."
wait "$CS_PID"
