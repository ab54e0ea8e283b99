/**
 * The drift the upgrade, the renewal and the reconfigure name in their plans (engine/drift.ts `driftWarnings`),
 * over hosts that answer the drift reads as a kubeadm 1.34 cluster does: a flag set by hand on one control-plane
 * node (the upgrade and the reconfigure overwrite it; the renewal does not touch manifests), a kubelet config edited
 * on a worker (the upgrade rewrites it), certSANs of the ConfigMap that apiserver.crt lacks (the renewal keeps them
 * missing), and a node or the ConfigMaps not read (a warning, never a refusal). Then the same warnings in the
 * upgrade's and the renewal's plans as prepareUpgrade / prepareRenew build them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import type { Inventory } from '../../../src/core/inventory/types';
import type { RemoteCommand } from '../../../src/core/ssh/command';
import { RemoteCommandError, type ExecResult, type SshTransport } from '../../../src/core/ssh/transport';
import { parseCertificate } from '../../../src/core/certs/x509';
import { driftWarnings, KUBELET_CONFIG } from '../../../src/engine/drift';
import { prepareUpgrade } from '../../../src/engine/upgrade';
import { prepareRenew } from '../../../src/engine/renew';
import { targetPackageSource } from '../../../src/core/upgrade/packageSource';
import { healthyFacts, lab, recordingHooks } from '../upgrade/fixtures';
import { EtcdHosts, inv as etcdInv } from '../backup/etcdHosts';
import { PkiFixture } from '../certs/pkiFixture';

const clusterConfiguration = (sans: string[] = ['10.3.60.100']) => `apiServer:
  certSANs:
${sans.map((s) => `  - ${s}\n`).join('')}  extraArgs:
  - name: audit-log-maxbackup
    value: "3"
apiVersion: kubeadm.k8s.io/v1beta4
controlPlaneEndpoint: 10.3.60.100:6443
kind: ClusterConfiguration
kubernetesVersion: v1.34.12
scheduler: {}
`;

const kubelet = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 110\n';

function pod(component: string, flags: string[]): string {
  return `apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - command:\n    - ${component}\n${flags.map((f) => `    - ${f}\n`).join('')}    image: 10.3.60.1:5000/${component}:v1.34.12\n    name: ${component}\n`;
}

/** A control-plane node's manifests; `scheduler` adds flags to its kube-scheduler. */
function manifests(address: string, scheduler: string[] = []): Record<string, string> {
  return {
    '/etc/kubernetes/manifests/kube-apiserver.yaml': pod('kube-apiserver', [`--advertise-address=${address}`, '--audit-log-maxbackup=3']),
    '/etc/kubernetes/manifests/kube-controller-manager.yaml': pod('kube-controller-manager', ['--bind-address=127.0.0.1']),
    '/etc/kubernetes/manifests/kube-scheduler.yaml': pod('kube-scheduler', ['--bind-address=127.0.0.1', ...scheduler]),
    '/etc/kubernetes/manifests/etcd.yaml': `spec:\n  containers:\n  - command:\n    - etcd\n    - --listen-client-urls=https://127.0.0.1:2379,https://${address}:2379\n    image: registry/etcd:3.6.5-0\n    name: etcd\n`,
  };
}

/** Answers the two drift reads: the ConfigMaps and each node's files (by host), from what the test gives. */
class DriftHosts implements SshTransport {
  constructor(private readonly files: Files, private readonly cluster: Cluster) {}
  async exec(host: string, command: RemoteCommand): Promise<ExecResult> {
    return answerDrift(host, command, this.files, this.cluster) ?? Promise.reject(new Error(`unexpected command on ${host}: ${command.display}`));
  }
  async close(): Promise<void> {}
}

type Files = (host: string) => Record<string, string> | 'unreachable';
type Cluster = { clusterConfiguration?: string; kubelet?: string } | 'unreachable';

function answerDrift(host: string, command: RemoteCommand, files: Files, cluster: Cluster): ExecResult | undefined {
  const ok = (stdout: string): ExecResult => ({ code: 0, signal: null, stdout, stderr: '' });
  const t = command.text;
  if (t.includes('kw-cluster')) {
    if (cluster === 'unreachable') throw new RemoteCommandError(host, command, { code: 1, signal: null, stdout: '', stderr: 'The connection to the server localhost:8080 was refused' });
    return ok(`\u001ekw-cluster\n${cluster.clusterConfiguration ?? ''}\n\u001ekw-kubelet\n${cluster.kubelet ?? ''}\n\u001ekw-proxy\n`);
  }
  // nodeFilesCommand: every file whole (the certificates' script, also over kw-file/kw-missing, prints PEM blocks only)
  if (t.includes('cat "$f"; echo') && t.includes(KUBELET_CONFIG)) {
    const have = files(host);
    if (have === 'unreachable') throw new RemoteCommandError(host, command, { code: 255, signal: null, stdout: '', stderr: 'ssh: connect to host: No route to host' });
    const wanted = [...t.matchAll(/'?(\/(?:etc|var)\/[^' ;]+\.yaml)'?/g)].map((m) => m[1]!);
    return ok(wanted.map((p) => (have[p] !== undefined ? `\u001ekw-file ${p}\n${have[p]}\n` : `\u001ekw-missing ${p}\n`)).join(''));
  }
  return undefined;
}

const inv: Inventory = lab();
const address = (host: string) => inv.hosts.find((h) => h.name === host)!.address;
/** Every node as kubeadm left it, m02's scheduler with --v=3 set by hand, w02's kubelet config with maxPods 250. */
const edited = (host: string): Record<string, string> => ({
  ...(host.includes('-m0') ? manifests(address(host), host === 'labs-k8s-m02' ? ['--v=3'] : []) : {}),
  [KUBELET_CONFIG]: host === 'labs-k8s-w02' ? kubelet.replace('110', '250') : kubelet,
});
const become = () => undefined;

test('upgrade: a flag set by hand on m02 and a worker\'s kubelet config, each named as drift the upgrade overwrites', async () => {
  const w = await driftWarnings({ inventory: inv, ssh: new DriftHosts(edited, { clusterConfiguration: clusterConfiguration(), kubelet }), become }, 'upgrade');
  assert.equal(w.length, 2, w.join('\n'));
  assert.match(w[0]!, /^drift the upgrade overwrites: labs-k8s-m02 \/etc\/kubernetes\/manifests\/kube-scheduler\.yaml: --v is 3 here, not set on the other control-plane nodes — kubeadm regenerates kube-scheduler\.yaml from the kubeadm-config ConfigMap \(put the flag there first: reconfigure\)$/);
  assert.match(w[1]!, /^drift the upgrade overwrites: labs-k8s-w02 .*maxPods.*250.* — kubeadm upgrade node rewrites it from the kubelet-config ConfigMap$/);
});

test('reconfigure names the manifest flag but not the kubelet config; the renewal names neither; no drift, no warning', async () => {
  const ssh = new DriftHosts(edited, { clusterConfiguration: clusterConfiguration(), kubelet });
  const re = await driftWarnings({ inventory: inv, ssh, become }, 'reconfigure');
  assert.equal(re.length, 1, re.join('\n'));
  assert.match(re[0]!, /^drift the reconfigure overwrites: labs-k8s-m02 .*kube-scheduler\.yaml: --v is 3/);
  assert.deepEqual(await driftWarnings({ inventory: inv, ssh, become }, 'renewal'), []);
  const clean = (host: string) => ({ ...(host.includes('-m0') ? manifests(address(host)) : {}), [KUBELET_CONFIG]: kubelet });
  assert.deepEqual(await driftWarnings({ inventory: inv, ssh: new DriftHosts(clean, { clusterConfiguration: clusterConfiguration(), kubelet }), become }, 'upgrade'), []);
});

test('renewal: certSANs of the ConfigMap that a node\'s apiserver.crt lacks are named per node, with what is missing', async () => {
  const clean = (host: string) => ({ ...(host.includes('-m0') ? manifests(address(host)) : {}), [KUBELET_CONFIG]: kubelet });
  const ssh = new DriftHosts(clean, { clusterConfiguration: clusterConfiguration(['10.3.60.100', 'api.example.org']), kubelet });
  const sans = new Map([['labs-k8s-m01', ['kubernetes', '10.3.60.100', 'api.example.org']], ['labs-k8s-m02', ['kubernetes', '10.3.60.100']]]);
  const w = await driftWarnings({ inventory: inv, ssh, become }, 'renewal', sans);
  assert.deepEqual(w, ["drift the renewal keeps: labs-k8s-m02's apiserver.crt lacks api.example.org of the kubeadm-config ConfigMap's certSANs; the renewal re-issues it with the SANs it has (apply them with reconfigure)"]);
  // the upgrade is not given the certificates' SANs: nothing about them
  assert.deepEqual(await driftWarnings({ inventory: inv, ssh, become }, 'upgrade', sans), []);
});

test('not read: a node that does not answer and ConfigMaps no control-plane node could read are warnings, never a refusal', async () => {
  const w1Down = (host: string) => (host === 'labs-k8s-w01' ? 'unreachable' as const : edited(host));
  const w = await driftWarnings({ inventory: inv, ssh: new DriftHosts(w1Down, 'unreachable'), become }, 'upgrade');
  assert.match(w[0]!, /^configuration drift not read on the ConfigMaps \(no control-plane node answered: labs-k8s-m01: .*; labs-k8s-m02: .*; labs-k8s-m03: .*\)$/);
  assert.match(w[1]!, /^configuration drift not read on labs-k8s-w01: .+/);
  assert.equal(w.filter((l) => l.startsWith('configuration drift not read')).length, 2, w.join('\n'));
});

test('the upgrade plan carries the drift it would overwrite among its first phase\'s warnings', async () => {
  const ssh = new DriftHosts(edited, { clusterConfiguration: clusterConfiguration(), kubelet });
  const prep = await prepareUpgrade({ inventory: inv, ssh, become }, { target: healthyFacts().target }, recordingHooks(), async (_d, target) => ({ facts: { ...healthyFacts(target), target }, source: targetPackageSource(inv, target) }));
  assert.ok(prep.plan, JSON.stringify(prep.findings));
  const warnings = prep.plan.phases[0]!.warnings;
  assert.ok(warnings.some((x) => /^drift the upgrade overwrites: labs-k8s-m02 .*--v is 3/.test(x)), warnings.join('\n'));
  assert.ok(warnings.some((x) => /^drift the upgrade overwrites: labs-k8s-w02 .*maxPods/.test(x)), warnings.join('\n'));
});

test('the renewal plan names the certSANs its apiserver.crt lacks (read from the node\'s certificate), not a manifest flag', async () => {
  const pki = new PkiFixture({ address: '10.3.60.51', endpointHost: '10.3.60.100' });
  const cpFiles = (host: string) => ({ ...manifests(etcdInv.hosts.find((h) => h.name === host)!.address, host === 'm02' ? ['--v=3'] : []), [KUBELET_CONFIG]: kubelet });
  const cluster = { clusterConfiguration: clusterConfiguration(['10.3.60.100', 'api.example.org']), kubelet };
  const ssh = new EtcdHosts({
    leader: 'm01',
    extra: (host, text) => {
      const drift = answerDrift(host, { text, display: text } as RemoteCommand, cpFiles, cluster);
      if (drift) return drift;
      // the certificates' script runs against the fixture's files
      if (text.includes('kw-file')) return { code: 0, signal: null, stdout: execFileSync('sh', ['-c', text.replace(/'\/(etc|var)\//g, `'${pki.root}/$1/`).replace(/ \/(etc|var)\//g, ` ${pki.root}/$1/`)], { encoding: 'utf8' }).split(pki.root).join(''), stderr: '' };
      return undefined;
    },
  });
  const served = parseCertificate(pki.read('/etc/kubernetes/pki/apiserver.crt'));
  const prep = await prepareRenew({ inventory: etcdInv, ssh, become, served: async () => served, readyz: async () => true });
  assert.deepEqual(prep.refusals, []);
  const drift = prep.warnings.filter((w) => w.startsWith('drift'));
  assert.deepEqual(drift, ['m01', 'm02', 'm03'].map((h) => `drift the renewal keeps: ${h}'s apiserver.crt lacks api.example.org of the kubeadm-config ConfigMap's certSANs; the renewal re-issues it with the SANs it has (apply them with reconfigure)`));
});
