import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { sh } from '../../../src/core/ssh/command';
import { createLedger } from '../../../src/engine/state/runLedger';
import { HostLocks } from '../../../src/engine/state/hostLocks';
import { LocalExecutor } from '../../../src/adapters/local/localExecutor';
import { concurrentGroups, runPlan, type RunEvent } from '../../../src/core/plan/runner';
import type { PhasePlan, Plan } from '../../../src/core/plan/types';
import { initPhase, joinControlPlanePhases } from '../../../src/core/phases/bringUp';
import { tempDir } from '../../tempDir';

const phase = (id: PhasePlan['phase'], hosts: string[], alongsidePrevious = false, run = sh`sleep 0.3`): PhasePlan => ({
  phase: id, title: id, order: 'parallel', warnings: [], ...(alongsidePrevious ? { alongsidePrevious } : {}),
  steps: hosts.map((h) => ({ id: `${id}/${h}/s`, phase: id, host: h, title: `${id} on ${h}`, run })),
});

test('a phase marked alongsidePrevious runs with the one before it only when they share no host', () => {
  const groups = (ps: PhasePlan[]) => concurrentGroups(ps).map((g) => g.map((p) => p.phase));
  assert.deepEqual(groups([phase('prepare', ['m01', 'w01']), phase('loadbalancer', ['lb'], true), phase('init', ['m01'])]), [['prepare', 'loadbalancer'], ['init']]);
  // A balancer that is also a node (co-located): one after the other.
  assert.deepEqual(groups([phase('prepare', ['m01', 'lb']), phase('loadbalancer', ['lb'], true)]), [['prepare'], ['loadbalancer']]);
  assert.deepEqual(groups([phase('prepare', ['m01']), phase('loadbalancer', ['lb'])]), [['prepare'], ['loadbalancer']]);
});

async function run(plan: Plan) {
  const dir = tempDir('kw-conc-');
  const ledger = createLedger(join(dir, 'runs'), 'up', plan.fingerprint);
  const events: (RunEvent & { at: number })[] = [];
  const result = await runPlan(plan, { executor: new LocalExecutor(), ledger, locks: new HostLocks(join(dir, 'locks'), ledger.data.runId), maxParallelHosts: 10, onEvent: (e) => events.push({ ...e, at: Date.now() }), verifyIntervalMs: 10 });
  return { result, events, ledger };
}

test('the balancers are set up while the nodes are prepared; a failure in either still fails the run after both end', async () => {
  const t0 = Date.now();
  const { result, events } = await run({ fingerprint: 'c', phases: [phase('prepare', ['m01', 'w01']), phase('loadbalancer', ['lb'], true), phase('init', ['m01'], false, sh`true`)] });
  assert.equal(result.ok, true);
  const start = (id: string) => events.find((e) => e.type === 'step-start' && e.step.id === id)!.at;
  const end = (id: string) => events.find((e) => e.type === 'step-end' && e.step.id === id)!.at;
  assert.ok(start('loadbalancer/lb/s') < end('prepare/m01/s'), 'the balancer step started before node preparation ended');
  assert.ok(start('init/m01/s') >= end('loadbalancer/lb/s') && start('init/m01/s') >= end('prepare/w01/s'), 'init waits for both');
  // Side by side: the group took less than its two steps one after the other, however slow the machine (a bound
  // in wall time failed at load 17: 737 ms for two 0.3 s steps, each slowed too).
  const group = Math.max(end('prepare/m01/s'), end('prepare/w01/s'), end('loadbalancer/lb/s')) - Math.min(start('prepare/m01/s'), start('loadbalancer/lb/s'));
  const oneAfterTheOther = end('prepare/m01/s') - start('prepare/m01/s') + (end('loadbalancer/lb/s') - start('loadbalancer/lb/s'));
  assert.ok(group < oneAfterTheOther, `two 0.3 s phases side by side, not one after the other (${group} ms, ${oneAfterTheOther} ms one after the other; run ${Date.now() - t0} ms)`);

  const failing = await run({ fingerprint: 'd', phases: [phase('prepare', ['m01']), phase('loadbalancer', ['lb'], true, sh`exit 4`), phase('init', ['m01'], false, sh`true`)] });
  assert.equal(failing.result.ok, false);
  assert.equal(failing.result.failed!.step.id, 'loadbalancer/lb/s');
  assert.ok(failing.events.some((e) => e.type === 'step-end' && e.step.id === 'prepare/m01/s' && e.state === 'done'), 'the other phase finished its step');
  assert.ok(!failing.events.some((e) => e.type === 'step-start' && e.step.id === 'init/m01/s'), 'nothing after the group ran');
});

test('init hands its certificate key to the control-plane joins; the re-upload is skipped within the run only', async () => {
  const inv = { cluster: { name: 'c', kubernetesVersion: '1.34.12', controlPlaneEndpoint: '10.0.0.100:6443', cni: 'flannel' }, ssh: {}, hosts: [{ name: 'm01', address: '10.0.0.1', roles: ['control-plane'] }] } as never;
  const init = initPhase(inv, { kubeadmInitConfig: 'x' } as never, { cniManifest: 'y' }, { saveAdminKubeconfig: async () => undefined }).steps.find((s) => s.id.endsWith('kubeadm-init'))!;
  const key = 'a'.repeat(64);
  const out = `[upload-certs] Using certificate key:\n${key}\n...\n  kubeadm join 10.0.0.100:6443 --token x --control-plane --certificate-key ${key}\n`;
  assert.deepEqual(Object.keys(init.capture!(out)).sort(), ['certificateKey', 'certificateKeyAt']);
  assert.equal(init.capture!(out).certificateKey, key);
  assert.deepEqual(init.secretCaptures, ['certificateKey'], 'the key never reaches the ledger');
  assert.deepEqual(init.capture!('no key printed'), {});
  const upload = joinControlPlanePhases(inv, { cniManifest: 'y' }).flatMap((p) => p.steps).find((s) => s.id.endsWith('/certificate-key'))!;
  const values = (v: Record<string, string>) => ({ get: (k: string) => v[k] });
  assert.equal(upload.skipWhen!(values({ certificateKey: key, certificateKeyAt: String(Date.now() - 60_000) })), true, 'init of this run uploaded them a minute ago');
  assert.equal(upload.skipWhen!(values({ certificateKey: key, certificateKeyAt: String(Date.now() - 2 * 3600_000) })), false, 'too old: upload again');
  assert.equal(upload.skipWhen!(values({ certificateKeyAt: String(Date.now()) })), false, 'a resumed run has no key (secrets are not kept): upload again');
});

test('a cancel while a worker join runs beside a control-plane join names the control-plane join, even when the worker\'s command ends first', async () => {
  const dir = tempDir('kw-conc-');
  const plan: Plan = {
    fingerprint: 'cancel-beside',
    phases: [
      { ...phase('join-control-plane', ['m02'], false, sh`trap 'sleep 0.4; exit 143' TERM; sleep 5 & wait`), order: 'serial' },
      { ...phase('join-workers', ['w01'], false, sh`sleep 5`), overlaps: ['join-control-plane'] },
    ],
  };
  const ledger = createLedger(join(dir, 'runs'), 'up', plan.fingerprint);
  const abort = new AbortController();
  const ends: string[] = [];
  const started = new Set<string>();
  const running = runPlan(plan, {
    executor: new LocalExecutor(), ledger, locks: new HostLocks(join(dir, 'locks'), ledger.data.runId), maxParallelHosts: 10, signal: abort.signal,
    onEvent: (e) => {
      if (e.type === 'step-start') started.add(e.step.id);
      if (e.type === 'step-end') ends.push(`${e.step.id}:${e.state}`);
    },
  });
  // Both commands running, and time for the control-plane one's shell to set its trap (a fixed 300 ms was not
  // always enough on a loaded machine: the TERM came before the trap and ended that command first).
  for (const t0 = Date.now(); started.size < 2 && Date.now() - t0 < 10_000; ) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 300));
  abort.abort();
  const result = await running;
  assert.equal(result.cancelled, true);
  assert.deepEqual(ends, ['join-workers/w01/s:cancelled', 'join-control-plane/m02/s:cancelled'], 'the worker\'s command ended first');
  assert.equal(result.failed?.step.id, 'join-control-plane/m02/s');
});
