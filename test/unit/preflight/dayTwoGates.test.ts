/**
 * The day-2 operations added after the preflight run it too, before their first read or question (issue 33): etcd
 * defragmentation and NOSPACE recovery, the reconfigure and the kubelet.conf fix — in their workflows, so the editor's
 * commands and the CLI's verbs both get it. Against the preflight zoo (test/unit/preflight/zoo.ts): real sshd on
 * loopback, a control-plane node that does not answer (SYN dropped) and a balancer whose host key nobody knows. Each
 * operation is refused with the table and one message before anything is asked or read; the unknown key is reviewed
 * once; with every host answering the gate passes without a word and the operation goes on to its reading.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli/main';
import { memoryIo } from '../cli/memoryIo';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { Inventory } from '../../../src/core/inventory/types';
import { firstFailure } from '../../../src/core/preflight/model';
import { CliHostKeyPrompt } from '../../../src/core/ssh/hostKeyPolicy';
import { createInventoryPool } from '../../../src/adapters/ssh/fromInventory';
import type { SshPool } from '../../../src/adapters/ssh/pool';
import type { ProgressReport, ProgressRequest } from '../../../src/engine/workflows/ui';
import { etcdDefragWorkflow, etcdNospaceWorkflow } from '../../../src/engine/workflows/etcdWorkflow';
import { reconfigureWorkflow } from '../../../src/engine/workflows/reconfigureWorkflow';
import { kubeletConfWorkflow } from '../../../src/engine/workflows/kubeletConfWorkflow';
import { ScriptedUi, type Script } from '../workflows/scriptedUi';
import { tempDir } from '../ssh/keys';
import { startZoo, type Zoo } from './zoo';

const tmp = tempDir('kw-daytwo-gates-');
let zoo: Zoo;
let inv: Inventory;
/** The zoo's SSH config with ConnectTimeout 1: the dead host is judged after 1 s (the shipped default, 4 s, is preflight.test.ts's). */
let sshConfig: string;
const savedHome = process.env.HOME;
const savedSock = process.env.SSH_AUTH_SOCK;

before(async () => {
  process.env.HOME = join(tmp.dir, 'home');
  delete process.env.SSH_AUTH_SOCK;
  zoo = await startZoo(tmp.dir, { balancer: 'unknown-key', m01: 'ok', m02: 'dead', m03: 'ok' });
  sshConfig = join(tmp.dir, 'ssh_config_1s');
  writeFileSync(sshConfig, `${readFileSync(zoo.sshConfig, 'utf8')}Host *\n  ConnectTimeout 1\n`);
  inv = parsed(zoo.inventoryText);
});

after(async () => {
  await zoo?.stop();
  process.env.HOME = savedHome;
  if (savedSock !== undefined) process.env.SSH_AUTH_SOCK = savedSock;
  tmp.cleanup();
});

function parsed(text: string): Inventory {
  const r = parseInventory(text);
  assert.ok(r.inventory, JSON.stringify(r.findings));
  return r.inventory;
}

function pool(of: Inventory = inv): SshPool {
  return createInventoryPool(of, { prompt: new CliHostKeyPrompt([]), sshConfigFile: sshConfig, knownHostsFile: zoo.knownHosts, ownKnownHostsFile: join(tmp.dir, 'own_known_hosts'), homeDir: join(tmp.dir, 'home'), auth: { agentSocket: '', passphrase: async () => undefined } }).pool;
}

/** A scripted Ui that also times each progress (the preflight's is "Checking N hosts before …"). */
class TimedUi extends ScriptedUi {
  readonly took = new Map<string, number>();
  constructor(script: Script = {}) {
    super(script);
  }
  override async progress<T>(request: ProgressRequest, task: (report: ProgressReport, signal: AbortSignal) => Promise<T>): Promise<T> {
    const t0 = Date.now();
    try {
      return await super.progress(request, task);
    } finally {
      this.took.set(request.title, Date.now() - t0);
    }
  }
}

function run(p: SshPool) {
  return { stateDir: join(tmp.dir, 'state'), ssh: p, maxParallelHosts: 4, again: { resume: 'r', startOver: 's' } };
}

const QUESTION = /^(confirm|pick|input|secret|show):/;

/** The refusal as every gated operation gives it: the checks, (the review), the table, one message — nothing else. */
function assertRefusedFirst(ui: ScriptedUi, operation: string, failing: Record<string, string>): void {
  const t = ui.transcript;
  assert.match(t[0]!, new RegExp(`^progress: Checking \\d hosts before ${operation}…$`), t.join('\n'));
  assert.ok(!t.some((l) => QUESTION.test(l)), `nothing asked or shown:\n${t.join('\n')}`);
  assert.ok(t.filter((l) => l.startsWith('progress:')).every((l) => /^progress: Checking /.test(l)), `only the preflight's progress, no reading:\n${t.join('\n')}`);
  assert.equal(ui.preflights.length, 1);
  assert.equal(ui.preflights[0]!.refused, operation);
  const rows = ui.preflights[0]!.report.hosts;
  for (const [host, kind] of Object.entries(failing)) assert.equal(firstFailure(rows.find((h) => h.host === host)!.checks)?.kind, kind, `${host}: ${JSON.stringify(rows.find((h) => h.host === host)?.checks)}`);
  const errors = ui.messages('error');
  assert.equal(errors.length, 1, t.join('\n'));
  assert.match(errors[0]!, new RegExp(`^${operation} refused before it asked anything: `));
}

test('etcd defrag: refused before any read or question — the dead member and the balancer whose key is unknown (reviewed once) in the table', async () => {
  const p = pool();
  try {
    const ui = new TimedUi();
    const out = await etcdDefragWorkflow(ui, { deps: { inventory: inv, ssh: p }, loginUser: (h) => p.loginUser(h), run: run(p) });
    assert.equal(out.kind, 'refused');
    assertRefusedFirst(ui, 'etcd defragmentation of labs-k8s', { 'labs-k8s-m02': 'timeout', 'labs-k8s-balancer': 'host-key-unknown' });
    assert.deepEqual(ui.reviews.map((keys) => keys.map((k) => k.host)), [['labs-k8s-balancer']], 'the unknown key reviewed once, before the refusal');
    assert.match(ui.messages('error')[0]!, /2 of 4 hosts fail the preflight/);
    assert.ok(!ui.transcript.some((l) => /Reading the etcd members/.test(l)));
  } finally {
    await p.close();
  }
});

test('etcd NOSPACE recovery: its scope is the members (no balancer step): the dead one refuses it first', async () => {
  const p = pool();
  try {
    const ui = new TimedUi();
    const out = await etcdNospaceWorkflow(ui, { deps: { inventory: inv, ssh: p }, loginUser: (h) => p.loginUser(h), run: run(p) });
    assert.equal(out.kind, 'refused');
    assertRefusedFirst(ui, 'etcd NOSPACE recovery of labs-k8s', { 'labs-k8s-m02': 'timeout' });
    assert.deepEqual(ui.preflights[0]!.report.hosts.map((h) => h.host).sort(), ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03']);
  } finally {
    await p.close();
  }
});

test('reconfigure: the balancer\'s key accepted in the review is checked again and passes; the dead node still refuses it before the comparison', async () => {
  const p = pool();
  try {
    const ui = new TimedUi({ reviewHostKeys: (keys) => ({ accepted: keys, remember: false }) });
    const out = await reconfigureWorkflow(ui, { deps: { inventory: inv, inventoryDir: tmp.dir, readFile: async (f) => readFileSync(f, 'utf8'), ssh: p }, loginUser: (h) => p.loginUser(h), run: run(p) });
    assert.equal(out.kind, 'refused');
    assert.deepEqual(ui.transcript.filter((l) => l.startsWith('progress:')), ['progress: Checking 4 hosts before Reconfigure of the control plane of labs-k8s…', 'progress: Checking labs-k8s-balancer with the accepted host key…']);
    assertRefusedFirst(ui, 'Reconfigure of the control plane of labs-k8s', { 'labs-k8s-m02': 'timeout' });
    assert.equal(firstFailure(ui.preflights[0]!.report.hosts.find((h) => h.host === 'labs-k8s-balancer')!.checks), undefined, 'the balancer passes once its key is accepted');
    assert.match(ui.messages('error')[0]!, /1 of 4 hosts fails the preflight — first: labs-k8s-m02: /);
    assert.ok(!ui.transcript.some((l) => /Comparing the workspace/.test(l)));
  } finally {
    await p.close();
  }
});

test('the kubelet.conf fix: its scope is the node and the control-plane node it is drained through', async () => {
  const p = pool();
  try {
    const ui = new TimedUi();
    const out = await kubeletConfWorkflow(ui, { deps: { inventory: inv, ssh: p }, loginUser: (h) => p.loginUser(h), node: 'labs-k8s-m02', run: run(p) });
    assert.equal(out.kind, 'refused');
    assertRefusedFirst(ui, 'kubelet.conf of labs-k8s-m02', { 'labs-k8s-m02': 'timeout' });
    assert.deepEqual(ui.preflights[0]!.report.hosts.map((h) => h.host), ['labs-k8s-m02', 'labs-k8s-m01']);
  } finally {
    await p.close();
  }
});

test('every host answering with a known key: the gate passes without a word and the operation goes on to its reading (what the lab sees)', async (t) => {
  // The zoo without the dead node and the balancer of the unknown key.
  const answering = parsed(zoo.inventoryText.split('\n').filter((l) => !/labs-k8s-(m02|balancer)\b/.test(l)).join('\n'));
  const p = pool(answering);
  try {
    const ui = new TimedUi();
    await reconfigureWorkflow(ui, { deps: { inventory: answering, inventoryDir: tmp.dir, readFile: async (f) => readFileSync(f, 'utf8'), ssh: p }, loginUser: (h) => p.loginUser(h), run: run(p) });
    const checking = 'Checking 2 hosts before Reconfigure of the control plane of labs-k8s…';
    assert.deepEqual(ui.transcript.slice(0, 2), [`progress: ${checking}`, 'progress: Comparing the workspace\'s kubeadm configuration with labs-k8s\'s…'], ui.transcript.join('\n'));
    assert.equal(ui.preflights.length, 0, 'no table when everything passes');
    assert.equal(ui.reviews.length, 0);
    const ms = ui.took.get(checking)!;
    t.diagnostic(`the gate over 2 answering hosts took ${ms} ms`);
    assert.ok(ms < 3000, `${ms} ms`);
  } finally {
    await p.close();
  }
});


const files = () => ['--inventory', zoo.inventory, '--ssh-config', sshConfig, '--known-hosts', zoo.knownHosts, '--own-known-hosts', join(tmp.dir, 'own_cli')];

test('the CLI: `etcd defrag` and `reconfigure` refuse before any question with the table (each host\'s cause and fix); exit 1', async () => {
  for (const [argv, operation] of [[['etcd', 'defrag', '--yes'], 'etcd defragmentation of labs-k8s'], [['reconfigure', '--yes'], 'Reconfigure of the control plane of labs-k8s']] as const) {
    const x = memoryIo();
    const code = await main([...argv, ...files()], x);
    const said = x.out + x.err;
    assert.equal(code, 1, said);
    assert.match(said, new RegExp(`^Preflight for ${operation} \\(labs-k8s\\): 4 hosts in [\\d.]+ s$`, 'm'));
    assert.match(said, /^labs-k8s-m02: port FAILED — /m);
    assert.match(said, /^labs-k8s-balancer: host key FAILED — host key ssh-ed25519 SHA256:\S+ of 127\.0\.0\.1:\d+ is unknown/m);
    assert.match(said, new RegExp(`^${operation} refused before it asked anything: 2 of 4 hosts fail the preflight`, 'm'));
    assert.doesNotMatch(said, /Reading the etcd members|Comparing the workspace|cannot read/);
  }
});

test('the CLI reads: `etcd status` and `drift` go on when one control-plane node passes (the other said apart), refuse when none does', async () => {
  const x = memoryIo();
  await main(['etcd', 'status', ...files()], x);
  assert.doesNotMatch(x.out + x.err, /refused before it asked anything|^Preflight for/m, 'one member answering is enough to read through');
  // Only the dead node as a control-plane node: nothing to read through.
  const lone = join(tmp.dir, 'lone.yaml');
  writeFileSync(lone, zoo.inventoryText.split('\n').filter((l) => !/labs-k8s-(m01|m03)\b/.test(l)).join('\n'));
  for (const verb of [['etcd', 'status'], ['drift']]) {
    const y = memoryIo();
    const code = await main([...verb, '--inventory', lone, ...files().slice(2)], y);
    assert.equal(code, 1, y.out + y.err);
    assert.match(y.out + y.err, new RegExp(`^${verb.join(' ')} refused before it asked anything: none of its 1 hosts passes the preflight — first: labs-k8s-m02: `, 'm'));
  }
});
