import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lintKubeadm } from '../../../src/core/kubeadm/lint';
import { migrateToV1beta4 } from '../../../src/core/kubeadm/migrate';
import { parseStats, splitDocuments } from '../../../src/core/kubeadm/parse';
import { lintText, detectKind } from '../../../src/core/lint/registry';
import { applyEdits, EXAMPLE, exampleInventory, fixture } from './helpers';

const inventory = exampleInventory();
const example = readFileSync(join(EXAMPLE, 'kubeadm-config.yaml'), 'utf8');
const lint = (text: string, path = 'kubeadm-config.yaml', siblings: { path: string; text: string }[] = []) => lintKubeadm({ path, text }, { inventory, siblings });
const rules = (text: string, path?: string) => lint(text, path).map((f) => f.rule);

describe('kubeadm linter', () => {
  it('the example is clean and detected as kubeadm', () => {
    assert.deepEqual(lint(example), []);
    assert.equal(detectKind('kubeadm-config.yaml', example), 'kubeadm');
    assert.equal(detectKind('init.yaml', example), 'kubeadm');
  });

  it('re-lint reparses only the edited document, and positions stay right', () => {
    const text = `${example}---\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n`;
    lint(text);
    const before = parseStats.parsed;
    const edited = text.replace('kind: InitConfiguration', 'kind: InitConfiguration\nbogus: 1');
    const f = lint(edited);
    assert.equal(parseStats.parsed - before, 1);
    assert.deepEqual(f.map((x) => [x.rule, x.range.start.line]), [['kubeadm/unknown-field', edited.split('\n').indexOf('bogus: 1')]]);
    const later = lint(edited.replace('mode: ipvs', 'mdoe: ipvs'));
    assert.equal(parseStats.parsed - before, 2);
    assert.deepEqual(later.map((x) => x.rule), ['kubeadm/unknown-field', 'kubeadm/unknown-field']);
    assert.match(later[1]!.message, /did you mean "mode"/);
  });

  it('splits documents at --- lines only', () => {
    const chunks = splitDocuments('a: 1\n---\nb: 2\n--- # c\nc: |\n  ---x\n');
    assert.equal(chunks.length, 3);
    assert.equal(chunks[1]!.text, 'b: 2\n');
  });

  it('unknown field with did-you-mean and a rename fix at the right line', () => {
    const bad = example.replace('clusterName:', 'clustrName:');
    const f = lint(bad).find((x) => x.rule === 'kubeadm/unknown-field')!;
    assert.match(f.message, /did you mean "clusterName"/);
    assert.equal(f.range.start.line, bad.split('\n').findIndex((l) => l.startsWith('clustrName')));
    assert.deepEqual(lint(applyEdits(bad, f.fixes![0]!.edits)), []);
  });

  it('unknown apiVersion and kind', () => {
    assert.ok(rules(example.replace('kubeadm.k8s.io/v1beta3\nkind: Init', 'kubeadm.k8s.io/v1beta2\nkind: Init')).includes('kubeadm/unknown-api-version'));
    const f = lint(example.replace('kind: ClusterConfiguration', 'kind: ClusterConfig')).find((x) => x.rule === 'kubeadm/unknown-kind')!;
    assert.match(f.message, /ClusterConfiguration/);
    assert.ok(rules(example.replace('kubelet.config.k8s.io/v1beta1', 'kubelet.config.k8s.io/v1beta2')).includes('kubeadm/unknown-api-version'));
  });

  it('type errors: an unquoted version is a number', () => {
    const f = lint(example.replace('kubernetesVersion: v1.30.14', 'kubernetesVersion: 1.30')).filter((x) => x.rule === 'kubeadm/type');
    assert.equal(f.length, 1);
    assert.match(f[0]!.message, /Quote it/);
  });

  it('controlPlaneEndpoint must be the VIP, not a node', () => {
    const bad = example.replace('controlPlaneEndpoint: 10.3.60.100:6443', 'controlPlaneEndpoint: 10.3.60.51:6443');
    const f = lint(bad).find((x) => x.rule === 'kubeadm/control-plane-endpoint')!;
    assert.match(f.message, /labs-k8s-m01's own address/);
    assert.deepEqual(lint(applyEdits(bad, f.fixes![0]!.edits)), []);
    const missing = example.replace('controlPlaneEndpoint: 10.3.60.100:6443\n', '');
    const g = lint(missing).find((x) => x.rule === 'kubeadm/control-plane-endpoint')!;
    assert.deepEqual(lint(applyEdits(missing, g.fixes![0]!.edits)), []);
  });

  it('certSANs must cover VIP, balancer and control planes; the fix adds them (block and flow lists)', () => {
    const bad = example.replace('    - 10.3.60.100\n', '').replace('    - labs-k8s-m03\n', '');
    const f = lint(bad).find((x) => x.rule === 'kubeadm/cert-sans')!;
    assert.equal(f.severity, 'error');
    assert.match(f.message, /10\.3\.60\.100 \(the VIP\), labs-k8s-m03/);
    assert.deepEqual(lint(applyEdits(bad, f.fixes![0]!.edits)), []);
    const noSans = example.replace(/apiServer:\n(    .*\n|  certSANs:\n)+/, '');
    const g = lint(noSans).find((x) => x.rule === 'kubeadm/cert-sans')!;
    assert.deepEqual(lint(applyEdits(noSans, g.fixes![0]!.edits)), []);
    const flow = fixture('kubeadm', 'v1beta3-ha.yaml').replace('kubernetesVersion: v1.31.2', 'kubernetesVersion: v1.30.14').replace(', labs-k8s-m02', '');
    const h = lintKubeadm({ path: 'kubeadm.yaml', text: flow }, { inventory }).find((x) => x.rule === 'kubeadm/cert-sans')!;
    assert.ok(!lintKubeadm({ path: 'kubeadm.yaml', text: applyEdits(flow, h.fixes![0]!.edits) }, { inventory }).some((x) => x.rule === 'kubeadm/cert-sans'));
  });

  it('podSubnet follows flannel (default or the manifest) and networks must not overlap', () => {
    const bad = example.replace('podSubnet: 10.244.0.0/16', 'podSubnet: 10.200.0.0/16');
    assert.equal(lint(bad).find((x) => x.rule === 'kubeadm/pod-subnet-cni')!.severity, 'warning');
    const manifest = fixture('kubeadm', 'kube-flannel.yml');
    const withManifest = lint(bad, 'kubeadm-config.yaml', [{ path: 'kube-flannel.yml', text: manifest }]);
    assert.equal(withManifest.find((x) => x.rule === 'kubeadm/pod-subnet-cni')!.severity, 'error');
    const changed = manifest.replace('10.244.0.0/16', '10.200.0.0/16');
    assert.ok(!lint(bad, 'kubeadm-config.yaml', [{ path: 'kube-flannel.yml', text: changed }]).some((x) => x.rule === 'kubeadm/pod-subnet-cni'));
    assert.ok(rules(example.replace('podSubnet: 10.244.0.0/16', 'podSubnet: 10.96.0.0/16')).includes('kubeadm/subnet-overlap'));
    assert.ok(rules(example.replace('serviceSubnet: 10.96.0.0/12', 'serviceSubnet: 10.0.0.0/8')).includes('kubeadm/subnet-overlap'));
    assert.deepEqual(lint(example.replace('podSubnet: 10.244.0.0/16', 'podSubnet: 10.244.0.0/16,fd00:10:244::/56')), []);
    const svc = example.replace('serviceSubnet: 10.96.0.0/12', 'serviceSubnet: 10.112.0.0/12');
    const s = lint(svc).find((x) => x.rule === 'kubeadm/service-subnet')!;
    assert.deepEqual(lint(applyEdits(svc, s.fixes![0]!.edits)), []);
    const missing = example.replace('  podSubnet: 10.244.0.0/16\n', '');
    const f = lint(missing).find((x) => x.rule === 'kubeadm/pod-subnet-cni')!;
    assert.deepEqual(lint(applyEdits(missing, f.fixes![0]!.edits)), []);
  });

  it('kubernetesVersion agrees with the inventory; cgroupDriver systemd; kube-proxy clusterCIDR', () => {
    assert.ok(rules(example.replace('v1.30.14', 'v1.30.9')).includes('kubeadm/kubernetes-version'));
    const bad = example.replace('cgroupDriver: systemd', 'cgroupDriver: cgroupfs');
    const f = lint(bad).find((x) => x.rule === 'kubeadm/cgroup-driver')!;
    assert.deepEqual(lint(applyEdits(bad, f.fixes![0]!.edits)), []);
    const proxy = `${example}---\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: 10.245.0.0/16\n`;
    assert.ok(rules(proxy).includes('kubeadm/kube-proxy-cluster-cidr'));
  });

  it('criSocket must be containerd\'s; without inventory or manifest the CNI is not guessed', () => {
    const bad = example.replace('unix:///run/containerd/containerd.sock', 'unix:///var/run/cri-dockerd.sock');
    const f = lint(bad).find((x) => x.rule === 'kubeadm/cri-socket')!;
    assert.deepEqual(lint(applyEdits(bad, f.fixes![0]!.edits)), []);
    const noPod = example.replace('  podSubnet: 10.244.0.0/16\n', '');
    assert.deepEqual(lintKubeadm({ path: 'kubeadm-config.yaml', text: noPod }, {}), []);
  });

  it('advertiseAddress is the host\'s own', () => {
    assert.ok(lint(example.replace('advertiseAddress: 10.3.60.51', 'advertiseAddress: 10.3.60.100')).some((x) => x.rule === 'kubeadm/advertise-address' && /VIP/.test(x.message)));
    const bad = example.replace('advertiseAddress: 10.3.60.51', 'advertiseAddress: 10.3.60.52');
    const f = lint(bad).find((x) => x.rule === 'kubeadm/advertise-address')!;
    assert.match(f.message, /labs-k8s-m02's address/);
    assert.deepEqual(lint(applyEdits(bad, f.fixes![0]!.edits)), []);
  });

  const join = (extra: string, name = 'labs-k8s-m02') => `apiVersion: kubeadm.k8s.io/v1beta3
kind: JoinConfiguration
nodeRegistration:
  name: ${name}
discovery:
  bootstrapToken:
    apiServerEndpoint: 10.3.60.100:6443
    token: abcdef.0123456789abcdef
    caCertHashes:
      - sha256:${'a'.repeat(64)}
${extra}`;

  it('joins: token and CA hash formats, certificate key, role, endpoint — without echoing secrets', () => {
    const cp = join(`controlPlane:\n  localAPIEndpoint:\n    advertiseAddress: 10.3.60.52\n  certificateKey: ${'b'.repeat(64)}\n`);
    assert.deepEqual(lint(cp, 'kubeadm-join.yaml'), []);
    const noKey = lint(join('controlPlane:\n  localAPIEndpoint:\n    advertiseAddress: 10.3.60.52\n'), 'join.yaml');
    const f = noKey.find((x) => x.rule === 'kubeadm/join-certificate-key')!;
    assert.match(f.message, /--certificate-key/);
    const secret = 'Zz9secretValue';
    const bad = lint(join(`controlPlane:\n  certificateKey: ${secret}\n`).replace('abcdef.0123456789abcdef', `ABC.${secret}`).replace(`sha256:${'a'.repeat(64)}`, `sha256:${secret}`), 'join.yaml');
    for (const r of ['kubeadm/token-format', 'kubeadm/certificate-key-format', 'kubeadm/ca-cert-hash-format']) assert.ok(bad.some((x) => x.rule === r), r);
    for (const x of bad) assert.ok(!x.message.includes(secret) && !x.message.includes('ABC.'), x.message);
    assert.ok(rules(join('', 'labs-k8s-m02'), 'join.yaml').includes('kubeadm/node-role'));
    assert.ok(rules(join('controlPlane: {}\n', 'labs-k8s-w01'), 'join.yaml').includes('kubeadm/node-role'));
    assert.ok(rules(join('', 'labs-k8s-w01').replace('10.3.60.100:6443', '10.3.60.51:6443'), 'join.yaml').includes('kubeadm/join-endpoint'));
    assert.ok(rules(join('', 'labs-k8s-w01').replace(/    caCertHashes:\n.*\n/, ''), 'join.yaml').includes('kubeadm/ca-cert-hash-missing'));
  });

  it('v1beta3 for ≥ 1.31 is deprecated and the migration fix gives a clean v1beta4 file', () => {
    const text = fixture('kubeadm', 'v1beta3-ha.yaml');
    const inv = { ...inventory, cluster: { ...inventory.cluster, kubernetesVersion: '1.31.2' } };
    const found = lintKubeadm({ path: 'kubeadm.yaml', text }, { inventory: inv });
    const f = found.find((x) => x.rule === 'kubeadm/api-version-deprecated')!;
    assert.ok(f.fixes?.length);
    const migrated = applyEdits(text, f.fixes![0]!.edits);
    assert.deepEqual(lintKubeadm({ path: 'kubeadm.yaml', text: migrated }, { inventory: inv }), []);
    assert.match(migrated, /- name: audit-log-maxage\n\s+value: "30"/);
    assert.match(migrated, /controlPlaneComponentHealthCheck: 4m0s/);
    assert.match(migrated, /- name: node-ip/);
    assert.equal(migrateToV1beta4(migrated), migrated);
  });

  it('a document the migration cannot write back (an alias without its anchor) keeps its text, and the file is still linted', () => {
    const text = fixture('kubeadm', 'v1beta3-ha.yaml').replace('kind: InitConfiguration', 'kind: *x');
    const inv = { ...inventory, cluster: { ...inventory.cluster, kubernetesVersion: '1.31.2' } };
    const found = lintKubeadm({ path: 'kubeadm.yaml', text }, { inventory: inv });
    assert.ok(found.some((x) => x.rule === 'kubeadm/api-version-deprecated'));
    const migrated = migrateToV1beta4(text);
    assert.ok(migrated.includes('apiVersion: kubeadm.k8s.io/v1beta3\nkind: *x\n'), 'the unwritable document is left as it was');
    assert.match(migrated, /apiVersion: kubeadm.k8s.io\/v1beta4\nkind: ClusterConfiguration/);
  });

  it('v1beta4 leftovers: extraArgs maps and moved timeouts', () => {
    const text = fixture('kubeadm', 'v1beta3-ha.yaml').replaceAll('v1beta3', 'v1beta4');
    const inv = { ...inventory, cluster: { ...inventory.cluster, kubernetesVersion: '1.31.2' } };
    const found = lintKubeadm({ path: 'kubeadm.yaml', text }, { inventory: inv });
    assert.equal(found.filter((x) => x.rule === 'kubeadm/v1beta4-extra-args').length, 2);
    assert.equal(found.filter((x) => x.rule === 'kubeadm/v1beta4-moved-field').length, 1);
    const fixed = applyEdits(text, found[0]!.fixes!.at(-1)!.edits);
    assert.deepEqual(lintKubeadm({ path: 'kubeadm.yaml', text: fixed }, { inventory: inv }), []);
    assert.ok(rules(text.replace('v1.31.2', 'v1.30.14')).includes('kubeadm/api-version-unsupported'));
  });

  it('duplicate kinds, mixed versions, init and join together', () => {
    const dup = `${example}---\napiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n`;
    assert.ok(rules(dup).includes('kubeadm/duplicate-kind'));
    assert.ok(rules(`${example}---\n${join('').replace('v1beta3', 'v1beta4')}`).includes('kubeadm/mixed-api-versions'));
    assert.ok(rules(`${example}---\n${join('', 'labs-k8s-w01')}`).includes('kubeadm/init-and-join'));
  });

  it('lintText through the registry gives the same findings as lintKubeadm', () => {
    const bad = example.replace('cgroupDriver: systemd', 'cgroupDriver: cgroupfs');
    assert.deepEqual(lintText({ path: 'kubeadm-config.yaml', text: bad }, { inventory }).map((f) => f.rule), ['kubeadm/cgroup-driver']);
  });
});
