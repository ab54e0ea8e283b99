/**
 * The kubelet's certificates below SSH: a kubelet.conf that embeds its client certificate (kubeadm#1317) reported with
 * its guided fix, and the fix's commands run on a kubeadm-shaped PKI made by openssl (the rotated file usable,
 * kubelet.conf pointed at it with everything else kept, the old file kept, nothing to do after); pending CSRs judged;
 * the fix's plan drained first and uncordoned last. The lab builds the embedded case on a node and fixes it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { assessHost } from '../../../src/core/certs/assess';
import { buildKubeletConfPlan, csrProblem, kubeletConfUsesRotatedFile, parsePendingCsrs, pointAtRotatedFile, rotatedFileUsable } from '../../../src/core/certs/kubelet';
import { parsePkiOutput, readPkiScript } from '../../../src/core/certs/kubeadmPki';
import { parseCertificate } from '../../../src/core/certs/x509';
import type { Inventory } from '../../../src/core/inventory/types';
import type { RemoteCommand } from '../../../src/core/ssh/command';
import { PkiFixture } from './pkiFixture';

const inv: Inventory = {
  cluster: { name: 'labs-k8s', kubernetesVersion: '1.34.12', controlPlaneEndpoint: '10.3.60.100:6443', podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12', cni: 'flannel' },
  ssh: {},
  hosts: [{ name: 'm01', address: '10.3.60.51', roles: ['control-plane'] }, { name: 'w02', address: '10.3.60.55', roles: ['worker'] }],
};
const w02 = inv.hosts[1]!;

/** A worker whose kubelet.conf embeds the rotated file's certificate and key, as the lab builds it. */
function embedded(): PkiFixture {
  const fx = new PkiFixture({ address: w02.address, controlPlane: false });
  const pem = fx.read('/var/lib/kubelet/pki/kubelet-client-current.pem');
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const cert = pem.slice(0, pem.indexOf('-----END CERTIFICATE-----') + 25);
  fx.write('/etc/kubernetes/kubelet.conf', `apiVersion: v1\nclusters:\n- cluster:\n    server: https://10.3.60.100:6443\n  name: default-cluster\nusers:\n- name: default-auth\n  user:\n    client-certificate-data: ${b64(cert)}\n    client-key-data: ${b64(pem.slice(cert.length))}\n`);
  return fx;
}

/** A command as it runs on the node, with the node's paths under the fixture's root. */
function onNode(fx: PkiFixture, cmd: RemoteCommand): number {
  try {
    execFileSync('sh', ['-c', cmd.text.split('/etc/kubernetes').join(`${fx.root}/etc/kubernetes`).split('/var/lib/kubelet').join(`${fx.root}/var/lib/kubelet`)], { stdio: 'pipe' });
    return 0;
  } catch (e) {
    return (e as { status: number }).status;
  }
}

test('an embedded kubelet.conf is reported with its guided fix; one pointing at the rotated file is not', () => {
  const fx = embedded();
  const raw = parsePkiOutput(execFileSync('sh', ['-c', readPkiScript(false, fx.root).text], { encoding: 'utf8' }), fx.root);
  const now = Date.parse(parseCertificate(fx.read('/var/lib/kubelet/pki/kubelet-client-current.pem')).notBefore) + 1000;
  const h = assessHost(inv, w02, raw, now);
  const conf = h.entries.find((e) => e.id === 'kubelet.conf')!;
  assert.equal(conf.fix, 'kubelet-conf');
  assert.equal(conf.problems[0]!.severity, 'warning');
  assert.match(conf.problems[0]!.message, /embeds its client certificate .*\(kubeadm#1317\)\. Fix: kubeadm-workbench certs fix-kubelet-conf --host w02/);
  const client = h.entries.find((e) => e.id === 'kubelet-client')!;
  assert.match(client.notes.join(), /renewed by the kubelet \(rotateCertificates\) between \d{4}-\d\d-\d\d and \d{4}-\d\d-\d\d/);
  const fine = new PkiFixture({ address: w02.address, controlPlane: false });
  const ok = assessHost(inv, w02, parsePkiOutput(execFileSync('sh', ['-c', readPkiScript(false, fine.root).text], { encoding: 'utf8' }), fine.root), now);
  assert.ok(!ok.entries.some((e) => e.id === 'kubelet.conf' || e.fix));
});

test('the fix\'s commands on a real PKI: the rotated file usable, kubelet.conf pointed at it, the old one kept', () => {
  const fx = embedded();
  const before = fx.read('/etc/kubernetes/kubelet.conf');
  assert.notEqual(onNode(fx, kubeletConfUsesRotatedFile()), 0);
  assert.equal(onNode(fx, rotatedFileUsable()), 0);
  assert.equal(onNode(fx, pointAtRotatedFile()), 0);
  const after = fx.read('/etc/kubernetes/kubelet.conf').split(fx.root).join(''); // the node's paths, as the node has them
  assert.equal(after, before.replace(/client-certificate-data: .*/, 'client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem').replace(/client-key-data: .*/, 'client-key: /var/lib/kubelet/pki/kubelet-client-current.pem'));
  assert.equal(onNode(fx, kubeletConfUsesRotatedFile()), 0);
  assert.equal(readdirSync(fx.path('/etc/kubernetes/tmp')).filter((f) => f.startsWith('kubelet.conf.kubeadm-workbench-')).length, 1, 'the embedded file kept');
  // A rotated file signed by another CA is not used.
  fx.write('/etc/kubernetes/pki/ca.crt', new PkiFixture({ address: w02.address, controlPlane: false }).read('/etc/kubernetes/pki/ca.crt'));
  assert.notEqual(onNode(fx, rotatedFileUsable()), 0);
});

test('pending CSRs: a kubelet-serving one at once, a kubelet client one after 15 minutes; decided ones are not pending', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  const csr = (name: string, signerName: string, minutes: number, conditions: object[] = []) => ({ metadata: { name, creationTimestamp: new Date(now - minutes * 60_000).toISOString() }, spec: { signerName, username: 'system:node:w02' }, status: { conditions } });
  const list = parsePendingCsrs(JSON.stringify({ items: [
    csr('csr-serving', 'kubernetes.io/kubelet-serving', 2),
    csr('csr-client-new', 'kubernetes.io/kube-apiserver-client-kubelet', 1),
    csr('csr-client-old', 'kubernetes.io/kube-apiserver-client-kubelet', 40),
    csr('csr-done', 'kubernetes.io/kube-apiserver-client-kubelet', 40, [{ type: 'Approved' }]),
  ] }), now);
  assert.deepEqual(list.map((c) => [c.name, c.kind, c.ageSeconds]), [['csr-serving', 'kubelet-serving', 120], ['csr-client-new', 'kubelet-client', 60], ['csr-client-old', 'kubelet-client', 2400]]);
  assert.match(csrProblem(list[0]!)!, /kubelet serving CSR csr-serving of system:node:w02 pending .*kubectl logs\/exec to that node fail/);
  assert.equal(csrProblem(list[1]!), undefined);
  assert.match(csrProblem(list[2]!)!, /rotation is not happening/);
});

test('the fix as a plan: the rotated file checked, drained through a control-plane node, fixed, restarted, Ready, uncordoned', () => {
  const plan = buildKubeletConfPlan({ inventory: inv, node: 'w02', helper: 'm01' });
  const steps = plan.phases[0]!.steps;
  assert.deepEqual(steps.map((s) => s.id), ['kubelet-conf/w02/rotated-file', 'kubelet-conf/m01/drain-w02', 'kubelet-conf/w02/kubelet-conf', 'kubelet-conf/w02/kubelet-restart', 'kubelet-conf/m01/uncordon-w02']);
  assert.match((steps[1]!.run as RemoteCommand).display, /kubectl --kubeconfig \/etc\/kubernetes\/admin\.conf drain w02 --ignore-daemonsets --timeout=300s/);
  // The restart's proof: a Lease renewal after systemd's start time of the kubelet (microseconds), and Ready, both read
  // with the fixed kubelet.conf; no start time read is no proof.
  assert.match(steps[3]!.verify!.display, /ActiveEnterTimestamp --value --timestamp=us\) && test -n "\$since" && /);
  assert.match(steps[3]!.verify!.display, /--kubeconfig \/etc\/kubernetes\/kubelet\.conf --request-timeout=10s get lease\/w02 -n kube-node-lease .*\) && test -n "\$renewal" && .*test "\$renewed" -gt "\$started" && systemctl is-active --quiet kubelet/);
  assert.match(steps[3]!.verify!.display, /--kubeconfig \/etc\/kubernetes\/kubelet\.conf --request-timeout=10s get node\/w02 /);
  for (const s of steps) assert.ok(s.check || s.rerun, `${s.id} has a check or says why not`);
});
