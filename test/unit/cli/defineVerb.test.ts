/**
 * defineVerb (src/cli/verb.ts), the command line's one error boundary, against real sshd processes on loopback (the
 * preflight zoo): a planted failure is one line in plain words with exit 1, never a stack; an SSH failure adds the one
 * next command, and that command is the preflight that names the host; a usage mistake prints the usage with exit 2
 * before the handler runs; and the SSH pool is closed — the server sees the client leave — when the handler fails and
 * when Ctrl-C cancels its remote command.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../../src/cli/args';
import { main } from '../../../src/cli/main';
import { TerminalUi } from '../../../src/cli/terminalUi';
import { defineVerb } from '../../../src/cli/verb';
import { SSH_FLAGS } from '../../../src/cli/sshFlags';
import { sh } from '../../../src/core/ssh/command';
import { memoryIo } from './memoryIo';
import { tempDir } from '../ssh/keys';
import { startZoo, type Zoo } from '../preflight/zoo';

const tmp = tempDir('kw-defineverb-');
let zoo: Zoo;
const savedHome = process.env.HOME;

before(async () => {
  process.env.HOME = join(tmp.dir, 'home');
  zoo = await startZoo(tmp.dir, { m01: 'ok', m02: 'refused' });
});

after(async () => {
  await zoo?.stop();
  process.env.HOME = savedHome;
  tmp.cleanup();
});

const USAGE = 'usage: kubeadm-workbench probe --inventory FILE [--ssh-config F] [--known-hosts F]\n';
const sshArgs = () => ['--inventory', zoo.inventory, '--ssh-config', zoo.sshConfig, '--known-hosts', zoo.knownHosts, '--own-known-hosts', join(tmp.dir, 'own')];

/** A verb whose handler does what the test plants; `ran` says whether the handler was reached. */
function probeVerb(handler: Parameters<typeof defineVerb<{ inventory: 'parsed'; ssh: object }, undefined>>[0]['run']) {
  const state = { ran: false };
  const verb = defineVerb({
    words: 'probe', flags: { inventory: 'string', ...SSH_FLAGS }, usage: USAGE, needs: { inventory: 'parsed', ssh: {} },
    run: async (ctx) => {
      state.ran = true;
      return handler(ctx);
    },
  });
  return { verb, state };
}

/** The sshd of the `ok` host: logins accepted and connections ended so far, as it logged them (one line each). */
function sessions(): { opened: number; closed: number } {
  const log = readFileSync(zoo.hosts.find((h) => h.kind === 'ok')!.sshd!.logFile, 'utf8');
  return { opened: (log.match(/Accepted publickey/g) ?? []).length, closed: (log.match(/Received disconnect from|Connection closed by/g) ?? []).length };
}

/** Every login since `before` has ended: the verb closed its pool (the test process is still running). */
async function allClosedSince(before: { opened: number; closed: number }): Promise<void> {
  const delta = () => ({ opened: sessions().opened - before.opened, closed: sessions().closed - before.closed });
  // sshd writes its line as the connection ends; the pool's close has resolved by then — allow the log a moment.
  for (let i = 0; i < 30 && delta().closed < delta().opened; i++) await new Promise((r) => setTimeout(r, 100));
  const d = delta();
  assert.ok(d.opened > 0, 'the handler logged in');
  assert.equal(d.closed, d.opened, `every login ended: ${JSON.stringify(d)}`);
}

test('a planted failure: its cause in one line, exit 1, no stack; the pool is closed', async () => {
  const { verb } = probeVerb(async ({ ssh }) => {
    await ssh().exec('labs-k8s-m01', sh`true`);
    throw new Error('the disk of labs-k8s-m01 is full');
  });
  const io = memoryIo();
  const before = sessions();
  assert.equal(await verb(sshArgs(), io), 1);
  assert.equal(io.err, 'kubeadm-workbench probe: the disk of labs-k8s-m01 is full\n');
  assert.doesNotMatch(io.err, /\n\s+at /);
  assert.equal(io.out, '');
  await allClosedSince(before);
});

test('an SSH failure names the host and its cause, and the next command is the preflight that says why', async () => {
  const { verb } = probeVerb(async ({ ssh }) => {
    await ssh().exec('labs-k8s-m02', sh`true`);
    return 0;
  });
  const io = memoryIo();
  assert.equal(await verb(sshArgs(), io), 1);
  const [cause, next, rest] = io.err.split('\n');
  assert.match(cause!, /^kubeadm-workbench probe: .*labs-k8s-m02.*refused/);
  assert.match(next!, /^next: kubeadm-workbench ssh-check --inventory /);
  assert.equal(rest, '');
  // The next command, as printed, runs: the preflight fails on that host with the same cause.
  const argv = [...next!.slice('next: kubeadm-workbench '.length).matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
  const check = memoryIo();
  assert.equal(await main(argv, check), 1, check.err);
  assert.match(check.out, /^labs-k8s-m02: port FAILED — nothing listens on 127\.0\.0\.1 port \d+: the connection was refused/m);
});

test('Ctrl-C during a remote command: "cancelled", exit 1, and the pool is closed', async () => {
  const { verb } = probeVerb(async ({ ssh, io, prompter }) => {
    const ui = new TerminalUi({ io, prompter, yes: true, askBecomePass: false, interactive: false });
    await ui.progress({ title: 'probe', cancellable: true }, (_report, signal) =>
      ssh().exec('labs-k8s-m01', sh`echo started; sleep 30`, { signal, onStdout: (t) => void (/started/.test(t) && process.kill(process.pid, 'SIGINT')) }),
    );
    return 0;
  });
  const io = memoryIo();
  const before = sessions();
  const t0 = Date.now();
  assert.equal(await verb(sshArgs(), io), 1);
  assert.equal(io.err, 'kubeadm-workbench probe: cancelled\n');
  assert.ok(Date.now() - t0 < 20_000, 'the cancel ended the 30 s command');
  await allClosedSince(before);
});

test('usage: a mistake prints the usage with exit 2 before the handler runs; --help prints it with exit 0', async () => {
  const cases: [string[], string, number][] = [
    [['--bogus'], `unknown option --bogus\n${USAGE}`, 2],
    [['--ssh-config', 'x'], `--inventory is required\n${USAGE}`, 2],
    [[...sshArgs(), 'extra'], `unexpected argument extra\n${USAGE}`, 2],
    [['--help'], USAGE, 0],
  ];
  for (const [argv, err, code] of cases) {
    const { verb, state } = probeVerb(async () => 0);
    const io = memoryIo();
    assert.equal(await verb(argv, io), code, argv.join(' '));
    assert.equal(io.err, err);
    assert.equal(state.ran, false);
  }
  // A UsageError from the handler (a check that needs the inventory) is a usage mistake too.
  const { verb } = probeVerb(async ({ inventory }) => {
    throw new UsageError(`not in the inventory: w09 (hosts: ${inventory.hosts.map((h) => h.name).join(', ')})`);
  });
  const io = memoryIo();
  assert.equal(await verb(sshArgs(), io), 2);
  assert.equal(io.err, `not in the inventory: w09 (hosts: labs-k8s-m01, labs-k8s-m02)\n${USAGE}`);
});

test('an unreadable inventory: its message and exit 2; the handler never runs', async () => {
  const { verb, state } = probeVerb(async () => 0);
  const io = memoryIo();
  assert.equal(await verb(['--inventory', join(tmp.dir, 'missing.yaml')], io), 2);
  assert.match(io.err, /^cannot read .*missing\.yaml: /);
  assert.equal(state.ran, false);
});

test('ssh-check, declared with defineVerb, closes the pool it makes itself: every login it made has ended when it returns', async () => {
  const logOf = () => readFileSync(zoo.hosts.find((h) => h.kind === 'ok')!.sshd!.logFile, 'utf8');
  const from = logOf().length;
  const io = memoryIo();
  assert.equal(await main(['ssh-check', ...sshArgs()], io), 1, io.err);
  assert.match(io.out, /^labs-k8s-m02: port FAILED/m);
  // the preflight also opens connections that never log in (the port's greeting): each login, by its client port, ended
  const ended = (port: string) => new RegExp(`(Received disconnect from|Connection closed by|Disconnected from) .*port ${port}\\b`).test(logOf().slice(from));
  const logins = [...logOf().slice(from).matchAll(/Accepted publickey .* port (\d+)/g)].map((m) => m[1]!);
  assert.ok(logins.length > 0, 'the preflight logged in to the ok host');
  for (let i = 0; i < 30 && !logins.every(ended); i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(logins.filter((p) => !ended(p)), [], 'logins still open');
});
