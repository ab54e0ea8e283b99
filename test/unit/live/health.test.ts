import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { assessHealth, NEEDED_ACCESS, type AccessCheck } from '../../../src/core/live/health';

const allowed: AccessCheck[] = NEEDED_ACCESS.map((n) => ({ ...n, allowed: true }));
const admin = { username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins', 'system:authenticated'] };

test('an anonymous /readyz answer is never healthy: unauthorised, who we are and what we may not do', () => {
  const h = assessHealth({
    reach: { ok: true, ms: 25 },
    identity: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    access: NEEDED_ACCESS.map((n) => ({ ...n, allowed: false })),
    verdict: { degraded: false, problems: [], summary: 'healthy' },
  });
  assert.equal(h.state, 'unauthorised');
  assert.equal(h.headline, 'unauthorised: system:anonymous may not list pods in kube-system');
  assert.match(h.reasons[0]!, /signed in as system:anonymous \(no client certificate or token was accepted\)/);
  assert.ok(h.reasons.includes('may not list nodes (cluster-wide)'));
  assert.ok(h.reasons.includes('may not create pods/exec in kube-system'));
});

test('a refused watch makes it unauthorised even when the reviews could not be asked', () => {
  const h = assessHealth({ reach: { ok: true, ms: 5 }, denied: { kind: 'forbidden', message: 'HTTP 403: pods is forbidden' } });
  assert.equal(h.state, 'unauthorised');
  assert.deepEqual(h.reasons, ['signed in as an unknown user', 'HTTP 403: pods is forbidden']);
  // The refusal names the user when the review could not say (anonymous may not ask).
  const anon = assessHealth({ reach: { ok: true, ms: 5 }, denied: { kind: 'forbidden', message: 'HTTP 403: pods is forbidden: User "system:anonymous" cannot list resource "pods"' } });
  assert.equal(anon.headline, 'unauthorised: requests arrive as system:anonymous');
  assert.match(anon.reasons[0]!, /^refused as system:anonymous \(no client certificate or token was accepted\)/);
});

test('unreachable with the classified reason; a 401 is unauthorised, not unreachable', () => {
  const u = assessHealth({ reach: { ok: false, ms: 3000, failure: 'refused', why: 'connection refused (https://10.3.60.100:6443/readyz): ECONNREFUSED' } });
  assert.equal(u.state, 'unreachable');
  assert.equal(u.headline, 'unreachable: connection refused');
  const a = assessHealth({ reach: { ok: false, ms: 3, failure: 'auth', why: 'HTTP 401: Unauthorized' } });
  assert.equal(a.state, 'unauthorised');
});

test('degraded names the component and the node; healthy says as whom', () => {
  const d = assessHealth({
    reach: { ok: true, ms: 12 },
    identity: admin,
    access: allowed,
    verdict: {
      degraded: true,
      summary: 'degraded: 2 critical problems',
      problems: [
        { severity: 'warning', what: 'coredns: 1/2 ready' },
        { severity: 'critical', what: 'control-plane node labs-k8s-m03 is NotReady (NodeStatusUnknown)' },
        { severity: 'critical', what: 'etcd quorum at risk: one more failure loses quorum (2/3 healthy)' },
      ],
    },
  });
  assert.equal(d.state, 'degraded');
  assert.equal(d.headline, 'degraded: control-plane node labs-k8s-m03 is NotReady (NodeStatusUnknown) (+1 more)');
  assert.equal(d.reasons[2], 'coredns: 1/2 ready');
  const ok = assessHealth({ reach: { ok: true, ms: 12 }, identity: admin, access: allowed, verdict: { degraded: false, problems: [], summary: 'healthy' } });
  assert.equal(ok.state, 'healthy');
  assert.equal(ok.headline, 'healthy · as kubernetes-admin');
});
