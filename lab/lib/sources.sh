# The air-gapped sources served on the lab bridge: the apt repository (plain HTTP, signed metadata) and the
# OCI registry (distribution, plain HTTP; containerd reaches it through hosts.toml mirrors).
# shellcheck shell=bash

REPO_WWW="$CACHE/repo/www"          # built by lab/sources/apt-repo.sh
REGISTRY_DATA="$CACHE/registry"     # filled by lab/sources/images.sh

pid_alive_ours() { # pidfile pattern
  local p; p=$(cat "$1" 2>/dev/null) || return 1
  [[ -r "/proc/$p/cmdline" ]] && tr '\0' ' ' <"/proc/$p/cmdline" | grep -q -- "$2"
}

sources_up() {
  mkdir -p "$REPO_WWW" "$REGISTRY_DATA"
  if ! pid_alive_ours "$RUN/apt-http.pid" "http.server $APT_PORT"; then
    # (a plain command, not the in_netns function, so that $! is the server itself: nsenter and setsid exec)
    nsenter --net="/run/netns/$NETNS" setsid python3 -m http.server "$APT_PORT" --bind "$GW_IP" --directory "$REPO_WWW" \
      </dev/null >"$RUN/apt-http.log" 2>&1 &
    echo $! >"$RUN/apt-http.pid"
  fi
  local reg="$CACHE/bin/registry-$DISTRIBUTION_VERSION/registry"
  if [[ -x "$reg" ]]; then
    if ! pid_alive_ours "$RUN/registry.pid" "registry serve"; then
      cat >"$RUN/registry.yml" <<YML
version: 0.1
log: { level: warn, accesslog: { disabled: true } }
storage: { filesystem: { rootdirectory: $REGISTRY_DATA }, delete: { enabled: true } }
http: { addr: "$REGISTRY", secret: kwlab-not-secret }
YML
      nsenter --net="/run/netns/$NETNS" setsid "$reg" serve "$RUN/registry.yml" </dev/null >"$RUN/registry.log" 2>&1 &
      echo $! >"$RUN/registry.pid"
    fi
  else
    log "registry not built yet ($reg): run 'npm run lab -- build'"
  fi
  local i
  for i in $(seq 1 50); do
    curl -fsS -o /dev/null "$APT_URL/" 2>/dev/null && break; sleep 0.1
  done
}

sources_down() {
  local f p
  # after a crash the pid files may be gone or stale: find the lab's servers by their exact command lines,
  # which name the lab's own directories (nothing else on the machine runs these)
  for p in $(pgrep -f -- "http.server $APT_PORT --bind $GW_IP --directory $REPO_WWW") \
           $(pgrep -f -- "registry serve $RUN/registry.yml"); do
    kill "$p" 2>/dev/null || true
  done
  for f in apt-http registry; do
    if pid_alive_ours "$RUN/$f.pid" "$([[ $f == registry ]] && echo 'registry serve' || echo http.server)"; then
      kill "$(cat "$RUN/$f.pid")" 2>/dev/null || true
    fi
    rm -f "$RUN/$f.pid"
  done
}
