/**
 * The bring-up's order as the runner really schedules it: the whole plan of the lab inventory run against an
 * executor that answers like the hosts would (a control-plane join takes longest), timings taken from the
 * runner's events.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { PhaseConfigs, PhaseSources } from '../../../src/core/phases/configs';
import { createLedger } from '../../../src/engine/state/runLedger';
import { HostLocks } from '../../../src/engine/state/hostLocks';
import { phaseWaits, runPlan, type ExecResult, type RunEvent, type StepExecutor } from '../../../src/core/plan/runner';
import type { Plan } from '../../../src/core/plan/types';
import type { RemoteCommand } from '../../../src/core/ssh/command';
import { buildBringUpPlan } from '../../../src/engine/bringUp';
import { joinPhases, narrowToJoin } from '../../../src/engine/join';
import { tempDir } from '../../tempDir';

const inv = parseInventory(readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;
const configs: PhaseConfigs = {
  modules: 'overlay\n', nodeSysctl: 'x = 1\n', balancerSysctl: 'y = 1\n', containerdConfig: 'version = 2\n', containerdHosts: {},
  haproxyConfig: 'global\n', keepalivedConfig: { 'labs-k8s-balancer': 'vrrp_instance X {}\n' }, kubeadmInitConfig: 'kind: InitConfiguration\n',
};
const sources: PhaseSources = { cniManifest: 'kind: List\n' };
const hooks = { saveAdminKubeconfig: async () => undefined };
const M = (n: number) => `labs-k8s-m0${n}`;
const W = (n: number) => `labs-k8s-w0${n}`;

const caDir = tempDir('kw-overlap-ca-');
execSync(`openssl req -x509 -newkey rsa:2048 -nodes -keyout ${caDir}/ca.key -out ${caDir}/ca.crt -subj /CN=kubernetes -days 1 2>/dev/null`);
const caPem = readFileSync(join(caDir, 'ca.crt'), 'utf8');

/** Every check says "not done yet" (a bare lab), every command and gate succeeds; joins and image pulls take their time. */
class FakeHosts implements StepExecutor {
  constructor(private readonly checks: Set<RemoteCommand>) {}
  async exec(host: string, command: RemoteCommand, io: { onStdout?: (t: string) => void }): Promise<ExecResult> {
    if (this.checks.has(command)) return { code: 1 };
    const t = command.text;
    // The other nodes' pulls (beside init) outlast init, as on a loaded lab: what waits for them shows.
    const pull = host === 'labs-k8s-m01' ? 50 : 300;
    const ms = /kubeadm join .*--control-plane/.test(t) ? 150 : /kubeadm join /.test(t) ? 40 : /kubeadm init /.test(t) ? 60 : /crictl pull |images pull/.test(t) ? pull : 2;
    await new Promise((r) => setTimeout(r, ms));
    if (t.includes('cat /etc/kubernetes/pki/ca.crt')) io.onStdout?.(caPem);
    else if (t.includes('kubeadm token create')) io.onStdout?.('abcdef.0123456789abcdef\n');
    else if (t.includes('upload-certs --upload-certs')) io.onStdout?.(`${'a'.repeat(64)}\n`);
    else if (t.includes('cat /etc/kubernetes/admin.conf')) io.onStdout?.('apiVersion: v1\n');
    return { code: 0 };
  }
  async upload(): Promise<void> {}
}

async function run(plan: Plan) {
  const dir = tempDir('kw-overlap-');
  const ledger = createLedger(join(dir, 'runs'), 'up', plan.fingerprint);
  const checks = new Set(plan.phases.flatMap((p) => p.steps.flatMap((s) => (s.check ? [s.check] : []))));
  const events: (RunEvent & { at: number })[] = [];
  const result = await runPlan(plan, {
    executor: new FakeHosts(checks), ledger, locks: new HostLocks(join(dir, 'locks'), ledger.data.runId), maxParallelHosts: 10, verifyIntervalMs: 5,
    onEvent: (e) => events.push({ ...e, at: performance.now() }),
  });
  assert.equal(result.ok, true, result.failed?.error);
  const at = (type: 'step-start' | 'step-end', id: string): number => {
    const e = events.find((x) => x.type === type && x.step.id === id);
    assert.ok(e, `${type} of ${id}`);
    return e.at;
  };
  return { start: (id: string) => at('step-start', id), end: (id: string) => at('step-end', id), events };
}

test('bring-up: the workers join once init and its CNI are done and the API answers, beside the control-plane joins, which stay one at a time behind their etcd gate', async () => {
  const { start, end, events } = await run(buildBringUpPlan(inv, ['prepare', 'loadbalancer', 'init', 'join-control-plane', 'join-workers', 'verify'], configs, sources, hooks));
  const initDone = Math.max(end(`init/${M(1)}/cni`), end(`init/${M(1)}/api-ready`));
  for (const w of [W(1), W(2)]) {
    assert.ok(start(`join-workers/${w}/join`) >= initDone, `${w} joins after init, the CNI and the API through the VIP`);
    assert.ok(start(`join-workers/${w}/join`) < end(`join-control-plane/${M(2)}/join`), `${w} does not wait for the control-plane joins`);
    assert.ok(end(`join-workers/${M(1)}/ready-${w}`) < end(`join-control-plane/${M(3)}/join`), `${w} is joined and Ready before the last control-plane join ends`);
  }
  // One control-plane join at a time, the etcd gate about each between it and the next.
  assert.ok(end(`join-control-plane/${M(2)}/join`) <= start(`join-control-plane/${M(1)}/etcd-healthy-${M(2)}`));
  assert.ok(end(`join-control-plane/${M(1)}/etcd-healthy-${M(2)}`) <= start(`join-control-plane/${M(3)}/join`));
  const cpJoins = events.filter((e) => (e.type === 'step-start' || e.type === 'step-end') && /^join-control-plane\/[^/]+\/join$/.test(e.step.id));
  let running = 0;
  for (const e of cpJoins) {
    running += e.type === 'step-start' ? 1 : -1;
    assert.ok(running <= 1, 'never two control-plane joins at once');
  }
  // The first control-plane node pulls during prepare; the others pull beside its init, and before any join.
  assert.ok(end(`prepare/${M(1)}/images`) <= start(`init/${M(1)}/kubeadm-init`), 'init finds its images pulled');
  assert.ok(start(`init/${M(1)}/kubeadm-init`) < Math.min(...[M(2), M(3), W(1), W(2)].map((h) => end(`prepare/${h}/images`))), 'init does not wait for the other nodes\' pulls');
  for (const h of [M(2), M(3), W(1), W(2)]) {
    assert.ok(start(`prepare/${h}/images`) < end(`init/${M(1)}/kubeadm-init`), `${h} pulls beside the init`);
    assert.ok(start(`prepare/${h}/images`) >= end(`prepare/${h}/kube-packages`), `${h} pulls once kubeadm and crictl are installed`);
  }
  for (const m of [M(2), M(3)]) assert.ok(end(`prepare/${m}/images`) <= start(`join-control-plane/${m}/join`), `${m}'s join finds its images`);
  // The joins' credentials need init only: made while the other nodes still pull, not after.
  const pullsEnd = Math.max(...[M(2), M(3), W(1), W(2)].map((h) => end(`prepare/${h}/images`)));
  for (const token of [`join-control-plane/${M(1)}/token`, `join-workers/${M(1)}/token`]) {
    assert.ok(start(token) >= end(`init/${M(1)}/kubeadm-init`), `${token} after init`);
    assert.ok(start(token) < pullsEnd, `${token} beside the other nodes' pulls`);
  }
  for (const w of [W(1), W(2)]) assert.ok(end(`prepare/${w}/images`) <= start(`join-workers/${w}/join`), `${w}'s join finds its images`);
  // The cluster checks wait for every join.
  const lastJoin = Math.max(...[M(2), M(3)].map((m) => end(`join-control-plane/${m}/join`)), ...[W(1), W(2)].map((w) => end(`join-workers/${w}/join`)));
  assert.ok(start(`verify/${M(1)}/ready`) >= lastJoin);
});

test('a narrowed Join of a control-plane node and a worker: the worker joins beside the control-plane join, after prepare and the balancers', async () => {
  const hosts = [M(3), W(2)];
  const plan = narrowToJoin(inv, hosts, buildBringUpPlan(inv, joinPhases(inv, hosts), configs, sources, hooks));
  const { start, end } = await run(plan);
  const lbEnd = Math.max(...plan.phases.filter((p) => p.phase === 'loadbalancer').flatMap((p) => p.steps.map((s) => end(s.id))));
  const prepEnd = Math.max(...plan.phases.filter((p) => p.phase === 'prepare').flatMap((p) => p.steps.map((s) => end(s.id))));
  assert.ok(start(`join-workers/${W(2)}/join`) >= Math.max(lbEnd, prepEnd), 'the balancers list every control-plane node before anything joins through them');
  assert.ok(start(`join-workers/${W(2)}/join`) < end(`join-control-plane/${M(3)}/join`), 'the worker does not wait for the control-plane join');
});

test('phaseWaits: a phase waits for every earlier one but the ones it overlaps; its group keeps the balancers beside prepare', () => {
  const plan = buildBringUpPlan(inv, ['prepare', 'loadbalancer', 'init', 'join-control-plane', 'join-workers', 'verify'], configs, sources, hooks);
  const names = plan.phases.map((p) => p.title);
  const waits = phaseWaits(plan.phases).map((w, i) => [names[i], w.map((j) => plan.phases[j]!.phase)]);
  const prep = ['prepare', 'loadbalancer'];
  assert.deepEqual(waits, [
    [names[0], []],
    [names[1], []],
    [names[2], prep],
    // the other nodes' image pulls: after prepare, beside init
    [names[3], prep],
    // the control plane's join credentials: after init, beside the pulls; then the joins, after the pulls
    [names[4], ['loadbalancer', 'init']],
    [names[5], [...prep, 'init', 'prepare', 'join-control-plane']],
    // the workers': credentials likewise, joins beside the control-plane joins
    [names[6], ['loadbalancer', 'init']],
    [names[7], [...prep, 'init', 'prepare', 'join-workers']],
    [names[8], [...prep, 'init', 'prepare', 'join-workers', 'join-workers']],
    [names[9], [...prep, 'init', 'prepare', 'join-control-plane', 'join-control-plane', 'join-workers', 'join-workers', 'join-workers']],
  ]);
});
