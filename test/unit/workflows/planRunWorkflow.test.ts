/**
 * Running a plan (bring-up, join, renewal, …) as the user meets it, front-end aside: the plan, the sudo question,
 * run / resume / start over, the narration and the cancel, answered by a scripted Ui. The steps are real shell
 * commands run on this machine through the same executor and ledger as over SSH; the lab runs `up` and `join` for real.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { parseInventory } from '../../../src/core/inventory/parse';
import { secret, sh, type RemoteCommand } from '../../../src/core/ssh/command';
import { RemoteCommandError, type ExecOptions, type ExecResult } from '../../../src/core/ssh/transport';
import type { Plan } from '../../../src/core/plan/types';
import { planRunWorkflow, type PlanRunInput } from '../../../src/engine/workflows/planRunWorkflow';
import { ScriptedUi } from './scriptedUi';
import { tempDir } from '../../tempDir';
import { CliHostKeyPrompt } from '../../../src/core/ssh/hostKeyPolicy';
import { createInventoryPool } from '../../../src/adapters/ssh/fromInventory';
import { startZoo } from '../preflight/zoo';

const inventory = parseInventory(readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;

/** Runs every host's commands here, in /bin/sh; `user` is the login user it claims for every host. */
class LocalHosts {
  constructor(private readonly user = 'root') {}
  loginUser(): string {
    return this.user;
  }
  exec(host: string, command: RemoteCommand, opts: ExecOptions = {}): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      // Its own process group, so that a cancel kills the shell's children too (as the SSH layer kills the remote group).
      const child = spawn('/bin/sh', ['-c', command.text], { detached: true });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => ((stdout += d), opts.onStdout?.(d.toString())));
      child.stderr.on('data', (d: Buffer) => ((stderr += d), opts.onStderr?.(d.toString())));
      child.stdin.end();
      opts.signal?.addEventListener('abort', () => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      });
      child.on('close', (code, signal) => {
        const result = { code, signal: signal ? signal.replace(/^SIG/, '') : null, stdout, stderr };
        if (opts.signal?.aborted) reject(Object.assign(new Error('cancelled'), { name: 'AbortError' }));
        else if (!(opts.okCodes ?? [0]).includes(code ?? -1)) reject(new RemoteCommandError(host, command, result));
        else resolve(result);
      });
    });
  }
  async close(): Promise<void> {}
}

function setup(user = 'root') {
  const dir = tempDir('kw-planrun-');
  const plan: Plan = {
    fingerprint: 'f1',
    phases: [{
      phase: 'prepare', title: 'Prepare', order: 'serial', warnings: [],
      steps: [
        { id: 'prepare/labs-k8s-w01/a', phase: 'prepare', host: 'labs-k8s-w01', title: 'Write a', check: sh`test -f ${join(dir, 'a')}`, run: sh`touch ${join(dir, 'a')}` },
        { id: 'prepare/labs-k8s-w01/b', phase: 'prepare', host: 'labs-k8s-w01', title: 'Write b', check: sh`test -f ${join(dir, 'b')}`, run: sh`touch ${join(dir, 'b-started')}; if [ -f ${join(dir, 'hang')} ]; then sleep 30; fi; test ! -f ${join(dir, 'fail')} && touch ${join(dir, 'b')}` },
      ],
    }],
  };
  const input: PlanRunInput = {
    inventory, plan, command: 'up', title: 'Bring-up of labs-k8s', planDocument: 'bring-up-plan.txt', stateDir: join(dir, 'state'),
    ssh: new LocalHosts(user) as unknown as PlanRunInput['ssh'], maxParallelHosts: 2, again: { resume: 'choose "Resume"', startOver: 'choose "Start over"' },
    onDone: (took) => `labs-k8s is up (${took}).`,
  };
  return { dir, input, done: (f: string) => existsSync(join(dir, f)), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test('the plan, then the question; no means nothing runs and no run is recorded', async (t) => {
  const s = setup();
  t.after(s.cleanup);
  const ui = new ScriptedUi({ confirm: () => undefined });
  assert.equal((await planRunWorkflow(ui, s.input)).kind, 'not-confirmed');
  assert.match(ui.documents.get('bring-up-plan.txt')!, /Write a/);
  assert.deepEqual(ui.confirms.map((c) => [c.message, c.actions]), [['Run 2 steps on 1 hosts of labs-k8s?', ['Run']]]);
  assert.match(ui.confirms[0]!.detail!, /^Bring-up of labs-k8s\. The plan with every command is open beside this dialog\./);
  assert.equal(s.done('a'), false);
  assert.equal(existsSync(join(s.dir, 'state', 'runs')), false);
});

test('a failed step: where and why, the run log, and Resume continues at the failed step once it can pass', async (t) => {
  const s = setup();
  t.after(s.cleanup);
  writeFileSync(join(s.dir, 'fail'), '');
  let failures = 0;
  const ui = new ScriptedUi({
    confirm: (r) => r.actions[0],
    message: (_l, _text, actions) => {
      failures++;
      rmSync(join(s.dir, 'fail'));
      return actions.find((a) => a === 'Resume');
    },
  });
  const out = await planRunWorkflow(ui, s.input);
  assert.ok(out.kind === 'ran' && out.result.ok, JSON.stringify(out));
  assert.equal(failures, 1);
  // A short cause and the way on; the command's text stays in the run terminal and the log.
  assert.match(ui.messages('error')[0]!, /^Bring-up of labs-k8s failed at labs-k8s-w01: Write b[ .]/);
  assert.doesNotMatch(ui.messages('error')[0]!, /`/);
  assert.deepEqual(ui.confirms.map((c) => [c.message, c.actions]), [['Run 2 steps on 1 hosts of labs-k8s?', ['Run']], ['Resume 2 steps on 1 hosts of labs-k8s?', ['Resume', 'Start over']]]);
  const first = ui.runs[0]!.lines.join('\n');
  assert.match(first, /FAILED after [\d.]+ s at labs-k8s-w01: Write b/);
  assert.match(first, /run log .*\.log/);
  assert.match(ui.runs[1]!.lines.join('\n'), /resuming run \S+ \(steps already done are skipped\)/);
  assert.match(ui.messages('info')[0]!, /^labs-k8s is up \([\d.]+ s\)\.$/);
  assert.ok(s.done('b'));
});

test('hosts reached as another user: the sudo password is asked once, before the question; backing out asks nothing more', async (t) => {
  const s = setup('debian');
  t.after(s.cleanup);
  const ui = new ScriptedUi({ secret: () => undefined, confirm: (r) => r.actions[0] });
  assert.equal((await planRunWorkflow(ui, s.input)).kind, 'cancelled');
  assert.deepEqual(ui.transcript.filter((x) => /^(secret|confirm)/.test(x)), ['secret: sudo password for debian']);
  assert.equal(ui.secrets[0]!.prompt, 'labs-k8s-w01 is reached as debian: every step runs through sudo. Leave empty when sudo needs no password there.');
});

test('a cancel stops the remote command: the narration and the message say where', async (t) => {
  const s = setup();
  t.after(s.cleanup);
  writeFileSync(join(s.dir, 'hang'), '');
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0], cancelWhen: () => s.done('b-started') });
  const started = Date.now();
  const out = await planRunWorkflow(ui, s.input);
  assert.ok(out.kind === 'ran' && out.result.cancelled && Date.now() - started < 20_000, JSON.stringify(out));
  assert.ok(ui.runs[0]!.lines.includes('cancelling: stopping the remote commands…'), ui.runs[0]!.lines.join('\n'));
  assert.deepEqual(ui.messages('error'), ['Bring-up of labs-k8s cancelled at labs-k8s-w01: Write b.']);
  assert.equal(s.done('b'), false);
});

test('a failed step that echoed its secret: the failure message shows it as ***, like the narration', async (t) => {
  const s = setup();
  t.after(s.cleanup);
  // Not in a shape the SSH layer's patterns catch (`--token …`): only the command's own secret list can hide it.
  const token = 'Zq9-hunter2-k3y';
  s.input.plan.phases[0]!.steps.push({ id: 'prepare/labs-k8s-w01/c', phase: 'prepare', host: 'labs-k8s-w01', title: 'Join', rerun: 'a stand-in for a tool that echoes its arguments when it fails', run: sh`echo "refused key ${secret(token)}" >&2; exit 1` });
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0], message: () => undefined });
  await planRunWorkflow(ui, s.input);
  const failure = ui.messages('error')[0]!;
  assert.match(failure, /failed at labs-k8s-w01: Join \(it said: refused key \*\*\*\)/);
  assert.ok(!failure.includes(token), failure);
  assert.ok(!ui.runs[0]!.lines.join('\n').includes(token));
});

test('a run that could not reach its host: the cause, and the preflight offered instead of Resume or Start over', async (t) => {
  // The real SSH pool, to a port where nothing listens (test/unit/preflight/zoo.ts): the taxonomy's own failure.
  const dir = tempDir('kw-planrun-unreachable-');
  const zoo = await startZoo(dir, { m01: 'refused' });
  t.after(async () => {
    await zoo.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const inv = parseInventory(zoo.inventoryText).inventory!;
  const { pool } = createInventoryPool(inv, { prompt: new CliHostKeyPrompt([]), sshConfigFile: zoo.sshConfig, knownHostsFile: zoo.knownHosts, ownKnownHostsFile: join(dir, 'own'), homeDir: dir, auth: { agentSocket: '' } });
  t.after(() => pool.close());
  const plan: Plan = { fingerprint: 'u1', phases: [{ phase: 'prepare', title: 'Prepare', order: 'serial', warnings: [], steps: [{ id: 'prepare/labs-k8s-m01/a', phase: 'prepare', host: 'labs-k8s-m01', title: 'Write a', run: sh`true` }] }] };
  const answers = ['Run Preflight'];
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0], message: (_l, _t, actions) => (actions.includes(answers[0]!) ? answers.shift() : undefined) });
  const out = await planRunWorkflow(ui, {
    inventory: inv, plan, command: 'up', title: 'Bring-up of labs-k8s', planDocument: 'plan.txt', stateDir: join(dir, 'state'),
    ssh: pool, maxParallelHosts: 2, again: { resume: 'choose "Resume"', startOver: 'choose "Start over"' },
  });
  assert.ok(out.kind === 'ran' && !out.result.ok);
  const failure = ui.messages('error')[0]!;
  assert.match(failure, /^Bring-up of labs-k8s stopped at labs-k8s-m01: Write a: the run could not reach labs-k8s-m01 over SSH: nothing listens on 127\.0\.0\.1 port \d+: the connection was refused\. Resuming would stop at the same place: run the preflight/);
  assert.doesNotMatch(failure, /Connection lost|`/);
  // Run Preflight, pressed: the table of the plan's hosts, refused again while the host still does not answer.
  assert.equal(ui.preflights.length, 1);
  assert.match(ui.messages('error')[1]!, /refused before it asked anything: 1 of 1 host fails the preflight/);
  assert.equal(ui.confirms.length, 1, 'the run was not offered again');
});
