/**
 * The timeline's audit source against a real kube-apiserver: the policy our kubeadm config offers
 * (generate/auditPolicy.ts) given to the API server as is, a pod created, bound and its status
 * written, and the audit log it wrote read back by the timeline's parser — real lines, not samples.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateAuditPolicy } from '../../../src/core/generate/auditPolicy';
import { parseAuditLog } from '../../../src/core/timeline/audit';
import { buildTimeline } from '../../../src/core/timeline/model';
import { createNode, startTestCluster, waitFor, type TestCluster } from '../apiserver';

let cluster: TestCluster | undefined;
let log = '';
const dir = join(tmpdir(), `kw-audit-${process.pid}`);

before(async () => {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'policy.yaml'), generateAuditPolicy(), { mode: 0o600 });
  log = join(dir, 'audit.log');
  cluster = await startTestCluster({ extraApiserverArgs: [`--audit-policy-file=${join(dir, 'policy.yaml')}`, `--audit-log-path=${log}`] });
  await createNode(cluster, 'labs-k8s-w01');
});

after(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('the generated policy makes the API server log the create\'s stages and the binding, which the timeline reads in causal order', async () => {
  const c = cluster!;
  const sent = Date.now();
  const created = await c.api<{ metadata: { creationTimestamp: string; uid: string } }>('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'web', image: 'registry.lab:5000/web:1' }] } });
  const received = Date.now();
  assert.equal(created.status, 201);
  assert.equal((await c.api('POST', '/api/v1/namespaces/default/pods/web/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web' }, target: { apiVersion: 'v1', kind: 'Node', name: 'labs-k8s-w01' } })).status, 201);
  // Something the policy must leave out: a read of the pod.
  await c.api('GET', '/api/v1/namespaces/default/pods/web');
  await waitFor(() => (readFileSync(log, 'utf8').match(/"subresource":"binding"/g) ?? []).length >= 1, 10_000, 'the binding in the audit log');
  const text = readFileSync(log, 'utf8');
  assert.doesNotMatch(text, /"verb":"get"/, 'the policy logs writes to pods only');
  const evidence = parseAuditLog(text, { namespace: 'default', name: 'web' }, 'test-apiserver');
  assert.deepEqual(evidence.map((e) => e.step), ['request-received', 'stored', 'bound']);
  assert.ok(evidence.every((e) => e.precision === 'us'));
  const t = buildTimeline({ name: 'web', namespace: 'default', creationTimestamp: created.body.metadata.creationTimestamp, nodeName: 'labs-k8s-w01' }, [], { createSentAt: sent, createdAt: received }, Date.now(), { evidence });
  const steps = t.entries.map((e) => `${e.source}:${e.step}`);
  console.log('audit timeline:', t.entries.map((e) => `${e.label} ${(e.at - t.start).toFixed(3)} ms (${e.source}, ${e.precision})`).join(' → '));
  assert.deepEqual(steps.filter((s) => s !== 'status:stored'), ['client:request-sent', 'audit:request-received', 'audit:stored', 'client:response-received', 'audit:bound']);
  // This machine has one clock: the API server's µs readings fall inside the client's request already.
  assert.equal(t.clock.cluster.offsetMs, 0);
});
