import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mustPrecede, STEPS, type Observation, type Step } from '../../../src/core/timeline/causal';
import { buildTimeline, type Evidence, type PodEvent, type PodSnapshot, type Timeline } from '../../../src/core/timeline/model';

const sec = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const micro = (ms: number): string => new Date(Math.floor(ms)).toISOString().replace(/Z$/, `${String(Math.round((ms % 1) * 1000)).padStart(3, '0')}Z`);

/** No step is drawn before, or listed before, a step it depends on. */
function assertNoInversion(t: Timeline): void {
  t.entries.forEach((a, i) => t.entries.forEach((b, j) => {
    const obs = (e: typeof a): Observation => ({ step: e.step, at: e.at, precision: e.precision, clock: 'client', source: e.source, ...(e.container ? { container: e.container } : {}) });
    if (!mustPrecede(obs(a), obs(b))) return;
    assert.ok(i < j, `${a.label} (${a.step}) is listed after ${b.label} (${b.step})`);
    assert.ok(a.at <= b.at, `${a.label} drawn at ${a.at} after ${b.label} at ${b.at}`);
  }));
  for (const e of t.entries) assert.ok(e.lo <= e.at && e.at <= e.hi, `${e.label}: ${e.at} outside [${e.lo}, ${e.hi}]`);
}

// The UI tier's run: the API server's creationTimestamp is the start of its second, kubectl's POST
// left 180 ms into that second, the scheduler's MicroTime is 120 ms into it (its clock is a little behind).
const T = Date.parse('2026-11-30T10:00:00Z');
const uiPod: PodSnapshot = {
  name: 'web', namespace: 'default', uid: 'u', creationTimestamp: sec(T), nodeName: 'labs-k8s-w01', phase: 'Running',
  conditions: ['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready', 'PodScheduled'].map((type) => ({ type, status: 'True', lastTransitionTime: sec(type === 'PodScheduled' ? T : T + 3000) })),
  containerStatuses: [{ name: 'web', state: { running: { startedAt: sec(T + 3000) } } }],
};
const uiEvents: PodEvent[] = [
  { reason: 'Scheduled', eventTime: micro(T + 120), message: 'Successfully assigned default/web to labs-k8s-w01' },
  { reason: 'Pulling', firstTimestamp: sec(T + 1000), fieldPath: 'spec.containers{web}' },
  { reason: 'Pulled', firstTimestamp: sec(T + 2000), fieldPath: 'spec.containers{web}', message: 'Successfully pulled image "x" in 1.2s (1.2s including waiting)' },
  { reason: 'Created', firstTimestamp: sec(T + 2000), fieldPath: 'spec.containers{web}' },
  { reason: 'Started', firstTimestamp: sec(T + 3000), fieldPath: 'spec.containers{web}' },
];
const uiClient = { createSentAt: T + 180, createdAt: T + 202, bindingObservedAt: T + 2660, runningObservedAt: T + 2680, readyObservedAt: T + 2690 };

test('the UI tier\'s run reads in causal order: POST, stored, scheduled (before the 201 was read), bound, pull, create, start, ready', () => {
  const t = buildTimeline(uiPod, uiEvents, uiClient, T + 5000);
  assertNoInversion(t);
  const steps = t.entries.map((e) => e.step).filter((s, i, all) => all.indexOf(s) === i);
  const seed: Step[] = ['request-sent', 'stored', 'scheduled', 'response-received', 'bound', 'pulling', 'pulled', 'container-created', 'container-started', 'ready'];
  assert.deepEqual(steps.filter((s) => seed.includes(s)), seed);
  // Creation is drawn between the POST and the 201, never at the start of its second.
  const stored = t.entries.find((e) => e.step === 'stored')!;
  assert.ok(stored.lo >= T + 180 && stored.hi <= T + 202, `stored in [${stored.lo - T}, ${stored.hi - T}]`);
  assert.notEqual(stored.at, T);
  // The scheduler's µs reading cannot precede the POST: the control plane's clock is put 60 ms later — and no more:
  // the scheduler needs only the stored pod, so its reading may fall before kubectl read the 201 (the seed's diagram
  // draws the 201 first, which is an order of the drawing, not a law).
  assert.equal(Math.round(t.clock.cluster.offsetMs), 60);
  assert.equal(t.clock.diagramOrder, false);
  // The node's second-precision Started (T+3 s) cannot follow the watch that saw it running (T+2.68 s).
  assert.ok(t.clock.node.offsetMs <= -319, `node offset ${t.clock.node.offsetMs}`);
  assert.ok(!t.entries.some((e) => e.adjusted), 'the fitted clocks keep every reading inside its precision');
});

test('a second-precision step is an interval of its second, narrowed by its neighbours', () => {
  const t = buildTimeline(uiPod, uiEvents, uiClient, T + 5000);
  const pulling = t.entries.find((e) => e.step === 'pulling')!;
  assert.equal(pulling.precision, 's');
  assert.ok(pulling.hi - pulling.lo > 900, 'nothing narrows the Pulling event: it spans its second');
  assert.ok(pulling.at > pulling.lo + 100, 'drawn inside its second, not at its start');
  // ContainersReady/Ready (second T+3) cannot be after the watch saw Ready at T+2.69 (client clock).
  const ready = t.entries.find((e) => e.label === 'Ready=True')!;
  assert.ok(ready.hi <= T + 2691, `Ready bounded by the watch: ${ready.hi - T}`);
});

test('a cluster clock ahead of the client is fitted from the µs audit times, with no inversion', () => {
  // The API server's clock runs 300 ms ahead: its audit says the pod was stored at T+0.5 s while the
  // client had the 201 at T+0.25 s in its own clock.
  const pod: PodSnapshot = { name: 'p', namespace: 'default', creationTimestamp: sec(T) };
  const audit: Evidence[] = [
    { lane: 'apiserver', step: 'request-received', label: 'RequestReceived', at: T + 480.123, precision: 'us', source: 'audit' },
    { lane: 'apiserver', step: 'stored', label: 'ResponseComplete', at: T + 500.456, precision: 'us', source: 'audit' },
  ];
  const t = buildTimeline(pod, [], { createSentAt: T + 200, createdAt: T + 250 }, T + 1000, { evidence: audit });
  assertNoInversion(t);
  assert.ok(t.clock.cluster.offsetMs <= -249.4 && t.clock.cluster.offsetMs >= -280.2, `offset ${t.clock.cluster.offsetMs}`);
  const got = t.entries.map((e) => `${e.source}:${e.step}`);
  assert.deepEqual(got.slice(0, 2), ['client:request-sent', 'audit:request-received']);
  assert.equal(got.at(-1), 'client:response-received');
  assert.equal(t.entries.find((e) => e.label === 'RequestReceived')!.read, micro(T + 480.123));
});

test('two containers pull and start one after the other without a false edge between them', () => {
  const pod: PodSnapshot = { name: 'p', namespace: 'default', creationTimestamp: sec(T), nodeName: 'w' };
  const ev = (reason: string, c: string, at: number): PodEvent => ({ reason, eventTime: micro(at), fieldPath: `spec.containers{${c}}` });
  const events = [ev('Pulling', 'a', T + 100), ev('Pulled', 'a', T + 200), ev('Created', 'a', T + 210), ev('Started', 'a', T + 220), ev('Pulling', 'b', T + 230), ev('Pulled', 'b', T + 400), ev('Created', 'b', T + 410), ev('Started', 'b', T + 420)];
  const t = buildTimeline(pod, events, {}, T + 1000);
  assertNoInversion(t);
  assert.deepEqual(t.entries.filter((e) => e.source === 'event').map((e) => `${e.label}:${e.container}`), ['Pulling:a', 'Pulled:a', 'Created:a', 'Started:a', 'Pulling:b', 'Pulled:b', 'Created:b', 'Started:b']);
  assert.equal(t.entries.find((e) => e.label === 'Pulling' && e.container === 'b')!.at, T + 230, 'µs readings stay where they were read');
});

test('random mixtures of second, millisecond and microsecond readings with clock skew never invert', () => {
  let seed = 42;
  const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const chain: Step[] = ['request-received', 'stored', 'scheduled', 'bound', 'kubelet-sync', 'sandbox-start', 'cni-add', 'sandbox-ready', 'pulling', 'pulled', 'container-created', 'container-started', 'ready'];
  for (let run = 0; run < 300; run++) {
    const skew = (rand() - 0.5) * 800; // the cluster's clock against the client's
    const jitter = (rand() - 0.5) * 200; // one node's clock against the API server's
    let now = T + rand() * 1000;
    const sent = now;
    const evidence: Evidence[] = [];
    const pod: PodSnapshot = { name: 'p', namespace: 'default', nodeName: 'w' };
    let received = 0;
    for (const step of chain) {
      now += rand() * 400;
      if (step === 'stored') { received = now + rand() * 30; pod.creationTimestamp = sec(now + skew); }
      const node = ['request-received', 'stored', 'scheduled', 'bound'].includes(step) ? 0 : jitter;
      const p = (['s', 'ms', 'us'] as const)[Math.floor(rand() * 3)]!;
      const raw = now + skew + node;
      const at = p === 's' ? Math.floor(raw / 1000) * 1000 : p === 'ms' ? Math.floor(raw) : Math.floor(raw * 1000) / 1000;
      evidence.push({ lane: 'kubelet', step, label: step, at, precision: p, source: 'journal', container: 'c' });
    }
    const t = buildTimeline(pod, [], { createSentAt: sent, createdAt: received, runningObservedAt: now + 5 }, now + 10, { evidence });
    assertNoInversion(t);
    assert.deepEqual([...new Set(t.entries.map((e) => e.step))].filter((s) => STEPS.includes(s) && s !== 'stored' && s !== 'response-received' && s !== 'request-sent' && s !== 'running-observed'), chain.filter((s) => s !== 'stored'), `run ${run}`);
  }
});

// Issue 36's lab run (one clock for every machine): the node's journal has the sandbox running at +915 ms, the kubelet's
// PodReadyToStartContainers=True carries only its second — [+1.86 s, +2.86 s) after the POST — and the watch saw the
// pod Ready at +1.93 s. The condition was in the status the watch saw: it is drawn before "Watch: Ready", inside
// [+1.86, +1.93] s, never at the middle of its second (+2.36 s, listed last).
test('a kubelet condition is drawn before the watch that saw the status holding it', () => {
  const post = T + 140;
  const pod: PodSnapshot = {
    name: 'p', namespace: 'default', nodeName: 'labs-k8s-w01', phase: 'Running', creationTimestamp: sec(T),
    conditions: [{ type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: sec(T + 2000) }],
  };
  const journal: Evidence[] = [
    { lane: 'runtime', step: 'sandbox-ready', label: 'RunPodSandbox returns (pause running)', at: post + 915, precision: 'us', source: 'journal' },
    { lane: 'runtime', step: 'container-started', label: 'StartContainer web returns', at: post + 1100, precision: 'us', source: 'journal', container: 'web' },
  ];
  const t = buildTimeline(pod, [], { createSentAt: post, createdAt: post + 20, readyObservedAt: post + 1930 }, post + 3000, { evidence: journal });
  assertNoInversion(t);
  const cond = t.entries.find((e) => e.label === 'PodReadyToStartContainers=True')!;
  const ready = t.entries.find((e) => e.step === 'ready-observed')!;
  assert.ok(cond.lo >= post + 1860 && cond.hi <= post + 1931, `PodReadyToStartContainers in [${cond.lo - post}, ${cond.hi - post}] ms after the POST`);
  assert.ok(cond.at < ready.at, `drawn at +${cond.at - post} ms, before Watch: Ready at +${ready.at - post} ms`);
  assert.ok(t.entries.indexOf(cond) < t.entries.indexOf(ready), 'listed before Watch: Ready');
  assert.ok(!cond.adjusted, 'inside its own second: nothing moved it beyond its precision');
});

// The same run: the kubelet's Started event (a core/v1 Event: its second only, from +1.01 s) is recorded after
// containerd's StartContainer returned (+1.10 s in the journal), so its earliest time is +1.10 s, not +1.01 s.
test('one step from several sources keeps their order: the process starts, StartContainer returns, the kubelet records Started', () => {
  const post = T - 10;
  const pod: PodSnapshot = { name: 'p', namespace: 'default', nodeName: 'w', creationTimestamp: sec(T - 1000), containerStatuses: [{ name: 'web', state: { running: { startedAt: sec(T + 1000) } } }] };
  const events: PodEvent[] = [{ reason: 'Started', firstTimestamp: sec(T + 1000), fieldPath: 'spec.containers{web}' }, { reason: 'Created', firstTimestamp: sec(T + 1000), fieldPath: 'spec.containers{web}' }];
  const journal: Evidence[] = [
    { lane: 'runtime', step: 'container-created', label: 'CreateContainer web returns', at: post + 1040, precision: 'us', source: 'journal', container: 'web' },
    { lane: 'runtime', step: 'container-started', label: 'StartContainer web returns', at: post + 1100, precision: 'us', source: 'journal', container: 'web' },
  ];
  const t = buildTimeline(pod, events, { createSentAt: post, createdAt: post + 20, runningObservedAt: post + 1300 }, post + 3000, { evidence: journal });
  assertNoInversion(t);
  const started = t.entries.find((e) => e.source === 'event' && e.label === 'Started')!;
  const created = t.entries.find((e) => e.source === 'event' && e.label === 'Created')!;
  const startedAt = t.entries.find((e) => e.source === 'status' && e.step === 'container-started')!;
  assert.ok(started.lo >= post + 1100, `Started from +${started.lo - post} ms: no earlier than StartContainer's return (+1100 ms)`);
  assert.ok(created.lo >= post + 1040, `Created from +${created.lo - post} ms: no earlier than CreateContainer's return (+1040 ms)`);
  assert.ok(startedAt.hi <= post + 1100.001, `the process started (status startedAt) by +${startedAt.hi - post} ms, before StartContainer returned`);
  const order = t.entries.filter((e) => e.step === 'container-started').map((e) => e.source);
  assert.deepEqual(order, ['status', 'journal', 'event']);
});

test('a busy client reads its 201 long after the binding (one clock): the diagram order gives way, nothing is shifted or moved', () => {
  // A loaded run: kubectl read the 201 at +115 ms, the API server had stored the pod at +45 ms and bound it at +60 ms
  // (its audit's ResponseComplete of the POST came at +70 ms), the kubelet saw the pod at +100 ms. All on one clock:
  // the readings are right; the seed's diagram (201, then scheduling) is not what happened.
  const pod: PodSnapshot = { name: 'p', namespace: 'default', creationTimestamp: sec(T), nodeName: 'labs-k8s-w01' };
  const evidence: Evidence[] = [
    { lane: 'apiserver', step: 'request-received', label: 'POST pods received', at: T + 40, precision: 'us', source: 'audit' },
    { lane: 'apiserver', step: 'stored', label: '201 sent', at: T + 45, precision: 'us', source: 'audit' },
    { lane: 'apiserver', step: 'bound', label: 'POST binding stored', at: T + 60, precision: 'us', source: 'audit' },
    { lane: 'kubelet', step: 'kubelet-sync', label: 'kubelet admitted the pod', at: T + 100, precision: 'us', source: 'journal' },
  ];
  const t = buildTimeline(pod, [], { createSentAt: T + 20, createdAt: T + 115 }, T + 1000, { evidence });
  assertNoInversion(t);
  assert.equal(t.clock.diagramOrder, false, 'the 201 after the kubelet saw the pod: the diagram order does not hold here');
  assert.equal(t.clock.cluster.offsetMs, 0);
  assert.equal(t.clock.node.offsetMs, 0);
  assert.ok(!t.entries.some((e) => e.adjusted), 'no reading moved beyond its own time');
  const at = (label: string) => t.entries.find((e) => e.label === label)!.at - T;
  assert.equal(at('POST binding stored'), 60, 'the binding drawn at its own time, before the 201 was read');
  // Where the readings allow it, the diagram's order places them: a Scheduled read after the 201 stays after it.
  const later = buildTimeline(uiPod, uiEvents.map((e) => (e.reason === 'Scheduled' ? { ...e, eventTime: micro(T + 230) } : e)), uiClient, T + 5000);
  assert.equal(later.clock.diagramOrder, true);
  assert.equal(later.clock.cluster.offsetMs, 0);
  const steps = later.entries.map((e) => e.step);
  assert.ok(steps.indexOf('response-received') < steps.indexOf('scheduled'), steps.join(' '));
});

test('records stamped after the fact (one clock): a watch sees the binding before its audit ResponseComplete, the Scheduled event comes after the bind — nothing shifted or moved', () => {
  // The lab's CI run: the binding's request arrived at +55 ms, the watch delivered the bound pod at +57 ms, the audit
  // stamped its ResponseComplete at +65 ms and the scheduler wrote its Scheduled event at +65.8 ms.
  const pod: PodSnapshot = { name: 'p', namespace: 'default', creationTimestamp: sec(T), nodeName: 'labs-k8s-w01' };
  const evidence: Evidence[] = [
    { lane: 'apiserver', step: 'request-received', label: 'POST pods received', at: T + 5.7, precision: 'us', source: 'audit' },
    { lane: 'apiserver', step: 'stored', label: '201 sent', at: T + 42, precision: 'us', source: 'audit', earlierBy: 36.3 },
    { lane: 'apiserver', step: 'bound', label: 'POST binding stored', at: T + 65, precision: 'us', source: 'audit', earlierBy: 10 },
  ];
  const t = buildTimeline(pod, [{ reason: 'Scheduled', eventTime: micro(T + 65.8) }], { createSentAt: T, createdAt: T + 51, bindingObservedAt: T + 57 }, T + 1000, { evidence });
  assertNoInversion(t);
  assert.equal(t.clock.cluster.offsetMs, 0);
  assert.ok(!t.entries.some((e) => e.adjusted), t.entries.filter((e) => e.adjusted).map((e) => e.label).join(', '));
  const bound = t.entries.find((e) => e.label === 'POST binding stored')!;
  assert.ok(bound.at >= T + 55 && bound.at <= T + 58, `the binding between its request's arrival and the watch (its ms): +${bound.at - T}`);
  const scheduled = t.entries.find((e) => e.label === 'Scheduled')!;
  assert.ok(scheduled.at <= bound.at, 'the decision drawn before the bind it led to');
});
