/**
 * The failure drill read in Russian with the shipped bundle: the plan and the report of a node drill (a control plane
 * powered off, a worker whose pods are evicted, a drill refused) and of the balancer drills (the VIP holder powered
 * off, split brain, a black hole refused, nopreempt), as the editor's documents and the CLI show them, with the
 * refusals, warnings, bounds, details and notes in them. A sentence left English fails here; identifiers, states,
 * commands and host names inside a Russian sentence are expected. The English run is the same as without a catalogue,
 * and the English twin a Russian run keeps for `drill --json` is that English run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DrillObserver, type Observation } from '../../../src/core/drill/observer';
import { buildDrillPlan, renderDrillPlan, type DrillPlan, type DrillSnapshot } from '../../../src/core/drill/plan';
import { buildDrillReport, renderDrillReport, type DrillReport, type RunFacts } from '../../../src/core/drill/report';
import { t } from '../../../src/core/l10n';
import { cfg, etcdModel, ids, inv, node, pod, powerOff, snapshot } from '../drill/nodeCluster';
import { inv as pairInv, LB1, LB2, snapshot as pairRead, type Side } from '../drill/balancerPair';
import { mainInLocale } from '../cli/inLocale';
import { CYRILLIC, inRussian } from './inRussian';


// ------------------------------------------------------------------ a node drill's cluster

/** The node drills' cluster (../drill/nodeCluster.ts), its balancer read from the journal (the plan warns of it). */
const nodeSnapshot = (over: Partial<DrillSnapshot> = {}): DrillSnapshot => snapshot(over, 'journal');
const facts = (over: Partial<RunFacts> = {}): RunFacts => ({ startedAt: '2026-12-05T00:00:00Z', faultSeconds: 1.2, observedSeconds: 60, restore: { ok: true, seconds: 6, attempted: true }, recoverySeconds: 40, cancelled: false, probeErrors: {}, apiserverProbed: true, ...over });

const byTime = (observations: Observation[]): Observation[] => [...observations].sort((a, b) => a.t - b.t);

function feedAll(o: DrillObserver, observations: Observation[], restoreAt?: number): string[] {
  const lines: string[] = [];
  for (const x of observations) {
    if (restoreAt !== undefined && x.t >= restoreAt) o.restoreStarted(restoreAt);
    lines.push(...o.observe(x));
  }
  return lines;
}

/** The etcd leader powered off: every measurement of a control plane, a probe error, a restore that failed. */
function controlPlaneDrill(): { plan: DrillPlan; report: DrillReport; lines: string[] } {
  const plan = buildDrillPlan(inv, powerOff, nodeSnapshot());
  const o = new DrillObserver({
    role: 'control-plane', targetNode: 'labs-k8s-m01', balancers: ['labs-k8s-balancer'], apiserverProbed: true,
    etcd: { targetMember: plan.etcd!.targetMember, leader: plan.etcd!.leader, term: 4, names: plan.etcd!.names },
    leases: plan.leases.map((l) => ({ name: l.name, holder: l.holder, onTarget: l.onTarget })), evictable: [], replicaSets: [], waitForEvictions: false,
  });
  const api: Observation[] = [];
  for (let t = 0; t < 100_000; t += 500) api.push({ source: 'api', t, ok: !(t >= 1000 && t <= 11_000 && t % 1500 === 0) && t !== 85_000, ms: 10, ...(t === 1500 ? { error: 'ECONNRESET' } : {}) });
  const lines = feedAll(o, byTime([
    ...api.filter((x) => x.t < 60_000),
    { source: 'etcd', t: 1700, via: 'm02', points: [{ member: ids.m02, leader: '0', term: 5, index: 5101, applied: 5101 }] },
    { source: 'etcd', t: 2100, via: 'm03', points: [{ member: ids.m03, leader: ids.m03, term: 5, index: 5102, applied: 5102 }] },
    { source: 'haproxy', t: 11_300, balancer: 'labs-k8s-balancer', state: { status: 'DOWN', check: 'L4TOUT' } },
    { source: 'lease', t: 17_500, name: 'kube-scheduler', holder: 'labs-k8s-m03_77aa' },
    { source: 'node', t: 44_000, ready: 'Unknown', reason: 'NodeStatusUnknown', taints: ['node.kubernetes.io/unreachable:NoExecute'] },
    ...api.filter((x) => x.t >= 60_000),
    { source: 'etcd', t: 70_000, via: 'm02', points: [{ member: ids.m01, leader: ids.m03, term: 5, index: 5900, applied: 5880 }, { member: ids.m03, leader: ids.m03, term: 5, index: 6000, applied: 6000 }] },
    { source: 'etcd', t: 72_000, via: 'm02', points: [{ member: ids.m01, leader: ids.m03, term: 5, index: 6100, applied: 6100 }, { member: ids.m03, leader: ids.m03, term: 5, index: 6101, applied: 6101 }] },
    { source: 'node', t: 80_000, ready: 'True', taints: [] },
    { source: 'haproxy', t: 82_000, balancer: 'labs-k8s-balancer', state: { status: 'UP', check: 'L4OK' } },
    { source: 'apiserver', t: 90_000, ready: true },
  ]), 60_000);
  const report = buildDrillReport(plan, o.timeline(), facts({ probeErrors: { 'etcd@labs-k8s-m02': 'context deadline exceeded' }, restore: { ok: false, seconds: undefined, error: 'exit 1', attempted: true }, faultError: 'exit 2' }));
  return { plan, report, lines };
}

/** A worker stopped: pods evicted (one waited for, one not), the taint, the ReplicaSet back, the pods cleaned up. */
function workerDrill(): { plan: DrillPlan; report: DrillReport; lines: string[] } {
  const plan = buildDrillPlan(inv, { host: 'labs-k8s-w01', kind: 'stop', evictionWaitSeconds: 60 }, nodeSnapshot({ pods: [pod('web-1', {}, 10), pod('slow', {}, 300)], replicaSets: [{ key: 'default/web-5d9c', desired: 4 }], targetCheck: { ok: true, detail: '' } }));
  const o = new DrillObserver({ role: 'worker', targetNode: 'labs-k8s-w01', balancers: [], leases: [], evictable: ['default/web-1'], replicaSets: [{ key: 'default/web-5d9c', desired: 4 }], waitForEvictions: true });
  const lines = feedAll(o, [
    { source: 'node', t: 45_000, ready: 'Unknown', taints: ['node.kubernetes.io/unreachable:NoExecute'] },
    { source: 'pods', t: 58_000, pods: [{ key: 'default/web-1', deleting: true }] },
    { source: 'replicas', t: 63_000, key: 'default/web-5d9c', ready: 4, desired: 4 },
    { source: 'node', t: 70_000, ready: 'True', taints: [] },
    { source: 'pods', t: 72_000, pods: [] },
  ], 64_000);
  return { plan, report: buildDrillReport(plan, o.timeline(), facts({ cancelled: true })), lines };
}

/** Drills refused before anything is done: a NotReady target kubelet is not active on (the engine's check, as it words it), quorum at stake with a backend DOWN, no power-on command. */
function refusedPlans(): DrillPlan[] {
  return [
    buildDrillPlan(inv, { host: 'labs-k8s-w02', kind: 'stop', evictionWaitSeconds: 30 }, nodeSnapshot({ nodes: [...['m01', 'm02', 'm03', 'w01'].map((n) => node(`labs-k8s-${n}`)), node('labs-k8s-w02', 'Unknown')], targetCheck: { ok: false, detail: t('kubelet is not active or crictl is missing (`systemctl is-active kubelet`, `command -v crictl`): {0}', 'exit 3') } })),
    buildDrillPlan(inv, { ...powerOff, powerOnCommand: undefined }, nodeSnapshot({ etcd: etcdModel('m02', ['m03']), balancers: [{ host: 'labs-k8s-balancer', cfg, method: 'socat', clockEpoch: 1_700_000_000, states: { 'kubernetes-master-nodes/labs-k8s-m02': { status: 'DOWN' } } }] })),
    buildDrillPlan(inv, { host: 'labs-k8s-m02', kind: 'partition', cutCommand: 'virsh domif-setlink {host} vnet0 down' }, nodeSnapshot({ apiServer: 'https://10.3.60.51:6443' })),
    buildDrillPlan(inv, { host: 'nowhere', kind: 'stop' }, nodeSnapshot()),
    buildDrillPlan(inv, { host: 'labs-k8s-m01', kind: 'haproxy' }, nodeSnapshot()),
  ];
}

// ------------------------------------------------------------------ a balancer drill's pair

/** The pair of ../drill/balancerPair.ts, balancer2's keepalived.conf unreadable unless a side has nopreempt (its warning read too). */
function pairSnapshot(sides: Record<string, Side>): DrillSnapshot {
  const s = pairRead(sides);
  const confs = s.vrrp!.confs;
  return { ...s, vrrp: { ...s.vrrp!, confs: { ...confs, [LB2]: { ...confs[LB2]!, ...(sides[LB2]!.nopreempt ? {} : { error: 'exit 1: permission denied' }) } } } };
}
const balancerObserver = (plan: DrillPlan) =>
  new DrillObserver({ role: 'loadbalancer', targetNode: plan.target.host, balancers: [], leases: [], evictable: [], replicaSets: [], waitForEvictions: false, vrrp: { kind: plan.kind === 'split-brain' ? 'split-brain' : 'move', target: plan.target.host, taker: plan.vrrp!.taker, macs: plan.vrrp!.macs, neighbour: plan.vrrp!.neighbour, preempt: plan.vrrp!.sides.find((s) => s.host === plan.target.host)!.preempt } });

function balancerDrills(): { plan: DrillPlan; report?: DrillReport; lines: string[] }[] {
  const healthy = pairSnapshot({ [LB1]: { holds: true }, [LB2]: { holds: false } });
  const off = buildDrillPlan(pairInv, { host: LB1, kind: 'power-off', powerOffCommand: 'bash lab/lab.sh fault power-off {host}', powerOnCommand: 'bash lab/lab.sh fault power-on {host}' }, healthy);
  const o1 = balancerObserver(off);
  const api: Observation[] = [];
  for (let t = 0; t < 20_000; t += 500) api.push({ source: 'api', t, ok: !(t >= 500 && t <= 2500), ms: 10 });
  const l1 = feedAll(o1, byTime([...api, { source: 'vip', t: 100, balancer: LB1, holds: true }, { source: 'vip', t: 100, balancer: LB2, holds: false }, { source: 'neighbour', t: 100, host: 'labs-k8s-w01', mac: '0a:00:00:00:00:50' }, { source: 'vip', t: 1600, balancer: LB1, holds: false }, { source: 'vip', t: 3600, balancer: LB2, holds: true }, { source: 'neighbour', t: 3700, host: 'labs-k8s-w01', mac: '0a:00:00:00:00:56' }, { source: 'vip', t: 18_000, balancer: LB1, holds: true }, { source: 'vip', t: 18_200, balancer: LB2, holds: false }, { source: 'neighbour', t: 18_300, host: 'labs-k8s-w01', mac: '0a:00:00:00:00:50' }]), 10_000);
  const split = buildDrillPlan(pairInv, { host: LB2, kind: 'split-brain' }, { ...healthy, targetCheck: { ok: true, detail: '' } });
  const o2 = balancerObserver(split);
  const l2 = feedAll(o2, [{ source: 'vip', t: 100, balancer: LB1, holds: true }, { source: 'vip', t: 100, balancer: LB2, holds: false }, { source: 'vip', t: 3500, balancer: LB2, holds: true }, { source: 'vip', t: 12_800, balancer: LB2, holds: false }], 12_000);
  const stay = buildDrillPlan(pairInv, { host: LB1, kind: 'stop' }, pairSnapshot({ [LB1]: { holds: true, nopreempt: true }, [LB2]: { holds: false, nopreempt: true } }));
  const o3 = balancerObserver(stay);
  const l3 = feedAll(o3, [{ source: 'vip', t: 100, balancer: LB1, holds: false }, { source: 'vip', t: 600, balancer: LB2, holds: true }], 5000);
  const back = buildDrillPlan(pairInv, { host: LB1, kind: 'haproxy' }, healthy);
  return [
    { plan: off, report: buildDrillReport(off, o1.timeline(), facts()), lines: l1 },
    { plan: split, report: buildDrillReport(split, o2.timeline(), facts()), lines: l2 },
    { plan: stay, report: buildDrillReport(stay, o3.timeline(), facts()), lines: l3 },
    { plan: back, lines: [] },
    { plan: buildDrillPlan(pairInv, { host: LB1, kind: 'haproxy' }, pairSnapshot({ [LB1]: { holds: true, weight: -5 }, [LB2]: { holds: false, weight: -5 } })), lines: [] },
    { plan: buildDrillPlan(pairInv, { host: LB1, kind: 'power-off' }, pairSnapshot({ [LB1]: { holds: true }, [LB2]: { holds: false, haproxy: false } })), lines: [] },
    { plan: buildDrillPlan(pairInv, { host: LB2, kind: 'stop' }, healthy), lines: [] },
  ];
}

function allDrills(): { plan: DrillPlan; report?: DrillReport | undefined; lines: string[] }[] {
  return [controlPlaneDrill(), workerDrill(), ...refusedPlans().map((plan) => ({ plan, lines: [] })), ...balancerDrills()];
}

// ------------------------------------------------------------------ what is left English

/** Data a detail may be made of: a HAProxy state, a node condition, a taint, the live view's split-brain problem. */
const DATA = /^(DOWN|UP)( \(\w+\))?$|^Ready=\w+( \(\w+\))?$|^node\.kubernetes\.io\/[\w-]+:NoExecute$|^\/readyz ok$|^ECONNRESET$/;

/** The texts of a plan and a report a reader reads, labelled. */
function texts(plan: DrillPlan, report: DrillReport | undefined, lines: string[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  plan.refusals.forEach((r, i) => (out[`refusal ${i}`] = r));
  plan.warnings.forEach((w, i) => (out[`warning ${i}`] = w));
  out.fault = plan.fault?.title;
  out.restore = plan.restore?.title;
  out.quorum = plan.etcd?.quorum;
  for (const e of plan.expectations) Object.assign(out, { [`${e.id} title`]: e.title, [`${e.id} basis`]: e.basis, [`${e.id} seed`]: e.seed, [`${e.id} after`]: e.after?.basis });
  if (report) {
    out.title = report.title;
    report.notes.forEach((n, i) => (out[`note ${i}`] = n));
    for (const m of report.measurements) {
      out[`${m.id} measured title`] = m.title;
      if (/[a-z]{2}/.test(m.expected)) out[`${m.id} expected`] = m.expected;
      for (const [i, part] of (m.detail ?? '').split('; ').entries()) if (part && !DATA.test(part)) out[`${m.id} detail ${i}`] = part;
    }
  }
  for (const l of lines) {
    const detail = l.slice(l.indexOf(': ') + 2);
    if (l.includes(': ') && !DATA.test(detail)) out[`narration ${l.split(':')[0]}`] = detail;
  }
  return out;
}

/** A document's lines (and table cells) a reader reads with no Russian word; commands, names and numbers are not text. */
function englishLines(md: string): string[] {
  // a command in a code span may run over several lines
  return md.replace(/`[^`]*`/g, '`…`').split('\n').flatMap((line) => {
    if (!/[A-Za-z]{2}/.test(line) || CYRILLIC.test(line.replace(/\|[^|]*$/, ''))) {
      // a table row: its title and verdict cells must be Russian too
      if (!line.startsWith('| ') || line.startsWith('| ---')) return [];
      const cells = line.split(' | ');
      return [cells[0], cells[3]].filter((c) => c !== undefined && /[a-z]{3}/.test(c) && !CYRILLIC.test(c)).map((c) => `${c} (in ${line})`);
    }
    // etcd's heading, a lease's move (names only)
    if (/^## etcd$|^- [\w-]+: [\w?-]+ → [\w?-]+$/.test(line)) return [];
    return [line];
  });
}

test('the failure drill speaks Russian: plans, refusals, warnings, bounds and their reasons, reports, details, notes and the narration', () => {
  inRussian(() => {
    for (const { plan, report, lines } of allDrills()) {
      const what = `${plan.kind} ${plan.target.host}`;
      assert.deepEqual(Object.entries(texts(plan, report, lines)).filter(([, v]) => v !== undefined && v !== '' && !CYRILLIC.test(v)).map(([k, v]) => `${k}: ${v}`), [], what);
      assert.deepEqual(englishLines(renderDrillPlan(plan)), [], `${what}: the plan document`);
      if (report) assert.deepEqual(englishLines(renderDrillReport(report)), [], `${what}: the report document`);
    }
    const { report } = controlPlaneDrill();
    assert.match(renderDrillReport(report), /^# Учения по отказу: power-off labs-k8s-m01 \(control-plane\) — НЕ ПРОЙДЕНО/);
  });
});

test('the English run is what it was, and a Russian run keeps it as the English twin that drill --json prints', () => {
  const english = allDrills();
  for (const { plan, report } of english) {
    assert.equal(plan.english, undefined, 'no twin in an English run');
    assert.equal(report?.english, undefined);
    assert.ok(!CYRILLIC.test(renderDrillPlan(plan)) && !CYRILLIC.test(report ? renderDrillReport(report) : ''));
  }
  const russian = inRussian(allDrills);
  assert.equal(russian.length, english.length);
  russian.forEach(({ plan, report }, i) => {
    const en = english[i]!;
    // as data (a command's toString is a function of its own in each build); refusals and warnings may quote what the
    // engine read from the hosts in the reader's language (a refused drill prints no report, and no JSON holds them)
    const planData = (p: DrillPlan) => JSON.stringify({ ...p, refusals: p.refusals.length, warnings: p.warnings.length });
    assert.equal(planData(plan.english!), planData(en.plan), `${plan.kind} ${plan.target.host}: the plan's English twin`);
    if (!plan.refusals.length) assert.equal(renderDrillPlan(plan.english!), renderDrillPlan(en.plan));
    if (report) {
      assert.equal(JSON.stringify(report.english ?? report), JSON.stringify(en.report), `${plan.kind} ${plan.target.host}: the report's English twin, what --json prints`);
    }
  });
  const { lines } = controlPlaneDrill();
  assert.ok(lines.includes('etcd-leader: labs-k8s-m03 elected, term 4 → 5'), lines.join('\n'));
});

const USAGE_EN =
  'usage: kubeadm-workbench drill --inventory FILE --host NAME [--kind stop|power-off|partition|haproxy|split-brain]\n' +
  "                               [--power-off-command 'CMD {host}' --power-on-command 'CMD {host}']   (power-off: run locally, no shell; {host} or {address})\n" +
  "                               [--cut-command 'CMD {host}' --heal-command 'CMD {host}']             (partition: your own cut, else nftables over SSH)\n" +
  '                               [--evictions-wait 0s] [--observe-limit D] [--restore-timeout 300s] [--poll 1s]\n' +
  '                               [--kubeconfig F] [--context N] [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass]\n' +
  '                               [--plan] [--yes] [--json]\n';

test('the drill verb in Russian: its usage and its notes, its mistakes, its line of --help; English as it was', async () => {
  const en = await mainInLocale(undefined, ['drill', '--help']);
  assert.equal(en.err, USAGE_EN);
  const ru = await mainInLocale('ru_RU.UTF-8', ['drill', '--help']);
  const lines = ru.err.split('\n');
  assert.match(lines[0]!, /^использование: kubeadm-workbench drill --inventory FILE/);
  assert.match(lines[1]!, /\(power-off: выполняется на этой машине, без оболочки; \{host\} или \{address\}\)$/);
  assert.equal(lines[1]!.indexOf('[--power-off'), USAGE_EN.split('\n')[1]!.indexOf('[--power-off') + 'использование:'.length - 'usage:'.length, 'aligned under the first line');
  for (const [argv, english, russian] of [
    [['--host', 'a', '--host', 'b'], 'give exactly one --host: a drill fails one node at a time', 'укажите ровно один --host: учения выводят из строя один узел за раз'],
    [['--host', 'a', '--kind', 'reboot'], '--kind must be one of stop, power-off, partition, haproxy, split-brain (got "reboot")', '--kind должен быть одним из: stop, power-off, partition, haproxy, split-brain (получено «reboot»)'],
    [['--host', 'a', '--poll', 'soon'], '--poll: "soon" is not a duration (e.g. 90s, 5m)', '--poll: «soon» — не длительность (например, 90s, 5m)'],
    [['--host', 'a', '--kind', 'stop', '--cut-command', 'x {host}'], '--cut-command/--heal-command go with --kind partition', '--cut-command/--heal-command используются вместе с --kind partition'],
  ] as const) {
    const e = await mainInLocale(undefined, ['drill', '--inventory', 'inventory.yaml', ...argv]);
    assert.deepEqual([e.code, e.err], [2, `${english}\n${USAGE_EN}`]);
    const r = await mainInLocale('ru_RU.UTF-8', ['drill', '--inventory', 'inventory.yaml', ...argv]);
    assert.deepEqual([r.code, r.err.split('\n')[0]], [2, russian]);
  }
  const help = (await mainInLocale('ru_RU.UTF-8', ['--help'])).err;
  assert.match(help, /\n {2}drill --inventory F .* \[--json\] {3}вывести из строя один узел и измерить: DOWN в HAProxy, выборы etcd/);
  assert.match((await mainInLocale(undefined, ['--help'])).err, /\n {2}drill --inventory F .* \[--json\] {3}fail one node, measure HAProxy DOWN, etcd election, lease handover, NotReady, evictions; restore it and measure the way back\n/);
});
