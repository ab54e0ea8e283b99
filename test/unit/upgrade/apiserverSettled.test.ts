/**
 * The gate before a control-plane node goes back into HAProxy after its kubelet restart (issue 36's 403): the API
 * server that answers must be the one the new kubelet keeps — started after the kubelet, or the same container still
 * running KUBELET_FIRST_SYNC_SECONDS after the kubelet's start. Run with sh against fake `systemctl` and `crictl`
 * (shell scripts on PATH that answer as the node would); `date` is the real one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { apiServerSettledAfterKubelet, KUBELET_FIRST_SYNC_SECONDS } from '../../../src/core/upgrade/commands';
import { tempDir } from '../../tempDir';

const iso = (epochS: number) => new Date(epochS * 1000).toISOString().replace(/\.000Z$/, '.123456789Z');
/** As systemctl prints ActiveEnterTimestamp: `Fri 2026-12-04 13:38:00 UTC`. */
const systemdTime = (epochS: number) => {
  const d = new Date(epochS * 1000);
  return `${['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()]} ${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)} UTC`;
};

/** Runs the gate on a node whose kubelet started `kubeletAgo` s ago and whose running kube-apiserver containers were created `created` s ago. */
function gate(kubeletAgo: number, created: number[]): { code: number; stderr: string } {
  const dir = tempDir('kw-settle-');
  const now = Math.floor(Date.now() / 1000);
  writeFileSync(join(dir, 'systemctl'), `#!/bin/sh\n[ "$*" = "show -p ActiveEnterTimestamp --value kubelet" ] && echo '${systemdTime(now - kubeletAgo)}'\n`);
  const ids = created.map((_, i) => `c${i}`);
  const inspect = created.map((ago, i) => `c${i}) echo '${iso(now - ago)}' ;;`).join('\n  ');
  writeFileSync(join(dir, 'crictl'), `#!/bin/sh\ncase "$1" in\n ps) printf '%s\\n' ${ids.join(' ') || "''"} | grep . ;;\n inspect) id=$(eval echo \\$$#); case "$id" in\n  ${inspect}\n  *) exit 1 ;;\n esac ;;\nesac\ntrue\n`);
  for (const f of ['systemctl', 'crictl']) chmodSync(join(dir, f), 0o755);
  const r = spawnSync('sh', ['-c', apiServerSettledAfterKubelet().text], { encoding: 'utf8', env: { ...process.env, PATH: `${dir}:${process.env.PATH}` } });
  return { code: r.status ?? -1, stderr: r.stderr };
}

test('the API server from before the kubelet restart is not taken for settled: the kubelet may still replace it', () => {
  const r = gate(5, [600]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /the container from before the kubelet restarted/);
});

test('a container the new kubelet started is the one it keeps: settled at once', () => {
  assert.equal(gate(20, [3]).code, 0);
});

test(`the old container still running ${KUBELET_FIRST_SYNC_SECONDS} s after the kubelet's start was kept: settled`, () => {
  assert.equal(gate(KUBELET_FIRST_SYNC_SECONDS + 2, [600]).code, 0);
});

test('no API server running (the old one stopped, the new one not yet started): not settled', () => {
  const r = gate(10, []);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /not running yet/);
});

test('two containers (the new one starting while the old one stops): the newest decides', () => {
  assert.equal(gate(10, [600, 2]).code, 0);
  assert.equal(gate(10, [600, 700]).code, 1);
});
