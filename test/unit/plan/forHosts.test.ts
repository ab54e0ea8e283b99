import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { PhaseConfigs, PhaseSources } from '../../../src/core/phases/configs';
import { planForHosts } from '../../../src/core/plan/forHosts';
import { buildBringUpPlan } from '../../../src/engine/bringUp';
import { Prompter } from '../../../src/cli/secretPrompt';

const inv = parseInventory(readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;
const configs: PhaseConfigs = {
  modules: 'overlay\n', nodeSysctl: 'x = 1\n', balancerSysctl: 'y = 1\n', containerdConfig: 'version = 2\n', containerdHosts: {},
  haproxyConfig: 'global\n', keepalivedConfig: { 'labs-k8s-balancer': 'vrrp_instance X {}\n' }, kubeadmInitConfig: 'kind: InitConfiguration\n',
};
const sources: PhaseSources = { cniManifest: 'kind: List\n' };
const full = buildBringUpPlan(inv, ['prepare', 'loadbalancer', 'join-control-plane', 'join-workers'], configs, sources, { saveAdminKubeconfig: async () => undefined });
const ids = (p: ReturnType<typeof planForHosts>) => p.phases.flatMap((ph) => ph.steps.map((s) => s.id));

test('a worker join: its prepare steps, the workers\' credentials, its join and its Ready gate — nothing of other hosts', () => {
  const plan = planForHosts(full, ['labs-k8s-w02']);
  const all = ids(plan);
  assert.ok(all.every((id) => id.includes('labs-k8s-w02') || /\/(ca-hash|token)$/.test(id)), all.join('\n'));
  assert.ok(all.includes('join-workers/labs-k8s-w02/join'));
  assert.ok(all.includes('join-workers/labs-k8s-m01/ready-labs-k8s-w02'), 'the Ready gate runs on the first control-plane node');
  assert.ok(all.includes('join-workers/labs-k8s-m01/token'));
  assert.ok(!all.some((id) => id.startsWith('join-control-plane/')), 'no control-plane credentials for a worker');
  assert.ok(!all.some((id) => id.includes('certificate-key')));
  assert.ok(all.some((id) => id.startsWith('prepare/labs-k8s-w02/')));
  assert.notEqual(plan.fingerprint, full.fingerprint, 'its own ledger, not the full bring-up\'s');
});

test('a control-plane join keeps the certificate key, its etcd gates and no other node\'s join', () => {
  const all = ids(planForHosts(full, ['labs-k8s-m03']));
  assert.ok(all.includes('join-control-plane/labs-k8s-m01/certificate-key'));
  assert.ok(all.includes('join-control-plane/labs-k8s-m03/join'));
  assert.ok(all.includes('join-control-plane/labs-k8s-m01/etcd-healthy-labs-k8s-m03'));
  assert.ok(all.includes('join-control-plane/labs-k8s-m01/forget-partial-labs-k8s-m03'));
  assert.ok(!all.some((id) => id.includes('labs-k8s-m02')), all.join('\n'));
  assert.ok(!all.some((id) => id.startsWith('join-workers/')), 'no worker credentials');
});

test('the CLI prompter reads a piped password and then the confirmation, losing neither', async () => {
  const input = new PassThrough();
  const errors = new PassThrough();
  let shown = '';
  errors.on('data', (d: Buffer) => (shown += d));
  const p = new Prompter(input, errors);
  input.end('pass word\ny\n');
  assert.equal(await p.askSecret('sudo password: '), 'pass word');
  assert.equal(await p.ask('Run this plan? [y/N] '), 'y');
  assert.equal(await p.ask('again? '), '', 'end of input answers empty');
  p.close();
  assert.doesNotMatch(shown, /pass word/);
});
