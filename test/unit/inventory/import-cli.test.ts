import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runImport } from '../../../src/cli/import';
import type { CliIo } from '../../../src/cli/io';
import { parseInventory } from '../../../src/core/inventory/parse';

const root = join(__dirname, '../../..');

/** An in-memory file system seeded from the repository, recording what the verb prints and writes. */
function memoryIo(files: Record<string, string>): CliIo & { out: string; err: string; files: Map<string, string> } {
  const map = new Map(Object.entries(files));
  const io = {
    out: '',
    err: '',
    files: map,
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    readFile: async (p: string) => {
      const text = map.get(p);
      if (text === undefined) throw new Error(`ENOENT: ${p}`);
      return text;
    },
    writeFile: async (p: string, t: string) => void map.set(p, t),
  };
  return io;
}

function fixture(rel: string): [string, string] {
  return [rel, readFileSync(join(root, rel), 'utf8')];
}

const KUBESPRAY = 'test/fixtures/ansible/kubespray/inventory/labs-k8s';
const kubesprayFiles = Object.fromEntries([
  fixture(`${KUBESPRAY}/hosts.yaml`),
  fixture(`${KUBESPRAY}/group_vars/all/all.yml`),
  fixture(`${KUBESPRAY}/group_vars/k8s_cluster/k8s-cluster.yml`),
]);

test('import-ansible prints the inventory on stdout and reads Kubespray group_vars next to the file', async () => {
  const io = memoryIo(kubesprayFiles);
  const code = await runImport([`${KUBESPRAY}/hosts.yaml`], io);
  assert.equal(code, 0, io.err);
  assert.equal(io.err, '');
  assert.ok(io.out.startsWith(`# Imported from ${KUBESPRAY}/hosts.yaml`));
  const { inventory, findings } = parseInventory(io.out);
  assert.deepEqual(findings, []);
  assert.equal(inventory?.cluster.kubernetesVersion, '1.30.14');
  assert.equal(inventory?.cluster.controlPlaneEndpoint, '10.3.60.100:6443');
  assert.equal(inventory?.cluster.cni, 'calico');
  assert.equal(inventory?.hosts.length, 6);
});

test('--no-group-vars leaves the cluster settings missing and warns', async () => {
  const io = memoryIo(kubesprayFiles);
  const code = await runImport([`${KUBESPRAY}/hosts.yaml`, '--no-group-vars'], io);
  assert.equal(code, 0);
  assert.match(io.err, new RegExp(`^${KUBESPRAY}/hosts\\.yaml:1:1: warning: No usable kube_version .* \\[ansible/no-version\\]$`, 'm'));
  assert.match(io.out, /kubernetesVersion: "" +# required/);
});

test('--out writes the file, refuses to overwrite without --force, and replaces it with --force', async () => {
  const io = memoryIo({ ...Object.fromEntries([fixture('test/fixtures/ansible/labs-k8s/inventory.ini')]), 'inventory.yaml': 'old\n' });
  assert.equal(await runImport(['test/fixtures/ansible/labs-k8s/inventory.ini', '--out', 'inventory.yaml'], io), 1);
  assert.match(io.err, /inventory\.yaml exists; use --force/);
  assert.equal(io.files.get('inventory.yaml'), 'old\n');

  assert.equal(await runImport(['import-ansible', 'test/fixtures/ansible/labs-k8s/inventory.ini', '--out=inventory.yaml', '--force'], io), 0);
  assert.equal(io.out, '');
  const written = io.files.get('inventory.yaml')!;
  const example = parseInventory(readFileSync(join(root, 'examples/labs-k8s/inventory.yaml'), 'utf8')).inventory;
  assert.deepEqual(parseInventory(written).inventory, example);
});

test('findings print as file:line:col: severity: message [rule]; errors exit 1 and nothing is written', async () => {
  const io = memoryIo(Object.fromEntries([fixture('test/fixtures/ansible/broken/inventory.ini')]));
  const code = await runImport(['test/fixtures/ansible/broken/inventory.ini', '-o', 'out.yaml'], io);
  assert.equal(code, 1);
  const lines = io.err.trim().split('\n');
  assert.ok(lines.includes('test/fixtures/ansible/broken/inventory.ini:3:28: error: ansible_port "ssh" of cp1 is not a TCP port (1–65535); the default is used. [ansible/port]'), io.err);
  assert.ok(lines.some((l) => l.startsWith('test/fixtures/ansible/broken/inventory.ini:21:1: error: ') && l.endsWith('[ansible/children-cycle]')));
  assert.match(io.err, /out\.yaml not written: 6 error\(s\)/);
  assert.equal(io.files.has('out.yaml'), false);
});

test('usage errors exit 2', async () => {
  for (const args of [[], ['--out'], ['a', 'b'], ['--bogus', 'a'], ['a', '--cni', 'cilium']]) {
    const io = memoryIo({});
    assert.equal(await runImport(args, io), 2, args.join(' '));
    assert.match(io.err, /usage: kubeadm-workbench import-ansible FILE/);
  }
  const missing = memoryIo({});
  assert.equal(await runImport(['nope.ini'], missing), 2);
  assert.match(missing.err, /cannot read nope\.ini/);
  const help = memoryIo({});
  assert.equal(await runImport(['--help'], help), 0);
  assert.match(help.out, /usage:/);
});

test('options fill what the Ansible inventory lacks', async () => {
  const io = memoryIo({ 'hosts.ini': '[kube_control_plane]\n10.0.0.1\n[lb]\n10.0.0.5\n' });
  const code = await runImport(['hosts.ini', '--name', 'edge', '--kubernetes-version', 'v1.31.2', '--endpoint', '10.0.0.100:6443', '--cni', 'calico', '--vrrp-interface', 'eth1'], io);
  assert.equal(code, 0, io.err);
  const { inventory, findings } = parseInventory(io.out);
  assert.deepEqual(findings, []);
  assert.deepEqual(inventory?.cluster, { name: 'edge', kubernetesVersion: '1.31.2', controlPlaneEndpoint: '10.0.0.100:6443', podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12', cni: 'calico' });
  assert.deepEqual(inventory?.hosts[0]?.vrrp, { state: 'MASTER', priority: 100, interface: 'eth1' });
});
