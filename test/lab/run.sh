#!/usr/bin/env bash
# The lab tier (`npm run test:lab`, root): the engine's bring-up from bare nodes, the lab's acceptance suite (the
# reference cluster and its failovers), then the live views against that cluster. The lab is taken down at the end
# whatever happened; the exit code is non-zero when any part failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
trap 'bash lab/lab.sh down >/dev/null 2>&1' EXIT
rc=0
rm -f test-results/lab/bench.json   # each test records its numbers; printed with their ratios at the end
node --import tsx --test --test-reporter=spec --test-concurrency=1 test/lab/bringup.test.ts || rc=1
KW_LAB_KEEP=1 node --import tsx --test --test-reporter=spec --test-concurrency=1 test/lab/lab.test.ts || rc=1
node scripts/build.mjs >/dev/null && node --import tsx --test --test-reporter=spec --test-concurrency=1 test/lab/live/*.test.ts || rc=1
# Maintenance on the cluster the acceptance suite left: a worker joined back by a sudo user.
node --import tsx --test --test-reporter=spec --test-concurrency=1 test/lab/join.test.ts || rc=1
# Drain / cordon / uncordon next to kubectl drain on the same cluster, --then over SSH, the control-plane guard.
node --import tsx --test --test-reporter=spec --test-concurrency=1 test/lab/drain.test.ts || rc=1
# The failure drill on the same cluster: power-off of a control-plane node, stop of a worker with evictions.
node --import tsx --test --test-reporter=spec --test-concurrency=1 test/lab/drill.test.ts || rc=1
node scripts/lab-bench.mjs
exit $rc
