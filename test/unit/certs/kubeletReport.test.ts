/**
 * The kubelet's certificates as `certs` and the Certificates view give them, end to end below SSH: the engine's own
 * read (inspectCertificates) over hosts whose files are a real openssl-made PKI — a worker with the kubelet's
 * self-signed serving certificate (/var/lib/kubelet/pki/kubelet.crt, as the kubelet writes it without
 * serverTLSBootstrap) — and a control-plane node whose admin.conf lists pending CSRs. Then the report as text and as
 * the JSON `certs --json` prints ({ ...report, summary }), and the view's rows (views/certificateRows.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import type { Inventory } from '../../../src/core/inventory/types';
import type { RemoteCommand } from '../../../src/core/ssh/command';
import type { ExecResult, SshTransport } from '../../../src/core/ssh/transport';
import { renderCertReport, summarize } from '../../../src/core/certs/report';
import { parseCertificate } from '../../../src/core/certs/x509';
import { inspectCertificates } from '../../../src/engine/certs';
import { buildCertificateTree } from '../../../src/views/certificateRows';
import { WARN } from '../../../src/views/rowLook';
import { PkiFixture } from './pkiFixture';

const inv: Inventory = {
  cluster: { name: 'labs-k8s', kubernetesVersion: '1.34.12', controlPlaneEndpoint: '10.3.60.100:6443', podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12', cni: 'flannel' },
  ssh: {},
  hosts: [{ name: 'm01', address: '10.3.60.51', roles: ['control-plane'] }, { name: 'w02', address: '10.3.60.55', roles: ['worker'] }],
};

/** What the remote paths are prefixed with in the commands; each host's own fixture root replaces it on the "node". */
const ROOT = '/kw-pki-root';

const m01 = new PkiFixture({ address: '10.3.60.51', endpointHost: '10.3.60.100' });
const w02 = new PkiFixture({ address: '10.3.60.55', controlPlane: false });
// The kubelet's own serving certificate: self-signed, CN host@timestamp, the node's name and address as SANs, a year.
execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', w02.path('/var/lib/kubelet/pki/kubelet.key'), '-out', w02.path('/var/lib/kubelet/pki/kubelet.crt'), '-days', '365', '-subj', '/CN=w02@1764936000', '-addext', 'subjectAltName=DNS:w02,IP:10.3.60.55'], { stdio: ['ignore', 'ignore', 'pipe'] });
const NOW = Date.parse(parseCertificate(w02.read('/var/lib/kubelet/pki/kubelet.crt')).notBefore) + 1000;

const csr = (name: string, signerName: string, minutes: number) => ({ metadata: { name, creationTimestamp: new Date(NOW - minutes * 60_000).toISOString() }, spec: { signerName, username: 'system:node:w02' }, status: {} });
const CSRS = JSON.stringify({ items: [csr('csr-serving', 'kubernetes.io/kubelet-serving', 2), csr('csr-client-new', 'kubernetes.io/kube-apiserver-client-kubelet', 1)] });

class PkiHosts implements SshTransport {
  async exec(host: string, command: RemoteCommand): Promise<ExecResult> {
    if (command.text.includes('get csr')) {
      assert.equal(host, 'm01', 'the CSRs are read through a control-plane node');
      return { code: 0, signal: null, stdout: CSRS, stderr: '' };
    }
    const fx = host === 'm01' ? m01 : w02;
    const stdout = execFileSync('sh', ['-c', command.text.split(ROOT).join(fx.root)], { encoding: 'utf8' }).split(fx.root).join(ROOT);
    return { code: 0, signal: null, stdout, stderr: '' };
  }
  async close(): Promise<void> {}
}

const read = () => inspectCertificates({ inventory: inv, ssh: new PkiHosts(), become: () => undefined, pkiRoot: ROOT, now: () => NOW });

test('the kubelet\'s serving certificate on a worker: its own entry with days left and the self-signed note', async () => {
  const report = await read();
  const worker = report.hosts.find((h) => h.host === 'w02')!;
  assert.deepEqual(worker.entries.map((e) => e.id).sort(), ['kubelet-client', 'kubelet-serving']);
  const serving = worker.entries.find((e) => e.id === 'kubelet-serving')!;
  assert.equal(serving.path, '/var/lib/kubelet/pki/kubelet.crt');
  assert.equal(serving.role, 'serving');
  assert.equal(serving.daysLeft, 364);
  assert.equal(serving.facts!.selfSigned, true);
  assert.deepEqual(serving.notes, ['self-signed by the kubelet; the API server does not verify it unless --kubelet-certificate-authority is set']);
  assert.deepEqual(serving.problems, []);
  // m01's fixture has none: an optional file, absent without a finding
  assert.ok(!report.hosts.find((h) => h.host === 'm01')!.entries.some((e) => e.id === 'kubelet-serving'));
  const text = renderCertReport(report);
  assert.match(text, /^ {2}ok +364 {2}\d{4}-\d\d-\d\d {2}kubelet-serving +CN=w02@1764936000$/m);
  assert.match(text, /^ {10}note: self-signed by the kubelet; the API server does not verify it unless --kubelet-certificate-authority is set$/m);
  const [, w02Row] = buildCertificateTree(report);
  const row = w02Row!.children!.find((c) => c.id === 'cert:w02:kubelet-serving')!;
  assert.match(String(row.description), /^364d left · \d{4}-\d\d-\d\d$/);
  assert.match((row.tooltip as { markdown: string }).markdown, /self-signed by the kubelet/);
});

test('pending CSRs through `certs`: the text section, a "needs a look" line and the JSON for the kubelet-serving one; a fresh client CSR is fine', async () => {
  const report = await read();
  assert.deepEqual(report.csrs!.map((c) => [c.name, c.kind, c.ageSeconds]), [['csr-serving', 'kubelet-serving', 120], ['csr-client-new', 'kubelet-client', 60]]);
  const summary = summarize(report);
  assert.equal(summary.degraded, true);
  assert.equal(summary.lines.length, 1);
  assert.match(summary.lines[0]!, /^kubelet serving CSR csr-serving of system:node:w02 pending for 2 min: with serverTLSBootstrap nothing approves it by default \(kubectl certificate approve csr-serving/);
  const text = renderCertReport(report);
  assert.match(text, /\nPending certificate signing requests\n {2}WARN {5}2m {2}csr-serving {16}kubernetes\.io\/kubelet-serving from system:node:w02\n {2}ok {7}1m {2}csr-client-new {13}kubernetes\.io\/kube-apiserver-client-kubelet from system:node:w02\n/);
  // `certs --json` prints the report and its summary: English, stable field names.
  const json = JSON.parse(JSON.stringify({ ...report, summary })) as { csrs: { name: string; kind: string; signerName: string; username: string }[]; summary: { problems: number; lines: string[] } };
  assert.deepEqual(json.csrs.map((c) => [c.name, c.kind, c.signerName, c.username]), [['csr-serving', 'kubelet-serving', 'kubernetes.io/kubelet-serving', 'system:node:w02'], ['csr-client-new', 'kubelet-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'system:node:w02']]);
  assert.equal(json.summary.problems, 1);
});

test('pending CSRs in the Certificates view: a group row, expanded and warning, the serving CSR a warning row, the client one muted', async () => {
  const rows = buildCertificateTree(await read());
  const group = rows.find((r) => r.id === 'certs:csrs')!;
  assert.equal(group.label, 'Pending certificate signing requests');
  assert.equal(group.description, '2');
  assert.equal(group.color, WARN);
  assert.equal(group.expanded, true);
  const [serving, client] = group.children!;
  assert.deepEqual([serving!.id, serving!.label, serving!.description, serving!.icon, serving!.color], ['csr:csr-serving', 'csr-serving', 'kubelet-serving · system:node:w02 · 2 min pending', 'warning', WARN]);
  assert.match((serving!.tooltip as { markdown: string }).markdown, /`kubernetes\.io\/kubelet-serving`[\s\S]*kubectl certificate approve csr-serving/);
  assert.deepEqual([client!.description, client!.icon], ['kubelet-client · system:node:w02 · 1 min pending', 'clock']);
  assert.match((client!.tooltip as { markdown: string }).markdown, /approved by the controller-manager shortly/);
});
