/**
 * The preflight's refusals, each naming what it is about: a missing image by its name, a removed API still in
 * use by its resource, a learner or unhealthy etcd member, a NotReady node, a package the target's source does
 * not offer a node, a full disk. A healthy cluster at 1.33 going to 1.34 has no error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { preflight, refusals, renderFindings, versionTable, type NodeFacts, type UpgradeFacts } from '../../../src/core/upgrade/preflight';
import { removalsBetween, REMOVED_APIS } from '../../../src/core/upgrade/removedApis';
import { explainFailure } from '../../../src/core/upgrade/signatures';
import { targetPackageSource } from '../../../src/core/upgrade/packageSource';
import { parseVersion } from '../../../src/core/upgrade/versions';
import { CPS, healthyFacts as healthy, lab, labText, WORKERS } from './fixtures';

const target = parseVersion('v1.34.12')!;
const GIB = 1024 ** 3;

const errors = (f: UpgradeFacts) => refusals(preflight(f));

test('a healthy 1.33 cluster going to 1.34.12 has no refusal, and the version table shows every node', () => {
  assert.deepEqual(errors(healthy()), []);
  const table = versionTable(healthy());
  for (const n of [...CPS, ...WORKERS]) assert.match(table, new RegExp(`^${n} `, 'm'));
  assert.match(table, /target v1\.34\.12/);
});

test('an image missing from the registry is refused by its name', () => {
  const f = healthy();
  f.images![1] = { image: 'registry.k8s.io/etcd:3.6.4-0', present: false, detail: 'manifest unknown' };
  const e = errors(f);
  assert.equal(e.length, 1);
  assert.equal(e[0]!.subject, 'registry.k8s.io/etcd:3.6.4-0');
  assert.match(e[0]!.message, /the registry has no registry\.k8s\.io\/etcd:3\.6\.4-0 \(manifest unknown\)/);
});

test('a removed API still requested is refused by its resource; objects alone only warn (the built-in FlowSchemas)', () => {
  const f: UpgradeFacts = { ...healthy(), target: parseVersion('v1.32.0')!, nodes: healthy().nodes.map((n) => ({ ...n, ...relabel(n, 'v1.31.5'), offered: { kubeadm: ['1.32.0-1.1'], kubelet: ['1.32.0-1.1'], kubectl: ['1.32.0-1.1'] } })) };
  f.kubeProxy = 'v1.31.5';
  f.served = [
    { groupVersion: 'flowcontrol.apiserver.k8s.io/v1beta3', resource: 'flowschemas', requested: true, count: 13 },
    { groupVersion: 'flowcontrol.apiserver.k8s.io/v1beta3', resource: 'prioritylevelconfigurations', requested: false, count: 8 },
  ];
  const all = preflight(f);
  assert.deepEqual(refusals(all).map((x) => x.subject), ['flowschemas.flowcontrol.apiserver.k8s.io/v1beta3']);
  assert.match(refusals(all)[0]!.message, /removed in 1\.32 .* flowcontrol\.apiserver\.k8s\.io\/v1 \(since 1\.29\)/);
  assert.ok(all.some((x) => x.severity === 'warning' && x.subject === 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io/v1beta3'));
});

function relabel(n: NodeFacts, v: string): Partial<NodeFacts> {
  return { kubeadm: v, kubelet: v, kubectl: v, ...(n.staticPods ? { staticPods: { apiserver: v, controllerManager: v, scheduler: v, etcd: n.staticPods.etcd! } } : {}) };
}

test('an etcd learner and an unhealthy member are refused by name; etcd that cannot be read is refused', () => {
  const f = healthy();
  f.etcd = [{ name: 'labs-k8s-m01', learner: false, healthy: true }, { name: 'labs-k8s-m02', learner: true, healthy: true }, { name: 'labs-k8s-m03', learner: false, healthy: false, problem: 'context deadline exceeded' }];
  const e = errors(f);
  assert.deepEqual(e.map((x) => `${x.rule} ${x.subject}`), ['upgrade/etcd-learner labs-k8s-m02', 'upgrade/etcd-unhealthy labs-k8s-m03']);
  assert.match(e[1]!.message, /context deadline exceeded/);
  assert.deepEqual(errors({ ...healthy(), etcd: undefined, etcdError: 'no control-plane host answers' }).map((x) => x.rule), ['upgrade/etcd-unreadable']);
});

test('a NotReady node, an unreachable node, a package the target source lacks and a full disk are refused, each naming its node', () => {
  const f = healthy();
  f.nodes[4]!.ready = false;
  f.nodes[5] = { name: 'labs-k8s-w03', role: 'worker', unreachable: 'connect ECONNREFUSED' };
  f.nodes[3]!.offered!.kubelet = ['1.34.11-1.1'];
  f.nodes[0]!.diskFree!.etcd = 0.5 * GIB;
  const e = errors(f);
  assert.deepEqual(e.map((x) => `${x.rule} ${x.subject}`).sort(), [
    'upgrade/disk-etcd labs-k8s-m01',
    'upgrade/node-not-ready labs-k8s-w02',
    'upgrade/node-unreachable labs-k8s-w03',
    'upgrade/package-missing labs-k8s-w01: kubelet',
  ]);
});

test('a two-minor target is refused before anything else is asked', () => {
  const e = errors({ ...healthy(), target: parseVersion('v1.35.0')! });
  assert.ok(e.some((x) => x.rule === 'upgrade/skew' && /skips 1 minor version/.test(x.message)), renderFindings(e));
});

test('removed-API table: the guide\'s 1.32 rows, nothing listed for 1.33–1.36, a patch upgrade removes nothing', () => {
  assert.deepEqual(removalsBetween(parseVersion('1.31.0')!, parseVersion('1.32.3')!).map((r) => `${r.kind} ${r.group}/${r.version}`), ['FlowSchema flowcontrol.apiserver.k8s.io/v1beta3', 'PriorityLevelConfiguration flowcontrol.apiserver.k8s.io/v1beta3']);
  for (const m of [33, 34, 35, 36]) assert.deepEqual(removalsBetween(parseVersion(`1.${m - 1}.0`)!, parseVersion(`1.${m}.0`)!), [], `1.${m}`);
  assert.deepEqual(removalsBetween(parseVersion('1.32.0')!, parseVersion('1.32.9')!), []);
  for (const r of REMOVED_APIS) assert.ok(r.replacement && r.removedIn && r.resource, JSON.stringify(r));
});

test('the target\'s package source: the inventory\'s per-minor line switched to the target minor; a line that is not split per minor is refused', () => {
  const s = targetPackageSource(lab(), target);
  assert.equal(s.kubernetesApt, 'deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] http://10.3.60.1:8080/kubernetes/core:/stable:/v1.34/deb/ /');
  assert.equal(s.kubernetesAptKey, 'http://10.3.60.1:8080/kubernetes/core:/stable:/v1.34/deb/Release.key');
  assert.equal(s.packagesIndexUrl, 'http://10.3.60.1:8080/kubernetes/core:/stable:/v1.34/deb/Packages');
  assert.equal(s.signedBy, '/etc/apt/keyrings/kubernetes-apt-keyring.gpg', 'the keyring its InRelease is verified with');
  assert.equal(targetPackageSource(lab(labText.replace('[signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] ', '')), target).signedBy, undefined);
  const flat = lab(labText.replace(/kubernetes\/core:\/stable:\/v1\.33\/deb\/ \//, 'kubernetes/all/ /'));
  assert.throws(() => targetPackageSource(flat, target), /not split per minor version/);
  const none = lab(labText.replace(/ {4}kubernetesApt:.*\n {4}kubernetesAptKey:.*\n/, '').replace('  packages:\n', ''));
  assert.equal(targetPackageSource(none, target).kubernetesApt, 'deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v1.34/deb/ /');
});

test('failure signatures: kubeadm #2957 (etcd static Pod hash) is recognised and explained, and told apart from a generic timeout', () => {
  const out = '[upgrade/staticpods] Waiting for the kubelet to restart the component\n[upgrade/apply] FATAL: couldn\'t upgrade control plane. kubeadm has tried to recover everything into the earlier state. Errors faced: static Pod hash for component etcd on Node labs-k8s-m02 did not change after 5m0s: timed out waiting for the condition';
  const ids = explainFailure(out).map((s) => s.id);
  assert.deepEqual(ids, ['etcd-static-pod-hash', 'kubeadm-rolled-back']);
  assert.match(explainFailure(out)[0]!.explanation, /kubeadm #2957/);
  assert.deepEqual(explainFailure('[ERROR ImagePull]: failed to pull image registry.k8s.io/kube-apiserver:v1.34.12').map((s) => s.id), ['image-pull']);
  assert.deepEqual(explainFailure("E: Version '1.34.12-*' for 'kubeadm' was not found").map((s) => s.id), ['apt-version-missing']);
  assert.deepEqual(explainFailure('[upgrade/version] FATAL: the --version argument is invalid due to these errors:\n\n\t- Specified version to upgrade to "v1.35.0" is too high; kubeadm can upgrade only 1 minor version at a time').map((s) => s.id), ['version-too-high']);
  assert.deepEqual(explainFailure('all good'), []);
  // both seen on the lab under heavy load (its first runs)
  const unread = '[upgrade/etcd] Failed to upgrade etcd: couldn\'t upgrade control plane. kubeadm has tried to recover everything into the earlier state. Errors faced: failed to obtain static Pod hash for component etcd on Node labs-k8s-m01: Get "https://10.3.60.100:6443/api/v1/namespaces/kube-system/pods/etcd-labs-k8s-m01?timeout=10s": net/http: request canceled (Client.Timeout exceeded while awaiting headers)';
  assert.deepEqual(explainFailure(unread).map((s) => s.id), ['static-pod-hash-unread', 'kubeadm-rolled-back']);
  assert.deepEqual(explainFailure('[preflight] Some fatal errors occurred:\n\t[ERROR CreateJob]: Job "upgrade-health-check-1796080997048" in the namespace "kube-system" did not complete in 15s: no condition of type Complete').map((s) => s.id), ['health-check-job']);
});
