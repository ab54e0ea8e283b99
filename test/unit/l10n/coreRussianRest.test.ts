/**
 * The rest of what the core and the engine write, read in Russian with the shipped bundle: etcd's space problems
 * (with their kind and severity) and the maintenance's refusals, the quorum guard's refusals and arithmetic, a VIP
 * no balancer can hold, run ledgers and host locks refused, files refused (with their kind), configuration drift
 * (the English message kept for `drift --json`, the Russian one beside it), a failed run's advice found by the
 * failure's kind, a command's failure as a row shows it, known_hosts problems, a refused test pod; and a second
 * copy of the catalogue (the Kubernetes adapter's bundle has one) follows the language set in the first. English
 * stays what it was, byte for byte: the same calls in English give the English texts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useMessages } from '../../../src/core/l10n';
import { describeSpace, memberSpace, spaceFinding, spaceProblem, type MemberSpace } from '../../../src/core/etcd/space';
import { checkMemberRemoval, type GuardMember } from '../../../src/core/nodes/quorumGuard';
import { parseLedgerData } from '../../../src/core/plan/ledger';
import { HostLockError } from '../../../src/core/plan/locks';
import { knownFailureOf, StepFailed } from '../../../src/core/plan/runner';
import { compareClusterNodes, compareWorkspaceCluster, findingText } from '../../../src/core/drift/threeWay';
import { lintText } from '../../../src/core/lint/registry';
import { FileRefused, readRegularText } from '../../../src/adapters/fs/safeFile';
import { refusedRunLines } from '../../../src/engine/state/runLedger';
import { prepareDefrag } from '../../../src/engine/etcdMaintenance';
import { renderDrift } from '../../../src/engine/drift';
import { failureAdvice } from '../../../src/engine/advice';
import { capturePodTimeline, type TimelineTransport } from '../../../src/engine/podTimeline';
import type { Step } from '../../../src/core/plan/types';
import { summarizeFailure } from '../../../src/core/text/failureSummary';
import { parseKnownHosts } from '../../../src/core/ssh/knownHosts';
import { RemoteCommandCancelled, RemoteCommandError } from '../../../src/core/ssh/transport';
import { sh } from '../../../src/core/ssh/command';
import { EtcdHosts, inv as three } from '../backup/etcdHosts';
import { ROOT } from '../haproxy/helpers';
import { CYRILLIC, english, inRussian, inRussianAsync } from './inRussian';


const Q = 100 * 1024 * 1024;
const space = (name: string, dbSize: number, inUse: number, alarms: string[] = []): MemberSpace =>
  memberSpace({ name, id: '1', host: name, isLeader: false, reachable: true, dbSize, dbSizeInUse: inUse, quota: Q, alarms } as never);

test('etcd\'s space problems carry a kind and a severity, and speak Russian; spaceProblem keeps the English the verdict still reads', () => {
  const cases = { nospace: space('m01', 0.5 * Q, 0.2 * Q, ['NOSPACE']), full: space('m02', 0.96 * Q, 0.5 * Q), filling: space('m03', 0.85 * Q, 0.8 * Q) };
  const english_ = Object.fromEntries(Object.entries(cases).map(([k, s]) => [k, spaceFinding(s)!]));
  assert.deepEqual(Object.values(english_).map((f) => [f.kind, f.severity]), [['nospace', 'critical'], ['nearly-full', 'critical'], ['filling', 'warning']]);
  assert.equal(english_.full!.what, 'etcd member m02: DB 96% of quota, nearly full (writes stop at 100 %); defragment it (48.2 MB free) or raise --quota-backend-bytes');
  assert.equal(describeSpace(cases.filling), '89.1 MB of 104.9 MB (85 %) · 5.2 MB free (6 %)');
  inRussian(() => {
    const ru = Object.fromEntries(Object.entries(cases).map(([k, s]) => [k, spaceFinding(s)!]));
    assert.deepEqual(Object.values(ru).map((f) => [f.kind, f.severity]), Object.values(english_).map((f) => [f.kind, f.severity]), 'the kind and severity do not depend on the language');
    assert.deepEqual(english({ ...Object.fromEntries(Object.entries(ru).map(([k, f]) => [k, f.what])), space: describeSpace(cases.filling), unread: describeSpace({ ...cases.filling, dbSize: undefined }) }), []);
    assert.equal(ru.full!.what, 'член etcd m02: база занимает 96% квоты и почти заполнена (при 100 % запись прекращается); дефрагментируйте его (свободно 48.2 MB) или увеличьте --quota-backend-bytes');
    // what the etcd model's problems carry while the verdict matches words: English in any language
    assert.equal(spaceProblem(cases.full), english_.full!.what);
  });
});

test('the etcd maintenance refuses in Russian: an unhealthy member, the quorum, every line a Russian sentence', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'kw-ru-'));
  try {
    const deps = { inventory: three, ssh: new EtcdHosts({ downMembers: ['m03'], extra: (_h, text) => (text.includes(' alarm list ') ? { code: 0, signal: null, stdout: '{"header":{"cluster_id":1}}', stderr: '' } : undefined) }), become: () => undefined, stateDir };
    const en = await prepareDefrag(deps);
    assert.ok(en.refusals.length >= 2, en.refusals.join('\n'));
    assert.ok(en.refusals.some((r) => /^etcd member m03 \(unreachable.*\): every member must be healthy first/.test(r)), en.refusals.join('\n'));
    const ru = await inRussianAsync(() => prepareDefrag(deps));
    assert.equal(ru.refusals.length, en.refusals.length);
    assert.deepEqual(english(Object.fromEntries(ru.refusals.map((r, i) => [`refusal ${i}`, r]))), []);
    assert.deepEqual(english({ warning: ru.warnings[0] }), []);
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

const member = (host: string, healthy = true, learner = false): GuardMember => ({ id: `id-${host}`, host, learner, started: true, healthy });

test('the quorum guard refuses and counts in Russian: no quorum, the last member, a lost quorum, another member unhealthy', () => {
  const cases = {
    noQuorum: () => checkMemberRemoval([member('m01'), member('m02', false), member('m03', false)], { operation: 'remove', target: 'm01' }),
    last: () => checkMemberRemoval([member('m01')], { operation: 'replace', target: 'm01' }),
    lost: () => checkMemberRemoval([member('m01'), member('m02'), member('m03', false), member('m04', false), member('m05')], { operation: 'remove', target: 'm01' }),
    other: () => checkMemberRemoval([member('m01'), member('m02'), member('m03'), member('m04', false), member('m05')], { operation: 'remove', target: 'm01' }),
    forced: () => checkMemberRemoval([member('m01'), member('m02'), member('m03'), member('m04', false), member('m05')], { operation: 'replace', target: 'm01', forceTyped: 'm01' }),
    learner: () => checkMemberRemoval([member('m01'), member('m02'), member('m03', true, true)], { operation: 'remove', target: 'm03' }),
  };
  const en = Object.fromEntries(Object.entries(cases).map(([k, f]) => [k, f()]));
  assert.equal(en.lost!.reasons[0], 'removing m01 would lose etcd\'s quorum: 4 voting members would remain needing 3 healthy, and only 2 are. Bring the unhealthy members back first.');
  assert.equal(en.learner!.arithmetic, 'etcd now: 2 voting members, 2 healthy, quorum 2; m03 is a learner: quorum unchanged');
  inRussian(() => {
    const left: string[] = [];
    for (const [name, f] of Object.entries(cases)) {
      const v = f();
      assert.equal(v.allowed, en[name]!.allowed, name);
      left.push(...english({ [`${name} arithmetic`]: v.arithmetic, ...Object.fromEntries(v.reasons.map((r, i) => [`${name} reason ${i}`, r])), ...Object.fromEntries(v.warnings.map((w, i) => [`${name} warning ${i}`, w])) }));
    }
    assert.deepEqual(left, []);
  });
});

const inventoryText = readFileSync(join(ROOT, 'examples/labs-k8s/inventory.yaml'), 'utf8');

test('a balancer\'s VIP that no host can hold is named in Russian (VRRP\'s own multicast group)', () => {
  const text = inventoryText.replace(/controlPlaneEndpoint: \S+/, 'controlPlaneEndpoint: 224.0.0.18:6443');
  const vip = (f: { rule: string }) => f.rule === 'inventory/vip-address';
  const en = lintText({ path: 'inventory.yaml', text }, {}).filter(vip);
  assert.equal(en[0]?.message, 'The VIP 224.0.0.18 is VRRP\'s own multicast group (224.0.0.18): Keepalived sends its adverts there.');
  inRussian(() => {
    const ru = lintText({ path: 'inventory.yaml', text }, {}).filter(vip);
    assert.equal(ru.length, en.length);
    assert.match(ru[0]!.message, /собственная multicast-группа VRRP/);
  });
});

test('run ledgers and host locks are refused in Russian: the ledger\'s shape, the refused-run lines, a held host', () => {
  const bad = { runId: '2026-01-02T03-04-05-678Z-up', command: 'up', fingerprint: 'x', createdAt: 'then', updatedAt: 'now', completedAt: null, steps: {} };
  const owner = { pid: 4242, runId: '2026-01-02T03-04-05-678Z-upgrade', since: '2026-01-02T03:04:05.678Z' };
  const en = { shape: parseLedgerData(bad, `${bad.runId}.json`), lock: new HostLockError('m01', owner).message, lines: refusedRunLines([1, 2, 3, 4].map((i) => ({ file: `/w/.kubeadm-workbench/runs/${i}-up.json`, why: 'it is not JSON' }))) };
  assert.deepEqual(en.shape, { problem: 'createdAt or updatedAt is not a time' });
  assert.equal(en.lock, 'm01 is being changed by another run (2026-01-02T03-04-05-678Z-upgrade, pid 4242, since 2026-01-02T03:04:05.678Z); wait for it or cancel it.');
  assert.equal(en.lines[3], '… and 1 more run file(s) not resumed for the same kinds of reasons');
  inRussian(() => {
    const shape = parseLedgerData(bad, `${bad.runId}.json`);
    const other = parseLedgerData({ ...bad, extra: 1 }, `${bad.runId}.json`);
    const lines = refusedRunLines([1, 2, 3, 4].map((i) => ({ file: `/w/.kubeadm-workbench/runs/${i}-up.json`, why: 'это не JSON' })));
    assert.deepEqual(english({ shape: 'problem' in shape ? shape.problem : '', other: 'problem' in other ? other.problem : '', lock: new HostLockError('m01', owner).message, ...Object.fromEntries(lines.map((l, i) => [`line ${i}`, l])) }), []);
    // the advice finds a held host by the failure's kind, not by its (now Russian) words
    const step = { id: 'prepare/m01/x', phase: 'prepare', host: 'm01', title: 'x' } as Step;
    const e = new HostLockError('m01', owner);
    const failed = new StepFailed(step, e.message, undefined, knownFailureOf(e));
    const advice = failureAdvice({ step, error: failed.message, cancelled: false, resumed: false, changes: [], ...(failed.known ? { known: failed.known } : {}) });
    assert.equal(failed.known, 'host-locked');
    assert.match(advice.cause ?? '', /другим запуском/);
    assert.equal(advice.unknown, undefined);
  });
});

test('a refused file says why in Russian and carries its kind, which the host locks and the inventory view read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-ru-'));
  try {
    writeFileSync(join(dir, 'big'), 'x'.repeat(100));
    symlinkSync(join(dir, 'big'), join(dir, 'link'));
    const refusal = async (path: string, policy: Parameters<typeof readRegularText>[1]) => {
      try {
        await readRegularText(path, policy);
      } catch (e) {
        if (e instanceof FileRefused) return e;
      }
      assert.fail(`${path} was not refused`);
    };
    const big = await refusal(join(dir, 'big'), { maxBytes: 10 });
    assert.equal(big.kind, 'too-large');
    assert.equal(big.reason, 'is 100 bytes; at most 10 bytes is read: refused unread');
    await inRussianAsync(async () => {
      const ru = { big: await refusal(join(dir, 'big'), { maxBytes: 10 }), link: await refusal(join(dir, 'link'), { maxBytes: 1000, noFollow: true }), folder: await refusal(dir, { maxBytes: 1000 }) };
      assert.deepEqual(Object.values(ru).map((r) => r.kind), ['too-large', 'symlink', 'not-regular']);
      assert.deepEqual(english(Object.fromEntries(Object.entries(ru).map(([k, r]) => [k, r.reason]))), []);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const clusterConfiguration = `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.34.12
apiServer:
  certSANs: [10.3.60.100]
  extraArgs:
  - name: audit-log-maxbackup
    value: "3"
`;
const workspace = `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: "1.34.12"
apiServer:
  certSANs: [10.3.60.100, labs-k8s-m01]
  extraArgs:
    - name: audit-log-maxbackup
      value: "4"
    - name: profiling
      value: "false"
`;
const manifest = (flag: string) => `apiVersion: v1
kind: Pod
metadata: { name: kube-apiserver, namespace: kube-system }
spec:
  containers:
  - name: kube-apiserver
    image: registry.k8s.io/kube-apiserver:v1.34.12
    command:
    - kube-apiserver
    - --audit-log-maxbackup=${flag}
`;
const nodes = ['m01', 'm02', 'm03'].map((host, i) => ({ host, address: `10.3.60.5${i + 1}`, controlPlane: true, manifests: { 'kube-apiserver': manifest(host === 'm02' ? '7' : '3') } }));

test('drift findings keep the English message (drift --json) and add the Russian one, which the report shows', () => {
  const read = () => ({ ws: compareWorkspaceCluster({ path: 'kubeadm-config.yaml', text: workspace }, { clusterConfiguration }), cn: compareClusterNodes({ clusterConfiguration }, nodes) });
  const en = read();
  assert.ok(en.ws.length >= 3 && en.cn.length >= 1, JSON.stringify(en));
  assert.ok([...en.ws, ...en.cn].every((f) => f.localizedMessage === undefined), 'English: no second text, JSON unchanged');
  assert.equal(en.cn.find((f) => f.host === 'm02' && f.field === '--audit-log-maxbackup')?.message, 'm02 /etc/kubernetes/manifests/kube-apiserver.yaml: --audit-log-maxbackup is 7; the kubeadm-config ConfigMap says 3');
  const report = { workspace: { path: 'kubeadm-config.yaml', generated: false }, findings: [...en.ws, ...en.cn], unread: ['m04: timed out'] };
  const enReport = renderDrift(report);
  inRussian(() => {
    const ru = read();
    assert.deepEqual([...ru.ws, ...ru.cn].map((f) => f.message), [...en.ws, ...en.cn].map((f) => f.message), 'the English message is the stable text in any language');
    assert.deepEqual(english(Object.fromEntries([...ru.ws, ...ru.cn].map((f, i) => [`${i} ${f.field}`, f.localizedMessage]))), []);
    assert.deepEqual([...ru.ws, ...ru.cn].filter((f) => findingText(f) !== f.localizedMessage), []);
    const lines = renderDrift({ ...report, findings: [...ru.ws, ...ru.cn] }).split('\n').filter((l) => l.trim() && !/^ {2}m04: /.test(l));
    assert.deepEqual(lines.filter((l) => !CYRILLIC.test(l)), []);
  });
  assert.equal(renderDrift(report), enReport);
});

test('a command\'s failure and the SSH side\'s own problems in Russian: a timeout before the command started, an exit, known_hosts lines', () => {
  const cmd = sh`true`;
  const failures = [
    new RemoteCommandCancelled('m01', cmd, 'timed out after 60000 ms before it started'),
    new RemoteCommandCancelled('m01', cmd, 'was cancelled; the remote process group was killed'),
    new RemoteCommandError('m01', cmd, { code: 100, signal: null, stdout: '', stderr: 'E: boom\n' }),
  ];
  assert.deepEqual(failures.map((e) => summarizeFailure(e, 'm01').cause), ['timed out after 60 s before the command started (waiting for the connection)', 'the command was cancelled; the remote process group was killed', 'the command exited 100: E: boom']);
  const knownHosts = '@bogus h ssh-ed25519 AAAA\nbad\nh ssh-ed25519 !!!\n';
  inRussian(() => {
    assert.deepEqual(english(Object.fromEntries(failures.map((e, i) => [`failure ${i}`, summarizeFailure(e, 'm01').cause]))), []);
    assert.equal(summarizeFailure(failures[0], 'm01').cause, 'время ожидания истекло через 60 с до начала команды (во время ожидания соединения)');
    const { problems } = parseKnownHosts(knownHosts, '/home/debian/.ssh/known_hosts');
    assert.equal(problems.length, 3);
    assert.deepEqual(english(Object.fromEntries(problems.map((p) => [`line ${p.line}`, p.message]))), []);
  });
});

test('the timeline run stops at once when the API refuses the test pod, in Russian as in English (by the feed\'s hook, not the message\'s words)', async () => {
  const refusing: TimelineTransport = {
    list: async () => ({ items: [], metadata: { resourceVersion: '1' } }),
    watch: () => () => undefined,
    send: async (method) => (method === 'POST' ? { status: 403, body: '{"message":"pods is forbidden"}' } : { status: 404, body: '' }),
  };
  const target = { namespace: 'default', name: 'kw-timeline', create: { image: 'registry.lab:5000/web:1.0' } };
  const run = () => capturePodTimeline(refusing, target, undefined, { timeoutMs: 20_000 });
  const started = Date.now();
  const en = await run();
  assert.deepEqual([en.settled, en.failures], [false, ['creating pod default/kw-timeline failed (403): pods is forbidden']]);
  const ru = await inRussianAsync(run);
  assert.equal(ru.settled, false);
  assert.match(ru.failures[0] ?? '', /^не удалось создать под default\/kw-timeline \(403\)/);
  assert.ok(Date.now() - started < 10_000, 'neither run waited for its timeout');
});

test('a second copy of the catalogue (dist/kube.js bundles its own) speaks the language the first was given', () => {
  // a fresh instance of the module, as a second bundle has one
  const load = createRequire(__filename);
  const path = load.resolve('../../../src/core/l10n/catalogue');
  const cached = load.cache[path];
  delete load.cache[path];
  const copy = load(path) as typeof import('../../../src/core/l10n/catalogue');
  load.cache[path] = cached;
  assert.notEqual(copy.useMessages, useMessages, 'a distinct module instance');
  const before = copy.catalogueGeneration();
  inRussian(() => {
    assert.equal(copy.catalogueLanguage(), 'ru');
    assert.equal(copy.t('etcd member {0}: DB {1}% of quota', 'm01', 85), 'член etcd m01: база занимает 85% квоты');
    assert.ok(copy.catalogueGeneration() > before);
  });
  assert.equal(copy.t('etcd member {0}: DB {1}% of quota', 'm01', 85), 'etcd member m01: DB 85% of quota');
});
