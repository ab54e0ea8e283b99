import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTimeline, imagePullMs, type PodEvent, type PodSnapshot } from '../../../src/core/timeline/model';
import { timelineToSvg } from '../../../src/core/timeline/svg';

// A pod as the seed's `kubectl run` walk-through shows it: scheduled, image pulled, started.
const pod: PodSnapshot = {
  name: 'web', namespace: 'default', creationTimestamp: '2026-11-29T10:00:00Z', nodeName: 'labs-k8s-w01', phase: 'Running',
  conditions: [
    { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-11-29T10:00:00Z' },
    { type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: '2026-11-29T10:00:01Z' },
    { type: 'Initialized', status: 'True', lastTransitionTime: '2026-11-29T10:00:00Z' },
    { type: 'ContainersReady', status: 'True', lastTransitionTime: '2026-11-29T10:00:04Z' },
    { type: 'Ready', status: 'True', lastTransitionTime: '2026-11-29T10:00:04Z' },
  ],
  containerStatuses: [{ name: 'web', state: { running: { startedAt: '2026-11-29T10:00:04Z' } } }],
};
const events: PodEvent[] = [
  { reason: 'Scheduled', eventTime: '2026-11-29T10:00:00.123456Z', message: 'Successfully assigned default/web to labs-k8s-w01' },
  { reason: 'Pulling', firstTimestamp: '2026-11-29T10:00:01Z', message: 'Pulling image "registry.lab:5000/web:1"' },
  { reason: 'Pulled', firstTimestamp: '2026-11-29T10:00:03Z', message: 'Successfully pulled image "registry.lab:5000/web:1" in 2.345s (2.345s including waiting). Image size: 4000000 bytes.' },
  { reason: 'Created', firstTimestamp: '2026-11-29T10:00:03Z', message: 'Created container web' },
  { reason: 'Started', firstTimestamp: '2026-11-29T10:00:04Z', message: 'Started container web' },
];
const client = { createSentAt: Date.parse('2026-11-29T09:59:59.950Z'), createdAt: Date.parse('2026-11-29T09:59:59.990Z'), bindingObservedAt: Date.parse('2026-11-29T10:00:00.130Z'), runningObservedAt: Date.parse('2026-11-29T10:00:04.300Z') };

test('the steps come in the seed\'s order across the lanes, keeping each source\'s precision', () => {
  const t = buildTimeline(pod, events, client);
  const order = t.entries.filter((e) => e.source !== 'condition').map((e) => `${e.lane}:${e.label.split(' ')[0]}`);
  // The pod is stored between the POST and the 201 (its creationTimestamp second, 10:00:00, is after the
  // 201 in the client's clock: the API server's clock is put 10 ms earlier).
  assert.deepEqual(order.slice(0, 5), ['kubectl:POST', 'apiserver:Pod', 'kubectl:201', 'scheduler:Scheduled', 'kubectl:Watch:']);
  const idx = (label: string) => t.entries.findIndex((e) => e.label === label);
  assert.ok(idx('Pulling') < idx('Pulled') && idx('Pulled') < idx('Created') && idx('Created') < idx('Started'));
  assert.equal(t.entries.find((e) => e.label === 'Scheduled')!.precision, 'us');
  assert.equal(t.entries.find((e) => e.label === 'Pulled')!.precision, 's');
});

test('the startup SLI excludes image pulling and is compared with the 5 s SLO', () => {
  assert.equal(imagePullMs(events), 2345);
  const t = buildTimeline(pod, events, client);
  // From the placed creation (09:59:59.9905, inside the 201's millisecond), not the start of its second.
  assert.deepEqual({ ...t.sli, valueMs: undefined }, { valueMs: undefined, pullMs: 2345, sloMs: 5000, met: true });
  assert.ok(Math.abs(t.sli!.valueMs - (4300 + 9.5 - 2345)) <= 1, `SLI ${t.sli!.valueMs}`);
});

test('a pending pod is explained with the scheduler\'s own message', () => {
  const pending: PodSnapshot = { name: 'big', namespace: 'default', creationTimestamp: '2026-11-29T10:00:00Z', phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] };
  const ev: PodEvent[] = [{ reason: 'FailedScheduling', type: 'Warning', eventTime: '2026-11-29T10:00:00.5Z', message: '0/5 nodes are available: 3 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient memory.' }];
  const t = buildTimeline(pending, ev, {}, Date.parse('2026-11-29T10:00:30Z'));
  assert.equal(t.stall?.stage, 'scheduling');
  assert.match(t.stall!.messages[0]!, /2 Insufficient memory/);
});

test('sandbox (CNI) and image pull stalls are told apart', () => {
  const base = { ...pod, phase: 'Pending', conditions: [], containerStatuses: [] };
  const cni = buildTimeline(base, [{ reason: 'FailedCreatePodSandBox', type: 'Warning', firstTimestamp: '2026-11-29T10:00:02Z', message: 'plugin type="flannel" failed (add): loadFlannelSubnetEnv failed: open /run/flannel/subnet.env: no such file or directory' }]);
  assert.equal(cni.stall?.stage, 'sandbox');
  assert.match(cni.stall!.messages[0]!, /subnet\.env/);
  const img = buildTimeline({ ...base, containerStatuses: [{ name: 'web', state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "nope:1"' } } }] }, [{ reason: 'Failed', type: 'Warning', firstTimestamp: '2026-11-29T10:00:02Z', message: 'Failed to pull image "nope:1": not found' }]);
  assert.equal(img.stall?.stage, 'image');
  assert.match(img.stall!.messages.join('\n'), /Failed to pull image "nope:1"/);
});

test('the SVG is well-formed, accessible and escapes pod-supplied text', () => {
  const hostile = [...events, { reason: 'Started', firstTimestamp: '2026-11-29T10:00:04Z', message: '<script>alert(1)</script>' }];
  const svg = timelineToSvg(buildTimeline(pod, hostile, client), { colors: 'export' });
  assert.match(svg, /^<svg [^>]*role="img" aria-labelledby="tl-title tl-desc"/);
  assert.doesNotMatch(svg, /<script>/);
  assert.match(svg, /&lt;script&gt;/);
  assert.match(svg, /startup SLI 1\.96 s \(SLO 5 s: met\)/);
  const opened = (svg.match(/<g[\s>]/g) ?? []).length;
  const closed = (svg.match(/<\/g>/g) ?? []).length;
  assert.equal(opened, closed);
});
