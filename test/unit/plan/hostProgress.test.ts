/**
 * The summary a user sees instead of one line per host when a run spans many hosts: counts by state, the
 * slowest running hosts and the failed hosts named, fed by the runner's own events.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HostProgress, keepWhenSummarised, RunProgress, shouldSummarise } from '../../../src/core/plan/hostProgress';
import type { PhasePlan, Step } from '../../../src/core/plan/types';

function clock(start = 1_000_000) {
  const c = { t: start, now: () => c.t };
  return c;
}

test('summary counts hosts by state and names the slowest running and the failed hosts', () => {
  const c = clock();
  const p = new HostProgress(c.now);
  for (let i = 1; i <= 100; i++) p.expect(`w${String(i).padStart(3, '0')}`);
  for (let i = 1; i <= 40; i++) {
    p.started(`w${String(i).padStart(3, '0')}`);
    c.t += 100;
  }
  for (let i = 4; i <= 37; i++) p.ended(`w${String(i).padStart(3, '0')}`, true);
  p.ended('w038', false, 'exit 1');
  p.ended('w039', false, 'exit 2');
  c.t += 10_000;
  assert.deepEqual(p.counts(), { done: 34, running: 4, failed: 2, waiting: 60, total: 100 });
  // w001 started first, so it has run longest.
  assert.equal(p.summary(2), '34/100 done · 4 running · 2 failed · 60 waiting — slowest: w001 14 s, w002 14 s — failed: w038, w039');
  assert.match(p.summary(1), /failed: w038 \+1 more$/);
});

test('a host with several steps is done after its last step; a failure sticks', () => {
  const p = new HostProgress(clock().now);
  p.expect('m01', 2);
  p.started('m01');
  p.ended('m01', true);
  assert.equal(p.counts().waiting, 1, 'between its steps the host waits');
  p.started('m01');
  p.ended('m01', true);
  assert.equal(p.counts().done, 1);
  p.expect('m02', 2);
  p.started('m02');
  p.ended('m02', false, 'boom');
  p.started('m02');
  p.ended('m02', true);
  assert.deepEqual(p.failed(), [{ host: 'm02', error: 'boom' }]);
});

function phase(title: string, hosts: string[], alongside = false): PhasePlan {
  const steps: Step[] = hosts.map((h) => ({ id: `prepare/${h}/x`, phase: 'prepare', host: h, title: 'install containerd' }));
  return { phase: 'prepare', title, order: 'parallel', steps, warnings: [], ...(alongside ? { alongsidePrevious: true } : {}) };
}

test('run progress: one summary per phase, phases announced together share it', () => {
  const c = clock();
  const r = new RunProgress(c.now);
  const prep = phase('Prepare nodes', ['a', 'b', 'c']);
  const lb = phase('Load balancers', ['lb1'], true);
  r.onEvent({ type: 'phase', phase: prep });
  r.onEvent({ type: 'phase', phase: lb });
  r.onEvent({ type: 'step-start', step: prep.steps[0]!, display: undefined });
  r.onEvent({ type: 'step-start', step: lb.steps[0]!, display: undefined });
  c.t += 3000;
  r.onEvent({ type: 'step-end', step: lb.steps[0]!, state: 'failed', error: 'haproxy -c failed', ms: 3000 });
  assert.equal(r.line(), 'Prepare nodes + Load balancers: 0/4 done · 1 running · 1 failed · 2 waiting — slowest: a 3 s — failed: lb1');
  for (const s of prep.steps) r.onEvent({ type: 'step-end', step: s, state: 'done', ms: 1 });
  // The next phase, once those ended, starts a fresh summary.
  const init = phase('Init', ['a']);
  r.onEvent({ type: 'phase', phase: init });
  r.onEvent({ type: 'step-start', step: init.steps[0]!, display: undefined });
  r.onEvent({ type: 'step-end', step: init.steps[0]!, state: 'skipped', ms: 1 });
  assert.equal(r.line(), 'Init: 1/1 done · 0 running · 0 failed · 0 waiting');
});

test('run progress: a phase that starts while another still runs (workers beside control-plane joins) joins its summary', () => {
  const c = clock();
  const r = new RunProgress(c.now);
  const cp = phase('Join the other control-plane nodes', ['m02', 'm03']);
  const workers = phase('Join the workers', ['w01']);
  r.onEvent({ type: 'phase', phase: cp });
  r.onEvent({ type: 'step-start', step: cp.steps[0]!, display: undefined });
  r.onEvent({ type: 'step-end', step: cp.steps[0]!, state: 'done', ms: 1 });
  r.onEvent({ type: 'step-start', step: cp.steps[1]!, display: undefined });
  r.onEvent({ type: 'phase', phase: workers });
  r.onEvent({ type: 'step-start', step: workers.steps[0]!, display: undefined });
  r.onEvent({ type: 'step-end', step: workers.steps[0]!, state: 'done', ms: 1 });
  assert.equal(r.line(), 'Join the other control-plane nodes + Join the workers: 2/3 done · 1 running · 0 failed · 0 waiting — slowest: m03 0 s');
  r.onEvent({ type: 'step-end', step: cp.steps[1]!, state: 'done', ms: 1 });
  const checks = phase('Cluster checks', ['m01']);
  r.onEvent({ type: 'phase', phase: checks });
  assert.equal(r.line(), 'Cluster checks: 0/1 done · 0 running · 0 failed · 1 waiting');
});

test('summarised views keep run-level lines and errors, drop per-host narration', () => {
  const time = new Date();
  assert.equal(shouldSummarise(12), false);
  assert.equal(shouldSummarise(13), true);
  assert.equal(keepWhenSummarised({ stream: 'info', text: '== Prepare nodes', time }), true);
  assert.equal(keepWhenSummarised({ host: 'w1', stream: 'error', text: '<- x: failed', time }), true);
  assert.equal(keepWhenSummarised({ host: 'w1', stream: 'stdout', text: 'Reading package lists...', time }), false);
  assert.equal(keepWhenSummarised({ host: 'w1', stream: 'info', text: '-> install containerd', time }), false);
});
