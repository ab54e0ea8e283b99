import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { findInventoryAbove, parseLintArgs, runLint, type JsonRow } from '../../../src/cli/lint';
import { main } from '../../../src/cli/main';
import { allRules, linterFor } from '../../../src/core/lint/registry';
import { memoryIo } from './memoryIo';
import { tempDir } from '../../tempDir';

const root = join(__dirname, '../../..');
const EXAMPLE = join(root, 'examples/labs-k8s');


function copyExample(): string {
  const dir = tempDir('kw-lint-');
  cpSync(EXAMPLE, dir, { recursive: true });
  return dir;
}

function lineOf(file: string, needle: string, from = 0): number {
  const lines = readFileSync(file, 'utf8').split('\n');
  const i = lines.findIndex((l, n) => n >= from && l.includes(needle));
  assert.ok(i >= 0, `${needle} not in ${file}`);
  return i;
}

test('the labs-k8s example lints clean: exit 0 and an empty JSON array', async () => {
  const io = memoryIo();
  const code = await runLint(['--format', 'json', EXAMPLE], io);
  const rows = JSON.parse(io.out) as JsonRow[];
  assert.deepEqual(rows, [], io.out);
  assert.equal(code, 0, io.err);
});

test('text output of the clean example names how many files were checked', async () => {
  const io = memoryIo();
  assert.equal(await main(['lint', EXAMPLE], io), 0);
  assert.equal(io.out, '');
  assert.match(io.err, /\d+ files? checked: 0 error/);
});

test('a broken copy gives JSON rows with 1-based positions and exit 1', async () => {
  const dir = copyExample();
  try {
    // Two hosts with one address: an inventory rule every build has.
    const inv = join(dir, 'inventory.yaml');
    writeFileSync(inv, readFileSync(inv, 'utf8').replace('address: 10.3.60.53', 'address: 10.3.60.52'));
    const line = lineOf(inv, 'name: labs-k8s-m03');
    const io = memoryIo();
    const code = await runLint(['--format', 'json', dir], io);
    const rows = JSON.parse(io.out) as JsonRow[];
    const dup = rows.find((r) => r.rule === 'inventory/duplicate-address');
    assert.ok(dup, io.out);
    assert.equal(dup.file, join(dir, 'inventory.yaml'));
    assert.equal(dup.line, line + 1, 'line is 1-based');
    assert.ok(dup.column >= 1);
    assert.equal(dup.severity, 'error');
    assert.equal(typeof dup.message, 'string');
    for (const r of rows) assert.deepEqual(Object.keys(r).sort(), ['column', 'file', 'line', 'message', 'rule', 'severity']);
    assert.equal(code, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The HAProxy and Keepalived linters are part of every build: losing one fails here rather than showing as a skip.
test('haproxy.cfg with the API frontend in mode http is flagged on its line', async () => {
  assert.ok(linterFor('haproxy'), 'the HAProxy linter is not registered');
  const dir = copyExample();
  try {
    const cfg = join(dir, 'haproxy.cfg');
    const frontend = lineOf(cfg, 'frontend kubernetes-api');
    const modeLine = lineOf(cfg, 'mode tcp', frontend);
    const lines = readFileSync(cfg, 'utf8').split('\n');
    lines[modeLine] = lines[modeLine]!.replace('mode tcp', 'mode http');
    writeFileSync(cfg, lines.join('\n'));
    const io = memoryIo();
    const code = await runLint(['--format', 'json', cfg], io);
    const rows = JSON.parse(io.out) as JsonRow[];
    const hit = rows.find((r) => r.rule === 'haproxy/frontend-mode-tcp');
    assert.ok(hit, io.out);
    assert.equal(hit.line, modeLine + 1);
    assert.equal(hit.severity, 'error');
    assert.equal(code, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a generated/ copy inside the example is its own config set: both lint clean together', async () => {
  const dir = copyExample();
  try {
    cpSync(EXAMPLE, join(dir, 'generated'), { recursive: true });
    rmSync(join(dir, 'generated', 'inventory.yaml'));
    const io = memoryIo();
    const code = await runLint(['--format', 'json', dir], io);
    assert.deepEqual(JSON.parse(io.out), [], io.out);
    assert.equal(code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('linting one file still checks it against the other config files of the inventory folder', async () => {
  assert.ok(linterFor('keepalived'), 'the Keepalived linter is not registered');
  const dir = copyExample();
  try {
    cpSync(join(dir, 'keepalived.conf'), join(dir, 'keepalived-second.conf'));
    const io = memoryIo();
    const code = await runLint(['--format', 'json', join(dir, 'keepalived.conf')], io);
    const rows = JSON.parse(io.out) as JsonRow[];
    assert.ok(rows.some((r) => r.rule === 'keepalived/one-master' && r.file === join(dir, 'keepalived.conf')), io.out);
    assert.equal(code, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--fix repairs the frontend mode in place, exit 0 when nothing is left', async () => {
  assert.ok(linterFor('haproxy'), 'the HAProxy linter is not registered');
  const dir = copyExample();
  try {
    const cfg = join(dir, 'haproxy.cfg');
    const original = readFileSync(cfg, 'utf8');
    const frontend = lineOf(cfg, 'frontend kubernetes-api');
    const modeLine = lineOf(cfg, 'mode tcp', frontend);
    const lines = original.split('\n');
    lines[modeLine] = lines[modeLine]!.replace('mode tcp', 'mode http');
    writeFileSync(cfg, lines.join('\n'));
    const io = memoryIo();
    const code = await runLint(['--format', 'json', '--fix', dir], io);
    assert.deepEqual(JSON.parse(io.out), [], io.out);
    assert.match(io.err, /haproxy\.cfg: fixed 1 problem/);
    assert.equal(code, 0);
    assert.equal(readFileSync(cfg, 'utf8'), original);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('usage errors exit 2', async () => {
  for (const args of [[], ['--format', 'yaml', EXAMPLE], ['--bogus', EXAMPLE], ['--inventory'], ['--timeout-ms', '0', EXAMPLE], [join(EXAMPLE, 'no-such-file.cfg')]]) {
    const io = memoryIo();
    assert.equal(await runLint(args, io), 2, `lint ${args.join(' ')}`);
    assert.match(io.err, /usage: kubeadm-workbench lint|cannot read/);
  }
  const io = memoryIo();
  assert.equal(await runLint(['--inventory', join(EXAMPLE, 'missing.yaml'), EXAMPLE], io), 2);
  assert.match(io.err, /cannot read inventory/);
});

test('argument parsing: --flag=value, -- and several paths', () => {
  assert.deepEqual(parseLintArgs(['--format=sarif', '--inventory=inv.yaml', 'a', '--', '--b']), { format: 'sarif', inventory: 'inv.yaml', timeoutMs: 3000, paths: ['a', '--b'] });
  assert.equal(typeof parseLintArgs(['--format']), 'string');
});

test('the inventory is found in or above the first path', async () => {
  assert.equal(await findInventoryAbove(join(EXAMPLE, 'etc/sysctl.d/99-kubernetes-cri.conf')), join(EXAMPLE, 'inventory.yaml'));
  assert.equal(await findInventoryAbove(join(EXAMPLE, 'etc')), join(EXAMPLE, 'inventory.yaml'));
});

test('SARIF 2.1.0: one run, the registry rules, results pointing at a rule and a region', async () => {
  const dir = copyExample();
  try {
    const inv = join(dir, 'inventory.yaml');
    writeFileSync(inv, readFileSync(inv, 'utf8').replace('address: 10.3.60.53', 'address: 10.3.60.52'));
    const io = memoryIo();
    const code = await runLint(['--format', 'sarif', dir], io);
    assert.equal(code, 1);
    const sarif = JSON.parse(io.out);
    assert.equal(sarif.version, '2.1.0');
    assert.match(sarif.$schema, /sarif-2\.1\.0/);
    assert.equal(sarif.runs.length, 1);
    const driver = sarif.runs[0].tool.driver;
    assert.equal(driver.name, 'kubeadm-workbench');
    const ids = driver.rules.map((r: { id: string }) => r.id);
    for (const r of allRules()) assert.ok(ids.includes(r.id), r.id);
    assert.ok(ids.includes('lint/timeout'));
    for (const r of driver.rules) {
      assert.ok(r.shortDescription.text && r.fullDescription.text, r.id);
      assert.ok(['error', 'warning', 'note'].includes(r.defaultConfiguration.level), r.id);
    }
    const results = sarif.runs[0].results;
    assert.ok(results.length > 0);
    for (const res of results) {
      assert.equal(driver.rules[res.ruleIndex].id, res.ruleId);
      assert.ok(['error', 'warning', 'note'].includes(res.level));
      assert.ok(res.message.text);
      const loc = res.locations[0].physicalLocation;
      assert.ok(loc.artifactLocation.uri);
      assert.ok(loc.region.startLine >= 1 && loc.region.startColumn >= 1);
      assert.ok(loc.region.endLine >= loc.region.startLine);
    }
    const dup = results.find((r: { ruleId: string }) => r.ruleId === 'inventory/duplicate-address');
    assert.ok(dup);
    assert.equal(dup.level, 'error');
    const uri: string = dup.locations[0].physicalLocation.artifactLocation.uri;
    assert.ok(uri.endsWith('inventory.yaml'), uri);
    if (!uri.startsWith('file:')) assert.equal(uri, relative(process.cwd(), inv).split('\\').join('/'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the per-file time limit stops a pathological file: one "lint stopped" error at 1:1, exit 1, no hang', async () => {
  const dir = tempDir('kw-lint-slow-');
  try {
    // A 200 KB inventory, under the loader's 256 KB limit (a larger one is refused unparsed, at once): parsing it
    // takes far longer than the 1 ms limit.
    const big = join(dir, 'inventory.yaml');
    const host = (i: number) => `  - { name: h${i}, address: 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}, roles: [worker] }\n`;
    let text = 'cluster: { name: x, kubernetesVersion: "1.30.1", controlPlaneEndpoint: 10.0.0.1:6443, podSubnet: 10.244.0.0/16, serviceSubnet: 10.96.0.0/12, cni: flannel }\nhosts:\n';
    for (let i = 0; text.length < 200 * 1024; i++) text += host(i);
    writeFileSync(big, text);
    const io = memoryIo();
    const started = Date.now();
    const code = await runLint(['--format', 'json', '--timeout-ms', '1', '--inventory', join(EXAMPLE, 'inventory.yaml'), big], io);
    const elapsed = Date.now() - started;
    const rows = JSON.parse(io.out) as JsonRow[];
    assert.deepEqual(
      rows.map((r) => [r.rule, r.line, r.column, r.severity]),
      [['lint/timeout', 1, 1, 'error']],
    );
    assert.match(rows[0]!.message, /lint stopped after 1 ms/);
    assert.equal(code, 1);
    assert.ok(elapsed < 30_000, `took ${elapsed} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
