import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseInventory } from '../../../src/core/inventory/parse';
import { scalar, serializeInventory } from '../../../src/core/inventory/serialize';
import type { Inventory } from '../../../src/core/inventory/types';

const exampleText = readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8');

/** The example without its comments and column padding: what the serializer writes. */
function withoutComments(text: string): string {
  return text
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .map((l) => l.replace(/\s+#.*$/, '').trimEnd())
    .join('\n');
}

test('the seed example serializes back to its own text, comments aside', () => {
  const inv = parseInventory(exampleText).inventory!;
  assert.equal(serializeInventory(inv), withoutComments(exampleText));
});

test('a header becomes comment lines', () => {
  const inv = parseInventory(exampleText).inventory!;
  const text = serializeInventory(inv, 'Imported from hosts.yaml\n\nby the importer');
  assert.ok(text.startsWith('# Imported from hosts.yaml\n#\n# by the importer\ncluster:\n'));
  assert.deepEqual(parseInventory(text).inventory, inv);
});

test('every optional field round-trips through parseInventory with no findings', () => {
  const inv: Inventory = {
    cluster: {
      name: 'lab',
      kubernetesVersion: '1.31.0',
      controlPlaneEndpoint: '10.0.0.100:8443',
      podSubnet: '10.244.0.0/16',
      serviceSubnet: '10.96.0.0/12',
      cni: 'calico',
      imageRepository: 'registry.lab:5000/k8s',
      registryMirrors: { 'docker.io': ['https://mirror.lab:5000', 'https://mirror2.lab'], 'registry.k8s.io': [] },
      packages: {
        kubernetesApt: 'deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v1.31/deb/ /',
        kubernetesAptKey: 'https://pkgs.k8s.io/core:/stable:/v1.31/deb/Release.key',
      },
    },
    ssh: { user: 'debian', port: 2222, identityFile: '~/.ssh/id_ed25519', proxyJump: 'ops@203.0.113.10:2222,jump2' },
    hosts: [
      { name: 'lb1', address: '10.0.0.5', roles: ['loadbalancer'], vrrp: { state: 'MASTER', priority: 100, interface: 'ens192', virtualRouterId: 7 } },
      { name: 'lb2', address: '10.0.0.6', roles: ['loadbalancer'], vrrp: { state: 'BACKUP', priority: 99, interface: 'ens192' }, ssh: { user: 'root' } },
      { name: 'cp1', address: '10.0.0.11', roles: ['control-plane', 'worker'], ssh: {} },
      { name: 'cp2', address: '10.0.0.12', roles: ['control-plane'], ssh: { port: 22, proxyJump: 'none' } },
      { name: 'cp3', address: '10.0.0.13', roles: ['control-plane'] },
      {
        name: 'w1',
        address: '10.0.0.21',
        roles: ['worker'],
        labels: { 'node-role.kubernetes.io/ingress': '', zone: 'a.b', 'x/y': 'true', n: '42', dash: 'a-b', under: 'a_b', yes: 'yes', null: 'null', no: 'No' },
      },
      { name: 'w2', address: '10.0.0.31', roles: ['worker'] },
    ],
  };
  const text = serializeInventory(inv);
  const back = parseInventory(text);
  assert.deepEqual(back.findings, [], text);
  assert.deepEqual(back.inventory, inv);
  // Host rows stay flow-style, one per host, with extras on continuation lines.
  const rows = text.split('\n').filter((l) => l.startsWith('  - { name: '));
  assert.equal(rows.length, inv.hosts.length);
  assert.match(text, /^ {2}- \{ name: lb1, address: 10\.0\.0\.5, roles: \[loadbalancer\],\n {6}vrrp: \{ state: MASTER, priority: 100, interface: ens192, virtualRouterId: 7 \} \}$/m);
  // A long ssh line falls back to a block mapping.
  assert.match(text, /^ssh: \{ user: debian, port: 2222, identityFile: ~\/\.ssh\/id_ed25519, proxyJump: "ops@203\.0\.113\.10:2222,jump2" \}$|^ssh:\n {2}user: debian$/m);
});

test('a long ssh default is written as a block mapping', () => {
  const inv = parseInventory(exampleText).inventory!;
  inv.ssh = { user: 'a-rather-long-user-name', port: 2222, identityFile: '~/.ssh/keys/a-rather-long-key-file-name_ed25519', proxyJump: 'ops@bastion.example.org:2222' };
  const text = serializeInventory(inv);
  assert.match(text, /^ssh:\n {2}user: a-rather-long-user-name\n {2}port: 2222\n/m);
  assert.deepEqual(parseInventory(text).inventory, inv);
});

test('an incomplete cluster is written with empty required fields and a hint', () => {
  const inv = parseInventory(exampleText).inventory!;
  inv.cluster.kubernetesVersion = '';
  inv.cluster.controlPlaneEndpoint = '';
  inv.ssh = {};
  inv.hosts = [];
  const text = serializeInventory(inv);
  assert.match(text, /^ {2}kubernetesVersion: "" {3}# required: /m);
  assert.match(text, /^ {2}controlPlaneEndpoint: "" {3}# required: /m);
  assert.match(text, /^hosts: \[\]$/m);
  assert.doesNotMatch(text, /^ssh:/m);
  const back = parseInventory(text);
  assert.deepEqual(back.findings.filter((f) => f.rule === 'inventory/yaml-syntax'), []);
  assert.deepEqual(back.findings.filter((f) => f.rule === 'inventory/missing-key').map((f) => f.range.start.line), [2, 3]);
});

test('scalars are plain only when they read back as the same string', () => {
  for (const s of ['10.3.60.50', 'ens192', '~/.ssh/id', 'labs-k8s', '1.30.14', '22', 'true', 'null', '~', '', ' x', 'a: b', 'a #b', '@x', '- x', '[x]', '{x}', '"q"', "'q'", 'ä', 'a,b', '*a', '&a', '!a', '%a', '|', '>']) {
    const text = [
      'cluster:',
      '  name: lab',
      '  kubernetesVersion: "1.30.1"',
      '  controlPlaneEndpoint: vip:6443',
      `ssh:`,
      `  identityFile: ${scalar(s)}`,
      `hosts: [{ name: a, address: 10.0.0.1, roles: [worker], ssh: { identityFile: ${scalar(s, true)} } }]`,
      '',
    ].join('\n');
    const inv = parseInventory(text).inventory;
    assert.equal(inv?.ssh.identityFile, s, text);
    assert.equal(inv?.hosts[0]?.ssh?.identityFile, s, text);
  }
  assert.equal(scalar('10.3.60.50'), '10.3.60.50');
  assert.equal(scalar('~/.ssh/id_ed25519', true), '~/.ssh/id_ed25519');
  assert.equal(scalar('22'), '"22"');
  assert.equal(scalar('true'), '"true"');
});
