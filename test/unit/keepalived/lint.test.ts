import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeepalivedConfigs, vipPrefix, vrrpRoles } from '../../../src/core/generate/keepalived';
import { detectKeepalived, keepalivedLinter, lintKeepalived, summarize } from '../../../src/core/keepalived/lint';
import { parseKeepalived, tokenize, walk } from '../../../src/core/keepalived/parse';
import { KEEPALIVED_RULES } from '../../../src/core/keepalived/rules';
import { detectKind } from '../../../src/core/lint/registry';
import { applyEdits, describe, fixtures, KEEPALIVED_FIXTURES, loadInventory, ROOT, seedInventory } from '../haproxy/helpers';
import { pairContext, pairWorkspaces } from './pairFixtures';

const inv = seedInventory();
const inv2 = loadInventory('test/fixtures/keepalived/inventory-2lb.yaml');
const seed = readFileSync(join(ROOT, 'examples/labs-k8s/keepalived.conf'), 'utf8');
const rules = (text: string, ctx = {}, path = 'keepalived.conf') => lintKeepalived(text, { inventory: inv, ...ctx }, path).map((f) => f.rule);

test('tokenizer: glued braces, # and ! comments, quoted strings, positions', () => {
  const { lines } = tokenize('global_defs{ router_id lb # c\n  script "/usr/bin/killall -0 haproxy" ! x\n}');
  assert.deepEqual(lines[0]!.map((t) => [t.text, t.start, t.end]), [
    ['global_defs', 0, 11],
    ['{', 11, 12],
    ['router_id', 13, 22],
    ['lb', 23, 25],
  ]);
  assert.deepEqual(lines[1]!.map((t) => t.text), ['script', '/usr/bin/killall -0 haproxy']);
  assert.equal(lines[1]![1]!.quoted, true);
  assert.deepEqual(lines[2]!.map((t) => t.text), ['}']);
});

test('parser: nested blocks, a brace on the next line, conditionals and parameters', () => {
  const cfg = parseKeepalived('$IF=ens192\nvrrp_instance VI\n{\n  @lb1 priority 100\n  virtual_ipaddress {\n    10.0.0.1/24 dev ens192\n  }\n}\n');
  assert.deepEqual(cfg.problems, []);
  const inst = cfg.nodes[0]!;
  assert.equal(inst.keyword.text, 'vrrp_instance');
  assert.deepEqual(inst.children!.map((c) => c.keyword.text), ['priority', 'virtual_ipaddress']);
  assert.deepEqual([...walk(cfg.nodes)].map((n) => n.keyword.text), ['vrrp_instance', 'priority', 'virtual_ipaddress', '10.0.0.1/24']);
  assert.equal(inst.close!.line, 7);
});

test('includes are resolved from the workspace siblings; findings in them name the file', () => {
  const siblings = [{ path: 'etc/keepalived/conf.d/vrrp.conf', text: seed.split('vrrp_instance')[0]!.replace(/global_defs \{[^}]*\}/, '').replace('interval 2', 'interval 0') }];
  const main = seed.replace(/vrrp_script chk_haproxy \{[^}]*\}/, 'include /etc/keepalived/conf.d/*.conf');
  const fs = lintKeepalived(main, { inventory: inv, siblings }, 'etc/keepalived/keepalived.conf');
  assert.deepEqual(fs.map((f) => [f.rule, f.file]), [['keepalived/script-values', 'etc/keepalived/conf.d/vrrp.conf']]);
  const cfg = parseKeepalived(main, 'etc/keepalived/keepalived.conf', () => siblings);
  assert.deepEqual(cfg.included, ['etc/keepalived/conf.d/vrrp.conf']);
});

test('kind detection by name and content', () => {
  assert.ok(detectKeepalived('keepalived.conf', ''));
  assert.ok(detectKeepalived('lb2/keepalived-lb2.conf', ''));
  assert.ok(detectKeepalived('etc/vrrp/api.conf', 'vrrp_instance VI {\n}\n'));
  assert.ok(!detectKeepalived('etc/sysctl.d/99-k8s.conf', 'net.ipv4.ip_forward = 1\n'));
  assert.ok(!detectKeepalived('etc/modules-load.d/k8s.conf', 'overlay\nbr_netfilter\n'));
  assert.equal(detectKind('examples/labs-k8s/keepalived.conf', seed), 'keepalived');
  assert.ok(keepalivedLinter.rules.length >= 20);
});

test('every rule has an id, a why and a docs link; the corpus covers them and fixable ones offer fixes', () => {
  for (const r of Object.values(KEEPALIVED_RULES)) {
    assert.match(r.id, /^keepalived\/[a-z-]+$/);
    assert.ok(r.why.length > 20 && r.why.trim().endsWith('.'), r.id);
    assert.match(r.docs ?? '', /^https:\/\/keepalived\.readthedocs\.io\//);
  }
  const seen = new Map<string, boolean>();
  const add = (fs: ReturnType<typeof lintKeepalived>) => fs.forEach((x) => seen.set(x.rule, (seen.get(x.rule) ?? false) || !!x.fixes?.length));
  for (const f of fixtures(KEEPALIVED_FIXTURES, '.conf')) add(lintKeepalived(f.text, { inventory: inv }, f.name));
  for (const { files } of pairWorkspaces()) for (const f of files) add(lintKeepalived(f.text, pairContext(f, files, inv2), f.path));
  add(lintKeepalived(seed.replace('priority 100', 'priority 90'), { inventory: inv }));
  add(lintKeepalived(seed.replace('    state MASTER\n', '    state MASTER\n    advert_int 0\n').replace('    advert_int 1\n', '')));
  add(lintKeepalived('global_defs {\n}\n'));
  for (const r of Object.values(KEEPALIVED_RULES)) {
    assert.ok(seen.has(r.id), `${r.id} never fires`);
    if (r.fixable) assert.ok(seen.get(r.id), `${r.id} is fixable but no finding carries a fix`);
  }
});

test('the script weight must take the MASTER below the best BACKUP (seed: 100 - 20 = 80 < 90)', () => {
  const pair = (w1: number) => {
    const lb1 = seed.replace('router_id labs-k8s-balancer', 'router_id lb1').replace('weight -20', `weight ${w1}`);
    const lb2 = seed.replace('router_id labs-k8s-balancer', 'router_id lb2').replace('state MASTER', 'state BACKUP').replace('priority 100', 'priority 90').replace('weight -20', `weight ${w1}`);
    const siblings = [
      { path: 'keepalived-lb1.conf', text: lb1 },
      { path: 'keepalived-lb2.conf', text: lb2 },
    ];
    return lintKeepalived(lb1, { inventory: inv2, siblings }, 'keepalived-lb1.conf');
  };
  assert.deepEqual(pair(-20), []);
  assert.deepEqual(pair(-11), []);
  const f = pair(-10).find((x) => x.rule === 'keepalived/script-weight')!;
  assert.match(f.message, /drops to 90, not below the BACKUP keepalived-lb2.conf's 90/);
  assert.equal(f.fixes![0]!.edits[0]!.newText, '-11');
  assert.ok(pair(5).some((x) => x.rule === 'keepalived/script-weight'), 'positive weight: 100 is not below 90 + 5');
  assert.deepEqual(pair(11).filter((x) => x.rule === 'keepalived/script-weight'), []);
  assert.deepEqual(pair(0).filter((x) => x.rule === 'keepalived/script-weight'), [], 'weight 0: a failing script means FAULT, which releases the VIP');
  // without the other balancer's file, the inventory's priorities are used, and the message says so
  const alone = lintKeepalived(seed.replace('router_id labs-k8s-balancer', 'router_id lb1').replace('weight -20', 'weight -5'), { inventory: inv2 }, 'keepalived.conf');
  const fallback = alone.find((x) => x.rule === 'keepalived/script-weight');
  assert.match(fallback?.message ?? describe(alone), /lb2 \(no keepalived file of it in the workspace; priority 90 from the inventory\)/);
});

/** A MASTER/BACKUP pair of files for lb1/lb2 (the generated layout's names) with the given numbers. */
function filePair(m: { priority: number; weight: number }, b: { priority: number; weight: number; vrid?: number }, dir = 'balancers') {
  const conf = (rid: string, state: string, p: { priority: number; weight: number; vrid?: number }) =>
    seed.replace('router_id labs-k8s-balancer', `router_id ${rid}`).replace('state MASTER', `state ${state}`).replace('priority 100', `priority ${p.priority}`).replace('weight -20', `weight ${p.weight}`).replace('virtual_router_id 51', `virtual_router_id ${p.vrid ?? 51}`);
  return [
    { path: `${dir}/keepalived-lb1.conf`, text: conf('lb1', 'MASTER', m) },
    { path: `${dir}/keepalived-lb2.conf`, text: conf('lb2', 'BACKUP', b) },
  ];
}
const lintPair = (files: { path: string; text: string }[]) => files.flatMap((f) => lintKeepalived(f.text, { inventory: inv2, siblings: files }, f.path).map((x) => ({ ...x, file: f.path })));

test("the kubeadm documentation's pair (MASTER 101, BACKUP 100, weight -2) fails over by its files' numbers", () => {
  // the inventory says 100/90, by which 101 - 2 = 99 would stay above the BACKUP; the files are what runs
  const fs = lintPair(filePair({ priority: 101, weight: -2 }, { priority: 100, weight: -2 }));
  assert.deepEqual(fs.filter((x) => x.severity === 'error'), [], describe(fs));
  // the only findings are the file-vs-inventory differences, as warnings naming both places
  assert.deepEqual([...new Set(fs.map((x) => x.rule))], ['keepalived/inventory-mismatch']);
  for (const f of fs) assert.match(f.message, /in this file, but the inventory gives lb[12] priority (100|90)/);
});

test("a pair that never fails over by its files' numbers is flagged on both files, although the inventory's would", () => {
  // inventory: 100 - 15 = 85 < 90 would fail over; files: 110 - 15 = 95, not below 90
  const files = filePair({ priority: 110, weight: -15 }, { priority: 90, weight: -15 });
  const fs = lintPair(files).filter((x) => x.rule === 'keepalived/script-weight');
  assert.deepEqual(fs.map((x) => [x.file, x.range.start.line]), [[files[0]!.path, 10], [files[1]!.path, 17]]);
  assert.match(fs[0]!.message, /drops to 95, not below the BACKUP balancers\/keepalived-lb2\.conf's 90/);
  assert.equal(fs[0]!.fixes![0]!.edits[0]!.newText, '-21');
  assert.equal(fs[1]!.fixes![0]!.edits[0]!.newText, '96');
  // the fixed weight takes the pair clean of failover findings
  const fixed = [{ ...files[0]!, text: applyEdits(files[0]!.text, fs[0]!.fixes![0]!.edits) }, files[1]!];
  assert.deepEqual(lintPair(fixed).filter((x) => x.rule === 'keepalived/script-weight'), []);
});

test('differing virtual router ids are split brain, reported on both files', () => {
  const files = filePair({ priority: 100, weight: -20 }, { priority: 90, weight: -20, vrid: 52 });
  const fs = lintPair(files).filter((x) => x.rule === 'keepalived/virtual-router-id');
  assert.deepEqual(fs.map((x) => x.file), files.map((f) => f.path));
  for (const f of fs) assert.match(f.message, /split brain/);
});

test('peers by layout: a header or a balancer-named folder pairs files anywhere in the workspace', () => {
  const [a, b] = filePair({ priority: 100, weight: -20 }, { priority: 90, weight: -20, vrid: 52 });
  const byHeader = [
    { path: 'site-a/keepalived.conf', text: '# kubeadm-workbench: hosts=lb1\n' + a!.text.replace('router_id lb1', 'router_id x') },
    { path: 'site-b/keepalived.conf', text: '# kubeadm-workbench: hosts=lb2\n' + b!.text.replace('router_id lb2', 'router_id x') },
  ];
  assert.ok(lintPair(byHeader).some((x) => x.rule === 'keepalived/virtual-router-id'));
  // two files for the same balancer are not peers
  const same = [byHeader[0]!, { path: 'site-b/keepalived.conf', text: byHeader[0]!.text.replace('virtual_router_id 51', 'virtual_router_id 52') }];
  assert.ok(!lintPair(same).some((x) => x.rule === 'keepalived/virtual-router-id' && /split brain/.test(x.message)));
});

test('which balancer a file belongs to: router_id, then the path, then the only balancer', () => {
  const lb2 = seed.replace('state MASTER', 'state BACKUP').replace('priority 100', 'priority 90');
  assert.deepEqual(rules(lb2.replace('router_id labs-k8s-balancer', 'router_id lb2'), { inventory: inv2 }), []);
  assert.deepEqual(rules(lb2.replace('router_id labs-k8s-balancer', 'router_id x'), { inventory: inv2 }, 'hosts/lb2/keepalived.conf'), []);
  assert.deepEqual(rules(lb2.replace('router_id labs-k8s-balancer', 'router_id lb1'), { inventory: inv2 }), ['keepalived/inventory-mismatch', 'keepalived/inventory-mismatch']);
});

test('VIP: must be the endpoint host, with a prefix that covers the balancers', () => {
  assert.deepEqual(rules(seed.replace('10.3.60.100/24', '10.3.60.100/30')), ['keepalived/vip-subnet']);
  const wrong = seed.replace('10.3.60.100/24', '10.3.60.101/24');
  const f = lintKeepalived(wrong, { inventory: inv }).find((x) => x.rule === 'keepalived/vip')!;
  assert.equal(applyEdits(wrong, f.fixes![0]!.edits), seed);
});

test('script path: a workspace script is fine, an unknown absolute path and a bare name are not', () => {
  const custom = seed.replace('"/usr/bin/killall -0 haproxy"', '"/etc/keepalived/check_apiserver.sh"');
  assert.deepEqual(rules(custom), ['keepalived/script-path']);
  assert.deepEqual(rules(custom, { siblings: [{ path: 'lb/check_apiserver.sh', text: '#!/bin/sh\n' }] }), []);
  const bare = seed.replace('"/usr/bin/killall -0 haproxy"', '"killall -0 haproxy"');
  const f = lintKeepalived(bare, { inventory: inv }).find((x) => x.rule === 'keepalived/script-path')!;
  assert.equal(applyEdits(bare, f.fixes![0]!.edits), seed);
});

test('summary: instance values and defaults', () => {
  const s = summarize(parseKeepalived(seed));
  const i = s.instances[0]!;
  assert.deepEqual([i.name, i.stateValue, i.priorityValue, i.vridValue, i.vips.map((v) => v.token.text), i.tracks.map((t) => t.keyword.text)], ['VI_K8S_API', 'MASTER', 100, 51, ['10.3.60.100/24'], ['chk_haproxy']]);
  assert.equal(s.scripts.get('chk_haproxy')!.weightValue, -20);
  assert.equal(summarize(parseKeepalived(seed.replace('    priority 100\n', ''))).instances[0]!.priorityValue, 255);
});

test('generation: roles, prefix and weight follow the inventory', () => {
  assert.deepEqual(vrrpRoles(inv2).map((r) => [r.host.name, r.state, r.priority, r.iface]), [
    ['lb1', 'MASTER', 100, 'ens192'],
    ['lb2', 'BACKUP', 90, 'ens192'],
  ]);
  assert.equal(vipPrefix('10.3.60.100', ['10.3.60.50', '10.3.60.56']), 24);
  assert.equal(vipPrefix('10.3.60.100', ['10.3.61.50']), 23);
  const confs = generateKeepalivedConfigs(inv, { authPass: 'k8s-vip' });
  assert.equal(confs['labs-k8s-balancer'], seed.replace('\n', '\n# Generated from the inventory by Kubeadm Workbench.\n'));
  const bare = { ...inv2, hosts: inv2.hosts.map((h) => ({ ...h, vrrp: undefined })) };
  const gen = generateKeepalivedConfigs(bare);
  assert.match(gen['lb1']!, /state MASTER\n {4}interface ens192\n {4}virtual_router_id 51\n {4}priority 100/);
  assert.match(gen['lb2']!, /state BACKUP\n {4}interface ens192\n {4}virtual_router_id 51\n {4}priority 90/);
  const close = { ...inv2, hosts: inv2.hosts.map((h) => (h.vrrp ? { ...h, vrrp: { ...h.vrrp, priority: h.vrrp.state === 'MASTER' ? 150 : 100 } } : h)) };
  assert.match(generateKeepalivedConfigs(close)['lb1']!, /weight -51/);
});

test('peers: files next to this one or named after another balancer, not every keepalived.conf of the workspace', () => {
  const master = seed.replace('router_id labs-k8s-balancer', 'router_id lb1');
  const otherMaster = seed.replace('router_id labs-k8s-balancer', 'router_id lb2');
  const ctx = (siblings: { path: string; text: string }[], path: string) => lintKeepalived(master, { inventory: inv2, siblings }, path).map((f) => f.rule);
  assert.deepEqual(ctx([{ path: 'test/other-cluster/keepalived.conf', text: otherMaster }], 'cluster/keepalived.conf'), []);
  assert.ok(ctx([{ path: 'cluster/keepalived-lb2.conf', text: otherMaster }], 'cluster/keepalived-lb1.conf').includes('keepalived/one-master'));
  assert.ok(ctx([{ path: 'hosts/lb2/keepalived.conf', text: otherMaster }], 'hosts/lb1/keepalived.conf').includes('keepalived/one-master'));
});

test('an included fragment is linted in the context of the file that includes it', () => {
  const main = seed.replace(/vrrp_instance VI_K8S_API \{[\s\S]*$/, 'include conf.d/*.conf\n');
  const fragment = seed.replace(/^[\s\S]*?(vrrp_instance VI_K8S_API \{)/, '$1');
  const siblings = [
    { path: 'lb/keepalived.conf', text: main },
    { path: 'lb/conf.d/api.conf', text: fragment },
  ];
  assert.deepEqual(lintKeepalived(fragment, { inventory: inv, siblings }, 'lb/conf.d/api.conf'), []);
  assert.deepEqual(lintKeepalived(main, { inventory: inv, siblings }, 'lb/keepalived.conf'), []);
  // alone, the fragment's track_script names nothing
  assert.deepEqual(rules(fragment, {}, 'lb/conf.d/api.conf'), ['keepalived/track-script']);
});
