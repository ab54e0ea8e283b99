import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { inventoryLinter } from '../../../src/core/lint/inventoryLinter';
import { detectKind } from '../../../src/core/lint/registry';
import { fileTargets, lintModules, lintSysctl } from '../../../src/core/sysctl/lint';
import { applyEdits, EXAMPLE, exampleInventory } from '../kubeadm/helpers';

const inventory = exampleInventory();
const nodePath = 'etc/sysctl.d/99-kubernetes-cri.conf';
const lbPath = 'etc/sysctl.d/99-loadbalancer.conf';
const node = readFileSync(join(EXAMPLE, nodePath), 'utf8');
const lb = readFileSync(join(EXAMPLE, lbPath), 'utf8');
const modules = readFileSync(join(EXAMPLE, 'etc/modules-load.d/k8s.conf'), 'utf8');
/** Context for a node file: the balancers have their own file. */
const nodeCtx = { inventory, siblings: [{ path: lbPath, text: lb }] };

describe('sysctl and modules linters', () => {
  it('the examples are clean and detected', () => {
    assert.deepEqual(lintSysctl({ path: nodePath, text: node }, { inventory, siblings: [{ path: lbPath, text: lb }] }), []);
    assert.deepEqual(lintSysctl({ path: lbPath, text: lb }, { inventory, siblings: [{ path: nodePath, text: node }] }), []);
    assert.deepEqual(lintModules({ path: 'etc/modules-load.d/k8s.conf', text: modules }, { inventory }), []);
    assert.equal(detectKind(nodePath, node), 'sysctl');
    assert.equal(detectKind('etc/modules-load.d/k8s.conf', modules), 'modules');
  });

  it('target convention: header, host directory, file name, default', () => {
    assert.deepEqual([...fileTargets('x.conf', '# kubeadm-workbench: roles=loadbalancer\n', inventory).roles], ['loadbalancer']);
    assert.deepEqual([...fileTargets('x.conf', '# kubeadm-workbench: hosts=labs-k8s-w01\n', inventory).roles], ['worker']);
    assert.deepEqual([...fileTargets('hosts/labs-k8s-balancer/etc/sysctl.d/k8s.conf', '', inventory).roles], ['loadbalancer']);
    assert.deepEqual([...fileTargets('etc/sysctl.d/90-haproxy.conf', '', inventory).roles], ['loadbalancer']);
    assert.deepEqual([...fileTargets(nodePath, node, inventory).roles].sort(), ['control-plane', 'worker']);
  });

  it('missing and wrong required settings, with fixes', () => {
    const missing = node.replace(/net\.ipv4\.ip_forward.*\n/, '');
    const f = lintSysctl({ path: nodePath, text: missing }, nodeCtx).find((x) => x.rule === 'sysctl/required')!;
    assert.match(f.message, /net\.ipv4\.ip_forward/);
    assert.deepEqual(lintSysctl({ path: nodePath, text: applyEdits(missing, f.fixes![0]!.edits) }, nodeCtx), []);
    const wrong = node.replace(/ip_forward(\s*)= 1/, 'ip_forward$1= 0');
    const g = lintSysctl({ path: nodePath, text: wrong }, nodeCtx).find((x) => x.rule === 'sysctl/required')!;
    assert.equal(g.range.start.line, wrong.split('\n').findIndex((l) => l.startsWith('net.ipv4.ip_forward')));
    assert.deepEqual(lintSysctl({ path: nodePath, text: applyEdits(wrong, g.fixes![0]!.edits) }, nodeCtx), []);
    const noBind = '# kubeadm-workbench: roles=loadbalancer\n';
    const h = lintSysctl({ path: lbPath, text: noBind }, { inventory }).find((x) => x.rule === 'sysctl/nonlocal-bind')!;
    assert.deepEqual(lintSysctl({ path: lbPath, text: applyEdits(noBind, h.fixes![0]!.edits) }, { inventory }), []);
  });

  it("a node's sysctl file is clean without ip_nonlocal_bind; the balancers' need is reported once, at the inventory host", () => {
    // no file of the workspace is for the balancer: the node file is not installed there, so it is not asked
    assert.deepEqual(lintSysctl({ path: nodePath, text: node }, { inventory }), []);
    assert.deepEqual(lintSysctl({ path: nodePath, text: node }, { inventory, siblings: [{ path: 'etc/sysctl.d/10-other.conf', text: 'vm.swappiness = 0\n' }] }), []);
    const invText = readFileSync(join(EXAMPLE, 'inventory.yaml'), 'utf8');
    const ws = [{ path: nodePath, text: node }, { path: 'etc/modules-load.d/k8s.conf', text: modules }];
    const fs = inventoryLinter.lint({ path: 'inventory.yaml', text: invText }, { siblings: ws });
    assert.deepEqual(fs.map((f) => f.rule), ['sysctl/nonlocal-bind']);
    assert.match(fs[0]!.message, /No sysctl\.d file of the workspace is for labs-k8s-balancer/);
    assert.equal(invText.split('\n')[fs[0]!.range.start.line]!.includes('labs-k8s-balancer'), true, 'on the balancer host line');
    // with the balancers' file in the workspace, nothing is left to report
    assert.deepEqual(inventoryLinter.lint({ path: 'inventory.yaml', text: invText }, { siblings: [...ws, { path: lbPath, text: lb }] }), []);
    // the balancers' file alone does not ask the nodes' settings of the inventory either way: the node file is missing
    assert.deepEqual(inventoryLinter.lint({ path: 'inventory.yaml', text: invText }, { siblings: [{ path: lbPath, text: lb }] }).map((f) => f.rule), ['sysctl/required']);
  });

  it('settings split over several files count together', () => {
    const a = 'net.bridge.bridge-nf-call-iptables = 1\nnet.bridge.bridge-nf-call-ip6tables = 1\n';
    const b = 'net.ipv4.ip_forward = 1\n';
    assert.deepEqual(lintSysctl({ path: 'etc/sysctl.d/10-a.conf', text: a }, { inventory, siblings: [{ path: 'etc/sysctl.d/20-b.conf', text: b }, { path: lbPath, text: lb }] }), []);
  });

  it('syntax, duplicates and typos', () => {
    const text = 'net.ipv4.ip_forward 1\nbad key! = 1\nnet.bridge.bridge-nf-call-iptable = 1\n' + node + 'net.ipv4.ip_forward = 1\n; comment\n-net.ipv4.conf.all.rp_filter = 1\n';
    const r = lintSysctl({ path: nodePath, text }, nodeCtx);
    assert.equal(r.filter((x) => x.rule === 'sysctl/syntax').length, 2);
    assert.ok(r.some((x) => x.rule === 'sysctl/duplicate'));
    const t = r.find((x) => x.rule === 'sysctl/unknown-key')!;
    assert.match(t.message, /bridge-nf-call-iptables/);
  });

  it('modules: required, syntax, typos, dash/underscore equivalence', () => {
    const f = lintModules({ path: 'etc/modules-load.d/k8s.conf', text: 'overlay\n' }, { inventory }).find((x) => x.rule === 'modules/required')!;
    assert.deepEqual(lintModules({ path: 'etc/modules-load.d/k8s.conf', text: applyEdits('overlay\n', f.fixes![0]!.edits) }, { inventory }), []);
    assert.deepEqual(lintModules({ path: 'etc/modules-load.d/k8s.conf', text: 'overlay\nbr-netfilter\n' }, { inventory }), []);
    const r = lintModules({ path: 'etc/modules-load.d/k8s.conf', text: 'overlay\nbr_netfiltr\nnf_conntrack hashsize=1\n' }, { inventory }).map((x) => x.rule);
    assert.ok(r.includes('modules/unknown') && r.includes('modules/syntax') && r.includes('modules/required'));
    assert.deepEqual(lintModules({ path: 'etc/modules-load.d/lb.conf', text: '# kubeadm-workbench: roles=loadbalancer\n' }, { inventory }), []);
  });
});

describe('sysctl detection by content', () => {
  it('a .conf with only kernel settings is a sysctl file; keepalived.conf is not', () => {
    assert.equal(detectKind('k8s.conf', 'net.ipv4.ip_forward = 1\n'), 'sysctl');
    assert.notEqual(detectKind('keepalived.conf', 'vrrp_instance VI_1 {\n  state MASTER\n}\n'), 'sysctl');
    assert.notEqual(detectKind('other.conf', 'foo = bar\n'), 'sysctl');
  });
});
