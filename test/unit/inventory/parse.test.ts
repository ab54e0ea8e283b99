import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseInventory } from '../../../src/core/inventory/parse';
import { hostsWithRole, sshFor } from '../../../src/core/inventory/types';
import { serializeInventory } from '../../../src/core/inventory/serialize';
import { INVENTORY_RULE_IDS } from '../../../src/core/inventory/rules';
import { inventoryLinter } from '../../../src/core/lint/inventoryLinter';

const example = readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8');

test('the seed example parses into the seed topology with no findings', () => {
  const { inventory, findings } = parseInventory(example);
  assert.deepEqual(findings, []);
  assert.ok(inventory);
  assert.equal(inventory.cluster.controlPlaneEndpoint, '10.3.60.100:6443');
  assert.deepEqual(inventory.hosts.map((h) => `${h.name}=${h.address}`), [
    'labs-k8s-balancer=10.3.60.50',
    'labs-k8s-m01=10.3.60.51',
    'labs-k8s-m02=10.3.60.52',
    'labs-k8s-m03=10.3.60.53',
    'labs-k8s-w01=10.3.60.54',
    'labs-k8s-w02=10.3.60.55',
  ]);
  assert.deepEqual(hostsWithRole(inventory, 'control-plane').map((h) => h.name), ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03']);
  assert.deepEqual(inventory.hosts[0]!.vrrp, { state: 'MASTER', priority: 100, interface: 'ens192' });
  assert.deepEqual(sshFor(inventory, inventory.hosts[1]!), { user: 'root', port: 22, identityFile: '~/.ssh/id_ed25519' });
});

test('host locations point at the host rows', () => {
  const { locations } = parseInventory(example);
  const lines = example.split('\n');
  const m02 = locations.hosts.get('labs-k8s-m02');
  assert.ok(m02);
  assert.match(lines[m02.start.line]!, /labs-k8s-m02/);
});

test('a syntax error becomes a finding on its line, never an exception', () => {
  const broken = example.replace('  podSubnet: 10.244.0.0/16', '  podSubnet: [10.244.0.0/16');
  const { findings } = parseInventory(broken);
  const syntax = findings.filter((f) => f.rule === 'inventory/yaml-syntax');
  assert.ok(syntax.length > 0, 'expected a syntax finding');
  assert.equal(syntax[0]!.severity, 'error');
});

test('a bad address is reported on the address, and the other hosts survive', () => {
  const text = example.replace('address: 10.3.60.52', 'address: 10.3.60.520');
  const { inventory, findings } = parseInventory(text);
  const f = findings.find((x) => x.rule === 'inventory/address');
  assert.ok(f, JSON.stringify(findings));
  const line = text.split('\n')[f.range.start.line]!;
  assert.equal(line.slice(f.range.start.character, f.range.end.character), '10.3.60.520');
  assert.equal(inventory?.hosts.length, 6, 'the host is kept with its address so the view can still show it');
});

test('controlPlaneEndpoint on a control-plane node is an error with the why', () => {
  const text = example.replace('controlPlaneEndpoint: 10.3.60.100:6443', 'controlPlaneEndpoint: 10.3.60.51:6443');
  const f = parseInventory(text).findings.find((x) => x.rule === 'inventory/endpoint-is-node');
  assert.ok(f);
  assert.match(f.message, /labs-k8s-m01/);
  assert.match(f.why ?? '', /tied to that node/);
});

test('duplicate addresses, unknown roles and unknown keys are each reported', () => {
  const text = example
    .replace('address: 10.3.60.55', 'address: 10.3.60.54')
    .replace('roles: [worker] }\n  - { name: labs-k8s-w02', 'roles: [wroker] }\n  - { name: labs-k8s-w02')
    .replace('  cni: flannel', '  cni: flannel\n  podSubnett: 10.0.0.0/8');
  const rules = parseInventory(text).findings.map((f) => f.rule).sort();
  assert.ok(rules.includes('inventory/duplicate-address'), rules.join());
  assert.ok(rules.includes('inventory/role'), rules.join());
  assert.ok(rules.includes('inventory/unknown-key'), rules.join());
});

test('pod and service subnets that overlap are an error', () => {
  const text = example.replace('serviceSubnet: 10.96.0.0/12', 'serviceSubnet: 10.244.128.0/17');
  assert.ok(parseInventory(text).findings.some((f) => f.rule === 'inventory/subnet-overlap'));
});

test('two MASTER balancers are an error', () => {
  const text = example.replace(
    '  - { name: labs-k8s-m01',
    '  - { name: labs-k8s-balancer2, address: 10.3.60.56, roles: [loadbalancer], vrrp: { state: MASTER, priority: 90, interface: ens192 } }\n  - { name: labs-k8s-m01',
  );
  assert.ok(parseInventory(text).findings.some((f) => f.rule === 'inventory/vrrp-master'));
});

test('hostile input: binary, empty, alias bomb and deep nesting yield findings, not crashes', () => {
  const bomb = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`).join('\n');
  for (const text of ['', '\u0000\u0001\u0002binary', bomb, '['.repeat(5000), 'cluster: 1\nhosts: 2\n']) {
    const started = Date.now();
    const result = parseInventory(text);
    assert.ok(Array.isArray(result.findings));
    assert.ok(result.findings.length > 0, `expected findings for ${JSON.stringify(text.slice(0, 20))}`);
    assert.ok(Date.now() - started < 2000);
  }
});

test('cluster.cniManifest and ignorePreflightErrors parse and survive a round trip through the serializer', () => {
  const text = example.replace('  cni: flannel', '  cni: flannel\n  cniManifest: manifests/kube-flannel.yml\n  ignorePreflightErrors: [SystemVerification, Swap]');
  const first = parseInventory(text);
  assert.deepEqual(first.findings, []);
  assert.equal(first.inventory!.cluster.cniManifest, 'manifests/kube-flannel.yml');
  assert.deepEqual(first.inventory!.cluster.ignorePreflightErrors, ['SystemVerification', 'Swap']);
  const again = parseInventory(serializeInventory(first.inventory!));
  assert.deepEqual(again.findings, []);
  assert.deepEqual(again.inventory, first.inventory);
});

test('cluster.containerd.restrictOomScoreAdj parses, round-trips and reaches the generated containerd config', async () => {
  const { generateContainerdConfig } = await import('../../../src/core/generate/containerd.js');
  const text = example.replace('  cni: flannel', '  cni: flannel\n  containerd: { restrictOomScoreAdj: true }');
  const parsed = parseInventory(text);
  assert.deepEqual(parsed.findings, []);
  assert.equal(parsed.inventory!.cluster.containerd?.restrictOomScoreAdj, true);
  assert.deepEqual(parseInventory(serializeInventory(parsed.inventory!)).inventory, parsed.inventory);
  assert.match(generateContainerdConfig(parsed.inventory!, { layout: 2 }), /\[plugins\."io\.containerd\.grpc\.v1\.cri"\]\n  sandbox_image = .*\n  restrict_oom_score_adj = true/);
  assert.match(generateContainerdConfig(parsed.inventory!, { layout: 3 }), /\[plugins\.["']io\.containerd\.cri\.v1\.runtime["']\]\n  restrict_oom_score_adj = true/);
  assert.doesNotMatch(generateContainerdConfig(parseInventory(example).inventory!, { layout: 2 }), /restrict_oom_score_adj/);
});

test('one missing [ is one syntax finding, on its line, in plain words (not 19 parser messages)', () => {
  const text = example.replace('roles: [control-plane] }', 'roles: control-plane] }');
  const { findings, inventory } = parseInventory(text);
  assert.equal(findings.length, 1, findings.map((f) => f.message).join('\n'));
  const [f] = findings;
  assert.equal(f!.rule, 'inventory/yaml-syntax');
  assert.equal(f!.range.start.line, text.split('\n').findIndex((l) => l.includes('roles: control-plane]')));
  assert.match(f!.message, /\[ missing/);
  assert.doesNotMatch(f!.message, /token|YAML stream/);
  assert.ok(inventory, 'the hosts before the error are kept for the views');
});

test('independent syntax problems are each reported once', () => {
  const text = example.replace('  cni: flannel\n', '  cni: flannel\n  cni: calico\n').replace('  podSubnet: 10.244.0.0/16', '  podSubnet: 10.244.0.0/16\n  podSubnet: 10.244.0.0/16');
  const findings = parseInventory(text).findings;
  assert.deepEqual(findings.map((f) => `${f.range.start.line + 1} ${f.message}`), [
    `${text.split('\n').findIndex((l, i, all) => l.startsWith('  podSubnet:') && all[i - 1]!.startsWith('  podSubnet:')) + 1} This key appears twice in the same mapping; keep one.`,
    `${text.split('\n').indexOf('  cni: calico') + 1} This key appears twice in the same mapping; keep one.`,
  ]);
});

test('every rule the loader reports is declared in the rule table', () => {
  assert.equal(inventoryLinter.rules.length, INVENTORY_RULE_IDS.size);
  const samples = [example, example.replace('address: 10.3.60.52', 'address: 10.3.60.052'), example.replace('roles: [worker] }', 'roles: [] }'), 'x', '- a', example.replace('cluster:', 'cluster: 1\nx:')];
  for (const s of samples) for (const f of parseInventory(s).findings) assert.ok(INVENTORY_RULE_IDS.has(f.rule), f.rule);
});

test('cluster.apiServerAuditLog: true or false is read and written back; anything else is an error on its line', async () => {
  const { modelProblems } = await import('../../../src/core/inventory/validate.js');
  const on = example.replace('  cni: flannel\n', '  cni: flannel\n  apiServerAuditLog: true\n');
  const parsed = parseInventory(on);
  assert.deepEqual(parsed.findings, []);
  assert.equal(parsed.inventory!.cluster.apiServerAuditLog, true);
  assert.equal(parseInventory(serializeInventory(parsed.inventory!)).inventory!.cluster.apiServerAuditLog, true);
  assert.equal(parseInventory(example).inventory!.cluster.apiServerAuditLog, undefined);
  for (const bad of ['"yes"', '1', '[true]']) {
    const text = example.replace('  cni: flannel\n', `  cni: flannel\n  apiServerAuditLog: ${bad}\n`);
    const r = parseInventory(text);
    const f = r.findings.find((x) => x.rule === 'inventory/audit-log');
    assert.ok(f, `${bad} is refused`);
    assert.equal(f.severity, 'error');
    assert.match(text.split('\n')[f.range.start.line]!, /apiServerAuditLog/);
    assert.ok(INVENTORY_RULE_IDS.has(f.rule));
  }
  // The model check the generators and the plan run (a caller that skipped the loader's findings).
  const model = parseInventory(example).inventory!;
  assert.deepEqual(modelProblems({ ...model, cluster: { ...model.cluster, apiServerAuditLog: 'yes' as never } }), ['cluster.apiServerAuditLog "yes" is not true or false']);
});
