/**
 * The preflight (engine/preflight.ts) against real sshd instances on loopback, one host per way of failing
 * (test/unit/preflight/zoo.ts): each host's first failing check names its cause and fix; all hosts are judged in
 * parallel, answering ones in well under 3 s and a dead one after its connect timeout, once; unknown host keys are
 * gathered, reviewed together and accepted only by the review; a host passes once its cause is fixed.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { Inventory } from '../../../src/core/inventory/types';
import { firstFailure, hostState, passes, type HostPreflight, type PreflightReport } from '../../../src/core/preflight/model';
import { CliHostKeyPrompt } from '../../../src/core/ssh/hostKeyPolicy';
import { createInventoryPool } from '../../../src/adapters/ssh/fromInventory';
import type { SshPool } from '../../../src/adapters/ssh/pool';
import { PREFLIGHT_CONNECT_TIMEOUT_MS, runPreflight } from '../../../src/engine/preflight';
import { preflightStep } from '../../../src/engine/workflows/preflightStep';
import { ScriptedUi } from '../workflows/scriptedUi';
import { keygen, tempDir } from '../ssh/keys';
import { startZoo, type Zoo } from './zoo';
import { useMessages } from '../../../src/core/l10n';

const tmp = tempDir('kw-preflight-');
let zoo: Zoo;
let inv: Inventory;
const savedSock = process.env.SSH_AUTH_SOCK;
const TIMEOUT_MS = 2000;

before(async () => {
  delete process.env.SSH_AUTH_SOCK;
  zoo = await startZoo(tmp.dir, { balancer: 'ok', m01: 'refused', m02: 'unknown-key', m03: 'not-accepted', w01: 'sudo-password', w02: 'no-identity', w03: 'dead' });
  const parsed = parseInventory(zoo.inventoryText);
  assert.ok(parsed.inventory, JSON.stringify(parsed.findings));
  inv = parsed.inventory;
});

after(async () => {
  await zoo?.stop();
  if (savedSock !== undefined) process.env.SSH_AUTH_SOCK = savedSock;
  tmp.cleanup();
});

function pool(own = join(tmp.dir, 'own_known_hosts')): SshPool {
  return createInventoryPool(inv, { prompt: new CliHostKeyPrompt([]), sshConfigFile: zoo.sshConfig, knownHostsFile: zoo.knownHosts, ownKnownHostsFile: own, homeDir: join(tmp.dir, 'home'), auth: { agentSocket: '', passphrase: async () => undefined } }).pool;
}

const row = (r: PreflightReport, short: string): HostPreflight => r.hosts.find((h) => h.host === `labs-k8s-${short}`)!;

test('each host is judged by its first failing check, with the cause and the fix; all at once, a dead host costs its timeout once', async (t) => {
  const p = pool();
  try {
    const r = await runPreflight(p, { inventory: inv, operation: 'test', hosts: inv.hosts.map((h) => h.name), sudoPasswordAsked: false, timeoutMs: TIMEOUT_MS });
    const first = (short: string) => firstFailure(row(r, short).checks);
    t.diagnostic(r.hosts.map((h) => `${h.host}: ${hostState(h)} in ${h.ms} ms${firstFailure(h.checks) ? ` — ${firstFailure(h.checks)!.id}: ${firstFailure(h.checks)!.cause}` : ''}`).join('\n'));
    assert.equal(hostState(row(r, 'balancer')), 'ok', JSON.stringify(row(r, 'balancer').checks));
    assert.deepEqual([first('m01')?.id, first('m01')?.kind], ['reach', 'refused']);
    assert.match(first('m01')!.cause!, /nothing listens on 127\.0\.0\.1 port \d+: the connection was refused/);
    assert.match(first('m01')!.fix!, /systemctl start ssh/);
    assert.deepEqual([first('m02')?.id, first('m02')?.kind], ['host-key', 'host-key-unknown']);
    assert.match(row(r, 'm02').unknownKey?.fingerprint ?? '', /^SHA256:/);
    assert.equal(row(r, 'm02').unknownKey?.check, 'ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub');
    assert.deepEqual([first('m03')?.id, first('m03')?.kind], ['login', 'key-not-accepted']);
    assert.match(first('m03')!.fix!, /ssh-copy-id -i .*id_test\.pub -p \d+ root@127\.0\.0\.1/);
    // sudo asks for a password: the command line without --ask-become-pass cannot give it, so it fails here…
    assert.deepEqual([first('w01')?.id, first('w01')?.kind], ['sudo', 'sudo-password']);
    assert.match(first('w01')!.fix!, /--ask-become-pass|NOPASSWD/);
    assert.deepEqual([first('w02')?.id, first('w02')?.kind], ['keys', 'no-usable-key']);
    assert.match(first('w02')!.cause!, new RegExp(`${zoo.missingKey.replace(/[.]/g, '\\.')} does not exist`));
    assert.deepEqual([first('w03')?.id, first('w03')?.kind], ['reach', 'timeout']);
    // The bound: the dead host's own row took its timeout (once, not retried); everything else was judged meanwhile.
    const dead = row(r, 'w03').ms;
    assert.ok(dead >= TIMEOUT_MS - 50 && dead < TIMEOUT_MS + 1000, `the dead host took ${dead} ms for a ${TIMEOUT_MS} ms timeout`);
    assert.ok(r.ms < TIMEOUT_MS + 1500, `all ${r.hosts.length} hosts in ${r.ms} ms: in parallel, bounded by the one timeout`);
    const answering = r.hosts.filter((h) => h.host !== 'labs-k8s-w03');
    const slowest = Math.max(...answering.map((h) => h.ms));
    t.diagnostic(`answering hosts judged in ≤ ${slowest} ms (goal ≤ 3000), the non-answering one in ${dead} ms (timeout ${TIMEOUT_MS}), all ${r.hosts.length} in ${r.ms} ms`);
    assert.ok(slowest < 3000, `answering hosts judged in ${slowest} ms`);
  } finally {
    await p.close();
  }
});

test('…and only warns when the operation asks the sudo password itself', async () => {
  const p = pool();
  try {
    const r = await runPreflight(p, { inventory: inv, operation: 'test', hosts: ['labs-k8s-w01'], sudoPasswordAsked: true, timeoutMs: TIMEOUT_MS });
    const sudo = r.hosts[0]!.checks.find((c) => c.id === 'sudo')!;
    assert.equal(sudo.state, 'warn');
    assert.match(sudo.cause!, new RegExp(`sudo asks ${zoo.user!.name} for a password there`));
    assert.ok(passes(r));
  } finally {
    await p.close();
  }
});

test('the step: the table and a refusal before any question; unknown keys reviewed together, accepted only by the review', async () => {
  const own = join(tmp.dir, 'own_step');
  const p = pool(own);
  try {
    const hosts = ['labs-k8s-balancer', 'labs-k8s-m01', 'labs-k8s-m02'];
    // Nothing accepted in the review: m02 stays refused, the operation too.
    const refusing = new ScriptedUi();
    const no = await preflightStep(refusing, { ssh: p, inventory: inv, operation: 'Bring Up', hosts, sudoPasswordAsked: true, timeoutMs: TIMEOUT_MS });
    assert.equal(no.ok, false);
    assert.deepEqual(refusing.reviews.map((k) => k.map((x) => x.host)), [['labs-k8s-m02']]);
    assert.equal(refusing.preflights.length, 1);
    assert.equal(refusing.preflights[0]!.refused, 'Bring Up');
    assert.match(refusing.messages('error')[0]!, /^Bring Up refused before it asked anything: 2 of 3 hosts fail the preflight/);
    assert.ok(!refusing.transcript.some((l) => /^(confirm|pick|input|secret):/.test(l)), refusing.transcript.join('\n'));
    // Accepted and remembered in the review: m02 is checked again and passes; the key is in the own known_hosts.
    const accepting = new ScriptedUi({ reviewHostKeys: (keys) => ({ accepted: keys, remember: true }) });
    const yes = await preflightStep(accepting, { ssh: p, inventory: inv, operation: 'Bring Up', hosts: ['labs-k8s-balancer', 'labs-k8s-m02'], sudoPasswordAsked: true, timeoutMs: TIMEOUT_MS });
    assert.equal(yes.ok, true, JSON.stringify(yes.report.hosts.map((h) => h.checks)));
    assert.equal(hostState(row(yes.report, 'm02')), 'ok');
    assert.match(readFileSync(own, 'utf8'), /^\|1\|.* ssh-ed25519 /);
  } finally {
    await p.close();
  }
});

test('a cause fixed, the checks run again: that host passes', async () => {
  const p = pool();
  try {
    const before = await runPreflight(p, { inventory: inv, operation: 'test', hosts: ['labs-k8s-w02'], sudoPasswordAsked: true, timeoutMs: TIMEOUT_MS });
    assert.equal(hostState(before.hosts[0]!), 'fail');
    zoo.fixIdentity();
    // A new pool, as a new run of the command has (the first one read the missing file already).
    const again = pool();
    try {
      const fixed = await runPreflight(again, { inventory: inv, operation: 'test', hosts: ['labs-k8s-w02'], sudoPasswordAsked: true, timeoutMs: TIMEOUT_MS });
      assert.equal(hostState(fixed.hosts[0]!), 'ok', JSON.stringify(fixed.hosts[0]!.checks));
    } finally {
      await again.close();
    }
  } finally {
    await p.close();
  }
});

test('on its own (Run Preflight Checks) the preflight names no operation: "Checking 1 host…", its table marked standalone (the panel\'s title is then "Preflight", not "Preflight: Run Preflight Checks"); in Russian too', async () => {
  const p = pool();
  const progress = (ui: ScriptedUi): string[] => ui.transcript.filter((l) => l.startsWith('progress: '));
  const input = { ssh: p, inventory: inv, hosts: ['labs-k8s-balancer'], sudoPasswordAsked: true, timeoutMs: TIMEOUT_MS };
  try {
    const alone = new ScriptedUi();
    assert.equal((await preflightStep(alone, { ...input, operation: 'Run Preflight Checks', standalone: true })).ok, true);
    assert.deepEqual(progress(alone), ['progress: Checking 1 host…']);
    assert.deepEqual(alone.preflights.map((s) => [s.report.standalone, s.refused]), [[true, undefined]], 'the table, shown although it passes, not as a refusal');
    // before an operation: as it was
    const gate = new ScriptedUi();
    const gated = await preflightStep(gate, { ...input, operation: 'Bring Up' });
    assert.deepEqual(progress(gate), ['progress: Checking 1 host before Bring Up…']);
    assert.equal(gated.report.standalone, undefined);
    const ru = new ScriptedUi();
    assert.deepEqual(useMessages('ru', JSON.parse(readFileSync(join(__dirname, '../../../l10n/bundle.l10n.ru.json'), 'utf8')) as Record<string, string>), []);
    try {
      await preflightStep(ru, { ...input, operation: 'Предварительные проверки', standalone: true });
    } finally {
      useMessages('en', undefined);
    }
    assert.deepEqual(progress(ru), ['progress: Проверка хоста…']);
  } finally {
    await p.close();
  }
});

test('at the shipped default (no timeout given: 4 s connect timeout), every host is judged in under 5 s, the answering ones in under 3 s', async (t) => {
  const p = pool();
  try {
    const r = await runPreflight(p, { inventory: inv, operation: 'test', hosts: inv.hosts.map((h) => h.name), sudoPasswordAsked: false });
    const dead = row(r, 'w03');
    const answering = r.hosts.filter((h) => h !== dead);
    const slowest = Math.max(...answering.map((h) => h.ms));
    t.diagnostic(`default ${PREFLIGHT_CONNECT_TIMEOUT_MS} ms connect timeout: ${r.hosts.map((h) => `${h.host} ${hostState(h)} in ${h.ms} ms`).join(', ')}`);
    t.diagnostic(`answering hosts judged in ≤ ${slowest} ms (goal ≤ 3000), the non-answering one in ${dead.ms} ms, all ${r.hosts.length} in ${r.ms} ms (goal ≤ 5000)`);
    assert.equal(firstFailure(dead.checks)?.kind, 'timeout');
    assert.ok(dead.ms >= PREFLIGHT_CONNECT_TIMEOUT_MS - 50, `the dead host was judged after its timeout, once: ${dead.ms} ms`);
    assert.ok(r.ms < 5000, `all ${r.hosts.length} hosts in ${r.ms} ms`);
    assert.ok(slowest < 3000, `answering hosts in ${slowest} ms`);
  } finally {
    await p.close();
  }
});

test('the keys and the name: a passphrase-protected key no agent holds warns naming ssh-add; an unreadable key file and a name that does not resolve fail with their cause', async (t) => {
  // Two sshd that take our key, one per host (a host of its own each: the pool keeps one connection per address).
  const [one, two] = [zoo.hosts.find((h) => h.kind === 'ok')!, zoo.hosts.find((h) => h.kind === 'no-identity')!];
  const encrypted = keygen(tmp.dir, 'id_encrypted', 'ed25519', 'a passphrase');
  // A directory where the key file should be: it exists but cannot be read as a key (a root test reads any mode).
  const unreadable = join(tmp.dir, 'home', '.ssh', 'id_directory');
  mkdirSync(unreadable, { recursive: true });
  const text = `cluster:
  name: edges
  kubernetesVersion: "1.30.14"
  controlPlaneEndpoint: 10.3.60.100:6443
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
  cni: flannel
ssh: { user: root }
hosts:
  - { name: e-encrypted, address: 10.3.60.71, roles: [control-plane], ssh: { identityFile: ${encrypted.path} } }
  - { name: e-unreadable, address: 10.3.60.72, roles: [worker], ssh: { identityFile: ${unreadable} } }
  - { name: e-unresolved, address: 10.3.60.73, roles: [worker], ssh: { identityFile: ${zoo.key.path} } }
`;
  const edges = parseInventory(text).inventory!;
  const config = join(tmp.dir, 'ssh_config_edges');
  writeFileSync(config, `Host e-encrypted\n  HostName 127.0.0.1\n  Port ${one.port}\nHost e-unreadable\n  HostName 127.0.0.1\n  Port ${two.port}\nHost e-unresolved\n  HostName no-such-host.invalid\n`);
  const p = createInventoryPool(edges, { prompt: new CliHostKeyPrompt([]), sshConfigFile: config, knownHostsFile: zoo.knownHosts, ownKnownHostsFile: join(tmp.dir, 'own_edges'), homeDir: join(tmp.dir, 'home'), auth: { agentSocket: '', passphrase: async () => undefined } }).pool;
  try {
    const r = await runPreflight(p, { inventory: edges, operation: 'test', hosts: edges.hosts.map((h) => h.name), sudoPasswordAsked: false, timeoutMs: TIMEOUT_MS });
    const check = (host: string, id: string) => r.hosts.find((h) => h.host === host)!.checks.find((c) => c.id === id)!;
    t.diagnostic(r.hosts.map((h) => `${h.host}: ${h.checks.map((c) => `${c.id}=${c.state}${c.kind ? `/${c.kind}` : ''}${c.cause ? ` (${c.cause})` : ''}`).join(', ')}`).join('\n'));
    const keys = check('e-encrypted', 'keys');
    assert.deepEqual([keys.state, keys.kind, keys.command], ['warn', 'encrypted-key', `ssh-add ${encrypted.path}`]);
    assert.match(keys.fix!, /ssh-add/);
    assert.equal(check('e-encrypted', 'login').kind, 'encrypted-key', 'the login says the same cause');
    const dir = check('e-unreadable', 'keys');
    assert.equal(dir.state, 'fail');
    assert.ok(dir.cause!.includes(unreadable), dir.cause);
    const name = check('e-unresolved', 'resolve');
    assert.equal(name.state, 'fail');
    assert.match(name.cause!, /no-such-host\.invalid/);
    assert.equal(check('e-unresolved', 'reach').state, 'skipped', 'nothing dialled after the name failed');
  } finally {
    await p.close();
  }
});
