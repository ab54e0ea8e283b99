/**
 * The drain's edges that the integration and lab tests cannot reach on purpose: how eviction answers map onto
 * kubectl's decisions, how an API pod becomes a DrainPod, kubectl-style durations, and the maintenance command's
 * quoting (the user's text is one argument to sh -c, never spliced).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evictionResult, toDrainPod } from '../../../src/adapters/kube/drain';
import { parseDuration } from '../../../src/cli/drain';
import { maintenanceCommand } from '../../../src/core/drain/maintenance';

test('eviction answers: 201/200 accepted, 404 gone, 429 retried with the API message, 403 NamespaceTerminating retried, others fail', () => {
  assert.deepEqual(evictionResult(201, '{"kind":"Status","status":"Success","code":201}'), { kind: 'accepted' });
  assert.deepEqual(evictionResult(200, ''), { kind: 'accepted' });
  assert.deepEqual(evictionResult(404, '{"message":"pods \\"x\\" not found","reason":"NotFound","code":404}'), { kind: 'not-found' });
  assert.deepEqual(evictionResult(429, JSON.stringify({ message: "Cannot evict pod as it would violate the pod's disruption budget.", reason: 'TooManyRequests', details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 1 healthy pods and has 1 currently' }] }, code: 429 })), {
    kind: 'too-many-requests',
    message: "Cannot evict pod as it would violate the pod's disruption budget.",
    budget: 'web',
  });
  const terminating = JSON.stringify({ message: 'pods "web-0" is forbidden: unable to create new content in namespace term because it is being terminated', reason: 'Forbidden', details: { causes: [{ reason: 'NamespaceTerminating', message: 'namespace term is being terminated', field: 'metadata.namespace' }] }, code: 403 });
  assert.equal(evictionResult(403, terminating).kind, 'namespace-terminating');
  assert.deepEqual(evictionResult(403, '{"message":"pods \\"x\\" is forbidden: User \\"bob\\" cannot create resource \\"pods/eviction\\"","code":403}'), { kind: 'failed', message: 'pods "x" is forbidden: User "bob" cannot create resource "pods/eviction"' });
  assert.deepEqual(evictionResult(500, 'boom'), { kind: 'failed', message: 'HTTP 500: boom' });
});

test('API pods: the controller owner, emptyDir volumes, mirror annotation, deletion mark', () => {
  const p = toDrainPod({
    metadata: { name: 'cache-1', namespace: 'default', uid: 'u1', annotations: { 'kubernetes.io/config.mirror': 'h' }, deletionTimestamp: '2026-01-01T00:00:00Z', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x' }, { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'cache-5d9', controller: true }] },
    spec: { volumes: [{}, { emptyDir: {} }] },
    status: { phase: 'Running' },
  });
  assert.deepEqual(p, { namespace: 'default', name: 'cache-1', uid: 'u1', phase: 'Running', annotations: { 'kubernetes.io/config.mirror': 'h' }, controller: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'cache-5d9' }, hasEmptyDir: true, deletionTimestamp: '2026-01-01T00:00:00Z' });
  assert.equal(toDrainPod({ metadata: { name: 'bare', namespace: 'd', uid: 'u', ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x' }] } }).controller, undefined);
});

test('kubectl durations', () => {
  assert.equal(parseDuration('300s', 'timeout'), 300);
  assert.equal(parseDuration('5m', 'timeout'), 300);
  assert.equal(parseDuration('1h30m', 'timeout'), 5400);
  assert.equal(parseDuration('1.5s', 'timeout'), 1.5);
  assert.equal(parseDuration('90', 'timeout'), 90);
  assert.equal(parseDuration('0', 'timeout'), 0);
  for (const bad of ['', 'abc', '5 m', '5x', '-1s']) assert.throws(() => parseDuration(bad, 'timeout'), /--timeout: .* is not a duration/);
});

test('the maintenance command is one argument to sh -c; non-root logins go through sudo (password on stdin, redacted)', () => {
  const text = `apt-get -y upgrade && echo "it's done; $(whoami)" && reboot`;
  const root = maintenanceCommand(text, true);
  assert.equal(root.display, `sh -c 'apt-get -y upgrade && echo "it'\\''s done; $(whoami)" && reboot'`);
  const viaSudo = maintenanceCommand('systemctl restart kubelet', false);
  assert.equal(viaSudo.display, `sudo -n -- sh -c 'sh -c '\\''systemctl restart kubelet'\\'''`);
  const withPassword = maintenanceCommand('reboot', false, 's3cret');
  assert.ok(!withPassword.display.includes('s3cret') && !withPassword.text.includes('s3cret'));
  assert.equal(withPassword.stdinPrefix, 's3cret\n');
  assert.deepEqual(withPassword.secrets, ['s3cret']);
  assert.throws(() => maintenanceCommand('  ', true), /empty/);
});
