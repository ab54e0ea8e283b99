import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTimeline, type Evidence, type PodEvent, type PodSnapshot, type Timeline } from '../../../src/core/timeline/model';
import { boxesIntersect, labelBoxes, layoutTimeline, textWidth } from '../../../src/core/timeline/layout';
import { timelineToSvg } from '../../../src/core/timeline/svg';

const sec = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const micro = (ms: number): string => new Date(Math.floor(ms)).toISOString().replace(/Z$/, `${String(Math.round((ms % 1) * 1000)).padStart(3, '0')}Z`);
const T = Date.parse('2026-11-30T10:00:00Z');

/** The UI tier's run (test/ui/timeline.ui.test.ts): what its table printed, step for step. */
export function uiTierRun(): Timeline {
  const pod: PodSnapshot = {
    name: 'web', namespace: 'default', uid: 'u', creationTimestamp: sec(T), nodeName: 'labs-k8s-w01', phase: 'Running',
    conditions: ['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready', 'PodScheduled'].map((type) => ({ type, status: 'True', lastTransitionTime: sec(type === 'PodScheduled' ? T : T + 3000) })),
    containerStatuses: [{ name: 'web', state: { running: { startedAt: sec(T + 3000) } } }],
  };
  const events: PodEvent[] = [
    { reason: 'Scheduled', eventTime: micro(T + 120), message: 'Successfully assigned default/web to labs-k8s-w01' },
    { reason: 'Pulling', firstTimestamp: sec(T + 1000), message: 'Pulling image "10.3.60.1:5000/kwlab/web:1.0"' },
    { reason: 'Pulled', firstTimestamp: sec(T + 2000), message: 'Successfully pulled image "10.3.60.1:5000/kwlab/web:1.0" in 1.2s (1.2s including waiting). Image size: 3000000 bytes.' },
    { reason: 'Created', firstTimestamp: sec(T + 2000), message: 'Created container: web' },
    { reason: 'Started', firstTimestamp: sec(T + 3000), message: 'Started container web' },
  ];
  return buildTimeline(pod, events, { createSentAt: T + 180, createdAt: T + 202, bindingObservedAt: T + 2660, runningObservedAt: T + 2680, readyObservedAt: T + 2690 }, T + 4000);
}

/** A dense run: every hop from audit and journals, µs apart, two containers, a probe, all inside 1.3 s. */
export function denseRun(): Timeline {
  const pod: PodSnapshot = {
    name: 'web', namespace: 'default', uid: 'u', creationTimestamp: sec(T), nodeName: 'labs-k8s-w01', phase: 'Running',
    conditions: ['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready', 'PodScheduled'].map((type) => ({ type, status: 'True', lastTransitionTime: sec(T + (type === 'PodScheduled' || type === 'Initialized' ? 0 : 1000)) })),
    containerStatuses: ['web', 'sidecar'].map((name) => ({ name, state: { running: { startedAt: sec(T + 1000) } } })),
  };
  const ev = (reason: string, c: string, at: number, message = ''): PodEvent => ({ reason, eventTime: micro(at), fieldPath: `spec.containers{${c}}`, message });
  const events: PodEvent[] = [
    { reason: 'Scheduled', eventTime: micro(T + 12.345), message: 'Successfully assigned default/web to labs-k8s-w01' },
    ev('Pulled', 'web', T + 420, 'Container image "10.3.60.1:5000/kwlab/web:1.0" already present on machine'),
    ev('Created', 'web', T + 431), ev('Started', 'web', T + 478),
    ev('Pulling', 'sidecar', T + 479), ev('Pulled', 'sidecar', T + 1102, 'Successfully pulled image "x" in 623ms'), ev('Created', 'sidecar', T + 1110), ev('Started', 'sidecar', T + 1150),
  ];
  const j = (step: Evidence['step'], lane: Evidence['lane'], label: string, at: number, container?: string): Evidence => ({ step, lane, label, at, precision: 'us', source: 'journal', ...(container ? { container } : {}) });
  const evidence: Evidence[] = [
    { step: 'request-received', lane: 'apiserver', label: 'RequestReceived', at: T + 3.101, precision: 'us', source: 'audit' },
    { step: 'stored', lane: 'apiserver', label: 'ResponseComplete 201', at: T + 9.876, precision: 'us', source: 'audit' },
    j('kubelet-sync', 'kubelet', 'SyncLoop ADD', T + 14.2), j('sandbox-start', 'runtime', 'RunPodSandbox', T + 40.5), j('cni-add', 'runtime', 'CNI ADD 10.244.3.17', T + 210.7),
    j('sandbox-ready', 'runtime', 'RunPodSandbox returns', T + 399.9), j('container-created', 'runtime', 'CreateContainer web', T + 425.5, 'web'), j('container-started', 'runtime', 'StartContainer web', T + 476.1, 'web'),
    j('pulling', 'runtime', 'PullImage sidecar', T + 479.3, 'sidecar'), j('pulled', 'runtime', 'PullImage returns', T + 1101.2, 'sidecar'),
    j('container-created', 'runtime', 'CreateContainer sidecar', T + 1105, 'sidecar'), j('container-started', 'runtime', 'StartContainer sidecar', T + 1148, 'sidecar'),
  ];
  return buildTimeline(pod, events, { createSentAt: T + 1.5, createdAt: T + 11.2, bindingObservedAt: T + 15, runningObservedAt: T + 1210, readyObservedAt: T + 1260 }, T + 2000, { evidence });
}

for (const [name, run] of [['the UI tier\'s run', uiTierRun], ['a dense run with audit and journals', denseRun]] as const) {
  for (const width of [640, 960, 1600, 4800]) {
    test(`${name} at ${width} px: no two labels overlap, each stays on the chart and in its lane`, () => {
      const t = run();
      const layout = layoutTimeline(t, { width });
      const boxes = labelBoxes(layout);
      assert.equal(boxes.length, t.entries.length + layout.spans.length);
      for (let i = 0; i < boxes.length; i++) {
        const a = boxes[i]!;
        assert.ok(a.box.x >= 0 && a.box.x + a.box.width <= layout.width, `${a.text} leaves the chart`);
        assert.ok(a.box.width >= textWidth(a.text), `${a.text}'s box is narrower than its text`);
        for (let j = i + 1; j < boxes.length; j++) assert.ok(!boxesIntersect(a.box, boxes[j]!.box), `"${a.text}" overlaps "${boxes[j]!.text}"`);
      }
      for (const m of layout.marks) {
        const band = layout.lanes.find((b) => b.lane === t.entries[m.index]!.lane)!;
        assert.ok(m.label.box.y >= band.top && m.label.box.y + m.label.box.height <= band.top + band.height, `${m.label.text} outside its lane`);
      }
    });
  }
}

test('durations are drawn as bars: the request, the sandbox, each pull and each start', () => {
  const names = layoutTimeline(denseRun(), { width: 960 }).spans.map((s) => s.name);
  assert.deepEqual(names.sort(), ['authn, authz, admission, etcd', 'pull sidecar', 'request', 'sandbox', 'start sidecar', 'start web'].sort());
  const svg = timelineToSvg(denseRun(), { colors: 'theme', width: 960 });
  assert.match(svg, /sandbox 359 ms/);
  assert.match(svg, /class="tl-step" data-i="0"/);
  // Between second-precision readings there is no measured duration, except the kubelet's own for a pull.
  const coarse = layoutTimeline(uiTierRun(), { width: 960 }).spans.map((s) => s.label.text);
  assert.deepEqual(coarse, ['request 22 ms', 'pull (kubelet\'s measure) 1.20 s']);
});
