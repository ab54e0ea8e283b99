/**
 * etcd maintenance below SSH: the space levels (80 % warning, 95 % error, NOSPACE) and how the health model counts
 * them; the defragmentation's order (followers, the leader last) and its steps around each node (guard, out of
 * every balancer after the others-UP gate, defrag, measured, own /readyz, back in); the NOSPACE recovery's order
 * (compaction first, every member, the quota gate, disarm, a write). The real etcd runs them in
 * test/integration/live/etcdMaintenance.test.ts, the lab on its cluster.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildDefragPlan, buildNospacePlan, defragOrder, leaderTransferee, moveLeaderCommand, type NospaceHooks } from '../../../src/core/etcd/defragPlan';
import { memberSpace, spaceProblem } from '../../../src/core/etcd/space';
import type { Inventory } from '../../../src/core/inventory/types';
import { buildEtcd, parseEndpointStatus, parseMemberList } from '../../../src/core/live/etcd';
import { verdict } from '../../../src/core/live/status';
import { describeMember } from '../../../src/core/live/render';
import { useMessages } from '../../../src/core/l10n';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../haproxy/helpers';
import { IDS, inv as three, memberList, statusOf } from '../backup/etcdHosts';

const model = (leader = 'm02', sizes: Partial<Record<string, [number, number, number]>> = {}) => {
  const statuses = Object.keys(IDS).map(statusOf(leader, [])).map((s, i) => {
    const name = Object.keys(IDS)[i]!;
    const [size, inUse, quota] = sizes[name] ?? [];
    return size === undefined ? s : s.replace('"dbSize":2502656', `"dbSize":${size},"dbSizeQuota":${quota}`).replace('"dbSizeInUse":1200128', `"dbSizeInUse":${inUse}`);
  });
  return buildEtcd({ ...parseMemberList(memberList), statuses: parseEndpointStatus(`[${statuses.join(',')}]`) }, 'test', 0, three);
};

const withBalancers: Inventory = {
  ...three,
  hosts: [...three.hosts, { name: 'lb1', address: '10.3.60.50', roles: ['loadbalancer'] }, { name: 'lb2', address: '10.3.60.56', roles: ['loadbalancer'] }],
};

const hooks: NospaceHooks = { guard: async () => undefined, measured: async () => undefined, belowQuota: async () => undefined };

test('space: % of quota and free pages per member; warning at 80 %, error at 95 %, and the health model says so', () => {
  const q = 100 * 1024 * 1024;
  const m = model('m02', { m01: [0.5 * q, 0.2 * q, q], m02: [0.85 * q, 0.8 * q, q], m03: [0.96 * q, 0.5 * q, q] });
  const [m01, m02, m03] = m.members.map(memberSpace);
  assert.equal(m01!.level, 'ok');
  assert.equal(Math.round(m01!.freePercent!), 60);
  assert.equal(m01!.freeBytes, 0.3 * q);
  assert.equal(m02!.level, 'warning');
  assert.equal(m03!.level, 'error');
  assert.equal(spaceProblem(m01!), undefined);
  assert.match(spaceProblem(m03!)!, /m03: DB 96% of quota, nearly full .* defragment it \(48\.2 MB free\)/);
  // The quota as the member reports it; a member that reports none has etcd's default.
  assert.equal(model().members[0]!.quota, 2 * 1024 * 1024 * 1024);
  const problems = verdict({ controlPlane: { nodes: [], addons: [] }, hosts: [], leases: { nodes: [], leaders: [] }, etcd: m } as never).problems;
  assert.deepEqual(problems.filter((p) => /quota/.test(p.what)).map((p) => p.severity), ['warning', 'critical']);
});

test('`status` per member: db, in use, quota, then % of quota and free space; the view\'s "(N% of quota)" is the same number', () => {
  const q = 100 * 1024 * 1024;
  const m = model('m02', { m01: [0.5 * q, 0.2 * q, q], m03: [0.855 * q, 0.85 * q, q] });
  const [m01, m02, m03] = m.members;
  assert.match(describeMember(m01!, 0), / · db 52\.4 MB \(in use 21\.0 MB\) \/ quota 104\.9 MB \(50% of quota, 31\.5 MB free\) · healthy$/);
  // etcd's default quota, 2.5 MB of it used: under one per cent keeps a decimal
  assert.match(describeMember(m02!, 0), / · db 2\.5 MB \(in use 1\.2 MB\) \/ quota 2\.1 GB \(0\.1% of quota, 1\.3 MB free\) · healthy$/);
  assert.match(describeMember(m03!, 0), /\(86% of quota, 524\.3 kB free\)/);
  // The etcd Members row says `db … (N% of quota)` with N = Math.round(memberSpace(m).percentOfQuota): 50, 86.
  assert.deepEqual([m01, m03].map((x) => Math.round(memberSpace(x!).percentOfQuota!)), [50, 86]);
  // Read in Russian: the share is in the catalogue; the English prefix and etcd's numbers stay.
  assert.deepEqual(useMessages('ru', JSON.parse(readFileSync(join(ROOT, 'l10n/bundle.l10n.ru.json'), 'utf8')) as Record<string, string>), []);
  let ru: string;
  try {
    ru = describeMember(m01!, 0);
  } finally {
    useMessages('en', undefined);
  }
  assert.match(ru, /БД 52\.4 MB \(занято 21\.0 MB\) \/ квота 104\.9 MB \(50% квоты, свободно 31\.5 MB\)/);
  // A member that did not answer has no space line at all.
  const down = buildEtcd({ ...parseMemberList(memberList), statuses: parseEndpointStatus(`[${['m01', 'm02'].map(statusOf('m01', [])).join(',')}]`) }, 'test', 0, three);
  assert.doesNotMatch(describeMember(down.members[2]!, 0), /quota/);
});

test('defrag order: the followers by name, the leader last', () => {
  assert.deepEqual(defragOrder(model('m01').members).map((m) => m.name), ['m02', 'm03', 'm01']);
  assert.deepEqual(defragOrder(model('m02').members).map((m) => m.name), ['m01', 'm03', 'm02']);
});

test('defrag plan: per member guard → (gate, out of every balancer) → defrag → measured → own /readyz → back in', () => {
  const members = defragOrder(model('m01').members);
  const plan = buildDefragPlan({ inventory: withBalancers, members, hooks });
  const ids = plan.phases[0]!.steps.map((s) => s.id);
  assert.equal(plan.phases[0]!.order, 'serial');
  const m02 = ids.filter((id) => /\/m02\/|-m02$/.test(id));
  assert.deepEqual(m02, [
    'etcd-defrag/m02/guard', 'etcd-defrag/m02/needed',
    'etcd-defrag/lb1/haproxy-others-up-m02', 'etcd-defrag/lb2/haproxy-others-up-m02', 'etcd-defrag/lb1/haproxy-maint-m02', 'etcd-defrag/lb2/haproxy-maint-m02',
    'etcd-defrag/m02/defrag', 'etcd-defrag/m02/measured', 'etcd-defrag/m02/own-readyz', 'etcd-defrag/lb1/haproxy-ready-m02', 'etcd-defrag/lb2/haproxy-ready-m02',
  ]);
  assert.ok(ids.indexOf('etcd-defrag/lb2/haproxy-ready-m03') < ids.indexOf('etcd-defrag/m01/guard'), 'the leader m01 last, after m03 is back');
  const defrag = plan.phases[0]!.steps.find((s) => s.id === 'etcd-defrag/m02/defrag')!;
  assert.match((defrag.run as { display: string }).display, /'--endpoints=https:\/\/127\.0\.0\.1:2379'.*'--command-timeout=600s' defrag/);
  assert.match(defrag.check!.display, /dbSizeInUse.*-lt 1048576/, 'skipped with under 1 MiB free (a resumed run skips what it did)');
  assert.match(defrag.verify!.display, /endpoint health/);
  // The node's balancer steps are skipped with its defrag when it has nothing to give back.
  const maint = plan.phases[0]!.steps.find((s) => s.id === 'etcd-defrag/lb1/haproxy-maint-m02')!;
  assert.equal(maint.skipWhen!({ get: (k) => (k === 'defrag-needed:m02' ? 'no' : undefined) }), true);
  assert.equal(maint.skipWhen!({ get: (k) => (k === 'defrag-needed:m02' ? 'yes' : undefined) }), false);
  // The leader m01 hands its leadership to m03 (defragmented just before it) before its own defragmentation; no
  // follower moves anything.
  const m01 = ids.filter((id) => /\/m01\/|-m01$/.test(id));
  assert.deepEqual(m01.slice(m01.indexOf('etcd-defrag/lb2/haproxy-maint-m01') + 1, m01.indexOf('etcd-defrag/m01/measured')), ['etcd-defrag/m01/move-leader', 'etcd-defrag/m01/defrag']);
  assert.equal(ids.filter((id) => id.endsWith('/move-leader')).length, 1, 'only the leader moves its leadership');
  const move = plan.phases[0]!.steps.find((s) => s.id === 'etcd-defrag/m01/move-leader')!;
  const m03Id = members.find((m) => m.name === 'm03')!.id;
  assert.match((move.run as { display: string }).display, new RegExp(`'--endpoints=https://127\\.0\\.0\\.1:2379'.* move-leader '?${m03Id}'?`));
  assert.match(move.check!.display, /member_id.*leader.*\|\|.*dbSizeInUse/, 'skipped when no longer the leader, or with nothing to give back');
  assert.match(move.verify!.display, /"\$id" != "\$leader"/);
  assert.equal(leaderTransferee(members, 2)?.name, 'm03');
  assert.equal(leaderTransferee(members, 1), undefined, 'a follower hands nothing');
  assert.equal(leaderTransferee([members[2]!], 0), undefined, 'a single member has no one to hand to');
  assert.throws(() => moveLeaderCommand('m03; reboot'), /not an etcd member id/);
  // Without balancers: guard, defrag, measured only.
  assert.deepEqual(buildDefragPlan({ inventory: three, members, hooks }).phases[0]!.steps.filter((s) => s.host === 'm03').map((s) => s.id), ['etcd-defrag/m03/guard', 'etcd-defrag/m03/defrag', 'etcd-defrag/m03/measured']);
  assert.deepEqual(buildDefragPlan({ inventory: three, members, hooks }).phases[0]!.steps.filter((s) => s.host === 'm01').map((s) => s.id), ['etcd-defrag/m01/guard', 'etcd-defrag/m01/move-leader', 'etcd-defrag/m01/defrag', 'etcd-defrag/m01/measured']);
});

test('NOSPACE plan: compaction, every member (no balancer steps, no skipping), the quota gate, disarm, a write', () => {
  const plan = buildNospacePlan({ inventory: withBalancers, members: defragOrder(model('m03').members), hooks, helper: 'm01' });
  const steps = plan.phases[0]!.steps;
  assert.deepEqual(steps.map((s) => s.id), [
    'etcd-nospace/m01/compact',
    ...['m01', 'm02', 'm03'].flatMap((h) => ['guard', 'defrag', 'measured'].map((k) => `etcd-nospace/${h}/${k}`)),
    'etcd-nospace/m01/below-quota', 'etcd-nospace/m01/disarm', 'etcd-nospace/m01/write-check',
  ]);
  const defrag = steps.find((s) => s.id === 'etcd-nospace/m02/defrag')!;
  assert.equal(defrag.check, undefined, 'under NOSPACE pending pages do not count as free: never skipped');
  assert.match(defrag.verify!.display, /endpoint status/, '`endpoint health` fails on any alarm');
  assert.match((steps[0]!.run as { display: string }).display, /compaction '--physical' "\$rev".*required revision has been compacted/);
  assert.match(steps.find((s) => s.id.endsWith('/disarm'))!.check!.display, /alarm list/);
  assert.match((steps.at(-1)!.run as { display: string }).display, /put \/kubeadm-workbench\/write-check .*del \/kubeadm-workbench\/write-check/);
});
