/**
 * A Keepalived pair is its VRRP instance, wherever its files lie: two folders that name no balancer (router_id copied)
 * are compared, a generated/ set and a copy are not; unicast peers and source against the inventory's balancers;
 * nopreempt on a MASTER. The context is the one the editor and `lint` build (siblings + vrrpElsewhere).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLint, type JsonRow } from '../../../src/cli/lint';
import { lintKeepalived } from '../../../src/core/keepalived/lint';
import { vrrpFilesElsewhere } from '../../../src/core/lint/siblings';
import type { SourceFile } from '../../../src/core/lint/types';
import { applyEdits, describe, KEEPALIVED_FIXTURES, loadInventory } from '../haproxy/helpers';
import { memoryIo } from '../cli/memoryIo';
import { tempDir } from '../../tempDir';
import { pairContext } from './pairFixtures';

const inv2 = loadInventory('test/fixtures/keepalived/inventory-2lb.yaml');
const valid = (n: 1 | 2) => readFileSync(join(KEEPALIVED_FIXTURES, 'pairs/valid', `keepalived-lb${n}.conf`), 'utf8');
const lb1 = valid(1);
const lb2 = valid(2);

/** Every finding of every file of a workspace, with the file it is on. */
function lintWorkspace(files: SourceFile[]): { file: string; rule: string; message: string; line: number }[] {
  return files.flatMap((f) => lintKeepalived(f.text, pairContext(f, files, inv2), f.path).map((x) => ({ file: x.file ?? f.path, rule: x.rule, message: x.message, line: x.range.start.line })));
}

const onBoth = (fs: ReturnType<typeof lintWorkspace>, rule: string) => [...new Set(fs.filter((x) => x.rule === rule).map((x) => x.file))].sort();

test('keepalived files of other config sets are offered to a keepalived file only', () => {
  const files = ['lb-a/keepalived.conf', 'lb-b/keepalived.conf', 'lb-b/haproxy.cfg', 'generated/keepalived-lb1.conf', 'hosts/lb1/keepalived.conf', 'hosts/lb2/keepalived.conf'].map((path) => ({ path }));
  const hosts = new Set(['lb1', 'lb2']);
  assert.deepEqual(vrrpFilesElsewhere('lb-a/keepalived.conf', files, hosts).map((f) => f.path), ['lb-b/keepalived.conf', 'generated/keepalived-lb1.conf', 'hosts/lb1/keepalived.conf', 'hosts/lb2/keepalived.conf']);
  // hosts/lb1 and hosts/lb2 are one config set (folders named after balancers): siblings, not "elsewhere"
  assert.deepEqual(vrrpFilesElsewhere('hosts/lb1/keepalived.conf', files, hosts).map((f) => f.path), ['lb-a/keepalived.conf', 'lb-b/keepalived.conf', 'generated/keepalived-lb1.conf']);
  assert.deepEqual(vrrpFilesElsewhere('lb-b/haproxy.cfg', files, hosts), []);
});

test('pairs in differently named folders, router_id copied: judged as one VRRP instance, on both files', () => {
  const copied = (text: string) => text.replace('router_id lb2', 'router_id lb1');
  // the same pair in two folders that name no balancer: clean apart from where the copied router_id puts lb-b's file
  const clean = lintWorkspace([
    { path: 'lb-a/keepalived.conf', text: lb1 },
    { path: 'lb-b/keepalived.conf', text: lb2 },
  ]);
  assert.deepEqual(clean, [], describe(clean as never));
  // both MASTER (the state was not changed in the copy): one-master on both files
  const twoMasters = lintWorkspace([
    { path: 'lb-a/keepalived.conf', text: lb1 },
    { path: 'lb-b/keepalived.conf', text: copied(lb1).replace('priority 100', 'priority 90') },
  ]);
  assert.deepEqual(onBoth(twoMasters, 'keepalived/one-master'), ['lb-a/keepalived.conf', 'lb-b/keepalived.conf']);
  // a VIP shared, but the virtual_router_id, the authentication or the advert interval differs: on both files
  for (const [rule, edit] of [
    ['keepalived/virtual-router-id', (t: string) => t.replace('virtual_router_id 51', 'virtual_router_id 52')],
    ['keepalived/authentication', (t: string) => t.replace('auth_pass k8s-vip', 'auth_pass other')],
    ['keepalived/pair-agreement', (t: string) => t.replace('advert_int 1', 'advert_int 3')],
  ] as const) {
    const fs = lintWorkspace([
      { path: 'site/lb-a/keepalived.conf', text: lb1 },
      { path: 'site/lb-b/keepalived.conf', text: edit(lb2) },
    ]);
    assert.deepEqual(onBoth(fs, rule), ['site/lb-a/keepalived.conf', 'site/lb-b/keepalived.conf'], `${rule}: ${JSON.stringify(fs)}`);
    for (const f of fs.filter((x) => x.rule === rule)) assert.match(f.message, /split brain|differs/);
  }
  // failover by the files' numbers across the folders: weight -5 cannot take the MASTER (100) below 90
  const weak = lintWorkspace([
    { path: 'lb-a/keepalived.conf', text: lb1.replace('weight -20', 'weight -5') },
    { path: 'lb-b/keepalived.conf', text: lb2 },
  ]);
  assert.match(weak.find((x) => x.rule === 'keepalived/script-weight' && x.file === 'lb-a/keepalived.conf')?.message ?? '', /drops to 95, not below the BACKUP lb-b\/keepalived\.conf's 90/);
});

test('not a pair: a set with two files of its own (generated/), a copy of the same file, another VIP', () => {
  const masterCopy = lb1.replace('priority 100', 'priority 90');
  // generated/ holds a complete pair: the live files are not compared with it, nor it with them
  const withGenerated = lintWorkspace([
    { path: 'live-a/keepalived.conf', text: lb1 },
    { path: 'live-b/keepalived.conf', text: lb2 },
    { path: 'generated/keepalived-lb1.conf', text: lb1 },
    { path: 'generated/keepalived-lb2.conf', text: lb2 },
  ]);
  assert.deepEqual(withGenerated, []);
  // a byte-identical copy in a backup folder is the same balancer's file, not its peer (else: "two MASTERs")
  assert.deepEqual(lintWorkspace([
    { path: 'keepalived.conf', text: lb1 },
    { path: 'backup/keepalived.conf', text: lb1 },
  ]), []);
  // another cluster's balancer (another VIP) in another folder: a different VRRP instance
  const other = lintWorkspace([
    { path: 'cluster-a/keepalived.conf', text: lb1 },
    { path: 'cluster-b/keepalived.conf', text: masterCopy.replace('10.3.60.100/24', '10.3.60.200/24') },
  ]);
  assert.ok(!other.some((x) => x.rule === 'keepalived/one-master'), JSON.stringify(other));
});

test('unicast peers and source checked against the inventory balancers, with fixes', () => {
  const uni = (text: string, src: string, peers: string[]) => text.replace('    advert_int 1\n', `    advert_int 1\n    unicast_src_ip ${src}\n    unicast_peer {\n${peers.map((p) => `        ${p}\n`).join('')}    }\n`);
  const ok = lintWorkspace([
    { path: 'keepalived-lb1.conf', text: uni(lb1, '10.3.60.50', ['10.3.60.56']) },
    { path: 'keepalived-lb2.conf', text: uni(lb2, '10.3.60.56', ['10.3.60.50']) },
  ]);
  assert.deepEqual(ok, []);
  const lint = (text: string, path = 'keepalived-lb1.conf') => lintKeepalived(text, { inventory: inv2 }, path).filter((x) => x.rule === 'keepalived/unicast');
  // a peer that is no balancer, where lb2 is missing: one finding each; the fix puts lb2's address in its place
  const stranger = uni(lb1, '10.3.60.50', ['10.3.60.57']);
  const [missing, notBalancer] = lint(stranger);
  assert.match(missing!.message, /unicast_peer lacks lb2 \(10\.3\.60\.56\)/);
  assert.match(notBalancer!.message, /unicast_peer 10\.3\.60\.57 is no balancer of the inventory \(lb1 \(10\.3\.60\.50\), lb2 \(10\.3\.60\.56\)\)/);
  assert.deepEqual(lint(applyEdits(stranger, notBalancer!.fixes![0]!.edits)), []);
  // a balancer missing from the list: the fix adds it
  const lacking = uni(lb1, '10.3.60.50', []);
  const f = lint(lacking);
  assert.equal(f.length, 1);
  assert.deepEqual(lint(applyEdits(lacking, f[0]!.fixes![0]!.edits)), []);
  // the own address in the peer list
  assert.match(lint(uni(lb1, '10.3.60.50', ['10.3.60.50', '10.3.60.56']))[0]?.message ?? '', /10\.3\.60\.50 is this balancer's own address \(lb1\)/);
  // a source that is not the host's own address: keepalived cannot bind it (FAULT)
  const wrongSrc = lint(uni(lb2, '10.3.60.50', ['10.3.60.50']), 'keepalived-lb2.conf');
  assert.match(wrongSrc[0]?.message ?? '', /unicast_src_ip 10\.3\.60\.50 is lb1's address, but this file is lb2's \(10\.3\.60\.56\).*FAULT/);
  assert.equal(wrongSrc[0]!.fixes![0]!.edits[0]!.newText, '10.3.60.56');
  assert.match(lint(uni(lb1, '10.3.61.9', ['10.3.60.56']))[0]?.message ?? '', /unicast_src_ip 10\.3\.61\.9 is no balancer's address/);
  // without an inventory nothing is compared with it
  assert.deepEqual(lintKeepalived(stranger, {}, 'keepalived-lb1.conf').filter((x) => x.rule === 'keepalived/unicast'), []);
});

test('state MASTER with nopreempt is reported: keepalived ignores nopreempt there', () => {
  const text = lb1.replace('    advert_int 1\n', '    advert_int 1\n    nopreempt\n');
  const f = lintKeepalived(text, { inventory: inv2 }, 'keepalived-lb1.conf').find((x) => /nopreempt/.test(x.message))!;
  assert.equal(f.rule, 'keepalived/state');
  assert.match(f.message, /'nopreempt' does not work with state MASTER/);
  assert.equal(lintKeepalived(applyEdits(text, f.fixes![0]!.edits), { inventory: inv2 }, 'keepalived-lb1.conf').length, 0);
  // on BACKUPs with nopreempt on both it is fine
  const backups = [
    { path: 'keepalived-lb1.conf', text: text.replace('state MASTER', 'state BACKUP') },
    { path: 'keepalived-lb2.conf', text: lb2.replace('    advert_int 1\n', '    advert_int 1\n    nopreempt\n') },
  ];
  assert.ok(!lintWorkspace(backups).some((x) => /nopreempt/.test(x.message)));
});

test('lint (CLI) over a folder pairs lb-a/ and lb-b/ by their VRRP instance', async () => {
  const dir = tempDir('kw-pairs-');
  cpSync(join(KEEPALIVED_FIXTURES, 'inventory-2lb.yaml'), join(dir, 'inventory.yaml'));
  for (const [d, text] of [['lb-a', lb1], ['lb-b', lb2.replace('virtual_router_id 51', 'virtual_router_id 52')]] as const) {
    mkdirSync(join(dir, d));
    writeFileSync(join(dir, d, 'keepalived.conf'), text);
  }
  const io = memoryIo();
  assert.equal(await runLint(['--format', 'json', dir], io), 1, io.err);
  const rows = (JSON.parse(io.out) as JsonRow[]).filter((r) => r.rule === 'keepalived/virtual-router-id');
  assert.deepEqual(rows.map((r) => r.file.replace(dir + '/', '')).sort(), ['lb-a/keepalived.conf', 'lb-b/keepalived.conf']);
});
