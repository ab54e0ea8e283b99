/**
 * Resume verifies instead of trusting (issue 18): a step the ledger remembers as done runs again when its
 * check finds its effect gone; a host that is not the one the run saw (machine-id, host key, install
 * marker) is named and started over; a failed resume says where, why, and how out — never "run it again"
 * when that is known to fail the same way. The host probe runs for real on this machine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { compareIdentity, describeChange, IDENTITY_PROBE, parseIdentity } from '../../../src/core/plan/hostIdentity';
import type { Ledger } from '../../../src/core/plan/ledger';
import { createLedger } from '../../../src/engine/state/runLedger';
import { HostLocks } from '../../../src/engine/state/hostLocks';
import { LocalExecutor } from '../../../src/adapters/local/localExecutor';
import { runPlan, type RunEvent } from '../../../src/core/plan/runner';
import type { Plan } from '../../../src/core/plan/types';
import { sh } from '../../../src/core/ssh/command';
import { RunOutput } from '../../../src/core/ssh/runLog';
import { adviceLines, failureAdvice } from '../../../src/engine/advice';
import { executePlan } from '../../../src/engine/bringUp';
import { checkHosts } from '../../../src/engine/hostCheck';
import { tempDir } from '../../tempDir';

function workdir() {
  const dir = tempDir('kw-resume-');
  return { dir, runs: join(dir, 'runs'), locks: join(dir, 'locks') };
}

/**
 * One host, `local` (this machine): a first step, a "package sources" file, then a step that needs it. (Not
 * called install-marker: the real marker's path is the probe's, and this machine has none.)
 */
function hostPlan(dir: string): Plan {
  const sources = join(dir, 'sources.list');
  const marker = join(dir, 'install-id');
  return {
    fingerprint: 'resume',
    phases: [{
      phase: 'prepare', title: 'Prepare', order: 'parallel', warnings: [],
      steps: [
        { id: 'prepare/local/first', phase: 'prepare', host: 'local', title: 'First', check: sh`test -s ${marker}`, run: sh`echo one > ${marker}` },
        { id: 'prepare/local/apt-sources', phase: 'prepare', host: 'local', title: 'Package sources', check: sh`test -f ${sources}`, run: sh`echo deb > ${sources}`, capture: () => ({ sourcesAt: 'then' }) },
        { id: 'prepare/local/containerd', phase: 'prepare', host: 'local', title: 'containerd', rerun: 'stand-in for an install that needs the sources', run: sh`test -f ${sources} || { echo 'E: Unable to locate package containerd' >&2; exit 100; }` },
      ],
    }],
  };
}

const run = (plan: Plan, ledger: Ledger, locks: string, events: RunEvent[] = []) =>
  runPlan(plan, { executor: new LocalExecutor(), ledger, locks: new HostLocks(locks, ledger.data.runId), maxParallelHosts: 2, onEvent: (e) => events.push(e) });
const ends = (events: RunEvent[]) => events.flatMap((e) => (e.type === 'step-end' ? [`${e.step.id.split('/').pop()}:${e.state}`] : []));

test('a step the ledger has as done runs again when its check finds the effect gone (the issue\'s Package sources on a rebuilt host)', async () => {
  const { dir, runs, locks } = workdir();
  const plan = hostPlan(dir);
  const ledger = createLedger(runs, 'up', plan.fingerprint);
  await ledger.mark('prepare/local/containerd', { state: 'failed', error: 'killed' });
  assert.equal((await run(plan, ledger, locks)).ok, true);
  // The host is "reset": its files are gone; the ledger still says done.
  rmSync(join(dir, 'sources.list'));
  assert.equal(ledger.state('prepare/local/apt-sources'), 'done');
  const events: RunEvent[] = [];
  const again = await run(plan, ledger, locks, events);
  assert.equal(again.ok, true, again.failed?.error);
  assert.deepEqual(ends(events), ['first:skipped', 'apt-sources:done', 'containerd:done'], 'checked on the host, not taken from the ledger');
  assert.ok(existsSync(join(dir, 'sources.list')));
});

test('the host probe reads this machine: machine-id, boot id and the SSH host keys as ssh-keygen -l shows them', async () => {
  let out = '';
  await new LocalExecutor().exec('local', IDENTITY_PROBE, { onStdout: (t) => (out += t) });
  const id = parseIdentity(out);
  assert.match(id.machineId ?? '', /^[0-9a-f]{32}$/);
  assert.match(id.bootId ?? '', /^[0-9a-f-]{36}$/);
  if (existsSync('/etc/ssh/ssh_host_ed25519_key.pub')) {
    const fp = execFileSync('ssh-keygen', ['-lf', '/etc/ssh/ssh_host_ed25519_key.pub'], { encoding: 'utf8' }).split(' ')[1];
    assert.ok(id.hostKeys?.includes(`ssh-ed25519 ${fp}`), `${fp} in ${id.hostKeys?.join(', ')}`);
  }
});

test('a host that is not the one the run saw is named, its steps forgotten and its values gone; the same host, or only restarted, keeps them', async () => {
  const { dir, runs, locks } = workdir();
  const plan = hostPlan(dir);
  const ledger = createLedger(runs, 'up', plan.fingerprint);
  assert.deepEqual(await checkHosts(plan, ledger, new LocalExecutor()), [], 'a new run has nothing to compare with');
  const seen = ledger.host('local')!;
  assert.ok(seen.machineId, 'what the run saw is recorded');
  assert.equal((await run(plan, ledger, locks)).ok, true);

  assert.deepEqual(await checkHosts(plan, ledger, new LocalExecutor()), [], 'the same machine: nothing to say');
  assert.equal(ledger.state('prepare/local/apt-sources'), 'done');

  // The run saw another boot of this machine: restarted, not rebuilt.
  await ledger.recordHosts({ local: { ...seen, bootId: '00000000-0000-0000-0000-000000000000' } });
  const restarted = await checkHosts(plan, ledger, new LocalExecutor());
  assert.deepEqual(restarted.map((c) => [c.rebuilt, c.rebooted]), [[false, true]]);
  assert.equal(ledger.state('prepare/local/apt-sources'), 'done', 'a restart forgets nothing');

  // The run saw another machine under this name (re-imaged: new machine-id and host keys).
  await ledger.recordHosts({ local: { ...seen, machineId: 'f'.repeat(32), hostKeys: ['ssh-ed25519 SHA256:other'] } });
  const rebuilt = await checkHosts(plan, ledger, new LocalExecutor());
  assert.equal(rebuilt.length, 1);
  assert.equal(describeChange(rebuilt[0]!), 'local was rebuilt since this run started: its steps will run again (machine-id and SSH host key differ)');
  for (const id of ['first', 'apt-sources', 'containerd']) assert.equal(ledger.state(`prepare/local/${id}`), 'pending', id);
  assert.equal(ledger.data.steps['prepare/local/apt-sources']?.values, undefined, 'values captured on the old host are gone');
  assert.equal(ledger.host('local')?.machineId, seen.machineId, 'the host as it is now is recorded');
});

test('the install marker tells a rebuilt host even when machine-id and host keys were kept, and when the run was killed before recording the marker', () => {
  const base = { machineId: 'a'.repeat(32), bootId: 'b', hostKeys: ['ssh-ed25519 SHA256:k'], seenAt: '' };
  assert.deepEqual(compareIdentity('m03', { ...base, installId: 'one' }, { ...base, bootId: 'c' }, true)?.reasons, ['install marker']);
  assert.deepEqual(compareIdentity('m03', { ...base, installId: 'one' }, { ...base, installId: 'two' }, true)?.reasons, ['install marker']);
  // Recorded before prepare wrote the marker; the ledger has the marker step done: the host must have it.
  assert.equal(compareIdentity('m03', base, { ...base, bootId: 'c' }, true)?.rebuilt, true);
  assert.equal(compareIdentity('m03', base, { ...base, installId: 'one' }, true), undefined, 'the marker this run wrote');
  assert.equal(compareIdentity('m03', base, { ...base }, false), undefined, 'not prepared yet: nothing tells');
});

test('a failed resume names step, host and cause, and when it fails the same way again it stops suggesting a resume and points at --fresh', async () => {
  const { dir, runs } = workdir();
  const plan = hostPlan(dir);
  // The loop: sources "done" in the ledger, gone on the host, and (as before this fix) nothing to check them.
  const trusting: Plan = { ...plan, phases: [{ ...plan.phases[0]!, steps: plan.phases[0]!.steps.map((s) => (s.id.endsWith('apt-sources') ? { ...s, check: sh`true` } : s)) }] };
  const ledger = createLedger(runs, 'up', plan.fingerprint);
  const output = new RunOutput([]);
  const lines: string[] = [];
  output.addSink((l) => lines.push(l.text));
  const state = { stateDir: dir, command: 'up', resume: true };
  const first = await executePlan(trusting, ledger, state, { executor: new LocalExecutor(), output, maxParallelHosts: 2 });
  assert.equal(first.ok, false);
  assert.equal(first.advice?.where, 'local: containerd');
  assert.match(first.advice?.cause ?? '', /package sources are missing or their lists are stale/);
  assert.equal(first.advice?.repeated, false);
  const firstLines = adviceLines(first.advice!, 'run `up` again', 'run it with --fresh');
  assert.match(firstLines.at(-1)!, /^way out: then run `up` again to resume at this step .* or run it with --fresh to start over$/);

  const second = await executePlan(trusting, ledger, state, { executor: new LocalExecutor(), output, maxParallelHosts: 2, resumed: true });
  assert.equal(second.advice?.repeated, true, 'the same step failed the same way in the run it resumed');
  const text = adviceLines(second.advice!, 'run `up` again', 'run it with --fresh').join('\n');
  assert.match(text, /failed the same way .* will fail again/);
  assert.match(text, /run it with --fresh to start over/);
  assert.doesNotMatch(text, /to resume at this step/, 'no loop: resuming is not offered');
});

test('a rebuilt first control-plane node: a host that was not rebuilt and fails is told it holds the old cluster\'s files', () => {
  const step = { id: 'join-control-plane/m02/join', phase: 'join-control-plane' as const, host: 'm02', title: 'kubeadm join --control-plane (m02)' };
  const a = failureAdvice({
    step, error: 'm02: an earlier join left files here, and the API cannot tell whether m02 finished joining; not resetting it', cancelled: false, resumed: true,
    changes: [{ host: 'm01', rebuilt: true, rebooted: true, reasons: ['install marker'] }], firstControlPlane: 'm01',
  });
  assert.match(a.cause!, /^m01 was rebuilt since this run started, so the cluster is a new one; m02 was not/);
  assert.match(a.fix!, /reset m02 \(`kubeadm reset -f` on it\)/);
});

test('the cause is read from what the host said, not from the command (whose text names the messages the rules look for)', () => {
  const step = { id: 'init/m01/kubeadm-init', phase: 'init' as const, host: 'm01', title: 'kubeadm init --upload-certs' };
  const error = "m01: kubeadm init --upload-certs: `if ...; then echo 'm01: an earlier init left admin.conf here, and the API does not answer; not resetting a cluster that may be working' >&2; fi && kubeadm init` exited 1: " +
    'error: error execution phase wait-control-plane: could not bootstrap the admin user in file admin.conf: unable to create ClusterRoleBinding: Post "https://10.3.60.51:6443/...": context deadline exceeded';
  const a = failureAdvice({ step, error, cancelled: false, resumed: false, changes: [] });
  assert.match(a.cause!, /answered too slowly: the host is overloaded/);
});
