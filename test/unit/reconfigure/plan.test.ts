/**
 * The reconfigure below SSH: what the workspace changes against the ConfigMap (extraArgs set and unset, certSANs), the
 * differences it refuses (a version is an upgrade), the ConfigMap's new document (every other field kubeadm wrote
 * kept), and the plan: the ConfigMap first, then one node at a time — guard, gate, out of both balancers, kubeadm's
 * phase, the running pod's flags, back in, etcd and leases. The lab reconfigures its cluster with it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseObject, extraArgsOf, getIn } from '../../../src/core/drift/kubeadmConfig';
import { reconfiguration } from '../../../src/core/reconfigure/changes';
import { buildReconfigurePlan, manifestsHave } from '../../../src/core/reconfigure/plan';
import type { Inventory } from '../../../src/core/inventory/types';
import { tempDir } from '../../tempDir';

const cluster = `apiServer:
  certSANs:
  - 10.3.60.100
  extraArgs:
  - name: audit-log-maxbackup
    value: "3"
  - name: enable-admission-plugins
    value: NodeRestriction
apiVersion: kubeadm.k8s.io/v1beta4
certificatesDir: /etc/kubernetes/pki
clusterName: labs-k8s
controlPlaneEndpoint: 10.3.60.100:6443
controllerManager: {}
encryptionAlgorithm: RSA-2048
kind: ClusterConfiguration
kubernetesVersion: v1.34.12
networking:
  podSubnet: 10.244.0.0/16
scheduler: {}
`;

const ws = (apiServer: string, extra = '') => ({ path: '/ws/kubeadm-config.yaml', text: `apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.34.12\n${extra}apiServer:\n${apiServer}` });

const inv: Inventory = {
  cluster: { name: 'labs-k8s', kubernetesVersion: '1.34.12', controlPlaneEndpoint: '10.3.60.100:6443', podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12', cni: 'flannel' },
  ssh: {},
  hosts: [
    { name: 'lb1', address: '10.3.60.50', roles: ['loadbalancer'] }, { name: 'lb2', address: '10.3.60.56', roles: ['loadbalancer'] },
    { name: 'm01', address: '10.3.60.51', roles: ['control-plane'] }, { name: 'm02', address: '10.3.60.52', roles: ['control-plane'] }, { name: 'm03', address: '10.3.60.53', roles: ['control-plane'] },
  ],
};

test('changes: a changed flag, a new one, one dropped; the ConfigMap\'s new document keeps every other field', () => {
  const c = reconfiguration(ws('  certSANs: [10.3.60.100]\n  extraArgs:\n  - name: audit-log-maxbackup\n    value: "4"\n  - name: profiling\n    value: "false"\n'), cluster);
  assert.deepEqual(c.refusals, []);
  assert.equal(c.changes.length, 1);
  assert.deepEqual([...c.changes[0]!.set], [['audit-log-maxbackup', '4'], ['profiling', 'false']]);
  assert.deepEqual(c.changes[0]!.unset, ['enable-admission-plugins']);
  assert.equal(c.certSans, undefined, 'the same certSANs: no change');
  const desired = parseObject(c.desired)!;
  assert.deepEqual([...extraArgsOf(getIn(desired, ['apiServer']))!], [['audit-log-maxbackup', '4'], ['profiling', 'false']]);
  assert.equal(desired.encryptionAlgorithm, 'RSA-2048');
  assert.equal(desired.certificatesDir, '/etc/kubernetes/pki');
  assert.ok(Array.isArray(getIn(desired, ['apiServer', 'extraArgs'])), 'v1beta4: extraArgs stays a list of name/value pairs');
});

test('changes: a version or an endpoint is refused with what to do instead; certSANs are a change', () => {
  const c = reconfiguration({ path: '/ws/k.yaml', text: ws('  certSANs: [10.3.60.100, api.example.org]\n  extraArgs:\n  - name: audit-log-maxbackup\n    value: "3"\n  - name: enable-admission-plugins\n    value: NodeRestriction\n', 'controlPlaneEndpoint: 10.3.60.200:6443\n').text.replace('kubernetesVersion: v1.34.12', 'kubernetesVersion: v1.35.0') }, cluster);
  assert.equal(c.refusals.length, 2);
  assert.match(c.refusals.join('\n'), /kubernetesVersion: the workspace says v1\.35\.0, the cluster v1\.34\.12: a version change is an upgrade \(kubeadm-workbench upgrade --to VERSION\)/);
  assert.match(c.refusals.join('\n'), /controlPlaneEndpoint: .*fixes it when the cluster is created/);
  assert.deepEqual(c.certSans, ['10.3.60.100', 'api.example.org']);
});

test('plan: the ConfigMap, then each node: guard, gate, out of both balancers, kubeadm phase, running, back in, etcd, leases', () => {
  const c = reconfiguration(ws('  extraArgs:\n  - name: audit-log-maxbackup\n    value: "4"\n  - name: enable-admission-plugins\n    value: NodeRestriction\n'), cluster);
  const plan = buildReconfigurePlan({ inventory: inv, change: c, hooks: { guard: async () => undefined, moveLeader: async () => undefined } });
  const ids = plan.phases[0]!.steps.map((s) => s.id);
  assert.equal(ids[0], 'reconfigure/m01/configmap');
  assert.deepEqual(ids.filter((id) => /m02/.test(id)), [
    'reconfigure/m02/guard', 'reconfigure/m02/at-target', 'reconfigure/lb1/haproxy-others-up-m02', 'reconfigure/lb2/haproxy-others-up-m02', 'reconfigure/lb1/haproxy-maint-m02', 'reconfigure/lb2/haproxy-maint-m02',
    'reconfigure/m02/manifests', 'reconfigure/m02/running', 'reconfigure/lb1/haproxy-ready-m02', 'reconfigure/lb2/haproxy-ready-m02', 'reconfigure/m01/etcd-after-m02', 'reconfigure/m01/leases-after-m02',
  ]);
  const byId = Object.fromEntries(plan.phases[0]!.steps.map((s) => [s.id, s]));
  assert.match((byId['reconfigure/m02/manifests']!.run as { display: string }).display, /& watcher=\$!; kubeadm upgrade node phase control-plane --certificate-renewal=false --etcd-upgrade=false; r=\$\?; kill \$watcher/);
  assert.match((byId['reconfigure/m01/configmap']!.run as { display: string }).display, /kubeadm config validate --config .* && kubectl .* patch cm kubeadm-config --type merge --patch-file/);
  assert.match(byId['reconfigure/m02/running']!.verify!.display, /get pod kube-apiserver-m02 .*'"--audit-log-maxbackup=4"'/);
  assert.match(plan.phases[0]!.title, /kube-apiserver: --audit-log-maxbackup=4/);
  assert.ok(!ids.some((id) => /move-leader|certs/.test(id)), 'no etcd or certSANs change: neither step');
});

test('the manifest check on a real file: the new flag with its value, the dropped one gone', () => {
  const c = reconfiguration(ws('  extraArgs:\n  - name: audit-log-maxbackup\n    value: "4"\n'), cluster);
  const root = tempDir('kw-reconf-');
  const manifest = (flags: string[]) => `spec:\n  containers:\n  - command:\n    - kube-apiserver\n${flags.map((f) => `    - ${f}\n`).join('')}`;
  const check = (flags: string[]) => {
    writeFileSync(join(root, 'kube-apiserver.yaml'), manifest(flags));
    try {
      execFileSync('sh', ['-c', manifestsHave(c).text.split('/etc/kubernetes/manifests').join(root)]);
      return true;
    } catch {
      return false;
    }
  };
  assert.equal(check(['--audit-log-maxbackup=4']), true);
  assert.equal(check(['--audit-log-maxbackup=3']), false);
  assert.equal(check(['--audit-log-maxbackup=4', '--enable-admission-plugins=NodeRestriction']), false, 'the dropped flag is still there');
  assert.equal(check(['--audit-log-maxbackup=40']), false);
});
