/**
 * The inspection end to end below SSH: the engine's own remote script runs in a real shell against
 * openssl-made PKIs (one per node, under temporary roots), the served certificates come from real TLS
 * servers on loopback addresses (127.13.0.x:6443, one of them still serving its old certificate), and
 * the user's kubeconfig is a real file. The lab test runs the same path over SSH on the lab cluster.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:tls';
import { join } from 'node:path';
import type { Inventory } from '../../../src/core/inventory/types';
import { renderCertReport, summarize } from '../../../src/core/certs/report';
import type { RemoteCommand } from '../../../src/core/ssh/command';
import { RemoteCommandError, type ExecOptions, type ExecResult, type SshTransport } from '../../../src/core/ssh/transport';
import { servedCertificate } from '../../../src/adapters/tls/servedCertificate';
import { inspectCertificates } from '../../../src/engine/certs';
import { PkiFixture } from './pkiFixture';

const VIP = '127.13.0.100';
const inv: Inventory = {
  cluster: { name: 'loop', kubernetesVersion: '1.30.14', controlPlaneEndpoint: `${VIP}:16443`, podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12', cni: 'flannel' },
  ssh: {},
  hosts: [
    { name: 'lb', address: '127.13.0.50', roles: ['loadbalancer'] },
    { name: 'm1', address: '127.13.0.1', roles: ['control-plane'] },
    { name: 'm2', address: '127.13.0.2', roles: ['control-plane'] },
    { name: 'w1', address: '127.13.0.9', roles: ['worker'] },
  ],
};
const pki = {
  m1: new PkiFixture({ address: '127.13.0.1', endpointHost: VIP }),
  m2: new PkiFixture({ address: '127.13.0.2', endpointHost: VIP, days: { apiserver: 20 } }),
  w1: new PkiFixture({ address: '127.13.0.9', controlPlane: false }),
};
type Name = keyof typeof pki;

/** Runs each host's command in a local shell; the host's PKI lives under its own root (see pkiRoot below). */
class ShellPerHost implements SshTransport {
  readonly ran: { host: string; command: RemoteCommand }[] = [];
  exec(host: string, command: RemoteCommand, opts: ExecOptions = {}): Promise<ExecResult> {
    this.ran.push({ host, command });
    const text = command.text.split(ROOT_MARK).join(pki[host as Name].root);
    return new Promise((resolve, reject) =>
      execFile('/bin/sh', ['-c', text], { timeout: opts.timeoutMs ?? 0 }, (err, stdout, stderr) => {
        const result = { code: err ? 1 : 0, signal: null, stdout: stdout.split(pki[host as Name].root).join(ROOT_MARK), stderr };
        if (err) reject(new RemoteCommandError(host, command, result));
        else resolve(result);
      }),
    );
  }
  async close(): Promise<void> {}
}
/** The script is built once per host with this placeholder root; the transport puts the host's own root in. */
const ROOT_MARK = '/kw-root-of-host';

function serve(fx: PkiFixture, address: string, port: number, cert = fx.read('/etc/kubernetes/pki/apiserver.crt'), key = fx.read('/etc/kubernetes/pki/apiserver.key')): Promise<Server> {
  const s = createServer({ cert, key }, (sock) => sock.end());
  return new Promise((resolve, reject) => {
    s.once('error', reject);
    s.listen(port, address, () => resolve(s));
  });
}

const servers: Server[] = [];
after(() => servers.forEach((s) => s.close()));

test('inspect: PKIs over the remote script, served certificates by handshake, the user kubeconfig', async () => {
  // m1 serves its on-disk certificate (also behind the "VIP"); m2 renewed on disk but still serves the old one.
  const oldM2 = { cert: pki.m2.read('/etc/kubernetes/pki/apiserver.crt'), key: pki.m2.read('/etc/kubernetes/pki/apiserver.key') };
  pki.m2.leaf('/etc/kubernetes/pki/apiserver', 'ca', '/CN=kube-apiserver', 365, 'serverAuth', ['IP:127.13.0.2', `IP:${VIP}`]);
  servers.push(await serve(pki.m1, '127.13.0.1', 6443), await serve(pki.m1, VIP, 16443), await serve(pki.m2, '127.13.0.2', 6443, oldM2.cert, oldM2.key));
  const kubeconfig = join(pki.m1.root, 'user-kubeconfig');
  writeFileSync(kubeconfig, pki.m1.read('/etc/kubernetes/admin.conf').replace('https://10.3.60.100:6443', `https://${VIP}:16443`).replace('users:', 'contexts:\n- name: loop\n  context: { cluster: kubernetes, user: kubernetes-admin }\nusers:'));

  const ssh = new ShellPerHost();
  const seen: string[] = [];
  const report = await inspectCertificates({
    inventory: inv,
    ssh,
    become: () => undefined,
    served: (a, p) => servedCertificate(a, p, 2000),
    kubeconfig,
    pkiRoot: ROOT_MARK,
    progress: (h, ok) => seen.push(`${h}:${ok}`),
  });
  assert.deepEqual(seen.sort(), ['m1:true', 'm2:true', 'w1:true']);
  assert.deepEqual(ssh.ran.filter((r) => !/get csr/.test(r.command.display)).map((r) => r.host).sort(), ['m1', 'm2', 'w1'], 'the balancer carries no certificates and is not contacted');
  // The pending CSRs are asked of the control-plane nodes (here they have no kubectl: each is tried, and that is said).
  assert.match(report.csrsError ?? '', /m1: .*m2: /);
  assert.deepEqual(report.hosts.map((h) => [h.host, h.entries.length]), [['m1', 15], ['m2', 15], ['w1', 1]]);

  const byTarget = Object.fromEntries(report.served.map((c) => [c.target, c]));
  assert.equal(byTarget.endpoint!.matchesHost, 'm1');
  assert.deepEqual(byTarget.m1!.problems, []);
  assert.match(byTarget.m2!.problems.map((p) => p.message).join(), /renewed on disk but kube-apiserver not restarted/);
  assert.ok(byTarget.m2!.daysLeft! < 20, 'the served (old) certificate is the short one');

  assert.deepEqual(report.local.map((e) => [e.id, e.facts?.subject]), [['context loop', 'O=kubeadm:cluster-admins, CN=kubernetes-admin']]);

  const s = summarize(report);
  assert.equal(s.degraded, true);
  assert.ok(s.lines.some((l) => /served by m2/.test(l)));
  const text = renderCertReport(report);
  assert.match(text, /m2 \(127\.13\.0\.2, control plane\)/);
  assert.match(text, /Your kubeconfig/);
});

test('an unreachable host and a refused handshake are reported, not thrown', async () => {
  const failing: SshTransport = {
    exec: (host, command) => Promise.reject(new RemoteCommandError(host, command, { code: 255, signal: null, stdout: '', stderr: 'ssh: connect to host refused' })),
    close: async () => undefined,
  };
  const report = await inspectCertificates({ inventory: inv, ssh: failing, become: () => ({}), served: (a, p) => servedCertificate(a, p, 1000) }, ['m1']);
  assert.equal(report.hosts.length, 1);
  assert.match(report.hosts[0]!.error!, /refused/);
  // only the endpoint and the asked-for node are compared
  assert.deepEqual(report.served.map((c) => c.target).sort(), ['endpoint', 'm1']);
  // A host not read is counted apart, never as a certificate problem (the status-bar item counts findings only).
  assert.deepEqual(summarize(report).notRead.map((n) => n.host), ['m1']);
  assert.equal(summarize(report).problems, report.served.flatMap((c) => c.problems).filter((p) => p.severity !== 'info').length);
  // through sudo when the login user is not root
  const seen: string[] = [];
  await inspectCertificates({ inventory: inv, ssh: { exec: (_h, c) => (seen.push(c.display), Promise.reject(new Error('x'))), close: async () => undefined }, become: () => ({}) }, ['w1']);
  assert.match(seen[0]!, /^sudo -n/);
});
