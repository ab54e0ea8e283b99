/**
 * Honest counts: a host whose certificates could not be read is "not read" with a short cause, never a certificate
 * finding, and no row or sentence carries the command that failed. The failures are real ones: the certificate read
 * (the engine's own 1,300-character script) run through the real SSH pool against a real sshd whose host key waits
 * for an answer past the time limit (the issue's row), and against a loopback port nobody listens on.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SshPool } from '../../../src/adapters/ssh/pool';
import { readPkiScript } from '../../../src/core/certs/kubeadmPki';
import { inspectionSentence, renderCertReport, summarize, type CertReport } from '../../../src/core/certs/report';
import { assessServed } from '../../../src/core/certs/served';
import { asRoot } from '../../../src/core/drill/commands';
import type { Inventory } from '../../../src/core/inventory/types';
import { certificateProblems } from '../../../src/core/live/certProblems';
import { sh } from '../../../src/core/ssh/command';
import { RemoteCommandError } from '../../../src/core/ssh/transport';
import { resolveHost, type SshConfigEnv } from '../../../src/core/ssh/config';
import { HostKeyVerifier } from '../../../src/core/ssh/hostKeyPolicy';
import { MAX_CAUSE, summarizeFailure } from '../../../src/core/text/failureSummary';
import { inspectCertificates } from '../../../src/engine/certs';
import { keygen, tempDir, type TestKey } from '../ssh/keys';
import { freePort, startSshd, type Sshd } from '../ssh/sshd';

const tmp = tempDir('kw-notread-');
let key: TestKey;
let sshd: Sshd;
let closedPort: number;

before(async () => {
  key = keygen(tmp.dir, 'client', 'ed25519');
  sshd = await startSshd(tmp.dir, 'certs', { authorizedKeys: [key.pub] });
  closedPort = await freePort();
});

after(async () => {
  await sshd.stop();
  tmp.cleanup();
});

/** A pool over an ssh config; unknown host keys wait `promptMs` for an answer (then reject), as a modal would. */
function pool(config: string, promptMs: number): SshPool {
  const cfg = join(tmp.dir, `ssh_config_${promptMs}_${config.length}`);
  writeFileSync(cfg, config);
  const env: SshConfigEnv = { files: [cfg], homeDir: tmp.dir, localUser: 'root', readFile: (p) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined), listDir: () => [] };
  const kh = join(tmp.dir, 'known_hosts_empty');
  writeFileSync(kh, '');
  const wait = async () => {
    await new Promise((r) => setTimeout(r, promptMs));
    return 'reject' as const;
  };
  const verifier = new HostKeyVerifier(
    { files: [kh], ownFile: join(tmp.dir, 'own_known_hosts'), read: async (p) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined), append: async (p, t) => appendFileSync(p, t) },
    { unknown: wait, changed: async () => undefined, revoked: async () => undefined },
  );
  return new SshPool({ resolve: (name) => resolveHost({ name, address: name, explicit: { identityFile: key.path } }, env), hostKeys: verifier, auth: { agentSocket: '' } });
}

test('the certificate read that timed out while its host key waited: a short cause, no script', async () => {
  const p = pool(`Host m1\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  User root\n  IdentitiesOnly yes\n`, 2_000);
  try {
    const command = asRoot(sh`sh -c ${readPkiScript(true)}`, undefined);
    assert.ok(command.display.length > 1000, `the read is a long script (${command.display.length} characters)`);
    const e = await p.exec('m1', command, { timeoutMs: 400 }).catch((x: unknown) => x);
    assert.ok(e instanceof Error && e.message.length > 1000, 'the error itself carries the whole script');
    const s = summarizeFailure(e, 'm1');
    assert.equal(s.cause, 'timed out after 400 ms before the command started (waiting for the connection)');
    assert.equal(s.detail, e.message, 'the log gets the whole error');
  } finally {
    await p.close();
  }
});

const inv: Inventory = {
  cluster: { name: 'loop', kubernetesVersion: '1.30.14', controlPlaneEndpoint: '127.0.0.1:1', podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12', cni: 'flannel' },
  ssh: {},
  hosts: [
    { name: 'lb', address: '127.0.0.1', roles: ['loadbalancer'] },
    { name: 'm1', address: '127.0.0.1', roles: ['control-plane'] },
    { name: 'w1', address: '127.0.0.1', roles: ['worker'] },
  ],
};

test('no host answers: every host not read with its cause, zero certificate findings, no status-bar count', async () => {
  const p = pool(`Host *\n  HostName 127.0.0.1\n  Port ${closedPort}\n  User root\n  IdentitiesOnly yes\n`, 0);
  let report: CertReport;
  try {
    report = await inspectCertificates({ inventory: inv, ssh: p, become: () => undefined });
  } finally {
    await p.close();
  }
  assert.deepEqual(report.hosts.map((h) => h.host), ['m1', 'w1']);
  console.log(`causes: ${report.hosts.map((h) => `${h.host}: ${h.error}`).join(' | ')}`);
  for (const h of report.hosts) {
    assert.ok(h.error && h.error.length <= MAX_CAUSE && !/sh -c|openssl|\/etc\/kubernetes/.test(h.error), `${h.host}: ${h.error}`);
    assert.match(h.errorDetail ?? '', /./);
  }
  const s = summarize(report);
  assert.equal(s.problems, 0, 'a host not read is no certificate problem');
  assert.equal(s.degraded, false, 'so the status-bar item stays hidden');
  assert.deepEqual(s.lines, []);
  assert.deepEqual(s.notRead.map((n) => n.host), ['m1', 'w1']);
  const sentence = inspectionSentence(report);
  assert.equal(sentence.level, 'warning');
  assert.match(sentence.text, /^Certificates of loop: no certificate was read on the nodes; 2 of 2 host\(s\) not read \(.+\)\.$/);
  assert.doesNotMatch(sentence.text, /need a look|problem/);
  const text = renderCertReport(report);
  assert.match(text, /0 certificate\(s\) read; .* 0 finding\(s\)\.\n2 of 2 host\(s\) not read, so their certificates are not judged: m1 \(.+\), w1 \(.+\)\.\n$/);
  assert.doesNotMatch(text, /ERROR/);
  // The health model lists them as warnings (never critical): the cluster is not degraded by a read that failed.
  assert.deepEqual(certificateProblems(report).map((x) => x.severity), ['warning', 'warning']);
});

test('findings and hosts not read are told apart in one sentence', () => {
  const entry = { host: 'm1', id: 'apiserver', path: '/etc/kubernetes/pki/apiserver.crt', role: 'serving' as const, daysLeft: 12, expiry: 'warning' as const, problems: [{ severity: 'warning' as const, message: 'expires in 12 day(s)' }], notes: [] };
  const r: CertReport = {
    cluster: 'loop',
    at: new Date().toISOString(),
    thresholds: { warningDays: 30, errorDays: 7 },
    hosts: [
      { host: 'm1', address: '127.0.0.1', controlPlane: true, entries: [entry] },
      { host: 'w1', address: '127.0.0.1', controlPlane: false, entries: [], error: 'connection refused' },
    ],
    served: [],
    local: [],
  };
  const s = summarize(r);
  assert.equal(s.problems, 1);
  assert.deepEqual(s.notRead, [{ host: 'w1', cause: 'connection refused' }]);
  assert.equal(inspectionSentence(r).text, 'Certificates of loop: 1 finding(s) need a look; 1 certificate(s) read on 1 host(s), the soonest expires in 12 days; 1 of 2 host(s) not read (connection refused).');
  const clean = { ...r, hosts: [{ ...r.hosts[0]!, entries: [{ ...entry, daysLeft: 200, expiry: 'ok' as const, problems: [] }] }] };
  assert.deepEqual(inspectionSentence(clean), { level: 'info', text: 'Certificates of loop: 1 certificate(s) read on 1 host(s), the soonest expires in 200 days; nothing needs a look.' });
  // An API address with no TLS handshake: nothing served was read, so no finding either (the assessment's own check).
  const served = assessServed([{ target: 'endpoint', address: '127.0.0.1', port: 1, error: 'connect ECONNREFUSED 127.0.0.1:1' }], clean.hosts, Date.now(), clean.thresholds);
  const unreachable = summarize({ ...clean, served });
  assert.equal(unreachable.problems, 0);
  assert.equal(unreachable.degraded, false);
  assert.deepEqual(unreachable.servedNotRead, [{ at: 'the endpoint 127.0.0.1:1', cause: 'connect ECONNREFUSED 127.0.0.1:1' }]);
  assert.match(inspectionSentence({ ...clean, served }).text, /; no TLS handshake with 1 of 1 API address\(es\)\.$/);
});

test('a command that exited: the exit and its last line, not the command; anything else loses its code spans', () => {
  const script = sh`sh -c ${readPkiScript(false)}`;
  const e = new RemoteCommandError('w1', script, { code: 1, signal: null, stdout: '', stderr: 'reading…\nsudo: a password is required\n' });
  assert.ok(e.message.includes(script.display));
  assert.deepEqual(summarizeFailure(e, 'w1'), { cause: 'the command exited 1: sudo: a password is required', detail: e.message });
  assert.equal(summarizeFailure(new Error('w1: `kubectl get nodes` refused: no route to host'), 'w1').cause, 'refused: no route to host');
  assert.equal(summarizeFailure(new Error('x'.repeat(500))).cause.length, MAX_CAUSE);
});
