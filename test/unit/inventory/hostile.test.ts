/**
 * Issue 11's ten findings of the hostile-input review, one named regression test each: an inventory (or a
 * workspace file) from a colleague's repository must be refused at the field, or turned into files and
 * commands that contain only validated parts. Each test failed on the code before the fix.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { runCheckInventory } from '../../../src/cli/checkInventory';
import { runPlanVerb } from '../../../src/cli/bringUp';
import { runGenerate } from '../../../src/cli/generate';
import { runLint } from '../../../src/cli/lint';
import { generateClusterConfigs } from '../../../src/core/generate/index';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { Inventory } from '../../../src/core/inventory/types';
import { phaseConfigs, phaseSources, readKubeadmExtra } from '../../../src/engine/inputs';
import { stateFolderFor, vrrpAuthPass } from '../../../src/engine/stateFolder';
import { VRRP_PASS_PLACEHOLDER } from '../../../src/core/generate/keepalived';
import { memoryIo } from '../cli/memoryIo';
import { tempDir } from '../../tempDir';

const ROOT = join(__dirname, '../../..');
const EXAMPLE_DIR = join(ROOT, 'examples/labs-k8s');
const example = readFileSync(join(EXAMPLE_DIR, 'inventory.yaml'), 'utf8');


function workspace(inventoryText: string): string {
  const dir = tempDir('kw-hostile-');
  writeFileSync(join(dir, 'inventory.yaml'), inventoryText);
  return dir;
}

/** check-inventory's verdict and the 1-based lines of its findings of `rule`. */
async function check(text: string, rule: string): Promise<{ code: number; lines: number[]; out: string }> {
  const dir = workspace(text);
  try {
    const io = memoryIo();
    const code = await runCheckInventory([join(dir, 'inventory.yaml')], io);
    const lines = [...io.out.matchAll(new RegExp(`:(\\d+):\\d+: \\w+: .*\\[${rule.replace('/', '\\/')}\\]`, 'g'))].map((m) => Number(m[1]));
    return { code, lines, out: io.out };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const lineOf = (text: string, needle: string): number => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
const model = (): Inventory => parseInventory(example).inventory!;

test('finding 1: values with newlines and quotes are refused at their field, not copied into keepalived.conf, kubeadm-config.yaml or hosts.toml', async () => {
  const iface = example.replace('interface: ens192', 'interface: "ens192\\n}\\nvrrp_script x {"');
  const r1 = await check(iface, 'inventory/interface');
  assert.equal(r1.code, 1, r1.out);
  assert.deepEqual(r1.lines, [lineOf(iface, 'interface:')], r1.out);

  const name = example.replace('name: labs-k8s\n', 'name: "labs\\n---\\napiVersion: v1\\nkind: Secret"\n');
  const r2 = await check(name, 'inventory/cluster-name');
  assert.equal(r2.code, 1, r2.out);
  assert.deepEqual(r2.lines, [lineOf(name, 'name: "labs')]);

  const mirror = example.replace('  cni: flannel\n', '  cni: flannel\n  registryMirrors:\n    docker.io: ["https://m.example\\"]\\n[x]"]\n');
  const r3 = await check(mirror, 'inventory/mirror');
  assert.equal(r3.code, 1, r3.out);
  assert.deepEqual(r3.lines, [lineOf(mirror, 'docker.io:')]);

  // And a model that skipped the loader still cannot reach a file.
  const inv = model();
  inv.hosts[0]!.vrrp!.interface = 'ens192\n}\nvrrp_script x {';
  assert.throws(() => generateClusterConfigs(inv), /invalid values/);
});

test('finding 1: the plan checks keepalived.conf with keepalived -t before it restarts keepalived', async () => {
  const dir = workspace(example);
  try {
    const io = memoryIo();
    assert.equal(await runPlanVerb(['--inventory', join(dir, 'inventory.yaml'), '--phases', 'loadbalancer'], io), 0, io.err);
    const line = io.out.split('\n').find((l) => l.includes('systemctl restart keepalived'));
    assert.ok(line, io.out);
    assert.ok(line.indexOf('keepalived -t -f') >= 0 && line.indexOf('keepalived -t -f') < line.indexOf('systemctl restart keepalived'), line);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('finding 2: a mirror name with ../ and a signed-by outside the keyring folders are refused; paths on the nodes stay under their root', async () => {
  const mirror = example.replace('  cni: flannel\n', '  cni: flannel\n  registryMirrors:\n    "../../../../tmp/x": [mirror.example]\n');
  const r1 = await check(mirror, 'inventory/registry');
  assert.equal(r1.code, 1, r1.out);
  assert.deepEqual(r1.lines, [lineOf(mirror, '../../')]);

  const apt = example.replace('  cni: flannel\n', '  cni: flannel\n  packages:\n    kubernetesApt: "deb [signed-by=/etc/passwd] https://pkgs.k8s.io/core:/stable:/v1.30/deb/ /"\n    kubernetesAptKey: https://pkgs.k8s.io/core:/stable:/v1.30/deb/Release.key\n');
  const r2 = await check(apt, 'inventory/apt-source');
  assert.equal(r2.code, 1, r2.out);
  assert.deepEqual(r2.lines, [lineOf(apt, 'signed-by')]);

  const inv = model();
  inv.cluster.registryMirrors = { '../../../../tmp/x': ['mirror.example'] };
  assert.throws(() => generateClusterConfigs(inv), /invalid values/);
  const good = model();
  good.cluster.registryMirrors = { 'registry.example:5000': ['mirror.example'] };
  assert.deepEqual(generateClusterConfigs(good).filter((f) => f.path.includes('certs.d')).map((f) => f.path), ['etc/containerd/certs.d/registry.example:5000/hosts.toml']);
});

test('finding 3: cniManifest and kubeadmExtraConfig are read only from inside the inventory folder', async () => {
  for (const [key, value] of [['cniManifest', '/etc/passwd'], ['cniManifest', '../outside.yaml'], ['kubeadmExtraConfig', '../outside.yaml']] as const) {
    const text = example.replace('  cni: flannel\n', `  cni: flannel\n  ${key}: ${value}\n`);
    const r = await check(text, 'inventory/path');
    assert.equal(r.code, 1, `${key}: ${value}\n${r.out}`);
    assert.deepEqual(r.lines, [lineOf(text, `${key}:`)]);
  }
  // Past the loader too: a model naming /etc/passwd, ../, or a symlink out of the folder is not read.
  const dir = tempDir('kw-hostile-');
  try {
    writeFileSync(join(dir, 'outside.yaml'), 'kind: Secret\n');
    mkdirSync(join(dir, 'ws'));
    symlinkSync('/etc/passwd', join(dir, 'ws', 'cni.yaml'));
    const read: string[] = [];
    const readFile = async (p: string): Promise<string> => (read.push(p), fs.readFile(p, 'utf8'));
    for (const ref of ['/etc/passwd', '../outside.yaml', 'cni.yaml']) {
      const inv = model();
      inv.cluster.cniManifest = ref;
      await assert.rejects(phaseSources(inv, join(dir, 'ws'), readFile), /inventory folder/, ref);
      inv.cluster.kubeadmExtraConfig = ref;
      await assert.rejects(readKubeadmExtra(inv, join(dir, 'ws'), readFile), /inventory folder/, ref);
    }
    assert.deepEqual(read, [], 'nothing outside the folder was read');
    writeFileSync(join(dir, 'ws', 'mine.yaml'), 'kind: List\n');
    const inv = model();
    inv.cluster.cniManifest = 'mine.yaml';
    assert.equal((await phaseSources(inv, join(dir, 'ws'), readFile)).cniManifest, 'kind: List\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('finding 4: generate refuses symlinks inside --out, also with --force, and writes no link target', async () => {
  const dir = tempDir('kw-hostile-');
  try {
    cpSync(join(EXAMPLE_DIR, 'inventory.yaml'), join(dir, 'inventory.yaml'));
    const out = join(dir, 'out');
    mkdirSync(out);
    writeFileSync(join(dir, 'victim'), 'precious\n');
    symlinkSync(join(dir, 'victim'), join(out, 'haproxy.cfg'));
    mkdirSync(join(dir, 'elsewhere'));
    symlinkSync(join(dir, 'elsewhere'), join(out, 'etc'));
    const io = memoryIo();
    assert.equal(await runGenerate(['--inventory', join(dir, 'inventory.yaml'), '--out', out, '--force'], io), 1, io.out);
    assert.match(io.err, /symlink/);
    assert.equal(readFileSync(join(dir, 'victim'), 'utf8'), 'precious\n');
    assert.ok(lstatSync(join(out, 'haproxy.cfg')).isSymbolicLink());
    assert.deepEqual(await fs.readdir(join(dir, 'elsewhere')), [], 'nothing was written through the linked folder');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('finding 5: a non-canonical IPv4 address (leading zero, octal, hex, short form) is refused at the address', async () => {
  for (const bad of ['10.3.60.051', '010.3.60.51', '0x0a.3.60.51', '10.3.15411', '167984691', '10.3.60.51.']) {
    const text = example.replace('address: 10.3.60.51,', `address: "${bad}",`);
    const r = await check(text, 'inventory/address');
    assert.equal(r.code, 1, `${bad}\n${r.out}`);
    assert.deepEqual(r.lines, [lineOf(text, bad)], bad);
  }
});

test('finding 6: a VIP outside the balancers\' subnet and an IPv6 endpoint are refused with a clear message', async () => {
  const far = example.replace('controlPlaneEndpoint: 10.3.60.100:6443', 'controlPlaneEndpoint: 10.9.9.100:6443');
  const r1 = await check(far, 'inventory/vip-subnet');
  assert.equal(r1.code, 1, r1.out);
  assert.deepEqual(r1.lines, [lineOf(far, 'controlPlaneEndpoint')]);

  const v6 = example.replace('controlPlaneEndpoint: 10.3.60.100:6443', 'controlPlaneEndpoint: "[fd00::100]:6443"');
  const r2 = await check(v6, 'inventory/endpoint');
  assert.equal(r2.code, 1, r2.out);
  assert.match(r2.out, /IPv6 is not supported/);
  const addr6 = example.replace('address: 10.3.60.51,', 'address: "fd00::51",');
  const r3 = await check(addr6, 'inventory/address');
  assert.equal(r3.code, 1);
  assert.match(r3.out, /IPv6 is not supported/);
});

test('finding 7: lint --fix leaves a file that is not UTF-8 byte for byte as it was', async () => {
  const dir = tempDir('kw-hostile-');
  try {
    cpSync(EXAMPLE_DIR, dir, { recursive: true });
    const cfg = join(dir, 'haproxy.cfg');
    const text = readFileSync(cfg, 'utf8').replace('frontend kubernetes-api\n    bind 10.3.60.100:6443\n    mode tcp', 'frontend kubernetes-api\n    bind 10.3.60.100:6443\n    mode http');
    assert.match(text, /mode http/);
    const bytes = Buffer.concat([Buffer.from('# caf'), Buffer.from([0xe9]), Buffer.from(' (Latin-1)\n'), Buffer.from(text)]);
    writeFileSync(cfg, bytes);
    const io = memoryIo();
    await runLint(['--fix', dir], io);
    assert.ok(readFileSync(cfg).equals(bytes), 'the file is unchanged, 0xE9 included');
    assert.match(io.err, /not valid UTF-8/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('finding 8: an inventory over the size limit is refused before it is parsed', () => {
  const big = example + `# ${'x'.repeat(1024 * 1024)}\n`;
  const started = performance.now();
  const r = parseInventory(big);
  const ms = performance.now() - started;
  assert.equal(r.inventory, undefined);
  assert.deepEqual(r.findings.map((f) => `${f.rule} ${f.severity}`), ['inventory/too-large error']);
  console.log(`1 MB inventory refused in ${ms.toFixed(2)} ms`);
});

test('finding 9: hosts with no role or only etcd, a VIP with no balancer and a 301-character name are reported; labels are applied; an empty --phases is a usage error', async () => {
  const noRoles = example.replace('{ name: labs-k8s-w02, address: 10.3.60.55, roles: [worker] }', '{ name: labs-k8s-w02, address: 10.3.60.55, roles: [] }');
  assert.deepEqual((await check(noRoles, 'inventory/no-roles')).lines, [lineOf(noRoles, 'labs-k8s-w02')]);
  const etcd = example.replace('{ name: labs-k8s-w02, address: 10.3.60.55, roles: [worker] }', '{ name: labs-k8s-w02, address: 10.3.60.55, roles: [etcd] }');
  const r2 = await check(etcd, 'inventory/no-roles');
  assert.equal(r2.code, 1);
  assert.deepEqual(r2.lines, [lineOf(etcd, 'labs-k8s-w02')]);
  const noLb = example.replace(/ {2}- \{ name: labs-k8s-balancer[^\n]*\n[^\n]*\n/, '');
  const r3 = await check(noLb, 'inventory/endpoint-no-balancer');
  assert.deepEqual(r3.lines, [lineOf(noLb, 'controlPlaneEndpoint')], r3.out);
  const long = `${'a'.repeat(60)}.`.repeat(5) + 'a';
  assert.equal(long.length, 306);
  const longName = example.replace('name: labs-k8s-w02,', `name: ${long},`);
  const r4 = await check(longName, 'inventory/host-name');
  assert.equal(r4.code, 1);
  assert.deepEqual(r4.lines, [lineOf(longName, long)]);

  const lbLabels = example.replace('roles: [loadbalancer],', 'roles: [loadbalancer], labels: { zone: a },');
  assert.deepEqual((await check(lbLabels, 'inventory/labels-not-node')).lines, [lineOf(lbLabels, 'labels: { zone: a }')]);

  const dir = workspace(example.replace('{ name: labs-k8s-w02, address: 10.3.60.55, roles: [worker] }', '{ name: labs-k8s-w02, address: 10.3.60.55, roles: [worker], labels: { zone: a, node-role.kubernetes.io/ingress: "" } }'));
  try {
    const io = memoryIo();
    assert.equal(await runPlanVerb(['--inventory', join(dir, 'inventory.yaml'), '--phases', 'verify'], io), 0, io.err);
    assert.match(io.out, /label --overwrite node\/labs-k8s-w02 zone=a node-role\.kubernetes\.io\/ingress=/);
    const empty = memoryIo();
    assert.equal(await runPlanVerb(['--inventory', join(dir, 'inventory.yaml'), '--phases', ''], empty), 2);
    assert.match(empty.err, /at least one phase/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('finding 10: the VRRP password is per cluster and stable, the flannel manifest pinned, the run folder git-ignored', async () => {
  const dirA = workspace(example);
  const dirB = workspace(example);
  try {
    // The password the plan uploads (generate writes a placeholder in its place: issue 34).
    const pass = async (dir: string): Promise<string> => {
      const io = memoryIo();
      assert.equal(await runGenerate(['--inventory', join(dir, 'inventory.yaml'), '--out', join(dir, 'generated')], io), 0, io.err);
      assert.match(readFileSync(join(dir, 'generated', 'keepalived.conf'), 'utf8'), new RegExp(`auth_pass ${VRRP_PASS_PLACEHOLDER}\n`));
      return /auth_pass (\S+)/.exec(phaseConfigs(parseInventory(example).inventory!, undefined, await vrrpAuthPass(stateFolderFor(join(dir, 'inventory.yaml')))).keepalivedConfig['labs-k8s-balancer']!)![1]!;
    };
    const a = await pass(dirA);
    const b = await pass(dirB);
    assert.notEqual(a, 'k8s-vip');
    assert.notEqual(a, b, 'two clusters (workspaces) never share a VRRP password');
    rmSync(join(dirA, 'generated'), { recursive: true });
    assert.equal(await pass(dirA), a, 'the same workspace keeps its password');
    const secret = join(dirA, '.kubeadm-workbench', 'vrrp-auth-pass');
    assert.equal(statSync(secret).mode & 0o777, 0o600);
    assert.equal(readFileSync(join(dirA, '.kubeadm-workbench', '.gitignore'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#')).join(), '*');

    const io = memoryIo();
    assert.equal(await runPlanVerb(['--inventory', join(dirA, 'inventory.yaml'), '--phases', 'init'], io), 0, io.err);
    assert.doesNotMatch(io.out, /releases\/latest/);
    assert.match(io.out, /flannel\/releases\/download\/v\d+\.\d+\.\d+\/kube-flannel\.yml/);
    assert.doesNotMatch(io.out, new RegExp(a), 'the password is not in the printed plan');
  } finally {
    rmSync(dirA, { recursive: true, force: true });
    rmSync(dirB, { recursive: true, force: true });
  }
  assert.ok(!existsSync(join(dirA, '.kubeadm-workbench')));
});
