/**
 * Issue 34's network mistakes, each refused by check-inventory (exit 1) at the line that must change, with the reason:
 * nodes or the VIP inside the service or pod subnet, the VIP equal to a host's own address, addresses no host can
 * hold, a VIP that is its subnet's network or broadcast address, and names YAML reads as numbers. Each failed on
 * the code before (exit 0, or a warning only).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseInventory } from '../../../src/core/inventory/parse';
import { checkAtLine, edit, lineOf } from './checkAtLine';

const example = readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8');

test('a node inside the service subnet is refused on its host line; one inside the pod subnet too', async () => {
  const text = edit(example, 'address: 10.3.60.54', 'address: 10.96.0.54');
  const r = await checkAtLine(text, 'inventory/node-in-service-subnet');
  assert.equal(r.code, 1, r.out);
  assert.deepEqual(r.lines, [lineOf(text, '10.96.0.54')]);
  assert.match(r.messages[0]!, /^error: labs-k8s-w01's address 10\.96\.0\.54 lies inside serviceSubnet 10\.96\.0\.0\/12: kube-proxy captures/);
  const pod = edit(example, 'address: 10.3.60.54', 'address: 10.244.3.4');
  const p = await checkAtLine(pod, 'inventory/node-in-pod-subnet');
  assert.deepEqual([p.code, p.lines], [1, [lineOf(pod, '10.244.3.4')]]);
});

test('the VIP inside the service or the pod subnet is refused at controlPlaneEndpoint', async () => {
  for (const [vip, subnet] of [['10.96.0.100', 'serviceSubnet 10.96.0.0/12'], ['10.244.0.100', 'podSubnet 10.244.0.0/16']] as const) {
    // The balancer moves with the VIP, so that only the subnet is wrong.
    const text = edit(edit(example, '10.3.60.100:6443', `${vip}:6443`), 'address: 10.3.60.50', `address: ${vip.replace(/\d+$/, '50')}`);
    const r = await checkAtLine(text, 'inventory/vip-in-cluster-subnet');
    assert.equal(r.code, 1, r.out);
    assert.deepEqual(r.lines, [lineOf(text, 'controlPlaneEndpoint')], r.out);
    assert.match(r.messages[0]!, new RegExp(`The VIP ${vip.replace(/\./g, '\\.')} lies inside ${subnet.replace(/[./]/g, '\\$&')}`));
  }
});

test("the VIP equal to a worker's or a balancer's own address is an error (keepalived.conf would claim it), not a warning", async () => {
  for (const address of ['10.3.60.55', '10.3.60.50']) {
    const text = edit(example, '10.3.60.100:6443', `${address}:6443`);
    const r = await checkAtLine(text, 'inventory/endpoint-is-host');
    assert.equal(r.code, 1, r.out);
    assert.deepEqual(r.lines, [lineOf(text, 'controlPlaneEndpoint')]);
    assert.match(r.messages[0]!, /^error: .*keepalived\.conf would claim it/);
  }
});

test('node addresses no host can hold are refused at the address, with the range named; loopback stays allowed', async () => {
  const cases: [string, RegExp][] = [
    ['0.0.0.0', /0\.0\.0\.0\/8 \("this network"\)/],
    ['255.255.255.255', /limited broadcast/],
    ['224.0.0.18', /VRRP's own multicast group/],
    ['239.1.2.3', /multicast address \(224\.0\.0\.0\/4\)/],
    ['169.254.10.20', /link-local \(169\.254\.0\.0\/16\)/],
    ['240.0.0.1', /reserved/],
  ];
  for (const [address, why] of cases) {
    const text = edit(example, 'address: 10.3.60.55', `address: ${address}`);
    const r = await checkAtLine(text, 'inventory/address');
    assert.equal(r.code, 1, `${address}: ${r.out}`);
    assert.deepEqual(r.lines, [lineOf(text, `address: ${address}`)], address);
    assert.match(r.messages[0]!, why, address);
  }
  const loopback = await checkAtLine(edit(example, 'address: 10.3.60.55', 'address: 127.0.0.55'), 'inventory/address');
  assert.equal(loopback.code, 0, loopback.out);
  // The ranges' edges are ordinary addresses.
  for (const edge of ['169.253.255.255', '169.255.0.1', '223.255.255.254', '1.0.0.1']) {
    const r = await checkAtLine(edit(example, 'address: 10.3.60.55', `address: ${edge}`), 'inventory/address');
    assert.deepEqual(r.lines, [], `${edge}: ${r.out}`);
  }
});

test("a VIP that is the balancers' subnet's network or broadcast address, or a special one, is refused at controlPlaneEndpoint", async () => {
  const cases: [string, RegExp][] = [
    ['10.3.60.0', /is the network address of the balancers' subnet 10\.3\.60\.0\/24/],
    ['10.3.60.255', /is the broadcast address of the balancers' subnet 10\.3\.60\.0\/24/],
    ['224.0.0.18', /VRRP's own multicast group/],
  ];
  for (const [vip, why] of cases) {
    const text = edit(example, '10.3.60.100:6443', `${vip}:6443`);
    const r = await checkAtLine(text, 'inventory/vip-address');
    assert.equal(r.code, 1, `${vip}: ${r.out}`);
    assert.deepEqual(r.lines, [lineOf(text, 'controlPlaneEndpoint')], vip);
    assert.match(r.messages[0]!, why);
  }
  // Balancers across a /23: 10.3.60.255 is then inside the subnet keepalived.conf gives the VIP, and accepted.
  const wide = edit(edit(example, '10.3.60.100:6443', '10.3.60.255:6443'), 'address: 10.3.60.50', 'address: 10.3.61.50');
  const ok = await checkAtLine(wide, 'inventory/vip-address');
  assert.equal(ok.code, 0, ok.out);
});

test('a host name YAML reads as a number is refused at the name (name: 0x1F used to become node "31"); quoted, it is the name', async () => {
  const text = edit(example, 'name: labs-k8s-w02', 'name: 0x1f');
  const r = await checkAtLine(text, 'inventory/not-a-string');
  assert.equal(r.code, 1, r.out);
  assert.deepEqual(r.lines, [lineOf(text, 'name: 0x1f')]);
  assert.match(r.messages[0]!, /hosts\[5\]\.name 0x1f is read by YAML as the number 31, not a name: write it in quotes \("0x1f"\)/);
  assert.ok(!parseInventory(text).inventory!.hosts.some((h) => h.name === '31'), 'no node "31"');
  for (const n of ['31', '1e3', '0o17']) {
    const numeric = await checkAtLine(edit(example, 'name: labs-k8s-w02', `name: ${n}`), 'inventory/not-a-string');
    assert.equal(numeric.code, 1, `${n}: ${numeric.out}`);
  }
  const quoted = parseInventory(edit(example, 'name: labs-k8s-w02', 'name: "0x1f"'));
  assert.deepEqual(quoted.findings, []);
  assert.ok(quoted.inventory!.hosts.some((h) => h.name === '0x1f'));
  // Any other text field whose text YAML changed on the way (010 is 10) is refused too; a number kept as written is not.
  const label = await checkAtLine(edit(example, 'roles: [worker] }\n  - { name: labs-k8s-w02', 'roles: [worker], labels: { rack: 010 } }\n  - { name: labs-k8s-w02'), 'inventory/not-a-string');
  assert.equal(label.code, 1, label.out);
  assert.match(label.messages[0]!, /010 is read by YAML as the number 10/);
  assert.deepEqual(parseInventory(edit(example, 'roles: [worker] }\n  - { name: labs-k8s-w02', 'roles: [worker], labels: { rack: 10 } }\n  - { name: labs-k8s-w02')).findings, []);
});
