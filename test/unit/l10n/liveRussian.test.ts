/**
 * The live model and the kubectl run timeline read in Russian with the shipped bundle: etcd's problems and quorum
 * line, the balancers' problems and VRRP verdict, the certificates' and snapshots' problems, the verdict built from
 * them, the API errors and the manifest drift; the timeline's sources, hops, comparison, text report and test pod
 * choices. A text left English inside a Russian frame fails here; names, addresses, identifiers and Kubernetes' or
 * etcd's own words inside a Russian sentence are expected. Whatever code recognises (a problem's severity, the split
 * brain, a hop) is the same in both languages: it goes by kind and id, not by the words.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { useMessages } from '../../../src/core/l10n';
import type { Inventory } from '../../../src/core/inventory/types';
import { buildEtcd, type EtcdRaw } from '../../../src/core/live/etcd';
import { buildBalancers, vipLine, type BalancerLive } from '../../../src/core/live/balancers';
import { haproxyDownOnHolder, splitBrainCause } from '../../../src/core/live/vrrpVerdict';
import type { VrrpInstanceData } from '../../../src/core/live/keepalivedData';
import { verdict } from '../../../src/core/live/status';
import { certificateProblems } from '../../../src/core/live/certProblems';
import { snapshotProblems } from '../../../src/core/live/day2';
import { ApiError } from '../../../src/core/live/errors';
import { manifestDrift } from '../../../src/core/live/controlPlane';
import { renderBalancers, renderEtcd } from '../../../src/core/live/render';
import type { CertReport } from '../../../src/core/certs/report';
import type { LiveModel } from '../../../src/core/live/snapshot';
import { apiSource, notReadYet, readClusterSources } from '../../../src/core/timeline/clusterSources';
import { buildTimeline, type PodEvent, type PodSnapshot } from '../../../src/core/timeline/model';
import { compareRuns, hopTimes } from '../../../src/core/timeline/compare';
import { renderTimelineText, timelineReport } from '../../../src/core/timeline/report';
import { testNodeChoices } from '../../../src/core/timeline/testNode';
import { defaultTestImage } from '../../../src/core/timeline/defaultImage';
import { bundle, CYRILLIC } from './inRussian';

after(() => useMessages('en', undefined));


/** `fn` run in English and in Russian. */
function both<T>(fn: () => T): { en: T; ru: T } {
  const en = fn();
  assert.deepEqual(useMessages('ru', bundle), []);
  try {
    return { en, ru: fn() };
  } finally {
    useMessages('en', undefined);
  }
}

/** The texts (labelled) without a Russian word. */
const english = (texts: Record<string, string | undefined>): string[] => Object.entries(texts).filter(([, v]) => v && !CYRILLIC.test(v)).map(([k, v]) => `${k}: ${v}`);

// ---- etcd ----------------------------------------------------------------------------------------------------------

const url = (i: number, port: number) => `https://10.3.60.5${i}:${port}`;
const member = (i: number) => ({ ID: String(i), name: `m0${i}`, peerURLs: [url(i, 2380)], clientURLs: [url(i, 2379)] });
const status = (i: number, extra: object = {}) => ({ endpoint: url(i, 2379), status: { header: { member_id: String(i) }, leader: '1', version: '3.5.21', dbSize: 20_000_000, dbSizeInUse: 10_000_000, raftIndex: 10, raftTerm: 2, raftAppliedIndex: 10, ...extra } });
/** Every kind of etcd problem: an alarm, an unreachable member, one never started, no leader, quorum lost and at risk. */
const ETCD: Record<string, EtcdRaw> = {
  lost: { members: [member(1), member(2), member(3), { ID: '4', peerURLs: [url(4, 2380)] }], statuses: [status(1), status(2, { errors: ['memberID:2 alarm:NOSPACE'] }), { endpoint: url(3, 2379), error: 'context deadline exceeded' }] },
  atRisk: { members: [member(1), member(2), member(3)], statuses: [status(1), status(2), { endpoint: url(3, 2379), error: 'connection refused' }] },
  leaderless: { members: [member(1), member(2), member(3)], statuses: [1, 2, 3].map((i) => status(i, { leader: '0' })) },
  empty: { members: [], statuses: [] },
};
const model = (etcd: ReturnType<typeof buildEtcd> | undefined): LiveModel => ({ controlPlane: { nodes: [], addons: [] }, hosts: [], leases: { nodes: [], leaders: [], apiservers: [] }, etcd } as unknown as LiveModel);

test('etcd\'s problems and quorum line in Russian; the verdict judges them the same in both languages', () => {
  for (const [name, raw] of Object.entries(ETCD)) {
    const { en, ru } = both(() => {
      const m = buildEtcd(raw, 'exec etcd-m01', 0);
      return { m, v: verdict(model(m)), lines: renderEtcd(m) };
    });
    assert.ok(en.m.problems.length > 0, `${name}: problems`);
    assert.deepEqual(english({ quorumLine: ru.m.quorumLine, ...Object.fromEntries(ru.m.problems.map((p, i) => [`problem ${i}`, p])), ...Object.fromEntries(ru.m.members.map((m) => [`${m.name} problem`, m.problem])) }), [], name);
    assert.deepEqual(ru.v.problems.map((p) => p.severity), en.v.problems.map((p) => p.severity), `${name}: the same severities`);
    assert.equal(ru.v.degraded, en.v.degraded);
    assert.deepEqual(ru.m.issues, en.m.issues, `${name}: the same kinds`);
    assert.deepEqual(ru.m.members.map((m) => m.problemKind), en.m.members.map((m) => m.problemKind));
    assert.deepEqual(ru.lines.filter((l) => !CYRILLIC.test(l)), [], `${name}: the status verb's etcd lines`);
  }
  // the member whose endpoint was silent keeps the cause as the read said it, for its row
  const lost = buildEtcd(ETCD.lost!, 'x', 0);
  assert.deepEqual(lost.members.map((m) => [m.name, m.problemKind, m.unreachableCause]), [['(unstarted)', 'unstarted', undefined], ['m01', undefined, undefined], ['m02', 'alarm', undefined], ['m03', 'unreachable', 'context deadline exceeded']]);
});

// ---- balancers ------------------------------------------------------------------------------------------------------

const inv = { cluster: { controlPlaneEndpoint: '10.3.60.100:6443' } } as Inventory;
const instance = (over: Partial<VrrpInstanceData>): VrrpInstanceData => ({
  name: 'VI_K8S_API', state: 'MASTER', vrid: 51, interface: 'ens192', priority: 100, effectivePriority: 100, masterRouter: undefined, masterPriority: undefined,
  lastTransition: 1_764_000_000, masterDownMs: 3_100, advertSeconds: 1, preempt: true, preemptDelaySeconds: undefined, vips: [{ address: '10.3.60.100', set: true }], scripts: [], ...over,
});
const lb = (host: string, over: Partial<NonNullable<BalancerLive['vrrp']>> | undefined, rest: Partial<BalancerLive> = {}): BalancerLive => ({
  host, address: `10.3.60.${host.length}`, configuredState: 'MASTER', haproxy: undefined, servers: [], error: undefined,
  vrrp: over && { holdsVip: false, vipInterface: undefined, keepalivedActive: true, keepalivedState: 'BACKUP', haproxyActive: true, ...over }, ...rest,
});
const script = (status: string, weight = -20) => ({ name: 'chk_haproxy', weight, status, intervalSeconds: 2, fall: 2, rise: 2 });

test('the balancers\' problems, VIP line and VRRP verdict in Russian; the split brain is found by its kind in both', () => {
  const holder = (i: Partial<VrrpInstanceData>, rest: Partial<NonNullable<BalancerLive['vrrp']>> = {}) => lb('lb1', { holdsVip: true, vipInterface: 'ens192', keepalivedState: 'MASTER', haproxyActive: false, instance: instance(i), ...rest });
  const standby = (i: Partial<VrrpInstanceData> = {}) => lb('lb2', { instance: instance({ state: 'BACKUP', priority: 90, effectivePriority: 90, ...i }) });
  const scenes: Record<string, BalancerLive[]> = {
    splitBrain: [lb('lb1', { holdsVip: true, vipInterface: 'ens192', keepalivedState: 'MASTER', instance: instance({}) }), lb('lb2', { holdsVip: true, vipInterface: 'ens192', keepalivedState: 'MASTER', instance: instance({ vrid: 52 }) })],
    stuck: [holder({}), standby()],
    notRead: [lb('lb1', { holdsVip: true, vipInterface: 'ens192', keepalivedState: 'MASTER' }), lb('lb3', undefined, { error: 'timed out' }), lb('lb2', { keepalivedActive: false }), lb('lb4', { instance: instance({ state: 'FAULT', scripts: [script('BAD')] }) })],
    down: [lb('lb1', { holdsVip: true, vipInterface: 'ens192', keepalivedState: 'MASTER' }, { servers: [{ backend: 'k8s-api', server: 'm01', address: '10.3.60.51:6443', state: { status: 'DOWN', check: 'L4CON' } as never }] })],
    none: [lb('lb1', {}), lb('lb2', {})],
  };
  for (const [name, balancers] of Object.entries(scenes)) {
    const { en, ru } = both(() => {
      const m = buildBalancers(inv, balancers, 0);
      return { m, vip: vipLine(m), lines: renderBalancers(m) };
    });
    assert.ok(en.m.problems.length > 0, `${name}: problems`);
    assert.deepEqual(english({ vip: ru.vip, ...Object.fromEntries(ru.m.problems.map((p, i) => [`problem ${i}`, p.what])) }), [], name);
    assert.deepEqual(ru.m.problems.map((p) => [p.severity, p.about, p.kind]), en.m.problems.map((p) => [p.severity, p.about, p.kind]), `${name}: the same severities and kinds`);
    assert.deepEqual(ru.lines.filter((l) => !CYRILLIC.test(l) && !/^ {4}(k8s-api\/m01|VRRP MASTER · )/.test(l)), [], `${name}: the status verb's balancer lines`);
  }
  assert.equal(buildBalancers(inv, scenes.splitBrain!, 0).problems.find((p) => p.kind === 'split-brain')?.about, 'vip');
  // every way the VIP can be stuck or move, and every cause of a split brain
  const verdicts = both(() => [
    haproxyDownOnHolder(holder({ scripts: [script('GOOD')] }), [standby()]).what,
    haproxyDownOnHolder(holder({ scripts: [script('BAD', -5)], effectivePriority: 95 }), [standby()]).what,
    haproxyDownOnHolder(holder({ scripts: [script('BAD')], effectivePriority: 80 }), [standby({ preempt: false })]).what,
    haproxyDownOnHolder(holder({ scripts: [script('BAD')], effectivePriority: 80 }), [standby()]).what,
    haproxyDownOnHolder(holder({}), []).what,
    haproxyDownOnHolder(lb('lb1', { holdsVip: true, haproxyActive: false }), []).what,
    splitBrainCause([lb('lb1', { holdsVip: true, instance: instance({ state: 'BACKUP' }) }), lb('lb2', { holdsVip: true, keepalivedActive: false })]),
    splitBrainCause([lb('lb1', { holdsVip: true, instance: instance({}) }), lb('lb2', { holdsVip: true, instance: instance({ advertSeconds: 2 }) })]),
    splitBrainCause([lb('lb1', { holdsVip: true, instance: instance({ stats: { advertsReceived: 1, advertsSent: 1, authErrors: 3, becameMaster: 1, releasedMaster: 0 } }) }), lb('lb2', { holdsVip: true, instance: instance({}) })]),
    splitBrainCause([lb('lb1', { holdsVip: true, instance: instance({}) }), lb('lb2', { holdsVip: true, instance: instance({}) })]),
    splitBrainCause([lb('lb1', { holdsVip: true, instance: instance({}) })]),
  ]);
  assert.deepEqual(english(Object.fromEntries(verdicts.ru.map((v, i) => [`verdict ${i}`, v]))), []);
  assert.ok(verdicts.en.every((v) => !CYRILLIC.test(v)));
});

// ---- certificates, snapshots, errors, drift -------------------------------------------------------------------------

const certs = {
  cluster: 'labs-k8s', at: '2026-12-05T12:00:00Z', thresholds: { warningDays: 30, errorDays: 7 },
  hosts: [
    { host: 'w01', address: '10.3.60.54', controlPlane: false, entries: [], error: 'host key not trusted' },
    { host: 'm01', address: '10.3.60.51', controlPlane: true, entries: [{ host: 'm01', id: 'apiserver', path: '/etc/kubernetes/pki/apiserver.crt', role: 'serving', daysLeft: -2, expiry: 'expired', problems: [{ severity: 'warning', message: 'SANs do not include 10.3.60.100: x' }], notes: [] }] },
  ],
  served: [{ target: 'endpoint', address: '10.3.60.100', port: 6443, daysLeft: 12, problems: [{ severity: 'error', message: 'the served certificate does not cover 10.3.60.100: x' }] }],
  local: [],
} as unknown as CertReport;

test('the certificates\', snapshots\' and API errors\' texts and the manifest drift in Russian', () => {
  const { en, ru } = both(() => ({
    certs: certificateProblems(certs),
    snapshots: snapshotProblems([{ host: 'm01', error: 'no route to host' }], 3600),
    errors: (['dns', 'tls', 'auth', 'forbidden', 'timeout', 'refused', 'unreachable', 'gone', 'http', 'config', 'other'] as const).map((k) => new ApiError(k, 'https://10.3.60.100:6443/api/v1/nodes', 'x').describe()),
    drift: manifestDrift({ spec: { containers: [{ name: 'kube-apiserver', image: 'k:v2', command: ['kube-apiserver', '--v=4'] }, { name: 'sidecar' }] } }, { metadata: { name: 'p' }, spec: { containers: [{ name: 'kube-apiserver', image: 'k:v1', command: ['kube-apiserver', '--v=2'] }, { name: 'old' }] } } as never).differences,
    noContainers: manifestDrift({ spec: {} }, { metadata: { name: 'p' }, spec: { containers: [] } } as never).differences,
  }));
  assert.equal(en.certs.length, 5);
  assert.deepEqual(ru.certs.map((p) => p.severity), en.certs.map((p) => p.severity));
  assert.deepEqual(english({
    ...Object.fromEntries(ru.certs.map((p, i) => [`cert ${i}`, p.what])), snapshots: ru.snapshots[0]!.what,
    ...Object.fromEntries(ru.errors.map((e, i) => [`error ${i}`, e])), ...Object.fromEntries([...ru.drift, ...ru.noContainers].map((d, i) => [`drift ${i}`, d])),
  }), []);
});

// ---- the timeline ---------------------------------------------------------------------------------------------------

const T = Date.parse('2026-11-29T10:00:00Z');
const pod = (node: string): PodSnapshot => ({ name: 'web', namespace: 'default', creationTimestamp: new Date(T).toISOString(), nodeName: node, phase: 'Running', containerStatuses: [{ name: 'web', state: { running: { startedAt: new Date(T + 4000).toISOString() } } }] });
const events = (pulled: string): PodEvent[] => [
  { reason: 'Scheduled', eventTime: new Date(T + 123).toISOString(), message: 'Successfully assigned default/web to w01' },
  { reason: 'Pulling', firstTimestamp: new Date(T + 1000).toISOString() },
  { reason: 'Pulled', firstTimestamp: new Date(T + 3000).toISOString(), message: pulled },
];
const run = (node: string, pulled: string) => buildTimeline(pod(node), events(pulled), { createSentAt: T - 50, createdAt: T - 10, bindingObservedAt: T + 130, runningObservedAt: T + 4300 }, T + 5000);
const nodes = [
  { metadata: { name: 'w01' }, status: { conditions: [{ type: 'Ready', status: 'True' }], images: [{ names: ['registry.k8s.io/pause:3.10'] }] } },
  { metadata: { name: 'w02' }, status: { conditions: [{ type: 'Ready', status: 'False' }], images: [] } },
];

test('the timeline\'s sources, hops, comparison, text report and test pod choices in Russian; the hops keep their ids', async () => {
  const { en, ru } = both(() => ({ api: apiSource(), notYet: notReadYet(), hops: hopTimes(run('w01', 'Successfully pulled image "web:1" in 2.345s')) }));
  assert.deepEqual(ru.hops.map((h) => h.id), en.hops.map((h) => h.id));
  assert.deepEqual(ru.hops.map((h) => h.ms), en.hops.map((h) => h.ms), 'the kubelet\'s measure of the pull is found by the hop\'s id');
  useMessages('ru', bundle);
  try {
    const noSsh = await readClusterSources(undefined, undefined, { name: 'web', namespace: 'default' }, T);
    const cold = run('w01', 'Successfully pulled image "web:1" in 2.345s');
    const warm = run('w02', 'Container image "web:1" already present on machine');
    const report = renderTimelineText(timelineReport(cold)).split('\n');
    assert.deepEqual(english({
      api: ru.api.text, ...Object.fromEntries([...ru.notYet, ...(noSsh.sources ?? []).slice(1)].flatMap((s, i) => [[`source ${i}`, s.source], [`note ${i}`, s.text]])),
      ...Object.fromEntries(ru.hops.map((h) => [h.id, h.hop])),
      ...Object.fromEntries(compareRuns(cold, warm).explanation.map((e, i) => [`explanation ${i}`, e])),
      ...Object.fromEntries(testNodeChoices(nodes as never, 'registry.k8s.io/pause:3.10').flatMap((c, i) => [[`node ${i}`, c.node ? undefined : c.label], [`node ${i} description`, c.description]])),
      image: defaultTestImage(nodes.slice(0, 1) as never, undefined, undefined).why, lastImage: defaultTestImage([] as never, undefined, 'web:1').why,
      title: report[0], hopsHeading: report.find((l) => /^hops:|^переходы:/.test(l)), sourcesHeading: report.find((l) => /^sources:|^источники:/.test(l)), sli: report.find((l) => /SLI/.test(l)),
    }), []);
    assert.deepEqual(noSsh.sources?.map((s) => s.id), ['api', 'audit', 'journal']);
  } finally {
    useMessages('en', undefined);
  }
});
