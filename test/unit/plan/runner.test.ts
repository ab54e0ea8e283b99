import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sh, secret } from '../../../src/core/ssh/command';
import { createLedger, findResumable } from '../../../src/engine/state/runLedger';
import { HostLockError } from '../../../src/core/plan/locks';
import { HostLocks, processStart } from '../../../src/engine/state/hostLocks';
import { LocalExecutor } from '../../../src/adapters/local/localExecutor';
import { runPlan, type RunEvent } from '../../../src/core/plan/runner';
import { renderPlan, type Plan } from '../../../src/core/plan/types';
import { killedRunPlan } from './killedRun';
import { tempDir } from '../../tempDir';

function workdir() {
  const dir = tempDir('kw-plan-');
  return { dir, runs: join(dir, 'runs'), locks: join(dir, 'locks') };
}

function seedPlan(dir: string): Plan {
  const marker = join(dir, 'prepared');
  return {
    fingerprint: 'f1',
    phases: [
      {
        phase: 'prepare', title: 'Prepare hosts', order: 'parallel', warnings: [],
        steps: ['a', 'b'].map((h) => ({
          id: `prepare/${h}/marker`, phase: 'prepare' as const, host: h, title: 'Write marker',
          check: sh`test -e ${marker + h}`,
          run: sh`echo prepared ${h} && touch ${marker + h}`,
          verify: sh`test -e ${marker + h}`,
        })),
      },
      {
        phase: 'init', title: 'Init', order: 'serial', warnings: [],
        steps: [
          { id: 'init/a/token', phase: 'init', host: 'a', title: 'Create a join token', run: sh`printf 'token=%s.%s\n' abcdef 0123456789abcdef`, capture: (out) => ({ token: /token=(\S+)/.exec(out)![1]! }), secretCaptures: ['token'] },
          { id: 'init/b/join', phase: 'init', host: 'b', title: 'Join', run: (v) => sh`echo joining with ${secret(v.get('token')!)} && test -e ${join(dir, 'allow-join')}`, planDisplay: 'kubeadm join --token ***' },
        ],
      },
    ],
  };
}

test('the plan text lists every host, command, check and verification, with secrets hidden', () => {
  const { dir } = workdir();
  const text = renderPlan(seedPlan(dir));
  assert.match(text, /\[a\] Write marker\n    skip if: test -e .*preparedа?/);
  assert.match(text, /\[b\] Join\n    run: kubeadm join --token \*\*\*/);
  assert.doesNotMatch(text, /abcdef\.0123456789abcdef/);
});

test('a failed step stops the run with host, step and command; resume skips what was done and finishes', async () => {
  const { dir, runs, locks } = workdir();
  const plan = seedPlan(dir);
  const events: RunEvent[] = [];
  const ledger = createLedger(runs, 'up', plan.fingerprint);
  const first = await runPlan(plan, { executor: new LocalExecutor(), ledger, locks: new HostLocks(locks, ledger.data.runId), maxParallelHosts: 10, onEvent: (e) => events.push(e), verifyIntervalMs: 10 });
  assert.equal(first.ok, false);
  assert.match(first.failed!.error, /^b: Join: `echo joining with \*\*\* && test -e .*allow-join` exited 1/);
  const output = events.filter((e) => e.type === 'output').map((e) => (e.type === 'output' ? e.text : '')).join('');
  assert.match(output, /joining with \*\*\*/, 'the secret is redacted from streamed output');
  assert.doesNotMatch(output, /0123456789abcdef/);
  assert.doesNotMatch(readFileSync(ledger.file, 'utf8'), /0123456789abcdef/, 'secrets never reach the ledger');

  writeFileSync(join(dir, 'allow-join'), '');
  const resumed = (await findResumable(runs, 'up', plan.fingerprint)).ledger;
  assert.ok(resumed, 'the failed run is found for resume');
  const again: RunEvent[] = [];
  const second = await runPlan(plan, { executor: new LocalExecutor(), ledger: resumed, locks: new HostLocks(locks, resumed.data.runId), maxParallelHosts: 10, onEvent: (e) => again.push(e) });
  assert.equal(second.ok, true);
  const ran = again.filter((e) => e.type === 'step-end').map((e) => (e.type === 'step-end' ? `${e.step.id}:${e.state}` : ''));
  // Steps that can check themselves ask the host again and are skipped (their effect is there);
  // the token step re-runs because its secret was never stored; the failed step runs again.
  assert.deepEqual(ran.sort(), ['init/a/token:done', 'init/b/join:done', 'prepare/a/marker:skipped', 'prepare/b/marker:skipped']);
  assert.ok(resumed.isComplete());
});

test('a satisfied check skips the step (idempotence)', async () => {
  const { dir, runs, locks } = workdir();
  writeFileSync(join(dir, 'prepareda'), '');
  const plan = { ...seedPlan(dir), phases: [seedPlan(dir).phases[0]!] };
  const events: RunEvent[] = [];
  const ledger = createLedger(runs, 'prepare', plan.fingerprint);
  await runPlan(plan, { executor: new LocalExecutor(), ledger, locks: new HostLocks(locks, ledger.data.runId), maxParallelHosts: 2, onEvent: (e) => events.push(e) });
  const states = Object.fromEntries(events.filter((e) => e.type === 'step-end').map((e) => (e.type === 'step-end' ? [e.step.host, e.state] : [])));
  assert.deepEqual(states, { a: 'skipped', b: 'done' });
});

test('cancel kills the running command and records the step as cancelled', async () => {
  const { dir, runs, locks } = workdir();
  const pidFile = join(dir, 'pid');
  const plan: Plan = { fingerprint: 'c', phases: [{ phase: 'prepare', title: 'Slow', order: 'parallel', warnings: [], steps: [{ id: 'prepare/a/slow', phase: 'prepare', host: 'a', title: 'Sleep', run: sh`sh -c ${'echo $$ > ' + pidFile + '; exec sleep 30'}` }] }] };
  const ledger = createLedger(runs, 'slow', plan.fingerprint);
  const abort = new AbortController();
  setTimeout(() => abort.abort(), 300);
  const started = Date.now();
  const result = await runPlan(plan, { executor: new LocalExecutor(), ledger, locks: new HostLocks(locks, ledger.data.runId), maxParallelHosts: 1, signal: abort.signal });
  assert.equal(result.cancelled, true);
  assert.ok(Date.now() - started < 5000);
  const pid = Number(readFileSync(pidFile, 'utf8'));
  assert.ok(await gone(pid), 'the sleep is gone');
  assert.equal(ledger.state('prepare/a/slow'), 'cancelled');
});

test('a host locked by a live run is refused with the owner named; a stale lock is taken over', async () => {
  const { locks } = workdir();
  const one = new HostLocks(locks, 'run-1');
  await one.acquire('labs-k8s-m01');
  await assert.rejects(new HostLocks(locks, 'run-2').acquire('labs-k8s-m01'), (e: unknown) => e instanceof HostLockError && /run-1/.test(e.message));
  await one.releaseAll();
  writeFileSync(join(locks, 'labs-k8s-m02.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, runId: 'dead', since: '' }));
  await new HostLocks(locks, 'run-3').acquire('labs-k8s-m02');
  assert.ok(existsSync(join(locks, 'labs-k8s-m02.lock')));
});

test('a run SIGKILLed in the middle of a step resumes from its ledger: the dead run\'s lock is taken over, the step runs again, the done one does not', async () => {
  const { dir, runs, locks } = workdir();
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'killedRun.ts'), dir], { stdio: 'inherit' });
  const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, signal) => r(signal)));
  for (let i = 0; i < 400 && !existsSync(join(dir, 'b-runs')); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(existsSync(join(dir, 'b-runs')), 'the slow step started');
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');
  // What a crash leaves: b's lock held by a pid that is gone, b's step "running", no completion.
  assert.equal(JSON.parse(readFileSync(join(locks, 'b.lock'), 'utf8')).pid, child.pid);
  const ledger = (await findResumable(runs, 'up', 'killed-run')).ledger;
  assert.ok(ledger, 'the killed run is found for resume');
  assert.equal(ledger.state('join-control-plane/a/first'), 'done');
  assert.equal(ledger.state('join-control-plane/b/slow'), 'running');

  writeFileSync(join(dir, 'go'), '');
  const events: RunEvent[] = [];
  const result = await runPlan(killedRunPlan(dir), { executor: new LocalExecutor(), ledger, locks: new HostLocks(locks, ledger.data.runId), maxParallelHosts: 2, onEvent: (e) => events.push(e) });
  assert.equal(result.ok, true, result.failed?.error);
  assert.deepEqual(events.filter((e) => e.type === 'step-end').map((e) => (e.type === 'step-end' ? `${e.step.id}:${e.state}` : '')), ['join-control-plane/a/first:skipped', 'join-control-plane/b/slow:done']);
  assert.equal(readFileSync(join(dir, 'a-runs'), 'utf8'), 'first\n', 'the done step did not run again: its check found its effect');
  assert.equal(readFileSync(join(dir, 'b-runs'), 'utf8'), 'started\nstarted\n');
  assert.ok(!existsSync(join(locks, 'b.lock')), 'the resumed run released the lock it took over');
  assert.equal((await findResumable(runs, 'up', 'killed-run')).ledger, undefined, 'a finished run is not resumed again');
});

test('a run SIGKILLed while a worker join ran beside a control-plane join resumes: the finished worker join is skipped by its check, the killed join runs again, then the checks', async () => {
  const { dir, runs, locks } = workdir();
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'killedRun.ts'), dir, 'overlapped'], { stdio: 'inherit' });
  const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, signal) => r(signal)));
  const ledgerSays = async (id: string) => ((await findResumable(runs, 'up', 'killed-overlapped-run')).ledger)?.state(id);
  for (let i = 0; i < 400 && !(existsSync(join(dir, 'b-runs')) && (await ledgerSays('join-workers/w/join')) === 'done'); i++) await new Promise((r) => setTimeout(r, 50));
  const workerState = await ledgerSays('join-workers/w/join');
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');
  assert.ok(existsSync(join(dir, 'b-runs')), 'the slow control-plane join started');
  assert.equal(workerState, 'done', 'the worker joined while the control-plane join was running');
  const ledger = (await findResumable(runs, 'up', 'killed-overlapped-run')).ledger;
  assert.ok(ledger, 'the killed run is found for resume');
  assert.equal(ledger.state('join-control-plane/b/slow'), 'running');
  assert.ok(!['running', 'done'].includes(String(ledger.state('verify/a/after'))), 'the checks never started');

  writeFileSync(join(dir, 'go'), '');
  const events: RunEvent[] = [];
  const result = await runPlan(killedRunPlan(dir, true), { executor: new LocalExecutor(), ledger, locks: new HostLocks(locks, ledger.data.runId), maxParallelHosts: 2, onEvent: (e) => events.push(e) });
  assert.equal(result.ok, true, result.failed?.error);
  const ends = events.flatMap((e) => (e.type === 'step-end' ? [`${e.step.id}:${e.state}`] : []));
  assert.deepEqual([...ends].sort(), ['join-control-plane/a/first:skipped', 'join-control-plane/b/slow:done', 'join-workers/w/join:skipped', 'verify/a/after:done']);
  assert.equal(ends.at(-1), 'verify/a/after:done', 'the checks waited for both joins');
  assert.equal(readFileSync(join(dir, 'w-runs'), 'utf8'), 'joined\n', 'the worker did not join twice');
  assert.equal(readFileSync(join(dir, 'b-runs'), 'utf8'), 'started\nstarted\n');
  assert.equal(readFileSync(join(dir, 'checks'), 'utf8'), 'after\n');
  assert.ok(!existsSync(join(locks, 'b.lock')) && !existsSync(join(locks, 'w.lock')), 'every lock released');
});

test('a run killed between two steps (every recorded step done) is still resumed; a newer finished run supersedes an older unfinished one', async () => {
  const { runs } = workdir();
  const killed = createLedger(runs, 'up', 'fp', new Date('2026-01-01T00:00:00Z'));
  await killed.mark('prepare/a/one', { state: 'done' });
  assert.equal(((await findResumable(runs, 'up', 'fp')).ledger)?.data.runId, killed.data.runId);
  const fresh = createLedger(runs, 'up', 'fp', new Date('2026-01-02T00:00:00Z'));
  await fresh.mark('prepare/a/one', { state: 'done' });
  await fresh.complete();
  assert.equal((await findResumable(runs, 'up', 'fp')).ledger, undefined, 'the newest run of the plan finished: nothing to resume');
});

test('a lock whose pid now belongs to another process (pid reused after a crash) is taken over', async () => {
  const { locks } = workdir();
  const start = processStart(process.pid);
  assert.ok(start, '/proc tells the start time');
  await import('node:fs').then((fs) => fs.mkdirSync(locks, { recursive: true }));
  // This test's own pid is alive; the lock says it started at another time: its owner is gone.
  writeFileSync(join(locks, 'labs-k8s-m02.lock'), JSON.stringify({ pid: process.pid, runId: 'crashed', since: '', pidStart: String(Number(start) - 1) }));
  await new HostLocks(locks, 'run-4').acquire('labs-k8s-m02');
  assert.equal(JSON.parse(readFileSync(join(locks, 'labs-k8s-m02.lock'), 'utf8')).runId, 'run-4');
  // The same pid with its real start time is a live owner.
  await assert.rejects(new HostLocks(locks, 'run-5').acquire('labs-k8s-m02'), (e: unknown) => e instanceof HostLockError && /run-4/.test(e.message));
});

/** True once the process no longer exists or is a zombie waiting for its reaper. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    try {
      const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0];
      if (state === 'Z') return true;
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
