import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { parseAuditLog } from '../../../src/core/timeline/audit';
import { parseIpamLeases, parseNodeJournal, sandboxIdsOf } from '../../../src/core/timeline/journal';
import { buildTimeline } from '../../../src/core/timeline/model';
import { mustPrecede } from '../../../src/core/timeline/causal';

// Lines in the formats of the lab's versions (kubelet 1.34 klog through journald with
// `-o short-iso-precise`, containerd 2.x logrus), for one `kubectl run web` on labs-k8s-w01.
const SID = 'a3f1c0d2e4b5968778695a4b3c2d1e0f9a8b7c6d5e4f30211203948576afbecd';
const CID = '5b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170695a4b3c2d1e0';
const UID = '0b6f8a52-1c9e-4d7a-9b3e-2f4c6d8e0a1b';
const JOURNAL = `-- Logs begin at Mon 2026-11-30 09:50:00 UTC. --
2026-11-30T10:00:00.014200+00:00 labs-k8s-w01 kubelet[612]: I1130 10:00:00.014185     612 kubelet.go:2472] "SyncLoop ADD" source="api" pods=["default/web"]
2026-11-30T10:00:00.014900+00:00 labs-k8s-w01 kubelet[612]: I1130 10:00:00.014880     612 kubelet.go:2472] "SyncLoop ADD" source="api" pods=["default/other"]
2026-11-30T10:00:00.039800+00:00 labs-k8s-w01 kubelet[612]: I1130 10:00:00.039770     612 kuberuntime_manager.go:1258] "No sandbox for pod can be found. Need to start a new one" pod="default/web"
2026-11-30T10:00:00.040600+00:00 labs-k8s-w01 containerd[301]: time="2026-11-30T10:00:00.040497890Z" level=info msg="RunPodSandbox for &PodSandboxMetadata{Name:web,Uid:${UID},Namespace:default,Attempt:0,}"
2026-11-30T10:00:00.041000+00:00 labs-k8s-w01 containerd[301]: time="2026-11-30T10:00:00.040997000Z" level=info msg="RunPodSandbox for &PodSandboxMetadata{Name:web,Uid:ffffffff-0000-0000-0000-000000000000,Namespace:other,Attempt:0,}"
2026-11-30T10:00:00.400000+00:00 labs-k8s-w01 containerd[301]: time="2026-11-30T10:00:00.399912345Z" level=info msg="RunPodSandbox for &PodSandboxMetadata{Name:web,Uid:${UID},Namespace:default,Attempt:0,} returns sandbox id \\"${SID}\\""
2026-11-30T10:00:00.402000+00:00 labs-k8s-w01 containerd[301]: time="2026-11-30T10:00:00.401800000Z" level=info msg="PullImage \\"10.3.60.1:5000/kwlab/web:1.0\\""
2026-11-30T10:00:01.602000+00:00 labs-k8s-w01 containerd[301]: time="2026-11-30T10:00:01.601700000Z" level=info msg="Pulled image \\"10.3.60.1:5000/kwlab/web:1.0\\" with image id \\"sha256:1234\\", repo tag \\"10.3.60.1:5000/kwlab/web:1.0\\", repo digest \\"10.3.60.1:5000/kwlab/web@sha256:abcd\\", size \\"3000000\\" in 1.199900000s"
2026-11-30T10:00:01.602100+00:00 labs-k8s-w01 containerd[301]: time="2026-11-30T10:00:01.602050000Z" level=info msg="PullImage \\"10.3.60.1:5000/kwlab/web:1.0\\" returns image reference \\"sha256:1234\\""
2026-11-30T10:00:01.605000+00:00 labs-k8s-w01 containerd[301]: time="2026-11-30T10:00:01.604900000Z" level=info msg="CreateContainer within sandbox \\"${SID}\\" for container &ContainerMetadata{Name:web,Attempt:0,}"
2026-11-30T10:00:01.631000+00:00 labs-k8s-w01 containerd[301]: time="2026-11-30T10:00:01.630500000Z" level=info msg="CreateContainer within sandbox \\"${SID}\\" for &ContainerMetadata{Name:web,Attempt:0,} returns container id \\"${CID}\\""
2026-11-30T10:00:01.632000+00:00 labs-k8s-w01 containerd[301]: time="2026-11-30T10:00:01.631600000Z" level=info msg="StartContainer for \\"${CID}\\""
2026-11-30T10:00:01.690000+00:00 labs-k8s-w01 containerd[301]: time="2026-11-30T10:00:01.689700000Z" level=info msg="StartContainer for \\"${CID}\\" returns successfully"
2026-11-30T10:00:02.512000+00:00 labs-k8s-w01 kubelet[612]: I1130 10:00:02.511950     612 pod_startup_latency_tracker.go:104] "Observed pod startup duration" pod="default/web" podStartSLOduration=1.31 podStartE2EDuration="2.51s" podCreationTimestamp="2026-11-30 10:00:00 +0000 UTC" firstStartedPulling="2026-11-30 10:00:00.4018 +0000 UTC" lastFinishedPulling="2026-11-30 10:00:01.6017 +0000 UTC" observedRunningTime="2026-11-30 10:00:01.7 +0000 UTC" watchObservedRunningTime="2026-11-30 10:00:02.51 +0000 UTC"
2026-11-30T10:00:03.100000+00:00 labs-k8s-w01 kubelet[612]: I1130 10:00:03.099950     612 kubelet.go:2569] "SyncLoop (probe)" probe="readiness" status="ready" pod="default/web"
`;
const LEASES = `1796032800.210712345 /var/lib/cni/networks/cbr0/10.244.3.17 ${SID}
1764496700.000000000 /var/lib/cni/networks/cbr0/10.244.3.9 ${'e'.repeat(64)}
garbage line
`;
const audit = (o: Record<string, unknown>): string => JSON.stringify({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', ...o });
const AUDIT = [
  audit({ auditID: 'c1', stage: 'RequestReceived', requestURI: '/api/v1/namespaces/default/pods?fieldManager=kubectl-run', verb: 'create', user: { username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins'] }, sourceIPs: ['10.3.60.254'], userAgent: 'kubectl/v1.34.12 (linux/amd64) kubernetes/abc', objectRef: { resource: 'pods', namespace: 'default', apiVersion: 'v1' }, requestReceivedTimestamp: '2026-11-30T10:00:00.003101Z', stageTimestamp: '2026-11-30T10:00:00.003101Z' }),
  audit({ auditID: 'c1', stage: 'ResponseComplete', requestURI: '/api/v1/namespaces/default/pods?fieldManager=kubectl-run', verb: 'create', user: { username: 'kubernetes-admin' }, userAgent: 'kubectl/v1.34.12', objectRef: { resource: 'pods', namespace: 'default', name: 'web', apiVersion: 'v1' }, responseStatus: { metadata: {}, code: 201 }, requestReceivedTimestamp: '2026-11-30T10:00:00.003101Z', stageTimestamp: '2026-11-30T10:00:00.009876Z', annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins"' } }),
  audit({ auditID: 'b1', stage: 'ResponseComplete', requestURI: '/api/v1/namespaces/default/pods/web/binding', verb: 'create', user: { username: 'system:kube-scheduler' }, userAgent: 'kube-scheduler/v1.34.12', objectRef: { resource: 'pods', namespace: 'default', name: 'web', subresource: 'binding', apiVersion: 'v1' }, responseStatus: { code: 201 }, stageTimestamp: '2026-11-30T10:00:00.013002Z' }),
  audit({ auditID: 'x', stage: 'ResponseComplete', verb: 'create', objectRef: { resource: 'pods', namespace: 'default', name: 'webx' }, responseStatus: { code: 201 }, stageTimestamp: '2026-11-30T10:00:00.005Z' }),
  '{"truncated',
].join('\n');

const pod = { namespace: 'default', name: 'web', uid: UID, images: ['10.3.60.1:5000/kwlab/web:1.0'] };

test('at the kubelet\'s default verbosity (no SyncLoop ADD) its first line about the pod, the volume manager\'s, dates the sync; once per pod', () => {
  // Lines as the lab's kubelet 1.34 (no --v) writes them for a test pod with one projected volume.
  const vol = (at: string, pod: string) => `2026-11-30T19:44:${at}+0000 labs-k8s-w01 kubelet[597]: I1130 19:44:${at.slice(0, 9)}     597 reconciler_common.go:251] "operationExecutor.VerifyControllerAttachedVolume started for volume \\"kube-api-access-6h7d9\\" (UniqueName: \\"kubernetes.io/projected/u1-kube-api-access-6h7d9\\") pod \\"${pod}\\" (UID: \\"u1\\") " pod="default/${pod}"`;
  const text = [vol('27.455131', 'web'), vol('27.455900', 'web'), vol('27.456000', 'other')].join('\n');
  const ev = parseNodeJournal(text, { namespace: 'default', name: 'web' });
  assert.deepEqual(ev.map((e) => `${e.step} ${e.at}`), [`kubelet-sync ${Date.parse('2026-11-30T19:44:27.455Z') + 0.131}`]);
  assert.match(ev[0]!.label, /volumes/);
});

test('the node journal gives sync, sandbox, pull, create, start and readiness of this pod only, with µs', () => {
  const ev = parseNodeJournal(JOURNAL, pod);
  assert.deepEqual(ev.map((e) => e.step), ['kubelet-sync', 'kubelet-sync', 'sandbox-start', 'sandbox-ready', 'pulling', 'pulled', 'container-created', 'container-started', 'other', 'ready']);
  assert.ok(ev.every((e) => e.precision === 'us' && e.source === 'journal'));
  assert.equal(ev.find((e) => e.step === 'sandbox-start')!.at, Date.parse('2026-11-30T10:00:00.040Z') + 0.497);
  assert.equal(ev.find((e) => e.step === 'pulled')!.label, 'image pulled in 1.199900000s');
  assert.equal(ev.find((e) => e.step === 'container-started')!.container, 'web');
  assert.match(ev.find((e) => e.step === 'other')!.label, /kubelet's startup SLI 1\.31 s/);
  assert.deepEqual(sandboxIdsOf(ev), [SID]);
});

test('the CNI ADD comes from the pod sandbox\'s IPAM lease, with its IP', () => {
  const cni = parseIpamLeases(LEASES, [SID]);
  assert.equal(cni.length, 1);
  assert.equal(cni[0]!.label, 'CNI ADD: IP 10.244.3.17');
  assert.equal(cni[0]!.at, 1796032800210.712);
});

test('the audit log gives the create\'s stages and the binding, and skips other pods and broken lines', () => {
  const ev = parseAuditLog(AUDIT, { namespace: 'default', name: 'web' }, 'labs-k8s-m02');
  assert.deepEqual(ev.map((e) => `${e.step}:${e.label}`), ['request-received:POST pods received', 'stored:201 sent: admitted, stored in etcd', 'bound:POST binding stored (nodeName set)']);
  assert.equal(ev[0]!.at, Date.parse('2026-11-30T10:00:00.003Z') + 0.101);
  assert.match(ev[1]!.detail!, /authorization: allow; kubernetes-admin \(kubectl\/v1\.34\.12\) on labs-k8s-m02/);
});

test('real lines of kube-apiserver 1.34 under our policy (the create is named only at ResponseComplete)', () => {
  const text = readFileSync(join(__dirname, 'fixtures', 'audit-kube-apiserver.log'), 'utf8');
  const ev = parseAuditLog(text, { namespace: 'default', name: 'web' });
  assert.deepEqual(ev.map((e) => e.step), ['request-received', 'stored', 'bound']);
  assert.equal(ev[0]!.at, Date.parse('2026-11-30T15:33:51.766Z') + 0.763);
  assert.equal(Math.round((ev[1]!.at - ev[0]!.at) * 1000), 38751, 'authn → etcd write → 201: 38.751 ms, to the µs');
  assert.deepEqual(parseAuditLog(text, { namespace: 'default', name: 'other' }), []);
});

test('every hop of the seed\'s sequence, from all sources together, in causal order', () => {
  const T = Date.parse('2026-11-30T10:00:00Z');
  const journal = parseNodeJournal(JOURNAL, pod);
  const evidence = [...parseAuditLog(AUDIT, pod), ...journal, ...parseIpamLeases(LEASES, sandboxIdsOf(journal))];
  const t = buildTimeline({ name: 'web', namespace: 'default', uid: UID, creationTimestamp: '2026-11-30T10:00:00Z', nodeName: 'labs-k8s-w01' },
    [{ reason: 'Scheduled', eventTime: '2026-11-30T10:00:00.012345Z' }], { createSentAt: T + 1.5, createdAt: T + 11.2, bindingObservedAt: T + 15, runningObservedAt: T + 1710 }, T + 4000, { evidence });
  const hops = ['request-sent', 'request-received', 'stored', 'response-received', 'scheduled', 'bound', 'kubelet-sync', 'sandbox-start', 'cni-add', 'sandbox-ready', 'pulling', 'pulled', 'container-created', 'container-started', 'running-observed', 'ready'];
  const steps = t.entries.map((e) => e.step);
  for (const h of hops) assert.ok(steps.includes(h as never), `${h} missing`);
  assert.deepEqual([...new Set(steps)].filter((s) => hops.includes(s)), hops);
  for (const [i, a] of t.entries.entries()) for (const b of t.entries.slice(i + 1)) {
    assert.ok(!mustPrecede({ step: b.step, at: 0, precision: 'us', clock: 'client' }, { step: a.step, at: 0, precision: 'us', clock: 'client' }) || b.container !== a.container, `${b.label} listed after ${a.label}`);
  }
  assert.equal(t.clock.cluster.offsetMs, 0, 'the lab\'s machines share one clock: nothing is moved');
  assert.equal(t.clock.node.offsetMs, 0, 'nor the node\'s');
  assert.ok(!t.entries.some((e) => e.adjusted), t.entries.filter((e) => e.adjusted).map((e) => e.label).join(', '));
});
