/**
 * The kubelet.conf fix's restart step is done only when the restarted kubelet is back (core/certs/kubelet.ts,
 * kubeletBackAfterRestart): its node Lease renewed after systemd's start time of the new process, the kubelet still
 * active, the Node Ready. Run with sh against fake `systemctl` and `kubectl` (shell scripts on PATH that answer as the
 * node would); `date` is the real one, so systemd's and the Lease's time formats are parsed as on a node.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { kubeletBackAfterRestart } from '../../../src/core/certs/kubelet';
import { tempDir } from '../../tempDir';

/** As `systemctl show -p ActiveEnterTimestamp --value --timestamp=us` prints it: `Sat 2026-12-05 15:20:01.123456 UTC`. */
function systemdTimeUs(ms: number, us = 0): string {
  const d = new Date(ms);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()];
  const micro = String(d.getUTCMilliseconds() * 1000 + us).padStart(6, '0');
  return `${day} ${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)}.${micro} UTC`;
}
/** As a Lease's spec.renewTime (a MicroTime): `2026-12-05T15:20:01.500000Z`. */
const microTime = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

interface Node {
  /** What systemctl prints for the start time ('' as a systemd without --timestamp=us leaves it). */
  since: string;
  renewTime: string;
  active: boolean;
  ready: 'True' | 'False' | 'Unknown';
}

function back(node: Node): number {
  const dir = tempDir('kw-kubelet-back-');
  writeFileSync(
    join(dir, 'systemctl'),
    `#!/bin/sh\ncase "$*" in\n  "show kubelet -p ActiveEnterTimestamp --value --timestamp=us") echo '${node.since}' ;;\n  "is-active --quiet kubelet") exit ${node.active ? 0 : 3} ;;\n  *) echo "unexpected: $*" >&2; exit 2 ;;\nesac\n`,
  );
  // kubectl --kubeconfig F --request-timeout=10s get lease/w02 -n kube-node-lease -o jsonpath=… | get node/w02 -o jsonpath=…
  writeFileSync(
    join(dir, 'kubectl'),
    `#!/bin/sh\ncase "$*" in\n  *"get lease/w02 -n kube-node-lease"*) printf '%s' '${node.renewTime}' ;;\n  *"get node/w02 "*) printf '%s' '${node.ready}' ;;\n  *) echo "unexpected: $*" >&2; exit 2 ;;\nesac\n`,
  );
  for (const f of ['systemctl', 'kubectl']) chmodSync(join(dir, f), 0o755);
  const r = spawnSync('sh', ['-c', kubeletBackAfterRestart('w02').text], { encoding: 'utf8', env: { ...process.env, PATH: `${dir}:${process.env.PATH}` } });
  return r.status ?? -1;
}

const start = Date.parse('2026-12-05T15:20:01.123Z');

test('the Lease renewed by the restarted kubelet, which runs on, and the node Ready: back', () => {
  assert.equal(back({ since: systemdTimeUs(start), renewTime: microTime(start + 400), active: true, ready: 'True' }), 0);
});

test('a renewal within the second of the restart but before it (the old process\'s) is no proof: microseconds decide', () => {
  assert.equal(back({ since: systemdTimeUs(start), renewTime: microTime(start - 300), active: true, ready: 'True' }), 1);
  assert.equal(back({ since: systemdTimeUs(start, 500), renewTime: microTime(start), active: true, ready: 'True' }), 1, 'half a millisecond earlier');
});

test('Ready from the old kubelet\'s status is not enough: no renewal since the restart, not back', () => {
  assert.equal(back({ since: systemdTimeUs(start), renewTime: microTime(start - 8_000), active: true, ready: 'True' }), 1);
});

test('a time not read is no proof: a systemd without --timestamp=us, a Lease without renewTime', () => {
  assert.notEqual(back({ since: '', renewTime: microTime(start + 400), active: true, ready: 'True' }), 0);
  assert.notEqual(back({ since: systemdTimeUs(start), renewTime: '', active: true, ready: 'True' }), 0);
});

test('one renewal and then a crash, or the node not Ready: not back', () => {
  assert.notEqual(back({ since: systemdTimeUs(start), renewTime: microTime(start + 400), active: false, ready: 'True' }), 0);
  assert.notEqual(back({ since: systemdTimeUs(start), renewTime: microTime(start + 400), active: true, ready: 'Unknown' }), 0);
});
