/**
 * The upgrade as the user meets it, front-end aside: the target picked among the versions on offer, the preflight
 * shown and a refusal naming the missing image before anything is asked, --plan, and a run over hosts that answer
 * as a 1.33 cluster does — one whose `kubeadm upgrade node` fails as in kubeadm #2957, explained beside the error,
 * and one that goes through, with the report of per-node times and kubeadm's backups. The preparation is the
 * engine's own (`prepareUpgrade`) over facts as the cluster would give them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { RemoteCommand } from '../../../src/core/ssh/command';
import type { ExecOptions, ExecResult, SshTransport } from '../../../src/core/ssh/transport';
import { targetPackageSource } from '../../../src/core/upgrade/packageSource';
import type { UpgradeFacts } from '../../../src/core/upgrade/preflight';
import { parseVersion, type KubeVersion } from '../../../src/core/upgrade/versions';
import { prepareUpgrade } from '../../../src/engine/upgrade';
import { upgradeWorkflow, type UpgradeWorkflowInput } from '../../../src/engine/workflows/upgradeWorkflow';
import { healthyFacts, lab, labText, recordingHooks } from '../upgrade/fixtures';
import { ScriptedUi } from './scriptedUi';
import { tempDir } from '../../tempDir';

const inv = lab();

/**
 * Hosts of a 1.33 cluster: nothing is at the target (every "already there?" asks false), commands succeed, the
 * backups listing answers; `failOn` makes one host's command fail with the given stderr.
 */
class ClusterHosts implements SshTransport {
  readonly ran: string[] = [];
  constructor(private readonly failOn?: { host: string; match: RegExp; stderr: string }) {}
  async exec(host: string, command: RemoteCommand, opts: ExecOptions = {}): Promise<ExecResult> {
    const text = command.text;
    const answer = (code: number, stdout = '', stderr = ''): ExecResult => {
      if (stdout) opts.onStdout?.(stdout);
      if (stderr) opts.onStderr?.(stderr);
      return { code, signal: null, stdout, stderr };
    };
    if (/at-target=yes/.test(text)) return answer(0, 'at-target=no\n');
    if (this.failOn && host === this.failOn.host && this.failOn.match.test(command.display)) return answer(1, '', this.failOn.stderr);
    if (/kubeadm-backup-\*/.test(text)) return answer(0, '1.2M /etc/kubernetes/tmp/kubeadm-backup-etcd-2026-11-30-18-40-01\n');
    // Each check ("is it there already?") says no once per step that asks it; after that (a verify) the effect is there.
    const left = checks.get(`${host}\0${text}`) ?? 0;
    if (left > 0) {
      checks.set(`${host}\0${text}`, left - 1);
      return answer(1);
    }
    this.ran.push(`${host}: ${command.display}`);
    return answer(0);
  }
  async close(): Promise<void> {}
}

/** `host\0check` → how many steps still ask it before running. */
const checks = new Map<string, number>();

function input(hosts: ClusterHosts, facts: UpgradeFacts, over: Partial<UpgradeWorkflowInput> = {}): UpgradeWorkflowInput {
  return {
    deps: { inventory: inv, ssh: hosts },
    loginUser: () => 'root',
    target: '1.34.12',
    hooks: recordingHooks(),
    run: { stateDir: join(tempDir('kw-upgrade-wf-'), 'state'), ssh: Object.assign(hosts, { loginUser: () => 'root' }), maxParallelHosts: 2, again: { resume: 'r', startOver: 's' } },
    prepare: async (deps, req, hooks) => {
      const prep = await prepareUpgrade(deps, req, hooks, async (_d, target: KubeVersion) => ({ facts: { ...facts, target }, source: targetPackageSource(inv, target) }));
      checks.clear();
      for (const s of prep.plan?.phases.flatMap((p) => p.steps) ?? []) if (s.check) checks.set(`${s.host}\0${s.check.text}`, (checks.get(`${s.host}\0${s.check.text}`) ?? 0) + 1);
      return prep;
    },
    ...over,
  };
}

test('no --to: the versions on offer are picked from (newest first, patch and next minor told apart); --plan shows preflight and plan, asks nothing else', async () => {
  const ui = new ScriptedUi({ pick: (_t, items) => items[1] });
  const offered = async () => ({ current: parseVersion('1.33.13')!, versions: [parseVersion('1.34.12')!, parseVersion('1.33.14')!], problems: [] });
  const facts = healthyFacts();
  for (const n of facts.nodes) for (const p of ['kubeadm', 'kubelet', 'kubectl'] as const) n.offered![p].push('1.33.14-1.1');
  const out = await upgradeWorkflow(ui, { ...input(new ClusterHosts(), facts), target: undefined, offered, planOnly: true });
  assert.equal(out.kind, 'planned');
  assert.equal(ui.transcript.find((t) => t.startsWith('pick:')), 'pick: Upgrade labs-k8s from v1.33.13 to');
  assert.match(ui.documents.get('upgrade-plan.txt')!, /kubeadm upgrade apply v1\.33\.14 --yes/);
  assert.match(ui.documents.get('upgrade-preflight.txt')!, /^labs-k8s-w03 +worker/m);
  assert.equal(ui.confirms.length, 0);
});

test('an image missing from the registry: refused before any question, naming the image; nothing runs', async () => {
  const facts = healthyFacts();
  facts.images![0] = { image: 'registry.k8s.io/kube-apiserver:v1.34.12', present: false, detail: 'manifest unknown (HTTP 404)' };
  const hosts = new ClusterHosts();
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
  const out = await upgradeWorkflow(ui, input(hosts, facts));
  assert.equal(out.kind, 'refused');
  assert.match(ui.messages('error')[0]!, /refused; nothing was done: \[registry\.k8s\.io\/kube-apiserver:v1\.34\.12\] the registry has no registry\.k8s\.io\/kube-apiserver:v1\.34\.12/);
  assert.equal(ui.confirms.length, 0);
  assert.deepEqual(hosts.ran, []);
});

test('an inventory that ignores "all" preflight errors: the upgrade is refused naming the field; nothing runs', async () => {
  const hosts = new ClusterHosts();
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
  const all = lab(labText.replace(/ignorePreflightErrors: \[[^\]]*\]/, 'ignorePreflightErrors: [SystemVerification, All]'));
  assert.deepEqual(all.cluster.ignorePreflightErrors, ['SystemVerification', 'All']);
  const out = await upgradeWorkflow(ui, { ...input(hosts, healthyFacts()), deps: { inventory: all, ssh: hosts } });
  assert.equal(out.kind, 'refused');
  assert.match(ui.messages('error')[0]!, /\[cluster\.ignorePreflightErrors\] names "all"/);
  assert.deepEqual(hosts.ran, []);
});

test('a target two minors ahead is refused; a version that is not one is not even read', async () => {
  const ui = new ScriptedUi();
  assert.equal((await upgradeWorkflow(ui, { ...input(new ClusterHosts(), healthyFacts()), target: '1.35.0' })).kind, 'refused');
  assert.match(ui.messages('error')[0]!, /skips 1 minor version/);
  const bad = await upgradeWorkflow(new ScriptedUi(), { ...input(new ClusterHosts(), healthyFacts()), target: '1.34.12; reboot' });
  assert.equal(bad.kind, 'invalid');
});

test('kubeadm upgrade node fails with the etcd static Pod hash: the run stops there and kubeadm #2957 is explained beside the error', async () => {
  const stderr = "[upgrade/apply] FATAL: couldn't upgrade control plane. kubeadm has tried to recover everything into the earlier state. Errors faced: static Pod hash for component etcd on Node labs-k8s-m02 did not change after 5m0s: timed out waiting for the condition\n";
  const hosts = new ClusterHosts({ host: 'labs-k8s-m02', match: /^kubeadm upgrade node/, stderr });
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
  const out = await upgradeWorkflow(ui, input(hosts, healthyFacts()));
  assert.ok(out.kind === 'ran' && !out.result.ok && 'explanations' in out, JSON.stringify(out).slice(0, 300));
  assert.deepEqual(out.explanations.map((e) => e.id), ['etcd-static-pod-hash', 'kubeadm-rolled-back']);
  assert.match(ui.documents.get('upgrade-failure.md')!, /labs-k8s-m02: kubeadm upgrade node failed[\s\S]*kubeadm #2957/);
  assert.match(ui.messages('error').at(-1)!, /failed at labs-k8s-m02: kubeadm upgrade node/);
  assert.ok(!hosts.ran.some((r) => r.includes('labs-k8s-m03: kubeadm upgrade node')), 'm03 is not touched after m02 failed');
  assert.ok(hosts.ran.some((r) => /^labs-k8s-balancer2: .*set server kubernetes-master-nodes\/labs-k8s-m02 state maint/.test(r)), 'm02 was taken out of HAProxy before its restart');
  // m02 is left out of the VIP on both balancers (m01 went back): said, with both ways out.
  assert.deepEqual(out.leftInMaintenance.map((l) => `${l.balancer} ${l.server}`), ['labs-k8s-balancer labs-k8s-m02', 'labs-k8s-balancer2 labs-k8s-m02']);
  const notice = ui.messages('warning').find((m) => m.includes('HAProxy maintenance')) ?? '';
  assert.match(notice, /labs-k8s-m02 \(labs-k8s-m02\) on labs-k8s-balancer, labs-k8s-m02 \(labs-k8s-m02\) on labs-k8s-balancer2\. Run the upgrade again to resume/);
  assert.match(notice, /on labs-k8s-balancer2: echo 'set server kubernetes-master-nodes\/labs-k8s-m02 state ready' \| socat stdio unix-connect:\/run\/haproxy\/admin\.sock/);
  assert.doesNotMatch(notice, /labs-k8s-m01/);
});

test('a run that goes through: every node timed, kubeadm\'s backups reported for clean-up', async () => {
  const hosts = new ClusterHosts();
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
  const out = await upgradeWorkflow(ui, input(hosts, healthyFacts()));
  assert.ok(out.kind === 'ran' && out.result.ok && 'perNode' in out, JSON.stringify(out).slice(0, 300));
  assert.deepEqual(out.perNode.map((p) => p.host).sort(), ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03', 'labs-k8s-w01', 'labs-k8s-w02', 'labs-k8s-w03']);
  assert.equal(out.backups.length, 3);
  assert.deepEqual(out.leftInMaintenance, []);
  assert.ok(!ui.messages('warning').some((m) => m.includes('HAProxy maintenance')));
  assert.match(ui.documents.get('upgrade-report.md')!, /labs-k8s-m01: 1\.2M \/etc\/kubernetes\/tmp\/kubeadm-backup-etcd-/);
});

test('drains through a context that is not the inventory\'s endpoint: asked first, naming both; declined, nothing is read', async () => {
  const hosts = new ClusterHosts();
  let prepared = 0;
  const prepare: UpgradeWorkflowInput['prepare'] = async () => {
    prepared++;
    throw new Error('not reached');
  };
  const declining = new ScriptedUi();
  const out = await upgradeWorkflow(declining, { ...input(hosts, healthyFacts()), prepare, drainsThrough: { context: 'prod-admin@prod', server: 'https://10.9.0.1:6443' } });
  assert.equal(out.kind, 'cancelled');
  assert.equal(prepared, 0);
  assert.deepEqual(hosts.ran, []);
  assert.equal(declining.confirms.length, 1);
  assert.match(declining.confirms[0]!.detail!, /context prod-admin@prod \(https:\/\/10\.9\.0\.1:6443\); the inventory's controlPlaneEndpoint is 10\.3\.60\.100:6443\. If that is another cluster, its nodes of the same names are cordoned and drained/);
  // The inventory's own endpoint: no question; the preflight is read.
  const quiet = new ScriptedUi();
  await upgradeWorkflow(quiet, { ...input(hosts, healthyFacts()), prepare, drainsThrough: { context: 'labs-k8s-admin@labs-k8s', server: 'https://10.3.60.100:6443' } });
  assert.equal(quiet.confirms.length, 0);
  assert.equal(prepared, 1);
});
