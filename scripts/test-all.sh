#!/usr/bin/env bash
# `npm test`: everything, in order — setup, build, setup-cold, typecheck, lint (the lab build in the background
# from here on), then the test tiers:
#   unit    tier 1: src/core with Node's test runner            (npm run test:unit)
#   package the .vsix holds every file the extension loads      (npm run test:package)
#   vscode  tier 2: mocha inside real VS Code's extension host  (npm run test:vscode)
#   ui      tier 3: Chromium driving VS Code (playwright-core)  (npm run test:ui)
#   ...     every further tier listed in TIERS whose `test:<tier>` script exists in package.json.
# Each step prints its own summary; the last line is "N passed, N failed" over the steps followed by the tests passed,
# failed and skipped over all tiers, and the exit code is non-zero when any step failed. A required step that cannot
# run fails, a tier that ran no test fails, and skipped tests are counted per tier: nothing is skipped silently.
# Options: --only a,b (run only these steps, e.g. --only vscode,ui), --no-setup. Logs: test-results/logs/<step>.log
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

# Required tiers (a missing script is a failure) and optional tiers (run when package.json has test:<tier>).
# To add a tier: add a `test:<tier>` script to package.json and its name to one of these lists.
REQUIRED_TIERS=(unit package vscode ui)
OPTIONAL_TIERS=(
  integration  # the live-cluster adapters against a real etcd + kube-apiserver
  lab        # the lab engineer's tier: real kubeadm clusters in network namespaces (needs root)
)

ONLY=""
SETUP=1
while [ $# -gt 0 ]; do
  case $1 in
    --only) ONLY=",$2,"; shift ;;
    --only=*) ONLY=",${1#--only=},"; ;;
    --no-setup) SETUP=0 ;;
    *) echo "test-all.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

LOGS="$ROOT/test-results/logs"
mkdir -p "$LOGS"
rm -f "$LOGS"/*.log
passed=0
failed=0
tests_passed=0
tests_failed=0
tests_skipped=0
declare -a SUMMARY=()
all_started=$(date +%s)

wanted() { [ -z "$ONLY" ] || [[ $ONLY == *",$1,"* ]]; }
has_script() { node -e 'process.exit(require("./package.json").scripts?.[process.argv[1]] ? 0 : 1)' "$1"; }

# step NAME CMD... : runs CMD, tees its output to test-results/logs/NAME.log, records pass/fail and time. A test
# tier (one of the tier lists) that exits 0 but ran no test fails: a runner that found nothing proves nothing.
step() {
  local name=$1; shift
  wanted "$name" || return 0
  echo
  echo "══════ $name: $*"
  local s=$SECONDS rc
  "$@" 2>&1 | tee "$LOGS/$name.log"
  rc=${PIPESTATUS[0]}
  local dt=$(( SECONDS - s ))
  read_counts "$LOGS/$name.log"
  local counts=""
  if [ -n "$tp" ]; then
    counts="tests: $tp passed, $tf failed, $ts skipped"
    tests_passed=$((tests_passed + tp)); tests_failed=$((tests_failed + tf)); tests_skipped=$((tests_skipped + ts))
  fi
  if [ "$rc" = 0 ] && is_tier "$name" && [ "$(( ${tp:-0} + ${tf:-0} ))" = 0 ]; then
    rc="none"; counts="${counts:-tests: none reported} — ran no test"
  fi
  if [ "$rc" = 0 ]; then
    passed=$((passed + 1)); SUMMARY+=("$(printf '  %-12s PASS  %4ss  %s' "$name" "$dt" "$counts")")
    echo "══════ $name: PASS (${dt}s)"
    local skipped; skipped=$(skipped_tests "$LOGS/$name.log")
    [ -z "$skipped" ] || SUMMARY+=("$skipped")
  else
    failed=$((failed + 1)); SUMMARY+=("$(printf '  %-12s FAIL  %4ss  %s(exit %s, log: test-results/logs/%s.log)' "$name" "$dt" "${counts:+$counts }" "$rc" "$name")")
    local which; which=$(failing_tests "$LOGS/$name.log")
    [ -z "$which" ] || SUMMARY+=("$which")
    which=$(skipped_tests "$LOGS/$name.log")
    [ -z "$which" ] || SUMMARY+=("$which")
    echo "══════ $name: FAIL (exit $rc, ${dt}s)"
  fi
  return 0
}
is_tier() { [[ " ${REQUIRED_TIERS[*]} ${OPTIONAL_TIERS[*]} " == *" $1 "* ]]; }
# The test counts a step's log reports, into tp/tf/ts (empty when it reports none): node:test's "ℹ pass N",
# "ℹ fail N", "ℹ cancelled N", "ℹ skipped N", "ℹ todo N" summed (a tier may run node:test more than once: the lab
# tier runs seven files), else the extension-host runner's last "N passed, N failed[, N skipped]".
read_counts() {
  local sum='{s += $3} END {print s + 0}'
  tp=; tf=; ts=
  if grep -aqE '^ℹ pass [0-9]+' "$1"; then
    tp=$(grep -aE '^ℹ pass [0-9]+' "$1" | awk "$sum")
    tf=$(grep -aE '^ℹ (fail|cancelled) [0-9]+' "$1" | awk "$sum")
    ts=$(grep -aE '^ℹ (skipped|todo) [0-9]+' "$1" | awk "$sum")
    return
  fi
  local last; last=$(grep -aoE '[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?' "$1" | tail -1)
  [ -n "$last" ] || return 0
  tp=$(echo "$last" | awk '{print $1}'); tf=$(echo "$last" | awk '{print $3}')
  ts=$(echo "$last" | grep -oE '[0-9]+ skipped' | awk '{print $1}'); ts=${ts:-0}
}
# The tests a step's log reports failed, for the summary (CI may keep only the end of the output): the extension-host
# runner's (mocha's) "N failing" list — each failure's title lines and its first message line — and node:test's "✖"
# lines, each once, with the first line of the error under it (the assertion's message: why it failed, not only
# which). At most 16 lines.
failing_tests() {
  {
    awk '/^ *[0-9]+ failing$/ {on = 1; next} on && /^ *[0-9]+\) / {n = 3} on && n > 0 && NF {print; n--}' "$1"
    awk '
      function flush() {
        if (name != "" && !(name in seen)) { seen[name] = 1; print "✖ " name; if (msg != "") print "  └ " substr(msg, 1, 240) }
        name = ""; msg = ""; want = 0
      }
      /^ *✖ failing tests:/ { flush(); next }
      /^ *✖ / { flush(); name = $0; sub(/^ *✖ /, "", name); sub(/ \([0-9.]+ms\)$/, "", name); want = 1; next }
      want && NF { if ($0 !~ /^ *(at |ℹ |✔ |▶ |test at )/) { msg = $0; sub(/^ */, "", msg) } flush() }
      END { flush() }' "$1"
  } | head -16 | sed -E 's/^ */      /; s/^      └/        └/'
}
# The tests a step's log reports skipped (node:test's "﹣ name (…ms) # reason" lines), each once with its reason, for the
# summary: a skip is named where the counts are, never only counted. At most 12 lines.
skipped_tests() {
  grep -a '^ *﹣ ' "$1" | sed -E 's/^ *﹣ //; s/ \([0-9.]+m?s\)( # |$)/\1/' | awk '!seen[$0]++' | head -12 | sed 's/^/      ﹣ skipped: /'
}
fail_step() {
  failed=$((failed + 1)); SUMMARY+=("$(printf '  %-12s FAIL  (%s)' "$1" "$2")")
  echo "══════ $1: FAIL — $2"
}

# Whether the tools cache holds neither Node 24 nor code-server: then the setup step below is the README's setup from an
# empty cache (a first run on a new machine), and step setup-cold would only do it again — about two minutes of CPU
# beside the lab's cold build, which it delays.
tools_cache_empty() { ( . scripts/lib/tools.sh && [ ! -e "$KW_NODE24" ] && [ ! -e "$KW_CS_ENTRY" ] ); }
SETUP_FROM_EMPTY=0
if [ "$SETUP" = 1 ]; then
  if wanted setup && tools_cache_empty; then SETUP_FROM_EMPTY=1; fi
  step setup npm run -s setup
  if [ "$failed" -gt 0 ]; then
    echo
    echo "setup failed: every step after it needs what it installs (see the message above); nothing else was run." >&2
    echo "0 passed, 1 failed"
    exit 1
  fi
fi
# The README's setup as on a fresh machine: `npm run setup` into an empty, temporary tools cache, so that a missing
# install step fails CI instead of hiding behind this machine's warm cache (removed afterwards; the tiers keep using the
# usual cache). Not cold: npm's download cache (~/.npm), the Debian packages and node_modules — it proves the install
# steps, not the network. Runs in a full run (and with --only setup-cold).
cold_setup() {
  local tools
  tools=$(mktemp -d "${TMPDIR:-/tmp}/kw-cold-tools.XXXXXX") || return 1
  trap "rm -rf '$tools'" EXIT   # step runs this in a subshell: the cache goes however the step ends
  echo "empty tools cache: $tools"
  KW_TOOLS=$tools npm run -s setup
}
step build npm run -s build
# Kubernetes, etcd and friends built from source (cached outside the repo; seconds when cached, ten to twenty minutes
# for the current minor the first time, then about as long again for the previous one). The unit, vscode, ui and
# integration tiers need only its kube and etcd binaries (kubeadm as an oracle, a real kube-apiserver and etcd), which
# it builds first; the lab tier needs the current minor to start and the previous one only for its last files (the
# engine's bring-up at that minor and the upgrade). So on a cold machine the build goes on in the background, at the
# lowest CPU priority, while the other tiers run: step lab-binaries waits for kube and etcd, step lab-build for the
# current minor, just before the lab tier; the previous minor builds on beside the lab tier (whose files at that minor
# wait for it: KW_LAB_PREVIOUS_BUILD_STATUS) — its time is the lab-build-previous line of the summary.
LAB_BUILD_PID=""
if has_script lab && wanted lab-build; then
  echo; echo "══════ lab-build: started in the background (log: test-results/logs/lab-build-output.log)"
  rm -f "$LOGS/lab-build.status" "$LOGS/lab-build-previous.status"
  ( lab_build_started=$SECONDS
    nice -n 19 npm run -s lab -- build --current-minor > "$LOGS/lab-build-output.log" 2>&1; rc=$?
    echo "$rc $(( SECONDS - lab_build_started ))" > "$LOGS/lab-build.status"
    if [ "$rc" != 0 ]; then echo "$rc 0" > "$LOGS/lab-build-previous.status"; exit; fi
    lab_build_started=$SECONDS
    nice -n 19 npm run -s lab -- build > "$LOGS/lab-build-previous-output.log" 2>&1; rc=$?
    echo "$rc $(( SECONDS - lab_build_started ))" > "$LOGS/lab-build-previous.status" ) &
  LAB_BUILD_PID=$!
fi
# lab_build_wait [kube etcd]: until those components are built (none named: until the whole build ended); fails when
# the build ended without them, or failed.
lab_build_wait() {
  while :; do
    if [ $# -gt 0 ] && bash lab/lab.sh built "$@" 2>/dev/null; then echo "lab build: $* ready"; return 0; fi
    if [ -f "$LOGS/lab-build.status" ]; then
      local rc secs; read -r rc secs < "$LOGS/lab-build.status"
      tail -n 25 "$LOGS/lab-build-output.log"
      echo "lab build ended (exit $rc) after ${secs}s"
      [ "$rc" = 0 ] || return 1
      [ $# -eq 0 ] || bash lab/lab.sh built "$@" || { echo "lab build ended without $*"; return 1; }
      return 0
    fi
    sleep 5
  done
}
# Beside the kube build: the cold setup (mostly code-server's download and native modules), typecheck, lint.
if [ "$SETUP" = 1 ] && [ "$SETUP_FROM_EMPTY" = 1 ] && wanted setup-cold; then
  echo; echo "══════ setup-cold: not run again — the setup step above found the tools cache empty and installed into it"
  SUMMARY+=("$(printf '  %-12s done by step setup (its tools cache was empty)' setup-cold)")
elif [ "$SETUP" = 1 ]; then
  step setup-cold cold_setup
fi
step typecheck npm run -s typecheck
step lint npm run -s lint
if [ -n "$LAB_BUILD_PID" ]; then step lab-binaries lab_build_wait kube etcd; fi
for tier in "${REQUIRED_TIERS[@]}"; do
  wanted "$tier" || continue
  if has_script "test:$tier"; then step "$tier" npm run -s "test:$tier"; else fail_step "$tier" "package.json has no test:$tier script"; fi
done
for tier in "${OPTIONAL_TIERS[@]}"; do
  if [ "$tier" = lab ] && [ -n "$LAB_BUILD_PID" ]; then step lab-build lab_build_wait; fi
  wanted "$tier" || continue
  if [ "$tier" = lab ] && [ -n "$LAB_BUILD_PID" ] && has_script "test:$tier"; then
    step "$tier" env KW_LAB_PREVIOUS_BUILD_STATUS="$LOGS/lab-build-previous.status" npm run -s "test:$tier"
  elif has_script "test:$tier"; then step "$tier" npm run -s "test:$tier"
  else echo; echo "══════ $tier: not run — package.json has no test:$tier script (tier not set up in this checkout)"; SUMMARY+=("$(printf '  %-12s not defined' "$tier")"); fi
done

# test:* scripts that no list names are not run: say so, so that nothing is skipped silently.
NOT_TIERS=(electron lab:live)   # electron needs a VS Code download (see README); lab:live is a part of the lab tier, to run alone
unlisted=$(node -e 'const known = new Set(process.argv.slice(1)); console.log(Object.keys(require("./package.json").scripts ?? {})
  .filter((k) => k.startsWith("test:") && !known.has(k.slice(5))).join(" "))' "${REQUIRED_TIERS[@]}" "${OPTIONAL_TIERS[@]}" "${NOT_TIERS[@]}")
if [ -n "$unlisted" ] && [ -z "$ONLY" ]; then
  echo; echo "══════ note: not run because scripts/test-all.sh lists no such tier: $unlisted"
  SUMMARY+=("  (not listed: $unlisted)")
fi

# The previous minor's build ran beside the tiers (the lab tier waited for it before its files at that minor): its
# outcome and time, and nothing of it left running.
if [ -n "$LAB_BUILD_PID" ]; then
  wait "$LAB_BUILD_PID" 2>/dev/null
  if [ -f "$LOGS/lab-build-previous.status" ]; then
    read -r prc psecs < "$LOGS/lab-build-previous.status"
    if [ "$prc" = 0 ]; then
      passed=$((passed + 1)); SUMMARY+=("$(printf '  %-12s PASS  %4ss  (beside the tiers; log: test-results/logs/lab-build-previous-output.log)' lab-build-previous "$psecs")")
    else
      failed=$((failed + 1)); SUMMARY+=("$(printf '  %-12s FAIL  %4ss  (exit %s, log: test-results/logs/lab-build-previous-output.log)' lab-build-previous "$psecs" "$prc")")
    fi
  fi
fi

echo
echo "══════ summary ($(( $(date +%s) - all_started ))s)"
printf '%s\n' "${SUMMARY[@]}"
# Measurements the tiers print (activation end to end and inside activate(), VS Code start-to-usable).
for m in "activation end to end: [0-9]+ ms" "activate: [0-9.]+ ms" "code-server start-to-usable: [0-9]+ ms"; do
  hit=$(cat "$LOGS"/vscode.log "$LOGS"/ui.log 2>/dev/null | grep -aoE "$m" | head -1)
  [ -z "$hit" ] || echo "  measured     $hit"
done
echo "$passed passed, $failed failed; tests: $tests_passed passed, $tests_failed failed, $tests_skipped skipped"
[ "$failed" = 0 ]
