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
import { buildReconfigurePlan, certCovers, manifestsHave } from '../../../src/core/reconfigure/plan';
import { PkiFixture } from '../certs/pkiFixture';
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

/** The order of a plan's step ids for one node (its own steps and the balancer steps about it). */
const stepsOf = (plan: ReturnType<typeof buildReconfigurePlan>, host: string) =>
  plan.phases[0]!.steps.map((s) => s.id).filter((id) => id.endsWith(`-${host}`) || (id.startsWith(`reconfigure/${host}/`) && !/\/configmap$|-after-/.test(id)));
const noHooks = { guard: async () => undefined, moveLeader: async () => undefined };

test('plan: a certSAN added — per node, out of both balancers, apiserver.crt re-issued (certCovers), manifests, served (servedCovers), back in; one node after the other', () => {
  const c = reconfiguration(ws('  certSANs: [10.3.60.100, api.example.org]\n  extraArgs:\n  - name: audit-log-maxbackup\n    value: "3"\n  - name: enable-admission-plugins\n    value: NodeRestriction\n'), cluster);
  assert.deepEqual(c.changes, []);
  assert.deepEqual(c.certSans, ['10.3.60.100', 'api.example.org']);
  const plan = buildReconfigurePlan({ inventory: inv, change: c, hooks: noHooks });
  assert.equal(plan.phases[0]!.order, 'serial');
  assert.match(plan.phases[0]!.title, /certSANs 10\.3\.60\.100, api\.example\.org/);
  for (const h of ['m01', 'm02', 'm03']) {
    assert.deepEqual(stepsOf(plan, h), [
      `reconfigure/${h}/guard`, `reconfigure/${h}/at-target`,
      `reconfigure/lb1/haproxy-others-up-${h}`, `reconfigure/lb2/haproxy-others-up-${h}`, `reconfigure/lb1/haproxy-maint-${h}`, `reconfigure/lb2/haproxy-maint-${h}`,
      `reconfigure/${h}/certs`, `reconfigure/${h}/manifests`, `reconfigure/${h}/apiserver-certificate`, `reconfigure/${h}/running`,
      `reconfigure/lb1/haproxy-ready-${h}`, `reconfigure/lb2/haproxy-ready-${h}`, `reconfigure/m01/etcd-after-${h}`, `reconfigure/m01/leases-after-${h}`,
    ]);
  }
  // One node at a time: every step about m01 comes before the first about m02, m02's before m03's.
  const ids = plan.phases[0]!.steps.map((s) => s.id);
  const last = (h: string) => Math.max(...stepsOf(plan, h).map((id) => ids.indexOf(id)));
  const first = (h: string) => Math.min(...stepsOf(plan, h).map((id) => ids.indexOf(id)));
  assert.ok(last('m01') < first('m02') && last('m02') < first('m03'));
  const byId = Object.fromEntries(plan.phases[0]!.steps.map((s) => [s.id, s]));
  const certs = byId['reconfigure/m02/certs']!;
  assert.match((certs.run as { display: string }).display, /mv \/etc\/kubernetes\/pki\/apiserver\.crt \/etc\/kubernetes\/pki\/apiserver\.key "\$d"\/ && \{ kubeadm init phase certs apiserver --config \/etc\/kubernetes\/tmp\/kubeadm-workbench-node-config\.yaml \|\|/);
  assert.match(certs.check!.display, /cat \/etc\/kubernetes\/pki\/apiserver\.crt \| openssl x509 -noout -ext subjectAltName.*10\.3\.60\.100.*api\.example\.org/);
  // m02's own address and name for kubeadm's certs phase, the cluster's new configuration after it
  assert.match(certs.files![0]!.content as string, /kind: InitConfiguration\nlocalAPIEndpoint:\n {2}advertiseAddress: 10\.3\.60\.52\n[\s\S]*name: m02\n---\n[\s\S]*- api\.example\.org/);
  const served = byId['reconfigure/m02/apiserver-certificate']!;
  assert.match(served.check!.display, /openssl s_client -connect 127\.0\.0\.1:6443.*api\.example\.org/);
  assert.equal(served.verify!.display, served.check!.display);
  assert.match((byId['reconfigure/m02/at-target']!.run as { display: string }).display, /openssl s_client -connect 127\.0\.0\.1:6443/, 'at target only when the served certificate has the names');
  assert.match(byId['reconfigure/m02/manifests']!.title, /the API server's certificate only/);
});

test('the certSANs check on real certificates: the one kubeadm issued covers the VIP, not a name it was never given', () => {
  const pki = new PkiFixture({ address: '10.3.60.51', endpointHost: '10.3.60.100' });
  const run = (sans: string[]) => {
    try {
      execFileSync('sh', ['-c', certCovers(sans).text.split('/etc/kubernetes/pki').join(pki.path('/etc/kubernetes/pki'))], { stdio: 'pipe' });
      return true;
    } catch {
      return false;
    }
  };
  assert.equal(run(['10.3.60.100', 'kubernetes.default', '10.3.60.51']), true);
  assert.equal(run(['10.3.60.100', 'api.example.org']), false);
  assert.equal(run(['10.3.60.10']), false, 'a prefix of an address is not the address');
  pki.leaf('/etc/kubernetes/pki/apiserver', 'ca', '/CN=kube-apiserver', 365, 'serverAuth', ['DNS:kubernetes', 'IP:10.3.60.100', 'DNS:api.example.org']);
  assert.equal(run(['10.3.60.100', 'api.example.org']), true);
});

test('plan: an etcd extraArg — each node hands over its leadership (when it leads) before kubeadm restarts its etcd with the new flag', async () => {
  const c = reconfiguration(ws('  certSANs: [10.3.60.100]\n  extraArgs:\n  - name: audit-log-maxbackup\n    value: "3"\n  - name: enable-admission-plugins\n    value: NodeRestriction\n', 'etcd:\n  local:\n    extraArgs:\n    - name: quota-backend-bytes\n      value: "4294967296"\n'), cluster);
  assert.deepEqual(c.refusals, []);
  assert.deepEqual(c.changes.map((x) => [x.component, [...x.set]]), [['etcd', [['quota-backend-bytes', '4294967296']]]]);
  const moved: [string, readonly string[]][] = [];
  const plan = buildReconfigurePlan({ inventory: inv, change: c, hooks: { guard: async () => undefined, moveLeader: async (h, upcoming) => void moved.push([h, upcoming]) } });
  const byId = Object.fromEntries(plan.phases[0]!.steps.map((s) => [s.id, s]));
  for (const h of ['m01', 'm02', 'm03']) {
    const own = stepsOf(plan, h);
    assert.equal(own.indexOf(`reconfigure/${h}/move-leader`), own.indexOf(`reconfigure/lb2/haproxy-maint-${h}`) + 1, `${h}: out of the balancers, then the leadership`);
    assert.equal(own.indexOf(`reconfigure/${h}/manifests`), own.indexOf(`reconfigure/${h}/move-leader`) + 1, `${h}: the leadership handed over just before its etcd restarts`);
    assert.match(byId[`reconfigure/${h}/move-leader`]!.check!.display, /etcdctl/, 'skipped when the member follows');
    await byId[`reconfigure/${h}/move-leader`]!.action!({ get: () => undefined });
  }
  // The leadership goes to a member not yet restarted: the later nodes are named as upcoming.
  assert.deepEqual(moved, [['m01', ['m02', 'm03']], ['m02', ['m03']], ['m03', []]]);
  assert.match((byId['reconfigure/m01/manifests']!.run as { display: string }).display, /kubeadm upgrade node phase control-plane --certificate-renewal=false --etcd-upgrade=true/);
  assert.match(byId['reconfigure/m01/running']!.verify!.display, /get pod etcd-m01 .*'"--quota-backend-bytes=4294967296"'/);
  assert.ok(!plan.phases[0]!.steps.some((s) => s.id.endsWith('/certs')));
});
