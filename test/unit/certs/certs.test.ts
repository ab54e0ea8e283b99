import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { Inventory } from '../../../src/core/inventory/types';
import { assessHost, DEFAULT_THRESHOLDS, entrySeverity, expiryLevel, byDaysLeft } from '../../../src/core/certs/assess';
import { parsePkiOutput, readPkiScript } from '../../../src/core/certs/kubeadmPki';
import { renderCertReport, summarize, type CertReport } from '../../../src/core/certs/report';
import { assessServed, servedTargets } from '../../../src/core/certs/served';
import { userCredentials } from '../../../src/core/certs/userKubeconfig';
import { canonicalAddress, coversName, parseCertificate, parseSubjectAltName } from '../../../src/core/certs/x509';
import { PkiFixture } from './pkiFixture';

const root = join(__dirname, '../../..');
const inv: Inventory = parseInventory(readFileSync(join(root, 'examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;
const m01 = inv.hosts.find((h) => h.name === 'labs-k8s-m01')!;
const w01 = inv.hosts.find((h) => h.name === 'labs-k8s-w01')!;
const DAY = 86_400_000;

/** Runs the very script that goes over SSH, against the fixture's files. */
function readFixture(fx: PkiFixture, controlPlane = true) {
  const stdout = execFileSync('sh', ['-c', readPkiScript(controlPlane, fx.root).text], { encoding: 'utf8' });
  return { stdout, raw: parsePkiOutput(stdout, fx.root) };
}

// One healthy control-plane PKI shared by the tests that only read it.
const good = new PkiFixture({ address: m01.address, endpointHost: '10.3.60.100' });
/** Just after a fixture's last certificate was issued (the kubelet's, whole seconds): day counts are exact. */
const issued = (fx: PkiFixture) => Date.parse(parseCertificate(fx.read('/var/lib/kubelet/pki/kubelet-client-current.pem')).notBefore) + 1000;
const NOW = issued(good);

test('the read script returns every certificate and no private key', () => {
  const { stdout, raw } = readFixture(good);
  assert.doesNotMatch(stdout, /PRIVATE KEY/);
  assert.doesNotMatch(stdout, /client-key-data/);
  // the kubelet's combined cert+key file contributes only its certificate
  assert.equal(raw.files.get('/var/lib/kubelet/pki/kubelet-client-current.pem')!.pems.length, 1);
  assert.equal(raw.files.get('/etc/kubernetes/admin.conf')!.pems.length, 1);
  assert.equal(raw.files.get('/etc/kubernetes/kubelet.conf')!.certificateFile, '/var/lib/kubelet/pki/kubelet-client-current.pem');
  assert.equal(raw.files.get('/var/lib/kubelet/pki/kubelet.crt')!.present, false);
  assert.equal(raw.rotateCertificates, true);
});

test('a healthy kubeadm PKI: every certificate read, ~365 days, CAs ~10 years, nothing to report', () => {
  const h = assessHost(inv, m01, readFixture(good).raw, NOW);
  const ids = h.entries.map((e) => e.id).sort();
  assert.deepEqual(ids, [
    'admin.conf', 'apiserver', 'apiserver-etcd-client', 'apiserver-kubelet-client', 'ca', 'controller-manager.conf', 'etcd/ca', 'etcd/healthcheck-client',
    'etcd/peer', 'etcd/server', 'front-proxy-ca', 'front-proxy-client', 'kubelet-client', 'scheduler.conf', 'super-admin.conf',
  ]);
  const api = h.entries.find((e) => e.id === 'apiserver')!;
  assert.equal(api.daysLeft, 364);
  assert.equal(api.facts!.subject, 'CN=kube-apiserver');
  assert.equal(api.facts!.issuer, 'CN=kubernetes');
  assert.ok(api.facts!.ipAddresses.includes('10.3.60.100'));
  assert.ok(h.entries.find((e) => e.id === 'ca')!.daysLeft! > 3640);
  assert.equal(h.entries.find((e) => e.id === 'admin.conf')!.facts!.subject, 'O=kubeadm:cluster-admins, CN=kubernetes-admin');
  assert.match(h.entries.find((e) => e.id === 'kubelet-client')!.notes.join(), /renewed by the kubelet/);
  // only "info" findings (other control-plane addresses not in this fixture's SANs)
  assert.deepEqual(h.entries.map(entrySeverity).filter((s) => s && s !== 'info'), []);
  assert.equal(summarize(report([h])).degraded, false);
});

test('thresholds: 30 days warns, 7 days is an error, past not-after is expired', () => {
  assert.equal(expiryLevel(30, DEFAULT_THRESHOLDS), 'ok');
  assert.equal(expiryLevel(29, DEFAULT_THRESHOLDS), 'warning');
  assert.equal(expiryLevel(6, DEFAULT_THRESHOLDS), 'error');
  assert.equal(expiryLevel(-1, DEFAULT_THRESHOLDS), 'expired');
  const fx = new PkiFixture({ address: m01.address, endpointHost: '10.3.60.100', days: { apiserver: 20, 'admin.conf': 3 } });
  const h = assessHost(inv, m01, readFixture(fx).raw, issued(fx));
  const sorted = byDaysLeft(h.entries);
  assert.equal(sorted[0]!.id, 'admin.conf');
  assert.equal(sorted[0]!.expiry, 'error');
  assert.equal(sorted[1]!.id, 'apiserver');
  assert.equal(sorted[1]!.expiry, 'warning');
  const s = summarize(report([h]));
  assert.equal(s.degraded, true);
  assert.equal(s.critical, 1);
  assert.equal(s.expiring, 1);
  assert.equal(s.minDaysLeft, 2);
  // A year on, every leaf has expired; the CAs have not.
  const later = assessHost(inv, m01, readFixture(good).raw, NOW + 400 * DAY);
  assert.equal(later.entries.find((e) => e.id === 'apiserver')!.expiry, 'expired');
  assert.equal(later.entries.find((e) => e.id === 'ca')!.expiry, 'ok');
  assert.match(renderCertReport(report([later])), /ERROR\s+-36\s/);
  // A CA near its end is flagged with the note that renew does not help.
  const ca = assessHost(inv, m01, readFixture(good).raw, NOW + 3640 * DAY).entries.find((e) => e.id === 'ca')!;
  assert.match(ca.notes.join(), /does not renew it/);
});

test('apiserver SANs without the VIP are an error naming it', () => {
  const fx = new PkiFixture({ address: m01.address });
  const h = assessHost(inv, m01, readFixture(fx).raw, issued(fx));
  const api = h.entries.find((e) => e.id === 'apiserver')!;
  assert.equal(entrySeverity(api), 'error');
  assert.match(api.problems.map((p) => p.message).join('\n'), /SANs do not include 10\.3\.60\.100: the controlPlaneEndpoint/);
  // The same certificate on m02 misses m02's own address too.
  const m02 = inv.hosts.find((x) => x.name === 'labs-k8s-m02')!;
  const on2 = assessHost(inv, m02, readFixture(good).raw, NOW);
  assert.match(on2.entries.find((e) => e.id === 'etcd/server')!.problems.map((p) => p.message).join(), /do not include 10\.3\.60\.52/);
});

test('a leaf not signed by its CA, and a missing required file, are errors', () => {
  const fx = new PkiFixture({ address: m01.address, endpointHost: '10.3.60.100' });
  // re-sign etcd/server with the cluster CA instead of the etcd CA
  fx.leaf('/etc/kubernetes/pki/etcd/server', 'ca', '/CN=node', 365, 'serverAuth', ['IP:127.0.0.1', `IP:${m01.address}`]);
  fx.write('/etc/kubernetes/scheduler.conf', '');
  execFileSync('rm', [fx.path('/etc/kubernetes/pki/front-proxy-client.crt')]);
  const h = assessHost(inv, m01, readFixture(fx).raw, issued(fx));
  assert.match(h.entries.find((e) => e.id === 'etcd/server')!.problems.map((p) => p.message).join(), /not signed by this node's etcd\/ca\.crt/);
  assert.match(h.entries.find((e) => e.id === 'front-proxy-client')!.problems[0]!.message, /missing/);
  assert.match(h.entries.find((e) => e.id === 'scheduler.conf')!.problems[0]!.message, /no certificate/);
});

test('a worker: only the kubelet, with rotation off a warning', () => {
  const fx = new PkiFixture({ address: w01.address, controlPlane: false, rotate: false });
  const h = assessHost(inv, w01, readFixture(fx, false).raw, issued(fx));
  assert.deepEqual(h.entries.map((e) => e.id), ['kubelet-client']);
  assert.equal(h.kubeletRotates, false);
  assert.match(h.entries[0]!.problems.map((p) => `${p.severity}: ${p.message}`).join(), /warning: rotateCertificates is false .*will not renew it/);
});

test('served vs on disk: a node serving an older certificate is "renewed on disk but not restarted"', () => {
  const fx = new PkiFixture({ address: m01.address, endpointHost: '10.3.60.100' });
  const h = assessHost(inv, m01, readFixture(fx).raw, issued(fx));
  const onDisk = parseCertificate(fx.read('/etc/kubernetes/pki/apiserver.crt'));
  assert.deepEqual(servedTargets(inv).map((t) => `${t.target} ${t.address}:${t.port}`), ['endpoint 10.3.60.100:6443', 'labs-k8s-m01 10.3.60.51:6443', 'labs-k8s-m02 10.3.60.52:6443', 'labs-k8s-m03 10.3.60.53:6443']);
  const same = assessServed([{ target: 'endpoint', address: '10.3.60.100', port: 6443, facts: onDisk }, { target: 'labs-k8s-m01', address: m01.address, port: 6443, facts: onDisk }], [h], NOW, DEFAULT_THRESHOLDS);
  assert.deepEqual(same.map((c) => c.problems), [[], []]);
  assert.equal(same[0]!.matchesHost, 'labs-k8s-m01');
  // renew on disk; the probe still sees the old one
  fx.leaf('/etc/kubernetes/pki/apiserver', 'ca', '/CN=kube-apiserver', 365, 'serverAuth', [`IP:${m01.address}`, 'IP:10.3.60.100']);
  const renewed = assessHost(inv, m01, readFixture(fx).raw, issued(fx));
  const stale = assessServed([{ target: 'labs-k8s-m01', address: m01.address, port: 6443, facts: onDisk }, { target: 'endpoint', address: '10.3.60.100', port: 6443, facts: onDisk }], [renewed], NOW, DEFAULT_THRESHOLDS);
  assert.match(stale[0]!.problems[0]!.message, /renewed on disk but kube-apiserver not restarted/);
  assert.match(stale[1]!.problems[0]!.message, /no control-plane node's apiserver\.crt/);
  const down = assessServed([{ target: 'labs-k8s-m02', address: '10.3.60.52', port: 6443, error: 'ECONNREFUSED' }], [renewed], NOW, DEFAULT_THRESHOLDS);
  assert.match(down[0]!.problems[0]!.message, /no TLS handshake.*ECONNREFUSED/);
  assert.equal(summarize({ ...report([renewed]), served: stale }).degraded, true);
});

test("the user's kubeconfig: credentials of contexts pointing at the endpoint only", () => {
  const admin = good.read('/etc/kubernetes/admin.conf');
  const doc = admin.replace('users:', 'contexts:\n- name: labs-k8s\n  context: { cluster: kubernetes, user: kubernetes-admin }\n- name: other\n  context: { cluster: elsewhere, user: kubernetes-admin }\nusers:').replace('clusters:', 'clusters:\n- name: elsewhere\n  cluster: { server: "https://10.9.9.9:6443" }');
  const creds = userCredentials(doc, inv.cluster.controlPlaneEndpoint);
  assert.deepEqual(creds.map((c) => c.context), ['labs-k8s']);
  assert.equal(parseCertificate(creds[0]!.pem!).subject, 'O=kubeadm:cluster-admins, CN=kubernetes-admin');
  assert.deepEqual(userCredentials('not: [yaml', inv.cluster.controlPlaneEndpoint), []);
});

test('SAN parsing and name matching', () => {
  assert.deepEqual(parseSubjectAltName('DNS:kubernetes, DNS:*.svc.local, IP Address:10.96.0.1, IP Address:0:0:0:0:0:0:0:1, email:a@b'), {
    dnsNames: ['kubernetes', '*.svc.local'],
    ipAddresses: ['10.96.0.1', '::1'],
  });
  assert.deepEqual(parseSubjectAltName('DNS:"a,b", DNS:c').dnsNames, ['a,b', 'c']);
  const c = { dnsNames: ['*.svc.local', 'kubernetes'], ipAddresses: ['10.3.60.100', '::1'] };
  assert.ok(coversName(c, 'api.svc.local'));
  assert.ok(!coversName(c, 'a.b.svc.local'));
  assert.ok(coversName(c, '0:0::1'));
  assert.ok(!coversName(c, '10.3.60.51'));
  assert.equal(canonicalAddress('[FE80:0:0::1]'), 'fe80::1');
});

function report(hosts: ReturnType<typeof assessHost>[]): CertReport {
  return { cluster: 'labs-k8s', at: new Date(NOW).toISOString(), thresholds: DEFAULT_THRESHOLDS, hosts, served: [], local: [] };
}
