/**
 * Completion and field docs from the shipped schemas, on the example files and half-typed edits of them: the fields
 * a mapping does not have yet, enumeration values (roles, cni, vrrp state, apiVersion, kind), v1beta3 and v1beta4
 * told apart, and hovers with the schema's description. The last `|` marks the cursor.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { completionsAt, hoverAt, type DocsKind } from '../../../src/core/yaml/fieldDocs';

const read = (f: string) => readFileSync(join(__dirname, '../../../examples/labs-k8s', f), 'utf8');
const inventory = read('inventory.yaml');
const kubeadm = read('kubeadm-config.yaml');

function complete(kind: DocsKind, marked: string) {
  const offset = marked.lastIndexOf('|');
  return completionsAt(kind, marked.slice(0, offset) + marked.slice(offset + 1), offset);
}
const labels = (kind: DocsKind, marked: string) => complete(kind, marked)?.items.map((i) => i.label) ?? [];

test('inventory.yaml: the fields a mapping lacks, with their type and description; nested and root', () => {
  const cluster = inventory.replace('  cni: flannel\n', '  cni: flannel\n  |\n');
  const items = complete('inventory', cluster)!.items;
  const names = items.map((i) => i.label);
  for (const have of ['name', 'kubernetesVersion', 'controlPlaneEndpoint', 'podSubnet', 'serviceSubnet', 'cni']) assert.ok(!names.includes(have), `${have} is already there`);
  for (const want of ['imageRepository', 'registryMirrors', 'packages', 'apiServerAuditLog', 'kubeadmExtraConfig']) assert.ok(names.includes(want), want);
  const audit = items.find((i) => i.label === 'apiServerAuditLog')!;
  assert.equal(audit.detail, 'boolean');
  assert.equal(audit.insertText, 'apiServerAuditLog: ');
  assert.match(audit.documentation ?? '', /./);
  assert.equal(items.find((i) => i.label === 'packages')!.insertText, 'packages:', 'a mapping: its fields go on the next lines');
  assert.deepEqual(labels('inventory', '|'), ['cluster', 'ssh', 'hosts']);
  assert.equal(complete('inventory', '|')!.items.find((i) => i.label === 'cluster')!.required, true);
});

test('inventory.yaml: values of the enumerations — cni, roles, vrrp state — in block and flow style', () => {
  assert.deepEqual(labels('inventory', inventory.replace('cni: flannel', 'cni: |')), ['flannel', 'calico']);
  assert.deepEqual(labels('inventory', 'hosts:\n  - { name: w3, address: 10.3.60.56, roles: [|] }\n'), ['loadbalancer', 'control-plane', 'worker', 'etcd']);
  assert.deepEqual(labels('inventory', 'hosts:\n  - name: w3\n    roles:\n      - |\n'), ['loadbalancer', 'control-plane', 'worker', 'etcd']);
  assert.deepEqual(labels('inventory', inventory.replace('state: MASTER', 'state: |')), ['MASTER', 'BACKUP']);
  const value = complete('inventory', inventory.replace('state: MASTER', 'state: MA|'))!;
  assert.equal(inventory.replace('state: MASTER', 'state: MA').slice(value.replaceStart).startsWith('MA,'), true, 'replaces the typed word');
});

test("inventory.yaml: a host's fields in the example's flow style, without those it has", () => {
  const marked = inventory.replace('{ name: labs-k8s-w02, address: 10.3.60.55, roles: [worker] }', '{ name: labs-k8s-w02, address: 10.3.60.55, roles: [worker], | }');
  assert.deepEqual(labels('inventory', marked), ['ssh', 'vrrp', 'labels']);
  assert.equal(complete('inventory', marked)!.items[0]!.insertText, 'ssh: ', 'in flow style a mapping is typed inline');
  assert.deepEqual(labels('inventory', 'hosts:\n  - |\n'), ['name', 'address', 'roles', 'ssh', 'vrrp', 'labels']);
});

test('kubeadm: apiVersion and kind values, then the kind\'s fields; v1beta3 and v1beta4 differ', () => {
  assert.deepEqual(labels('kubeadm', 'apiVersion: |\n'), ['kubeadm.k8s.io/v1beta3', 'kubeadm.k8s.io/v1beta4', 'kubelet.config.k8s.io/v1beta1', 'kubeproxy.config.k8s.io/v1alpha1']);
  assert.deepEqual(labels('kubeadm', 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: |\n'), ['InitConfiguration', 'ClusterConfiguration', 'JoinConfiguration']);
  assert.deepEqual(labels('kubeadm', 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: |\n'), ['InitConfiguration', 'ClusterConfiguration', 'JoinConfiguration', 'ResetConfiguration', 'UpgradeConfiguration']);
  const v3 = labels('kubeadm', 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\n|\n');
  const v4 = labels('kubeadm', 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n|\n');
  for (const f of ['networking', 'controlPlaneEndpoint', 'apiServer', 'etcd']) assert.ok(v3.includes(f) && v4.includes(f), f);
  assert.ok(!v3.includes('apiVersion') && !v3.includes('kind'), 'already there');
  assert.ok(v4.includes('encryptionAlgorithm') && !v3.includes('encryptionAlgorithm'), 'a v1beta4 field is offered for v1beta4 only');
  // Nested, in the second document of the example, without the fields it has.
  assert.equal(complete('kubeadm', kubeadm.replace('  dnsDomain: cluster.local\n', '  dnsDomain: cluster.local\n  |\n')), undefined, 'networking has all its three fields');
  const apiServer = labels('kubeadm', kubeadm.replace('apiServer:\n', 'apiServer:\n  |\n'));
  assert.ok(apiServer.includes('extraArgs') && !apiServer.includes('certSANs'), apiServer.join(', '));
  // The KubeletConfiguration document of the same file.
  assert.ok(labels('kubeadm', `${kubeadm}|`).includes('maxPods'));
});

test('hovers: the description, type, values and default of the field under the cursor (key or value)', () => {
  const hover = (kind: DocsKind, text: string, word: string) => hoverAt(kind, text, text.indexOf(word) + 1);
  const cni = hover('inventory', inventory, 'cni:')!;
  assert.match(cni.markdown, /^\*\*cluster\.cni\*\* — enum\n\nThe network plugin applied after kubeadm init\.\n\nValues: `flannel`, `calico`\n\nDefault: `"flannel"`$/);
  assert.equal(inventory.slice(cni.start, cni.end), 'cni');
  assert.match(hover('inventory', inventory, 'MASTER')!.markdown, /^\*\*hosts\\\[0\\\]\.vrrp\.state\*\* — enum\n\nInitial VRRP state: exactly one MASTER\.\n\nValues: `MASTER`, `BACKUP`$/);
  assert.match(hover('inventory', inventory, 'identityFile')!.markdown, /^\*\*ssh\.identityFile\*\* — string/);
  assert.match(hover('kubeadm', kubeadm, 'cgroupDriver')!.markdown, /^\*\*cgroupDriver\*\* — string\n\nCgroupDriver is the driver kubelet uses/);
  assert.match(hover('kubeadm', kubeadm, 'certSANs')!.markdown, /^\*\*apiServer\.certSANs\*\* — array/);
  assert.match(hover('kubeadm', kubeadm, 'kind: ClusterConfiguration')!.markdown, /Values: `InitConfiguration`, `ClusterConfiguration`, `JoinConfiguration`/);
  assert.equal(hover('inventory', inventory, 'The seed topology'), undefined, 'a comment');
  assert.equal(hover('inventory', 'nosuchfield: 1\n', 'nosuchfield'), undefined, 'not in the schema');
});
