/**
 * The workflows' questions on a terminal: --yes, a `[y/N]` answer read from stdin, and the sudo password — asked with
 * --ask-become-pass or when a person is at the terminal, else "none" (sudo -n) with a note saying how to be asked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { TerminalUi } from '../../../src/cli/terminalUi';
import { Prompter } from '../../../src/cli/secretPrompt';
import type { CliIo } from '../../../src/cli/io';
import type { SecretRequest } from '../../../src/engine/workflows/ui';

function terminal(input: string, flags: { yes?: boolean; askBecomePass?: boolean; interactive?: boolean; json?: boolean } = {}) {
  const out = { stdout: '', stderr: '' };
  const io: CliIo = { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t), readFile: async () => '', writeFile: async () => undefined };
  const prompter = new Prompter(Readable.from([input]), new PassThrough());
  const ui = new TerminalUi({ io, prompter, yes: false, askBecomePass: false, interactive: false, ...flags });
  return { ui, out, prompter };
}

const sudo: SecretRequest = { kind: 'sudo-password', title: 'sudo password for debian', prompt: '…', hosts: new Map([['labs-k8s-w01', 'debian']]) };
const question = { message: 'Drain labs-k8s-w02: evict 2 pod(s)?', detail: 'Cluster admin@labs-k8s.', actions: ['Drain'] };

test('a confirmation: --yes takes the first action; otherwise y on stdin does, anything else does nothing and says so', async () => {
  assert.equal(await terminal('', { yes: true }).ui.confirm(question), 'Drain');
  const y = terminal('y\n');
  assert.equal(await y.ui.confirm(question), 'Drain');
  assert.equal(y.out.stderr, 'Cluster admin@labs-k8s.\n');
  const n = terminal('\n');
  assert.equal(await n.ui.confirm(question), undefined);
  assert.match(n.out.stderr, /not confirmed; nothing was done \(use --yes to run without asking\)\.\n$/);
});

test('the sudo password: read from stdin with --ask-become-pass or at a terminal; in a script it is none, and the note says how', async () => {
  const asked = terminal('pw1\ny\n', { askBecomePass: true });
  assert.equal(await asked.ui.secret(sudo), 'pw1');
  assert.equal(await asked.ui.confirm(question), 'Drain', 'one reader: the answer after the password is the confirmation');
  assert.equal(asked.out.stderr.split('\n')[0], 'labs-k8s-w01: logged in as debian, so every step runs through sudo');

  assert.equal(await terminal('pw2\n', { interactive: true }).ui.secret(sudo), 'pw2');
  // The input ended: no answer, not "none" — a script's one wrong password, asked again, stops there.
  const oneLine = terminal('wrong\n', { askBecomePass: true });
  assert.equal(await oneLine.ui.secret(sudo), 'wrong');
  assert.equal(await oneLine.ui.secret(sudo), undefined);
  assert.equal(await terminal('\n', { askBecomePass: true }).ui.secret(sudo), '', 'an empty line is the answer "none"');

  const script = terminal('y\n');
  assert.equal(await script.ui.secret(sudo), '');
  assert.equal(script.out.stderr, 'labs-k8s-w01: logged in as debian, so every step runs through sudo -n (add --ask-become-pass if sudo needs a password there)\n');
  assert.equal(await script.ui.confirm(question), 'Drain', 'nothing of stdin was taken for a password');
});

test('what a person reads goes to stdout, or to stderr under --json; warnings and errors to stderr', async () => {
  const plain = terminal('');
  await plain.ui.show('plan.txt', 'the plan');
  await plain.ui.message('info', 'node/w02 cordoned');
  await plain.ui.message('error', 'refused');
  assert.deepEqual(plain.out, { stdout: 'the plan\nnode/w02 cordoned\n', stderr: 'refused\n' });
  const json = terminal('', { json: true });
  await json.ui.show('plan.txt', 'the plan');
  await json.ui.message('info', 'done');
  assert.deepEqual(json.out, { stdout: '', stderr: 'the plan\ndone\n' });
});

/** A child process with a cancellable task that never ends: the first SIGINT cancels, the second ends the process. */
test('Ctrl-C: the first cancels (the operation is told), the second ends a process whose cancel hangs — but never the drill', async () => {
  const { spawn } = await import('node:child_process');
  const script = (neverExits: boolean) => `
    const { TerminalUi } = require(${JSON.stringify(require.resolve('../../../src/cli/terminalUi'))});
    const { Prompter } = require(${JSON.stringify(require.resolve('../../../src/cli/secretPrompt'))});
    const { PassThrough } = require('node:stream');
    const io = { stdout: () => {}, stderr: () => {}, readFile: async () => '', writeFile: async () => {} };
    const ui = new TerminalUi({ io, prompter: new Prompter(new PassThrough(), new PassThrough()), yes: true, askBecomePass: false, interactive: false });
    ui.progress({ title: 't', cancellable: true, cancelNeverExits: ${neverExits}, onCancel: (n) => process.stdout.write('cancel ' + n + '\\n') },
      () => new Promise(() => { setInterval(() => {}, 1000); process.stdout.write('running\\n'); }));`;
  const run = (neverExits: boolean) => new Promise<{ out: string; signal: string | null }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script(neverExits)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      if (out === 'running\n') child.kill('SIGINT');
      if (out.endsWith('cancel 1\n')) child.kill('SIGINT');
      if (out.endsWith('cancel 2\n')) setTimeout(() => child.kill('SIGKILL'), 500);
    });
    child.on('exit', (_code, signal) => resolve({ out, signal }));
  });
  const plain = await run(false);
  assert.equal(plain.signal, 'SIGINT', plain.out);
  assert.equal(plain.out, 'running\ncancel 1\ncancel 2\n');
  const drill = await run(true);
  assert.equal(drill.signal, 'SIGKILL', 'the drill keeps running after a second Ctrl-C (it restores the node)');
});

test('free text: the editor\'s validation refuses a line on a terminal too (saying why), and a message\'s detail is printed under it', async () => {
  const validate = (v: string) => (/^v?\d+\.\d+\.\d+$/.test(v.trim()) ? undefined : 'A full version like 1.30.14');
  const good = terminal('1.30.14\n');
  assert.equal(await good.ui.input('', 'Kubernetes version to pin', undefined, { validate }), '1.30.14');
  const bad = terminal('latest\n');
  assert.equal(await bad.ui.input('', 'Kubernetes version to pin', undefined, { validate }), undefined);
  assert.equal(bad.out.stderr, 'A full version like 1.30.14\n');
  const said = terminal('');
  await said.ui.message('error', 'inventory.yaml has 1 error; fix it first — nothing was generated.', { detail: 'line 3: no hosts', actions: ['Open Inventory'] });
  assert.equal(said.out.stderr, 'inventory.yaml has 1 error; fix it first — nothing was generated.\nline 3: no hosts\n');
});
