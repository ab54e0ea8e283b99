/**
 * Certificates and scheduled snapshots in the health verdict: real openssl certificates (29 and 31 days) judged
 * by the certificate code, and snapshot schedules as the nodes' status script prints them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { certEntry, DEFAULT_THRESHOLDS } from '../../../src/core/certs/assess';
import type { CertReport } from '../../../src/core/certs/report';
import { parseScheduleStatus } from '../../../src/core/backup/schedule';
import { certificateProblems } from '../../../src/core/live/certProblems';
import { snapshotProblems } from '../../../src/core/live/day2';
import { assessHealth } from '../../../src/core/live/health';
import { withProblems, type Verdict } from '../../../src/core/live/status';
import { PkiFixture } from '../certs/pkiFixture';

const fixture = new PkiFixture({ address: '10.3.60.51', endpointHost: '10.3.60.100', days: { apiserver: 29, 'front-proxy-client': 31 } });
// After the certificates were made: they are not valid before their own making.
const now = Date.now();
const clean: Verdict = { degraded: false, problems: [], summary: 'healthy' };

function reportWith(id: string, file: string): CertReport {
  const e = certEntry('m1', id, `/etc/kubernetes/pki/${file}.crt`, 'serving', fixture.read(`/etc/kubernetes/pki/${file}.crt`), now, DEFAULT_THRESHOLDS);
  return { cluster: 'c', at: new Date(now).toISOString(), thresholds: DEFAULT_THRESHOLDS, hosts: [{ host: 'm1', address: '10.3.60.51', controlPlane: true, entries: [e] }], served: [], local: [] };
}

function health(extra: ReturnType<typeof certificateProblems>) {
  return assessHealth({ reach: { ok: true, ms: 3 }, identity: { username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins'] }, access: [], verdict: withProblems(clean, extra) });
}

test('a certificate with 29 days left degrades the health and is named; 31 days is healthy', () => {
  const h29 = health(certificateProblems(reportWith('apiserver', 'apiserver')));
  assert.equal(h29.state, 'degraded');
  assert.match(h29.headline, /degraded: certificate apiserver on m1 expires in 2[89] day\(s\) \(under the warning threshold of 30 days\)/);
  const h31 = health(certificateProblems(reportWith('front-proxy-client', 'front-proxy-client')));
  assert.equal(h31.state, 'healthy', h31.reasons.join('\n'));
  assert.deepEqual(h31.reasons, []);
});

test('a host whose certificates were not read is listed without degrading', () => {
  const r: CertReport = { ...reportWith('front-proxy-client', 'front-proxy-client'), hosts: [{ host: 'm2', address: '10.3.60.52', controlPlane: true, entries: [], error: 'connect ECONNREFUSED' }] };
  const h = health(certificateProblems(r));
  assert.equal(h.state, 'healthy');
  assert.match(h.reasons.join('\n'), /certificates of m2 not read: connect ECONNREFUSED/);
});

test('scheduled snapshots: the newest three intervals old is listed and degrades; one interval old is fine; none installed says nothing', () => {
  const at = Date.parse('2026-11-30T12:00:00Z');
  const node = (host: string, ageS: number) => parseScheduleStatus(host, `active active\ninstalled yes\ninterval 3600s\nsince ${at / 1000 - 90_000}\n${at / 1000 - ageS} 2502688 etcd-20261130T090000Z.db\n`, at);
  const stale = node('m1', 3 * 3600);
  assert.equal(stale.intervalSeconds, 3600);
  const problems = snapshotProblems([stale, node('m2', 3600), parseScheduleStatus('m3', 'active inactive\ninstalled no\ninterval \nsince \n', at)], 43_200);
  assert.deepEqual(problems, [{ severity: 'critical', what: 'm1: the newest etcd snapshot is 3 h old (more than two intervals of 60 min)' }]);
  const h = health(problems);
  assert.equal(h.state, 'degraded');
  assert.match(h.headline, /m1: the newest etcd snapshot is 3 h old/);
});

test('scheduled snapshots: a timer installed but off, or active for long with no snapshot, is listed; just installed is not', () => {
  const at = Date.parse('2026-11-30T12:00:00Z');
  const off = parseScheduleStatus('m1', 'active inactive\ninstalled yes\ninterval 43200s\nsince \n', at);
  const empty = parseScheduleStatus('m2', `active active\ninstalled yes\ninterval 43200s\nsince ${at / 1000 - 7200}\n`, at);
  const fresh = parseScheduleStatus('m3', `active active\ninstalled yes\ninterval 43200s\nsince ${at / 1000 - 30}\n`, at);
  const problems = snapshotProblems([off, empty, fresh, { host: 'm4', error: 'ssh: handshake failed' }], 43_200);
  assert.deepEqual(
    problems.map((p) => `${p.severity} ${p.what}`),
    [
      'critical m1: the etcd snapshot timer is installed but not active',
      'critical m2: the etcd snapshot timer has been active for 2 h and no snapshot exists',
      'warning scheduled etcd snapshots of m4 not read: ssh: handshake failed',
    ],
  );
});
