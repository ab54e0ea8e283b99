/**
 * The upgrade plan's shape (snapshot first; control planes first and one at a time, each between maint and ready
 * on every balancer; workers in groups of max-unavailable), and its convergence: run by the real plan runner
 * against a model of the cluster that answers each check from which nodes are at the target, a re-run of a
 * finished upgrade changes nothing, and a run resumed after the first control-plane node only touches the rest.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLedger, findResumable } from '../../../src/engine/state/runLedger';
import { HostLocks } from '../../../src/engine/state/hostLocks';
import { runPlan, type RunEvent, type StepExecutor } from '../../../src/core/plan/runner';
import { renderPlan, type Plan, type Step } from '../../../src/core/plan/types';
import { buildUpgradePlan } from '../../../src/core/upgrade/plan';
import { targetPackageSource } from '../../../src/core/upgrade/packageSource';
import type { KubeVersion } from '../../../src/core/upgrade/versions';
import { BALANCERS, CPS, lab, recordingHooks, WORKERS } from './fixtures';
import { tempDir } from '../../tempDir';

const inv = lab();
const target: KubeVersion = { major: 1, minor: 34, patch: 12 };
const source = targetPackageSource(inv, target);
const planOf = (maxUnavailable = 1, calls: string[] = []) => buildUpgradePlan({ inventory: inv, target, source, maxUnavailable }, recordingHooks(calls));
const steps = (plan: Plan) => plan.phases.flatMap((p) => p.steps);
const key = (s: Step) => s.id.split('/').slice(2).join('/');

test('the etcd snapshot comes first, then every node\'s package source for 1.34 (the real apt line, rendered from its parts)', () => {
  const plan = planOf();
  assert.equal(steps(plan)[0]!.id, 'upgrade/labs-k8s-m01/etcd-snapshot');
  assert.ok(steps(plan)[0]!.action && steps(plan)[0]!.check, 'the snapshot is the backup\'s code, skipped when the whole cluster is at the target');
  const sources = plan.phases[1]!;
  assert.deepEqual(sources.steps.map((s) => s.host), [...CPS, ...WORKERS]);
  assert.equal(sources.steps[0]!.files![0]!.path, '/etc/apt/sources.list.d/kubernetes.list');
  assert.equal(sources.steps[0]!.files![0]!.content, 'deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] http://10.3.60.1:8080/kubernetes/core:/stable:/v1.34/deb/ /\n');
  // The 1.34 key from the mirror, held to the inventory's pin (one key signs every minor), into the same keyring.
  assert.match(renderPlan(plan), /kw \/etc\/apt\/keyrings\/kubernetes-apt-keyring\.gpg http:\/\/10\.3\.60\.1:8080\/kubernetes\/core:\/stable:\/v1\.34\/deb\/Release\.key 3b5e1f0c9a7d\w{52}/);
});

test('control-plane nodes one at a time, each restart between maint and ready on every balancer, then the etcd and lease gates', () => {
  const plan = planOf();
  const cpPhases = plan.phases.filter((p) => p.title.startsWith('Upgrade the control plane'));
  assert.deepEqual(cpPhases.map((p) => p.title), CPS.map((n) => `Upgrade the control plane on ${n}`));
  for (const [i, phase] of cpPhases.entries()) {
    const node = CPS[i]!;
    assert.equal(phase.order, 'serial');
    const ids = phase.steps.map((s) => `${s.host}:${key(s)}`);
    const at = (id: string) => { const n = ids.indexOf(id); assert.ok(n >= 0, `${id} in ${ids.join(', ')}`); return n; };
    const upgrade = at(`${node}:kubeadm-upgrade`);
    for (const b of BALANCERS) {
      assert.ok(at(`${b}:haproxy-maint-${node}`) < upgrade, `maint on ${b} before ${node}'s restart`);
      assert.ok(at(`${b}:haproxy-ready-${node}`) > at(`${node}:own-readyz`), `ready on ${b} only after ${node}'s /readyz`);
    }
    assert.ok(at(`labs-k8s-m01:etcd-before-${node}`) < upgrade);
    assert.ok(at(`labs-k8s-m01:etcd-after-${node}`) > upgrade);
    assert.ok(at(`labs-k8s-m01:leases-after-${node}`) > upgrade);
    const cmd = phase.steps[upgrade]!.run as { display: string };
    assert.equal(cmd.display, i === 0 ? 'kubeadm upgrade apply v1.34.12 --yes --ignore-preflight-errors=SystemVerification' : 'kubeadm upgrade node --ignore-preflight-errors=SystemVerification');
    assert.equal(phase.steps.some((s) => key(s) === 'kubeadm-upgrade-plan'), i === 0, 'kubeadm upgrade plan on the first node only');
    if (i === 0) assert.equal((phase.steps.find((s) => key(s) === 'kubeadm-upgrade-plan')!.run as { display: string }).display, 'kubeadm upgrade plan v1.34.12 --ignore-preflight-errors=SystemVerification', 'plan checks what apply will');
  }
  assert.match(renderPlan(plan), /set server kubernetes-master-nodes\/labs-k8s-m02 state maint/);
});

test('each control-plane node waits for a kubeadm a stopped run left before anything; the add-ons are checked after the last node\'s upgrade', () => {
  const plan = planOf();
  const cpPhases = plan.phases.filter((p) => p.title.startsWith('Upgrade the control plane'));
  for (const phase of cpPhases) assert.equal(key(phase.steps[0]!), 'no-kubeadm-running', phase.title);
  const addons = steps(plan).filter((s) => key(s) === 'addons');
  assert.deepEqual(addons.map((s) => s.host), ['labs-k8s-m03'], 'one add-ons step, on the last control-plane node');
  const last = cpPhases.at(-1)!.steps.map(key);
  assert.ok(last.indexOf('addons') > last.indexOf('kubeadm-upgrade'));
  assert.equal((addons[0]!.run as { display: string }).display, 'kubeadm upgrade node phase addon all');
  assert.match(addons[0]!.check!.text, /get ds kube-proxy .*:v1\.34\.12\$/);
  // the first node's apply counts as done without kube-proxy: kubeadm upgrades it only after the last node
  const gate = cpPhases[0]!.steps.find((s) => key(s) === 'at-target')!.run as { text: string };
  assert.match(gate.text, /kubeadm-config/);
  assert.doesNotMatch(gate.text, /kube-proxy/);
});

test('kubelets: control-plane nodes first, one at a time, then workers max-unavailable at a time; kubeadm backups listed last', () => {
  for (const [max, groups] of [[1, [['labs-k8s-w01'], ['labs-k8s-w02'], ['labs-k8s-w03']]], [2, [['labs-k8s-w01', 'labs-k8s-w02'], ['labs-k8s-w03']]], [5, [WORKERS]]] as const) {
    const plan = planOf(max);
    const kubelet = plan.phases.filter((p) => p.title.startsWith('Upgrade the kubelet'));
    const hostsOf = (p: (typeof kubelet)[number]) => [...new Set(p.steps.map((s) => s.host))];
    // (and asks on the first control-plane node that every control-plane Node is Ready before the drain)
    assert.deepEqual(kubelet.slice(0, 3).map(hostsOf), CPS.map((n) => [...new Set([n, CPS[0]!, ...BALANCERS])]), 'a control-plane kubelet phase also takes the node out of every balancer');
    for (const [i, p] of kubelet.slice(0, 3).entries()) {
      const keys = p.steps.map(key);
      assert.ok(keys.indexOf(`control-plane-ready-before-${CPS[i]}`) >= 0 && keys.indexOf(`control-plane-ready-before-${CPS[i]}`) < keys.indexOf('drain'), `${CPS[i]}: the control-plane Ready gate before its drain: ${keys.join(', ')}`);
      const gate = p.steps.find((x) => key(x) === `control-plane-ready-before-${CPS[i]}`)!;
      assert.equal((gate.verify as { display: string }).display, `kubectl --kubeconfig /etc/kubernetes/admin.conf wait --for=condition=Ready ${CPS.map((n) => `node/${n}`).join(' ')} --timeout=10s >/dev/null`);
    }
    assert.deepEqual(kubelet.slice(3).map(hostsOf), groups, `max-unavailable ${max}`);
    const lastCp = plan.phases.findIndex((p) => p.title === 'Upgrade the control plane on labs-k8s-m03');
    assert.ok(plan.phases.indexOf(kubelet[0]!) > lastCp, 'no kubelet before every API server is upgraded');
    for (const s of kubelet[3]!.steps.filter((x) => x.host === 'labs-k8s-w01')) assert.ok(s.check || s.rerun, s.id);
    assert.deepEqual(kubelet[3]!.steps.filter((s) => s.host === 'labs-k8s-w01').map(key), ['no-kubeadm-running', 'kubeadm-package', 'kubeadm-upgrade-node', 'drain', 'kubelet-package', 'kubelet-restart', 'uncordon']);
    assert.equal(plan.phases.at(-1)!.steps[0]!.id.endsWith('/kubeadm-backups'), true);
  }
});

test('a control-plane node\'s kubelet restarts between maint and ready on every balancer (the new kubelet restarts its API server\'s container); a worker\'s does not touch HAProxy', () => {
  const plan = planOf();
  for (const node of CPS) {
    const phase = plan.phases.find((p) => p.title === `Upgrade the kubelet on ${node}`)!;
    const ids = phase.steps.map((s) => `${s.host}:${key(s)}`);
    const at = (id: string) => { const n = ids.indexOf(id); assert.ok(n >= 0, `${id} in ${ids.join(', ')}`); return n; };
    const restart = at(`${node}:kubelet-restart`);
    assert.ok(at(`${node}:kubelet-at-target`) < at(`${node}:drain`), 'asked first whether the kubelet is at the target');
    for (const b of BALANCERS) {
      assert.ok(at(`${b}:haproxy-others-up-kubelet-${node}`) < at(`${BALANCERS[0]}:haproxy-maint-kubelet-${node}`), 'every balancer\'s gate before any maint');
      assert.ok(at(`${node}:kubelet-package`) < at(`${b}:haproxy-maint-kubelet-${node}`) && at(`${b}:haproxy-maint-kubelet-${node}`) < restart, `maint on ${b} just before the restart`);
      assert.ok(at(`${b}:haproxy-ready-kubelet-${node}`) > at(`${node}:own-readyz-kubelet`) && at(`${node}:own-readyz-kubelet`) > restart, `ready on ${b} only after ${node}'s own /readyz`);
      // ... and only once its API server is the one the new kubelet keeps (issue 36's 403)
      assert.ok(restart < at(`${node}:apiserver-settled-kubelet`) && at(`${node}:apiserver-settled-kubelet`) < at(`${node}:own-readyz-kubelet`), `${node}: the settle gate between the restart and its own /readyz`);
    }
    assert.ok(at(`${node}:uncordon`) > at(`${BALANCERS.at(-1)}:haproxy-ready-kubelet-${node}`));
    // The new kubelet restarted etcd and the controllers as well: the node after it waits for a healthy etcd and
    // leader leases that a live holder renews (not only a name on them), like after kubeadm's restart.
    for (const gate of [`labs-k8s-m01:etcd-after-kubelet-${node}`, `labs-k8s-m01:leases-after-kubelet-${node}`]) assert.ok(restart < at(gate) && at(gate) < at(`${node}:uncordon`), `${gate} between the restart and the uncordon`);
    const leases = phase.steps.find((s) => key(s) === `leases-after-kubelet-${node}`)!;
    assert.match((leases.verify as { text: string }).text, /renewTime[\s\S]*sleep 3[\s\S]*grep -qxF/, 'read twice, 3 s apart');
  }
  for (const w of WORKERS) assert.ok(!steps(plan).some((s) => key(s).includes(`kubelet-${w}`)), `${w}: no HAProxy step`);
});

test('killed between a control-plane kubelet\'s restart and its ready steps (in maintenance on both balancers): the resumed run restarts nothing and puts it back', async () => {
  const left = BALANCERS.map((b) => `${b}:labs-k8s-m02`);
  const model = clusterModel(planOf(1), ['labs-k8s-m01'], [], left, ['labs-k8s-m02:kubeadm-upgrade', 'labs-k8s-m02:kubeadm-package', 'labs-k8s-m02:package-source', 'labs-k8s-m02:kubelet-package', 'labs-k8s-m02:kubelet-restart']);
  const plan = buildUpgradePlan({ inventory: inv, target, source, maxUnavailable: 1 }, model.hooks);
  const result = await run(plan, model);
  assert.equal(result.ok, true, result.failed?.error);
  assert.equal(model.maint.size, 0, 'no server is left in maintenance');
  const m02 = model.changes.filter((c) => c.includes('labs-k8s-m02'));
  assert.ok(!m02.some((c) => /kubelet-restart|haproxy-maint/.test(c)), `no restart, not taken out again:\n${m02.join('\n')}`);
  assert.ok(m02.includes('labs-k8s-balancer:haproxy-ready-kubelet-labs-k8s-m02') || m02.includes('labs-k8s-balancer:haproxy-ready-labs-k8s-m02'), m02.join('\n'));
});

test('run on a cluster at 1.33: every control-plane kubelet restart happens with its server out of both balancers', async () => {
  const model = clusterModel(planOf(1), []);
  const plan = buildUpgradePlan({ inventory: inv, target, source, maxUnavailable: 1 }, model.hooks);
  const inMaintAtRestart: Record<string, string[]> = {};
  const exec = model.executor.exec.bind(model.executor);
  model.executor.exec = async (host, command, io) => {
    const r = await exec(host, command, io);
    if (command.text.includes('systemctl restart kubelet')) inMaintAtRestart[host] = [...model.maint].filter((m) => m.endsWith(`:${host}`));
    return r;
  };
  const result = await run(plan, model);
  assert.equal(result.ok, true, result.failed?.error);
  for (const n of CPS) assert.deepEqual(inMaintAtRestart[n]?.sort(), BALANCERS.map((b) => `${b}:${n}`).sort(), n);
  for (const w of WORKERS) assert.deepEqual(inMaintAtRestart[w], [], w);
  assert.equal(model.maint.size, 0);
});

test('every step has a check that asks the host, or says why it runs every time', () => {
  for (const s of steps(planOf(2))) assert.ok(s.check || s.rerun, `${s.id} has neither a check nor a rerun reason`);
});

/**
 * A model of the cluster behind the executor: what each node has done (`node:step`, all of a node's steps when it is
 * at the target), which HAProxy servers are in maintenance, which nodes are cordoned. Each check is answered for the
 * node its step is about; every command that is not a check or a gate is recorded as a change.
 */
/** Steps that only read (kubeadm upgrade plan prints; the backups are listed): never a change. */
const READS = /^(at-target|kubelet-at-target|kubeadm-upgrade-plan|kubeadm-backups|no-kubeadm-running)$/;

function clusterModel(plan: Plan, atTarget: readonly string[], calls: string[] = [], inMaint: readonly string[] = [], alsoDone: readonly string[] = []) {
  const done = new Set<string>(alsoDone);
  for (const s of steps(plan)) if (atTarget.includes(s.about ?? s.host)) done.add(`${s.about ?? s.host}:${key(s).replace(/^haproxy-(maint|ready)-.*$/, 'haproxy')}`);
  // The step each host is running (the runner's step-start event): the same command (a maint, a gate) belongs to
  // several steps, so the model asks which one sent it, and whether it is that step's check, verify or run.
  const current = new Map<string, Step>();
  const onEvent = (e: RunEvent) => { if (e.type === 'step-start') current.set(e.step.host, e.step); };
  const maint = new Set<string>(inMaint);
  const cordoned = new Set<string>();
  const changes: string[] = [];
  const has = (node: string, k: string) => done.has(`${node}:${k}`);
  // `node:manifests`: kubeadm's control-plane phase finished, its later phases (upload-config, addon) did not. A
  // command that asks the kubeadm-config ConfigMap sees that; one that reads only the manifests does not.
  const upgraded = (node: string, text: string) => has(node, 'kubeadm-upgrade') || (has(node, 'manifests') && !text.includes('kubeadm-config'));
  const executor: StepExecutor = {
    async exec(host, command, io) {
      const s = current.get(host);
      assert.ok(s, `${host} runs a command outside any step`);
      const isCheck = s.check?.text === command.text;
      const isVerify = !isCheck && s.verify?.text === command.text;
      const run = !isCheck && !isVerify ? s : undefined;
      if (run && key(run) === 'kubelet-at-target') {
        io.onStdout?.(has(run.host, 'kubelet-restart') ? 'at-target=yes\n' : 'at-target=no\n');
        return { code: 0 };
      }
      if (run && key(run) === 'at-target') {
        io.onStdout?.(upgraded(host, command.text) ? 'at-target=yes\n' : 'at-target=no\n');
        return { code: 0 };
      }
      if (run && key(run).startsWith('haproxy-others-up-')) {
        const node = run.about ?? run.host;
        const out = [...maint].filter((m) => m.startsWith(`${host}:`) && m !== `${host}:${node}`);
        if (out.length) io.onStderr?.(`${out.join(', ')} is MAINT\n`);
        return { code: out.length ? 1 : 0 };
      }
      if (run && !READS.test(key(run))) {
        const node = run.about ?? run.host;
        changes.push(`${host}:${key(run)}`);
        if (key(run).startsWith('haproxy-maint-')) maint.add(`${host}:${node}`);
        else if (key(run).startsWith('haproxy-ready-')) maint.delete(`${host}:${node}`);
        else done.add(`${node}:${key(run)}`);
        return { code: 0 };
      }
      if (run) return { code: 0 };
      if (isVerify && !s.check) return { code: 0 }; // the gates' verifies: the model's etcd and API answer
      const step = s;
      const node = step.about ?? step.host;
      const ok = (b: boolean) => ({ code: b ? 0 : 1 });
      switch (key(step)) {
        case 'etcd-snapshot': return ok([...CPS, ...WORKERS].every((n) => has(n, 'kubelet-restart')));
        case 'drain': case 'kubeadm-upgrade-node': return ok(has(node, 'kubelet-restart'));
        case 'uncordon': return ok(!cordoned.has(node));
        case 'kubeadm-upgrade': return ok(upgraded(node, command.text));
        default:
          if (key(step).startsWith('haproxy-ready-')) return ok(!maint.has(`${host}:${node}`));
          return ok(has(node, key(step)));
      }
    },
    async upload(host, file) {
      changes.push(`${host}:write ${file.path}`);
    },
  };
  const hooks = recordingHooks(calls);
  hooks.drain = async (node) => void (calls.push(`drain ${node}`), cordoned.add(node));
  hooks.uncordon = async (node) => void (calls.push(`uncordon ${node}`), cordoned.delete(node));
  return { executor, onEvent, changes, maint, hooks, calls };
}

async function run(plan: Plan, model: { executor: StepExecutor; onEvent: (e: RunEvent) => void }) {
  const dir = tempDir('kw-upgrade-');
  const ledger = createLedger(join(dir, 'runs'), 'upgrade', plan.fingerprint);
  return runPlan(plan, { executor: model.executor, onEvent: model.onEvent, ledger, locks: new HostLocks(join(dir, 'locks'), ledger.data.runId), maxParallelHosts: 4, verifyIntervalMs: 1 });
}

test('run on a cluster at 1.33: every node is upgraded, each API server in maintenance only around its own restart, back to ready after', async () => {
  const model = clusterModel(planOf(2), []);
  const plan = buildUpgradePlan({ inventory: inv, target, source, maxUnavailable: 2 }, model.hooks);
  const calls = model.calls;
  const result = await run(plan, model);
  assert.equal(result.ok, true, result.failed?.error);
  assert.equal(model.maint.size, 0, 'no server left in maintenance');
  assert.equal(calls[0], 'snapshot');
  const cpChanges = model.changes.filter((c) => /haproxy|kubeadm-upgrade$/.test(c));
  assert.deepEqual(cpChanges.slice(0, 5), ['labs-k8s-balancer:haproxy-maint-labs-k8s-m01', 'labs-k8s-balancer2:haproxy-maint-labs-k8s-m01', 'labs-k8s-m01:kubeadm-upgrade', 'labs-k8s-balancer:haproxy-ready-labs-k8s-m01', 'labs-k8s-balancer2:haproxy-ready-labs-k8s-m01']);
  for (const n of [...CPS, ...WORKERS]) {
    assert.ok(calls.includes(`drain ${n}`) && calls.includes(`uncordon ${n}`), n);
    assert.ok(calls.indexOf(`drain ${n}`) < calls.indexOf(`uncordon ${n}`));
  }
});

test('a re-run of a finished upgrade changes nothing: no package, no kubeadm, no HAProxy command, no drain, no snapshot', async () => {
  const model = clusterModel(planOf(1), [...CPS, ...WORKERS]);
  const plan = buildUpgradePlan({ inventory: inv, target, source, maxUnavailable: 1 }, model.hooks);
  const calls = model.calls;
  const result = await run(plan, model);
  assert.equal(result.ok, true, result.failed?.error);
  assert.deepEqual(model.changes, []);
  assert.deepEqual(calls, []);
});

test('resumed after the first control-plane node: it is left alone (not even taken out of HAProxy), the others are upgraded', async () => {
  const model = clusterModel(planOf(1), ['labs-k8s-m01']);
  const plan = buildUpgradePlan({ inventory: inv, target, source, maxUnavailable: 1 }, model.hooks);
  const calls = model.calls;
  const result = await run(plan, model);
  assert.equal(result.ok, true, result.failed?.error);
  assert.ok(!model.changes.some((c) => c.includes('labs-k8s-m01')), model.changes.join('\n'));
  assert.ok(model.changes.includes('labs-k8s-m02:kubeadm-upgrade') && model.changes.includes('labs-k8s-balancer:haproxy-maint-labs-k8s-m02'));
  assert.ok(!calls.includes('drain labs-k8s-m01'));
});

test('killed during kubeadm upgrade node on the second control-plane node (left in maintenance on both balancers): the resumed run finishes it and puts it back', async () => {
  const left = BALANCERS.map((b) => `${b}:labs-k8s-m02`);
  const model = clusterModel(planOf(1), ['labs-k8s-m01'], [], left);
  const plan = buildUpgradePlan({ inventory: inv, target, source, maxUnavailable: 1 }, model.hooks);
  const result = await run(plan, model);
  assert.equal(result.ok, true, result.failed?.error);
  assert.equal(model.maint.size, 0, 'no server is left in maintenance');
  assert.ok(model.changes.includes('labs-k8s-m02:kubeadm-upgrade') && model.changes.includes('labs-k8s-balancer2:haproxy-ready-labs-k8s-m02'));
});

test('killed after kubeadm upgrade node finished but before the ready step: the resumed run skips the upgrade and still puts the server back', async () => {
  const left = BALANCERS.map((b) => `${b}:labs-k8s-m02`);
  const model = clusterModel(planOf(1), ['labs-k8s-m01'], [], left, ['labs-k8s-m02:kubeadm-upgrade', 'labs-k8s-m02:kubeadm-package', 'labs-k8s-m02:package-source']);
  const plan = buildUpgradePlan({ inventory: inv, target, source, maxUnavailable: 1 }, model.hooks);
  const result = await run(plan, model);
  assert.equal(result.ok, true, result.failed?.error);
  assert.equal(model.maint.size, 0, 'no server is left in maintenance');
  assert.ok(!model.changes.includes('labs-k8s-m02:kubeadm-upgrade'), 'not upgraded twice');
  assert.ok(!model.changes.some((c) => c.includes('haproxy-maint-labs-k8s-m02')), 'not taken out again');
  assert.ok(model.changes.includes('labs-k8s-balancer:haproxy-ready-labs-k8s-m02'));
});

test('killed during kubeadm upgrade apply after the manifests changed but before upload-config: the resumed run applies again before any other node', async () => {
  const left = BALANCERS.map((b) => `${b}:labs-k8s-m01`);
  const model = clusterModel(planOf(1), [], [], left, ['labs-k8s-m01:manifests', 'labs-k8s-m01:kubeadm-package', 'labs-k8s-m01:package-source']);
  const plan = buildUpgradePlan({ inventory: inv, target, source, maxUnavailable: 1 }, model.hooks);
  const result = await run(plan, model);
  assert.equal(result.ok, true, result.failed?.error);
  const apply = model.changes.indexOf('labs-k8s-m01:kubeadm-upgrade');
  assert.ok(apply >= 0, `apply is run again:\n${model.changes.join('\n')}`);
  assert.ok(apply < model.changes.indexOf('labs-k8s-m02:kubeadm-upgrade'), 'before the next node reads the cluster configuration');
  assert.equal(model.maint.size, 0, 'no server is left in maintenance');
});

test('a server left in maintenance by an earlier run: the next node is not taken out of that balancer, the run stops at the gate', async () => {
  const model = clusterModel(planOf(1), [], [], ['labs-k8s-balancer2:labs-k8s-m03']);
  const plan = buildUpgradePlan({ inventory: inv, target, source, maxUnavailable: 1 }, model.hooks);
  const result = await run(plan, model);
  assert.equal(result.ok, false);
  assert.equal(result.failed?.step.id, 'upgrade/labs-k8s-balancer2/haproxy-others-up-labs-k8s-m01');
  assert.ok(!model.changes.some((c) => c.includes('haproxy-maint-labs-k8s-m01')), `not out of any balancer:\n${model.changes.join('\n')}`);
  assert.ok(!model.changes.includes('labs-k8s-m01:kubeadm-upgrade'));
});

/**
 * A node's maintenance step closes the sessions HAProxy still holds to its server, as the renewal's does: a client's
 * keep-alive connection through the VIP stayed on the node being upgraded (connection resets during the first node's
 * apply on the lab). Run through a real shell with a stand-in socat recording what the admin socket was sent.
 */
test('each control-plane node\'s maintenance also closes its open connections through the VIP, verified by none left', () => {
  const dir = tempDir('kw-upgrade-socat-');
  const got = join(dir, 'got');
  const stat = join(dir, 'stat');
  writeFileSync(join(dir, 'socat'), `#!/bin/sh\ncmd=$(cat)\necho "$cmd" >> ${got}\ncase "$cmd" in 'show stat') cat ${stat} ;; esac\n`);
  chmodSync(join(dir, 'socat'), 0o755);
  const sh = (text: string): number => {
    try { execFileSync('sh', ['-c', text], { env: { ...process.env, PATH: `${dir}:${process.env.PATH}` }, stdio: 'pipe' }); return 0; } catch (e) { return (e as { status: number }).status; }
  };
  const maint = steps(planOf()).find((s) => s.host === BALANCERS[0] && key(s) === `haproxy-maint-${CPS[1]}`)!;
  assert.equal(sh((maint.run as { text: string }).text), 0);
  const sent = readFileSync(got, 'utf8').trim().split('\n');
  assert.equal(sent.length, 2, sent.join('\n'));
  assert.match(sent[0]!, /^set server kubernetes-master-nodes\/\S+ state maint$/);
  assert.equal(sent[1], sent[0]!.replace(/^set server (\S+) state maint$/, 'shutdown sessions server $1'));
  const server = sent[0]!.split(' ')[2]!.split('/')[1]!;
  const csv = (scur: number) => `# pxname,svname,qcur,qmax,scur,status\nkubernetes-master-nodes,${server},0,0,${scur},MAINT\n`;
  writeFileSync(stat, csv(1));
  assert.notEqual(sh(maint.verify!.text), 0, 'a session still open: not verified yet');
  writeFileSync(stat, csv(0));
  assert.equal(sh(maint.verify!.text), 0);
});

test('with the etcd leader hook: before each restart of a control-plane node\'s etcd (kubeadm\'s, then the new kubelet\'s) its leadership is handed on, unless it follows', async () => {
  const moves: string[] = [];
  const hooks = { ...recordingHooks([]), moveEtcdLeader: async (host: string, upcoming: readonly string[]) => void moves.push(`${host} → not ${upcoming.join('/') || '-'}`) };
  const plan = buildUpgradePlan({ inventory: inv, target, source, maxUnavailable: 1 }, hooks);
  for (const node of CPS) {
    const cp = plan.phases.find((p) => p.title === `Upgrade the control plane on ${node}`)!.steps.map(key);
    assert.equal(cp.indexOf(`etcd-leader-away-${node}`), cp.indexOf('kubeadm-upgrade') - 1, `${node}: right before kubeadm's upgrade: ${cp.join(', ')}`);
    const kubelet = plan.phases.find((p) => p.title === `Upgrade the kubelet on ${node}`)!.steps.map(key);
    assert.equal(kubelet.indexOf(`etcd-leader-away-kubelet-${node}`), kubelet.indexOf('kubelet-restart') - 1, `${node}: right before the kubelet restart: ${kubelet.join(', ')}`);
    const s = steps(plan).find((x) => key(x) === `etcd-leader-away-kubelet-${node}`)!;
    assert.match(s.check!.text, /endpoint status '-w' json/, 'skipped when the member follows');
    await s.action!(new Map(), undefined);
  }
  // The leadership goes preferably to a node done already: never to the next one in line.
  assert.deepEqual(moves, ['labs-k8s-m01 → not labs-k8s-m02/labs-k8s-m03', 'labs-k8s-m02 → not labs-k8s-m03', 'labs-k8s-m03 → not -']);
});

test('a killed upgrade is found again by the next run: its ledger on disk, with the target version in its fingerprint, passes the ledger check', async () => {
  const plan = planOf();
  const runs = join(tempDir('kw-upgrade-ledger-'), 'runs');
  const killed = createLedger(runs, 'upgrade', plan.fingerprint);
  await killed.mark(steps(plan)[0]!.id, { state: 'done' });
  const found = await findResumable(runs, 'upgrade', plan.fingerprint);
  assert.deepEqual(found.refused, [], `${plan.fingerprint}: ${JSON.stringify(found.refused)}`);
  assert.equal(found.ledger?.data.runId, killed.data.runId);
  // The node operations' fingerprints are made the same way (engine/nodes.ts): host names with dots, colons between.
  for (const fingerprint of ['reset:w01.lab.example', 'replace:m01.lab.example:m04.lab.example:m02.lab.example:8e9e05c52164694d']) {
    const dir = join(tempDir('kw-nodes-ledger-'), 'runs');
    await createLedger(dir, 'replace', fingerprint).mark('a/b/c', { state: 'failed', error: 'killed' });
    assert.deepEqual((await findResumable(dir, 'replace', fingerprint)).refused, [], fingerprint);
  }
});
