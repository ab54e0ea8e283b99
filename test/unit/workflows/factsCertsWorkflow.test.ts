/**
 * Facts gathering and certificate inspection, each one workflow for both front-ends (engine/workflows/factsWorkflow.ts,
 * certsWorkflow.ts), against real sshd processes on loopback (the preflight zoo): two hosts that answer and one whose
 * port is refused. The hosts the preflight failed are named "not read" with its cause and never contacted (the pool
 * makes no new connection attempt); the others are read over SSH; progress counts the hosts read; a cancel ends the
 * reading with every host accounted for; and the command line's `facts` prints the same result its way.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInventoryPool } from '../../../src/adapters/ssh/fromInventory';
import type { SshPool } from '../../../src/adapters/ssh/pool';
import { main } from '../../../src/cli/main';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { Inventory } from '../../../src/core/inventory/types';
import { CliHostKeyPrompt } from '../../../src/core/ssh/hostKeyPolicy';
import { inspectCertificates } from '../../../src/engine/certs';
import { runPreflight } from '../../../src/engine/preflight';
import type { PreflightReport } from '../../../src/core/preflight/model';
import { certsWorkflow } from '../../../src/engine/workflows/certsWorkflow';
import { factsWorkflow } from '../../../src/engine/workflows/factsWorkflow';
import { sudoUnlessRoot } from '../../../src/engine/become';
import { memoryIo } from '../cli/memoryIo';
import { tempDir } from '../ssh/keys';
import { startZoo, type Zoo } from '../preflight/zoo';
import { ScriptedUi } from './scriptedUi';

const tmp = tempDir('kw-factscerts-');
let zoo: Zoo;
let inv: Inventory;
const savedHome = process.env.HOME;
const savedSock = process.env.SSH_AUTH_SOCK;
/** The facts read's own limit per host (factsWorkflow): what any number printed here stays under. */
const FACTS_TIMEOUT_MS = 60_000;

before(async () => {
  process.env.HOME = join(tmp.dir, 'home');
  delete process.env.SSH_AUTH_SOCK;
  zoo = await startZoo(tmp.dir, { m01: 'ok', m02: 'refused', w01: 'ok' });
  const parsed = parseInventory(zoo.inventoryText);
  assert.ok(parsed.inventory, JSON.stringify(parsed.findings));
  inv = parsed.inventory;
});

after(async () => {
  await zoo?.stop();
  process.env.HOME = savedHome;
  if (savedSock !== undefined) process.env.SSH_AUTH_SOCK = savedSock;
  tmp.cleanup();
});

function pool(): SshPool {
  return createInventoryPool(inv, { prompt: new CliHostKeyPrompt([]), sshConfigFile: zoo.sshConfig, knownHostsFile: zoo.knownHosts, ownKnownHostsFile: join(tmp.dir, 'own'), homeDir: join(tmp.dir, 'home'), auth: { agentSocket: '', passphrase: async () => undefined } }).pool;
}

const preflightOf = (p: SshPool) => runPreflight(p, { inventory: inv, operation: 'test', hosts: inv.hosts.map((h) => h.name), sudoPasswordAsked: false, timeoutMs: 4000 });

/** A pool and the preflight over it, with the failed connections it made by then; the pool closed after `fn`. */
async function afterPreflight(fn: (p: SshPool, pre: PreflightReport, attempts: number) => Promise<void>): Promise<void> {
  const p = pool();
  try {
    const pre = await preflightOf(p);
    await fn(p, pre, p.stats().failedConnections);
  } finally {
    await p.close();
  }
}
const prettyName = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1];

test('facts: read where the preflight passed, the failed host named with its cause and not contacted; one machine seen twice is a clone', () =>
  afterPreflight(async (p, pre, attempts) => {
    const ui = new ScriptedUi();
    const r = await factsWorkflow(ui, { inventory: inv, ssh: p, loginUser: (h) => p.loginUser(h), preflight: pre });
    assert.equal(p.stats().failedConnections, attempts, 'the host that failed the preflight was not tried again');
    assert.deepEqual(r.facts.map((f) => f.host), ['labs-k8s-m01', 'labs-k8s-w01']);
    assert.equal(r.facts[0]!.os?.pretty, prettyName);
    assert.deepEqual(r.notRead.map((n) => n.host), ['labs-k8s-m02']);
    assert.match(r.notRead[0]!.cause, /nothing listens on 127\.0\.0\.1 port \d+: the connection was refused/);
    assert.equal(r.notRead[0]!.detail, undefined, "the preflight's cause, not a read's error");
    // Both "hosts" are this machine: the same machine-id on two nodes is the cloned-VM finding, on each of them.
    assert.deepEqual(r.findings.filter((f) => f.rule === 'facts/cloned-machine-id').map((f) => f.host), ['labs-k8s-m01', 'labs-k8s-w01']);
    assert.deepEqual(ui.transcript, ['progress: Gathering host facts']);
    assert.deepEqual(ui.progressMessages, ['1/2 hosts', '2/2 hosts']);
    assert.equal(r.cancelled, false);
    assert.ok(r.ms < FACTS_TIMEOUT_MS, `${r.ms} ms`);
  }));

test('facts cancelled: the reading ends with every host accounted for, read or not read', async () => {
  const p = pool();
  try {
    const ui = new ScriptedUi({ cancelWhen: () => true });
    const r = await factsWorkflow(ui, { inventory: inv, ssh: p, loginUser: (h) => p.loginUser(h) });
    assert.equal(r.cancelled, true);
    assert.deepEqual([...r.facts.map((f) => f.host), ...r.notRead.map((n) => n.host)].sort(), inv.hosts.map((h) => h.name).sort());
    assert.ok(ui.transcript.includes('cancel: Gathering host facts'), ui.transcript.join('\n'));
  } finally {
    await p.close();
  }
});

test('kubeadm-workbench facts: the workflow on a terminal — a line per host read, the host not read on stderr, the count; exit 1', async () => {
  const io = memoryIo();
  const code = await main(['facts', '--inventory', zoo.inventory, '--ssh-config', zoo.sshConfig, '--known-hosts', zoo.knownHosts, '--own-known-hosts', join(tmp.dir, 'own')], io);
  assert.equal(code, 1, io.err);
  assert.match(io.out, new RegExp(`^labs-k8s-m01: ${prettyName!.replace(/[().]/g, '\\$&')} · kernel \\S+ · machine-id [0-9a-f]{8}… · swap (ON|off) · containerd \\S+ · kubelet \\S+ · kubeadm \\S+$`, 'm'));
  assert.match(io.out, /^labs-k8s-w01: /m);
  assert.match(io.out, /^ERROR labs-k8s-m01: machine-id [0-9a-f]{8}… is shared by labs-k8s-m01, labs-k8s-w01\. \(facts\/cloned-machine-id\)$/m);
  assert.match(io.err, /^not read labs-k8s-m02: nothing listens on 127\.0\.0\.1 port \d+: the connection was refused/m);
  const last = /^facts of 2\/3 hosts in (\d+) ms; \d+ error\(s\) in the facts read; 1 host\(s\) not read$/m.exec(io.out);
  assert.ok(last, io.out);
  assert.ok(Number(last[1]) < FACTS_TIMEOUT_MS, `${last[1]} ms`);
});

test('certificates: the Kubernetes hosts, the failed one "not read" with the preflight\'s cause and not contacted; progress counts the hosts read', () =>
  afterPreflight(async (p, pre, attempts) => {
    const ui = new ScriptedUi();
    const told: string[] = [];
    const { report, summary, cancelled } = await certsWorkflow(ui, {
      inventory: inv,
      preflight: pre,
      inspect: ({ signal, progress, notRead, only }) => inspectCertificates({ inventory: inv, ssh: p, become: sudoUnlessRoot((h) => p.loginUser(h)), signal, progress, notRead }, only),
      onHost: (host, ok) => told.push(`${host} ${ok}`),
    });
    assert.equal(p.stats().failedConnections, attempts, 'the host that failed the preflight was not tried again');
    assert.equal(cancelled, false);
    assert.deepEqual(report.hosts.map((h) => h.host).sort(), ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-w01']);
    assert.match(report.hosts.find((h) => h.host === 'labs-k8s-m02')!.error!, /nothing listens on 127\.0\.0\.1 port \d+: the connection was refused/);
    assert.deepEqual(summary.notRead.map((n) => n.host), ['labs-k8s-m02']);
    assert.deepEqual(told.sort(), ['labs-k8s-m01 true', 'labs-k8s-w01 true']);
    assert.deepEqual(ui.progressMessages.map((m) => m.replace(/ \(.*\)$/, '')), ['1/2 hosts', '2/2 hosts']);
  }));
