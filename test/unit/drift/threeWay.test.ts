/**
 * Drift three ways on files shaped like kubeadm 1.34 writes them: the workspace's kubeadm-config.yaml against the
 * kubeadm-config / kubelet-config / kube-proxy ConfigMaps (each difference on the workspace line that says it), and
 * the ConfigMaps against each node's manifests and kubelet config (a flag changed by hand on one node named on that
 * node and that flag; the nodes' own addresses not taken for drift); a kube-proxy setting; and the issue's own case, an
 * inventory with apiServerAuditLog: true against a cluster brought up without audit flags, through `drift`'s reading.
 * The lab does the same on its cluster.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareClusterNodes, compareWorkspaceCluster, expectedManifest, manifestFixes, type NodeFiles } from '../../../src/core/drift/threeWay';
import { manifestFlags, parseObject } from '../../../src/core/drift/kubeadmConfig';
import type { SshTransport } from '../../../src/core/ssh/transport';
import { KUBELET_CONFIG, readDrift, renderDrift } from '../../../src/engine/drift';
import { lab } from '../upgrade/fixtures';

const clusterConfiguration = `apiServer:
  certSANs:
  - 10.3.60.100
  - labs-k8s-m01
  extraArgs:
  - name: audit-log-maxbackup
    value: "3"
  - name: audit-log-path
    value: /var/log/kubernetes/audit/audit.log
apiVersion: kubeadm.k8s.io/v1beta4
certificatesDir: /etc/kubernetes/pki
clusterName: labs-k8s
controlPlaneEndpoint: 10.3.60.100:6443
controllerManager: {}
etcd:
  local:
    dataDir: /var/lib/etcd
kind: ClusterConfiguration
kubernetesVersion: v1.34.12
networking:
  dnsDomain: cluster.local
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
scheduler: {}
`;

const workspace = `# the user's kubeadm-config.yaml
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
clusterName: labs-k8s
kubernetesVersion: "1.34.12"
controlPlaneEndpoint: 10.3.60.100:6443
networking:
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
apiServer:
  certSANs: [10.3.60.100, labs-k8s-m01]
  extraArgs:
    - name: audit-log-maxbackup
      value: "4"
    - name: audit-log-path
      value: /var/log/kubernetes/audit/audit.log
    - name: profiling
      value: "false"
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: systemd
maxPods: 120
`;

const kubelet = `apiVersion: kubelet.config.k8s.io/v1beta1
cgroupDriver: systemd
clusterDNS:
- 10.96.0.10
kind: KubeletConfiguration
maxPods: 110
rotateCertificates: true
`;

function apiserver(address: string, extra: string[] = []): string {
  return `apiVersion: v1
kind: Pod
metadata:
  annotations:
    kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint: ${address}:6443
  name: kube-apiserver
  namespace: kube-system
spec:
  containers:
  - command:
    - kube-apiserver
    - --advertise-address=${address}
    - --audit-log-maxbackup=3
    - --audit-log-path=/var/log/kubernetes/audit/audit.log
    - --etcd-servers=https://127.0.0.1:2379
${extra.map((e) => `    - ${e}\n`).join('')}    image: 10.3.60.1:5000/kube-apiserver:v1.34.12
    name: kube-apiserver
`;
}

function scheduler(extra: string[] = []): string {
  return `apiVersion: v1
kind: Pod
spec:
  containers:
  - command:
    - kube-scheduler
    - --bind-address=127.0.0.1
    - --leader-elect=true
${extra.map((e) => `    - ${e}\n`).join('')}    image: 10.3.60.1:5000/kube-scheduler:v1.34.12
    name: kube-scheduler
`;
}

const node = (host: string, address: string, o: { apiserver?: string[]; scheduler?: string[]; kubelet?: string } = {}): NodeFiles => ({
  host, address, controlPlane: true,
  manifests: { 'kube-apiserver': apiserver(address, o.apiserver), 'kube-scheduler': scheduler(o.scheduler), 'kube-controller-manager': scheduler().replace(/scheduler/g, 'controller-manager'), etcd: `spec:\n  containers:\n  - command:\n    - etcd\n    - --name=${host}\n    - --initial-cluster=${host}=https://${address}:2380\n    - --listen-client-urls=https://127.0.0.1:2379,https://${address}:2379\n    image: registry/etcd:3.6.5-0\n    name: etcd\n` },
  kubeletConfig: o.kubelet ?? kubelet,
});

test('workspace ↔ ConfigMaps: a changed, an added and a kubelet field, each on the workspace line that says it', () => {
  const f = compareWorkspaceCluster({ path: '/ws/kubeadm-config.yaml', text: workspace }, { clusterConfiguration, kubelet });
  const by = Object.fromEntries(f.map((x) => [x.field, x]));
  assert.deepEqual(Object.keys(by).sort(), ['apiServer.extraArgs.audit-log-maxbackup', 'apiServer.extraArgs.profiling', 'maxPods']);
  assert.equal(by['apiServer.extraArgs.audit-log-maxbackup']!.expected, '4');
  assert.equal(by['apiServer.extraArgs.audit-log-maxbackup']!.actual, '3');
  assert.deepEqual(by['apiServer.extraArgs.audit-log-maxbackup']!.location, { path: '/ws/kubeadm-config.yaml', line: 13, column: 7 });
  assert.equal(by['apiServer.extraArgs.profiling']!.location!.line, 17);
  assert.match(by['apiServer.extraArgs.profiling']!.message, /the workspace sets false; the kubeadm-config ConfigMap does not have it/);
  assert.equal(by.maxPods!.object, 'KubeletConfiguration');
  assert.equal(by.maxPods!.location!.line, 23);
  // "1.34.12" and v1.34.12 are the same version; certSANs in another order are the same set.
  assert.ok(!f.some((x) => x.field === 'kubernetesVersion' || x.field === 'apiServer.certSANs'));
});

test('workspace ↔ ConfigMaps: a flag only the ConfigMap has, and a certSAN only the workspace has', () => {
  const ws = workspace.replace(/    - name: profiling\n      value: "false"\n/, '').replace(/    - name: audit-log-path\n.*\n/, '').replace('value: "4"', 'value: "3"').replace('[10.3.60.100, labs-k8s-m01]', '[10.3.60.100, labs-k8s-m01, api.example.org]');
  const f = compareWorkspaceCluster({ path: '/ws/kubeadm-config.yaml', text: ws }, { clusterConfiguration });
  assert.deepEqual(f.map((x) => x.field).sort(), ['apiServer.certSANs', 'apiServer.extraArgs.audit-log-path']);
  assert.match(f.find((x) => x.field === 'apiServer.certSANs')!.message, /api\.example\.org only in the workspace/);
  assert.match(f.find((x) => x.field === 'apiServer.extraArgs.audit-log-path')!.message, /ConfigMap has .*; the workspace does not set it/);
});

test('ConfigMaps ↔ nodes: a scheduler flag added by hand on m02 is that node and that flag; the nodes\' own addresses are not drift', () => {
  const nodes = [node('m01', '10.3.60.51'), node('m02', '10.3.60.52', { scheduler: ['--v=3'] }), node('m03', '10.3.60.53')];
  const f = compareClusterNodes({ clusterConfiguration, kubelet }, nodes);
  assert.deepEqual(f.map((x) => [x.host, x.component, x.field, x.expected, x.actual]), [['m02', 'kube-scheduler', '--v', '(not set)', '3']]);
  assert.match(f[0]!.message, /m02 \/etc\/kubernetes\/manifests\/kube-scheduler\.yaml: --v is 3 here, not set on the other control-plane nodes/);
  // The diff's left side: m02's own file without the flag.
  const expected = expectedManifest(nodes[1]!.manifests['kube-scheduler']!, manifestFixes(f, nodes[1]!, 'kube-scheduler'));
  assert.ok(!manifestFlags(parseObject(expected)).has('v'));
  assert.equal(expected, scheduler());
});

test('ConfigMaps ↔ nodes: an extraArg the manifest misses on every node, a wrong image tag, a kubelet config edited on one node', () => {
  const cm = clusterConfiguration.replace('  - name: audit-log-path', '  - name: profiling\n    value: "false"\n  - name: audit-log-path');
  const nodes = [node('m01', '10.3.60.51'), node('m02', '10.3.60.52', { kubelet: kubelet.replace('maxPods: 110', 'maxPods: 250') }), node('m03', '10.3.60.53')];
  nodes[2]!.manifests['kube-apiserver'] = nodes[2]!.manifests['kube-apiserver']!.replace('v1.34.12', 'v1.34.11');
  const f = compareClusterNodes({ clusterConfiguration: cm, kubelet }, nodes);
  const lines = f.map((x) => `${x.host} ${x.component ?? 'kubelet'} ${x.field} ${x.expected} ${x.actual}`).sort();
  assert.deepEqual(lines, [
    'm01 kube-apiserver --profiling false (not set)',
    'm02 kube-apiserver --profiling false (not set)',
    'm02 kubelet maxPods 110 250',
    'm03 kube-apiserver --profiling false (not set)',
    'm03 kube-apiserver image v1.34.12 v1.34.11',
  ]);
  const fixed = expectedManifest(nodes[0]!.manifests['kube-apiserver']!, manifestFixes(f, nodes[0]!, 'kube-apiserver'));
  assert.equal(manifestFlags(parseObject(fixed)).get('profiling'), 'false');
  assert.equal(manifestFlags(parseObject(fixed)).get('advertise-address'), '10.3.60.51');
});

test('workspace ↔ ConfigMaps: a kube-proxy setting the kube-proxy ConfigMap does not have, on its workspace line', () => {
  const ws = `${workspace}---\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\nipvs:\n  strictARP: true\n`;
  const kubeProxy = 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nbindAddress: 0.0.0.0\nclusterCIDR: 10.244.0.0/16\nipvs:\n  strictARP: false\nkind: KubeProxyConfiguration\nmode: iptables\n';
  const f = compareWorkspaceCluster({ path: '/ws/kubeadm-config.yaml', text: ws }, { clusterConfiguration, kubelet, kubeProxy }).filter((x) => x.object === 'KubeProxyConfiguration');
  assert.deepEqual(f.map((x) => [x.field, x.expected, x.actual, x.location?.line]), [['mode', 'ipvs', 'iptables', 27], ['ipvs.strictARP', 'true', 'false', 29]]);
  assert.equal(f[0]!.message, 'KubeProxyConfiguration mode: the workspace says ipvs, the kube-proxy ConfigMap iptables');
  // the ConfigMap's own fields the workspace does not set (bindAddress, clusterCIDR) are not drift
  assert.ok(!f.some((x) => /bindAddress|clusterCIDR/.test(x.field)));
  // no kube-proxy ConfigMap read: nothing said about it
  assert.deepEqual(compareWorkspaceCluster({ path: '/ws/kubeadm-config.yaml', text: ws }, { clusterConfiguration, kubelet }).filter((x) => x.object === 'KubeProxyConfiguration'), []);
});

test('the issue\'s case: apiServerAuditLog: true in the inventory, a cluster whose ConfigMap and manifests have no audit flags — `drift` names each flag', async () => {
  const inventory = lab();
  inventory.cluster.kubernetesVersion = '1.34.12';
  inventory.cluster.apiServerAuditLog = true;
  // The reference cluster as a script that ignores the field brought it up: the generated SANs, no audit flags anywhere.
  const cm = clusterConfiguration
    .replace(/ {2}extraArgs:\n(?: {2}- name: .*\n {4}value: .*\n)+/, '')
    .replace('  - labs-k8s-m01\n', ['10.3.60.50', 'labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03', '10.3.60.51', '10.3.60.52', '10.3.60.53'].map((s) => `  - ${s}\n`).join(''));
  const noAudit = (a: string) => apiserver(a).replace(/ {4}- --audit-log-\S+\n/g, '');
  const ssh: SshTransport = {
    exec: async (host, command) => {
      const ok = (stdout: string) => ({ code: 0, signal: null, stdout, stderr: '' });
      if (command.text.includes('kw-cluster')) return ok(`\u001ekw-cluster\n${cm}\n\u001ekw-kubelet\n${kubelet}\n\u001ekw-proxy\n`);
      const h = inventory.hosts.find((x) => x.name === host)!;
      const files = h.roles.includes('control-plane') ? { ...node(host, h.address).manifests, 'kube-apiserver': noAudit(h.address) } : {};
      return ok([...Object.entries(files).map(([c, text]) => `\u001ekw-file /etc/kubernetes/manifests/${c}.yaml\n${text}\n`), `\u001ekw-file ${KUBELET_CONFIG}\n${kubelet}\n`].join(''));
    },
    close: async () => undefined,
  };
  const r = await readDrift({ inventory, inventoryDir: '/ws', readFile: () => Promise.reject(new Error('ENOENT')), ssh, become: () => undefined });
  assert.equal(r.workspace.generated, true);
  assert.deepEqual(r.unread, []);
  const audit = r.findings.filter((f) => /audit/.test(f.field));
  assert.deepEqual(audit.filter((f) => f.field.startsWith('apiServer.extraArgs.')).map((f) => [f.layer, f.field, f.actual]).sort(), [
    'audit-log-maxage', 'audit-log-maxbackup', 'audit-log-maxsize', 'audit-log-path', 'audit-policy-file',
  ].map((n) => ['workspace-cluster', `apiServer.extraArgs.${n}`, '(not set)']));
  assert.match(audit.find((f) => f.field === 'apiServer.extraArgs.audit-policy-file')!.message, /the workspace sets \/etc\/kubernetes\/audit\/policy\.yaml; the kubeadm-config ConfigMap does not have it/);
  // The ConfigMap and the nodes agree (neither has them): the disagreement is the workspace's alone.
  assert.deepEqual(r.findings.filter((f) => f.layer === 'cluster-node'), []);
  assert.match(renderDrift(r), /workspace kubeadm configuration: generated from the inventory[\s\S]*workspace ↔ cluster ConfigMaps: \d+ difference\(s\)\n[\s\S]*ClusterConfiguration apiServer\.extraArgs\.audit-log-path: the workspace sets \/var\/log\/kubernetes\/audit\/audit\.log/);
});
