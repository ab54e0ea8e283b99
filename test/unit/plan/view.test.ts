import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { runPlanVerb } from '../../../src/cli/bringUp';
import type { PlanView } from '../../../src/core/plan/view';
import { memoryIo } from '../cli/memoryIo';
import { tempDir } from '../../tempDir';

// A copy: `plan` keeps the cluster's VRRP password in the state folder beside the inventory, not in the repository.
const EXAMPLE = tempDir('kw-view-');
cpSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), join(EXAMPLE, 'inventory.yaml'));
const INVENTORY = join(EXAMPLE, 'inventory.yaml');


async function jsonPlan(): Promise<PlanView> {
  const io = memoryIo();
  const code = await runPlanVerb(['--inventory', INVENTORY, '--format', 'json', '--kubeconfig', '/nonexistent/kubeconfig'], io);
  assert.equal(code, 0, io.err);
  return JSON.parse(io.out) as PlanView;
}

test('plan --format json: phases → hosts → steps with the same commands as the text plan', async () => {
  const view = await jsonPlan();
  assert.deepEqual([...new Set(view.phases.map((p) => p.phase))], ['prepare', 'loadbalancer', 'init', 'join-control-plane', 'join-workers', 'verify']);
  const prepare = view.phases[0]!;
  assert.equal(prepare.order, 'parallel');
  assert.deepEqual(prepare.hosts.map((h) => h.host), ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03', 'labs-k8s-w01', 'labs-k8s-w02']);
  assert.ok(prepare.hosts.every((h) => h.steps.length > 1), 'each host of a parallel phase is one group with all its steps');
  assert.equal(view.stepCount, view.phases.reduce((n, p) => n + p.hosts.reduce((m, h) => m + h.steps.length, 0), 0));
  assert.deepEqual(view.hosts.sort(), ['labs-k8s-balancer', 'labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03', 'labs-k8s-w01', 'labs-k8s-w02']);

  const text = memoryIo();
  assert.equal(await runPlanVerb(['--inventory', INVENTORY, '--kubeconfig', '/nonexistent/kubeconfig'], text), 0);
  for (const p of view.phases) for (const h of p.hosts) for (const s of h.steps) if (s.run) assert.ok(text.out.includes(`run: ${s.run}`), `${s.id}: its command is the text plan's`);
});

test('serial phases keep their real order: a host appears again after the steps about it on another host', async () => {
  // The joins themselves (their credentials come first, in a phase of their own on the first node).
  const join = (await jsonPlan()).phases.filter((p) => p.phase === 'join-control-plane').at(-1)!;
  assert.equal(join.order, 'serial');
  const order = join.hosts.map((h) => h.host);
  assert.ok(order.length > new Set(order).size, `hosts repeat in a serial phase: ${order.join(', ')}`);
  for (let i = 1; i < order.length; i++) assert.notEqual(order[i], order[i - 1], 'consecutive steps of one host are one group');
});

test('secrets stay masked and file contents are not in the JSON', async () => {
  const view = await jsonPlan();
  const all = JSON.stringify(view);
  const init = view.phases.find((p) => p.phase === 'init')!;
  const join = view.phases.filter((p) => p.phase === 'join-control-plane').at(-1)!;
  assert.match(JSON.stringify(join), /\*\*\*/, 'join commands show their token and certificate key as ***');
  assert.doesNotMatch(all, /--token [a-z0-9]{6}\.[a-z0-9]{16}/);
  const files = init.hosts.flatMap((h) => h.steps.flatMap((s) => s.files));
  assert.ok(files.length > 0 && files.every((f) => /^0[0-7]{3}$/.test(f.mode)));
  assert.ok(!('content' in files[0]!));
});

test('plan --format xml is a usage error', async () => {
  const io = memoryIo();
  assert.equal(await runPlanVerb(['--inventory', INVENTORY, '--format', 'xml'], io), 2);
  assert.match(io.err, /--format is text or json/);
});
