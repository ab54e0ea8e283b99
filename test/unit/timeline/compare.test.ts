import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRuns, hopTimes } from '../../../src/core/timeline/compare';
import { buildTimeline, type PodEvent } from '../../../src/core/timeline/model';

const micro = (ms: number): string => new Date(Math.floor(ms)).toISOString().replace(/Z$/, `${String(Math.round((ms % 1) * 1000)).padStart(3, '0')}Z`);
const sec = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** A run as events.k8s.io events give it (µs), with or without the image on the node. */
function run(name: string, node: string, T: number, pull: boolean) {
  const ev = (reason: string, at: number, message = ''): PodEvent => ({ reason, eventTime: micro(at), fieldPath: 'spec.containers{web}', message });
  const pullEnd = pull ? 1300 : 100;
  const events = [
    { reason: 'Scheduled', eventTime: micro(T + 12), message: `Successfully assigned default/${name} to ${node}` },
    ...(pull ? [ev('Pulling', T + 90)] : []),
    ev('Pulled', T + pullEnd, pull ? 'Successfully pulled image "10.3.60.1:5000/kwlab/web:1.0" in 1.21s (1.21s including waiting). Image size: 3000000 bytes.' : 'Container image "10.3.60.1:5000/kwlab/web:1.0" already present on machine'),
    ev('Created', T + pullEnd + 30), ev('Started', T + pullEnd + 80),
  ];
  return buildTimeline({ name, namespace: 'default', creationTimestamp: sec(T), nodeName: node, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: sec(T + pullEnd + 1000) }] }, events,
    { createSentAt: T + 1, createdAt: T + 9, bindingObservedAt: T + 15, runningObservedAt: T + pullEnd + 95 }, T + 5000);
}

test('cold then warm image on the same node: the pull explains the difference, the SLI (pulls excluded) barely moves', () => {
  const cold = run('web', 'labs-k8s-w01', Date.parse('2026-11-30T10:00:00Z'), true);
  const warm = run('web-2', 'labs-k8s-w01', Date.parse('2026-11-30T10:01:00Z'), false);
  const c = compareRuns(cold, warm);
  assert.equal(c.explanation[0], 'The pull took 1.21 s on labs-k8s-w01; the second run found the image there ("already present on machine").');
  assert.match(c.explanation[1]!, /^Startup SLI \(pulls excluded\): /);
  assert.ok(Math.abs(c.sliDeltaMs!) < 100, `SLI delta ${c.sliDeltaMs}`);
  const pull = c.hops.find((h) => h.hop === 'Image pull')!;
  assert.equal(Math.round(pull.a.ms!), 1210);
  assert.equal(pull.b.ms, undefined, 'no Pulling event: nothing was pulled');
  assert.equal(Math.round(hopTimes(cold).find((h) => h.hop === 'Create and start')!.ms!), 80);
});

test('a second run that has not pulled yet is not taken for one that had the image', () => {
  const cold = run('web', 'labs-k8s-w01', Date.parse('2026-11-30T10:00:00Z'), true);
  const starting = buildTimeline({ name: 'web-2', namespace: 'default', creationTimestamp: '2026-11-30T10:01:00Z', nodeName: 'labs-k8s-w01' }, [], { createSentAt: Date.parse('2026-11-30T10:00:59.990Z') });
  assert.deepEqual(compareRuns(cold, starting).explanation, ['Waiting for both runs to have their image…']);
});

test('two nodes: the one that had the image is named', () => {
  const c = compareRuns(run('a', 'labs-k8s-w01', Date.parse('2026-11-30T10:00:00Z'), true), run('b', 'labs-k8s-w02', Date.parse('2026-11-30T10:02:00Z'), false));
  assert.match(c.explanation[0]!, /^The pull took 1\.21 s on labs-k8s-w01; labs-k8s-w02 had the image/);
});
