/**
 * `timeline`: usage, and one run against a scripted API and scripted machines (the SSH boundary and the HTTP
 * boundary only; the parsers and the model are the real ones). The real run is test/lab/timeline.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runTimelineVerb, type TimelineDeps } from '../../../src/cli/timeline';
import { main } from '../../../src/cli/main';
import type { RemoteExec } from '../../../src/core/live/etcdSource';
import type { ListResult, WatchEvent } from '../../../src/core/live/watch';
import { memoryIo } from './memoryIo';

const INVENTORY = join(__dirname, '../../../examples/labs-k8s/inventory.yaml');
const VIP = 'https://10.3.60.100:6443';
const SID = 'a3f1c0d2e4b5968778695a4b3c2d1e0f9a8b7c6d5e4f30211203948576afbecd';
const CID = 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00';

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
const journalTime = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');

/** A cluster of one worker that binds, starts and readies the pod a few ms apart, and what its machines log about it. */
function scriptedCluster(server = VIP) {
  const watchers = new Map<string, (e: WatchEvent) => void>();
  const requests: string[] = [];
  let t0 = 0;
  const image = '10.3.60.1:5000/pause:3.10';
  const pod = (extra: Record<string, unknown>, status: Record<string, unknown> = {}) => ({ metadata: { name: 'web', namespace: 'default', uid: 'u1', resourceVersion: String(Math.random()), creationTimestamp: new Date(Math.floor(t0 / 1000) * 1000).toISOString().replace('.000', '') }, spec: { containers: [{ name: 'web', image }], ...extra }, status });
  const transport = {
    async list(path: string): Promise<ListResult> {
      if (path === '/api/v1/nodes') return { items: [{ metadata: { name: 'labs-k8s-w01' }, status: { images: [{ names: [image] }] } }, { metadata: { name: 'labs-k8s-m01' }, spec: { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] } }] as never, metadata: {} };
      return { items: [], metadata: { resourceVersion: '1' } };
    },
    watch(path: string, _params: Record<string, string>, onEvent: (e: WatchEvent) => void) {
      watchers.set(path.endsWith('/events') ? 'events' : 'pods', onEvent);
      return () => undefined;
    },
    async send(method: string, path: string, _params: Record<string, string>, body?: unknown) {
      requests.push(`${method} ${path} ${JSON.stringify((body as { spec?: unknown } | undefined)?.spec ?? '')}`);
      if (method === 'DELETE') return { status: 200, body: '{}' };
      t0 = Date.now();
      const emit = (k: string, e: WatchEvent, ms: number) => setTimeout(() => watchers.get(k)?.(e), ms);
      emit('pods', { type: 'ADDED', object: pod({}) as never }, 5);
      emit('pods', { type: 'MODIFIED', object: pod({ nodeName: 'labs-k8s-w01' }, { conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: new Date(t0).toISOString().replace(/\.\d+Z/, 'Z') }] }) as never }, 15);
      emit('events', { type: 'ADDED', object: { metadata: { name: 'web.1' }, reason: 'Scheduled', message: 'Successfully assigned default/web to labs-k8s-w01', eventTime: iso(t0 + 8), involvedObject: { uid: 'u1' } } as never }, 20);
      emit('pods', { type: 'MODIFIED', object: pod({ nodeName: 'labs-k8s-w01' }, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'web', image, state: { running: {} } }] }) as never }, 40);
      return { status: 201, body: '{}' };
    },
  };
  const asked: string[] = [];
  const remote: RemoteExec = {
    async exec(host, command) {
      asked.push(host);
      if (host === 'labs-k8s-m01') {
        const line = (stage: string, at: number, extra = '') => `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"${stage}","requestURI":"/api/v1/namespaces/default/pods","verb":"create","user":{"username":"kw-admin"},"sourceIPs":["10.3.60.1"],"objectRef":{"resource":"pods","namespace":"default","name":"web","apiVersion":"v1"}${extra},"requestReceivedTimestamp":"${iso(t0 + 1)}","stageTimestamp":"${iso(at)}"}`;
        return { code: 0, stdout: `${line('RequestReceived', t0 + 1)}\n${line('ResponseComplete', t0 + 3, ',"responseStatus":{"code":201}')}\n`, stderr: '' };
      }
      if (host === 'labs-k8s-w01') {
        assert.match(command, /journalctl -u kubelet -u containerd/);
        const c = (at: number, msg: string) => `${journalTime(at)} labs-k8s-w01 containerd[301]: time="${iso(at)}" level=info msg="${msg.replace(/"/g, '\\"')}"`;
        return {
          code: 0,
          stdout: [
            `${journalTime(t0 + 16)} labs-k8s-w01 kubelet[612]: I1130 00:00:00.000000     612 kubelet.go:2472] "SyncLoop ADD" source="api" pods=["default/web"]`,
            c(t0 + 17, 'RunPodSandbox for &PodSandboxMetadata{Name:web,Uid:u1,Namespace:default,Attempt:0,}'),
            c(t0 + 25, `RunPodSandbox for &PodSandboxMetadata{Name:web,Uid:u1,Namespace:default,Attempt:0,} returns sandbox id "${SID}"`),
            c(t0 + 27, `CreateContainer within sandbox "${SID}" for &ContainerMetadata{Name:web,Attempt:0,} returns container id "${CID}"`),
            c(t0 + 30, `StartContainer for "${CID}" returns successfully`),
            '--- kubeadm-workbench: cni leases ---',
            `${((t0 + 21) / 1000).toFixed(9)} /var/lib/cni/networks/cbr0/10.244.3.17 ${SID}`,
            '',
          ].join('\n'),
          stderr: '',
        };
      }
      return { code: 1, stdout: '', stderr: '' };
    },
  };
  const deps: TimelineDeps = {
    connect: async () => ({ context: 'kw', server, transport, dispose: () => undefined }),
    openSsh: () => ({ remote, close: async () => undefined }),
  };
  return { deps, requests, asked };
}

test('usage: the inventory is required, and image, node, name and timeout are checked before anything is created', async () => {
  for (const [args, why] of [
    [[], /--inventory is required/],
    [['--inventory', INVENTORY, '--image', 'a b'], /--image/],
    [['--inventory', INVENTORY, '--node', 'Bad_Node'], /--node/],
    [['--inventory', INVENTORY, '--name', 'UPPER'], /--name/],
    [['--inventory', INVENTORY, '--timeout', '0'], /--timeout/],
    [['--inventory', INVENTORY, '--bogus'], /unknown option --bogus/],
  ] as const) {
    const io = memoryIo();
    const { deps, requests } = scriptedCluster();
    assert.equal(await runTimelineVerb([...args], io, deps), 2, args.join(' '));
    assert.match(io.err, why);
    assert.match(io.err, /usage: kubeadm-workbench timeline --inventory FILE/);
    assert.deepEqual(requests, []);
  }
  const listed = memoryIo();
  await main(['--help'], listed);
  assert.match(listed.err, /timeline --inventory F \[--image IMAGE\] \[--node NAME\] \[--json\]/);
});

test('a node the cluster does not have is refused before the pod is created', async () => {
  const io = memoryIo();
  const { deps, requests } = scriptedCluster();
  assert.equal(await runTimelineVerb(['--inventory', INVENTORY, '--node', 'labs-k8s-w09'], io, deps), 2);
  assert.match(io.err, /no node "labs-k8s-w09"/);
  assert.deepEqual(requests, []);
});

test('a run: the pod pinned by nodeSelector, the default image from the node, every hop in causal order with its source, then the pod deleted', async () => {
  const io = memoryIo();
  const { deps, requests, asked } = scriptedCluster();
  assert.equal(await runTimelineVerb(['--inventory', INVENTORY, '--node', 'labs-k8s-w01', '--name', 'web', '--json'], io, deps), 0, io.err);
  const out = JSON.parse(io.out) as { image: string; ready: boolean; steps: { step: string; source: string; precision: string; offsetMs: number; sincePreviousMs: number }[]; hops: { hop: string; ms?: number }[] };
  // The air-gapped default: the pause image the node already holds, pulled from nowhere.
  assert.equal(out.image, '10.3.60.1:5000/pause:3.10');
  assert.match(requests[0]!, /^POST \/api\/v1\/namespaces\/default\/pods .*"nodeSelector":\{"kubernetes.io\/hostname":"labs-k8s-w01"\}/);
  assert.match(requests.at(-1)!, /^DELETE \/api\/v1\/namespaces\/default\/pods\/web/);
  const seq = out.steps.filter((s) => s.step !== 'other').map((s) => `${s.step}:${s.source}`);
  for (const hop of ['request-sent:client', 'request-received:audit', 'stored:audit', 'response-received:client', 'scheduled:event', 'kubelet-sync:journal', 'sandbox-start:journal', 'cni-add:journal', 'sandbox-ready:journal', 'container-created:journal', 'container-started:journal', 'running-observed:watch', 'ready-observed:watch']) {
    assert.ok(seq.includes(hop), `${hop} in ${seq.join(' → ')}`);
  }
  const first = (step: string) => seq.findIndex((s) => s.startsWith(`${step}:`));
  // The causal chain. The client's reading of the response is no link of it: the API server answers once the pod is
  // stored, and the scheduler may bind it before this client reads that answer (it did, on a loaded machine).
  const order = ['request-sent', 'request-received', 'stored', 'scheduled', 'kubelet-sync', 'sandbox-start', 'cni-add', 'sandbox-ready', 'container-created', 'container-started', 'ready-observed'];
  for (let i = 1; i < order.length; i++) assert.ok(first(order[i - 1]!) < first(order[i]!), `${order[i - 1]} before ${order[i]}: ${seq.join(' → ')}`);
  assert.ok(first('stored') < first('response-received'), `the response after the pod was stored: ${seq.join(' → ')}`);
  const offsets = out.steps.map((s) => s.offsetMs);
  assert.deepEqual(offsets, [...offsets].sort((a, b) => a - b));
  assert.ok(out.steps.every((s) => s.sincePreviousMs >= 0));
  assert.equal(out.steps.find((s) => s.step === 'stored' && s.source === 'audit')!.precision, 'us');
  assert.ok(out.hops.find((h) => h.hop === 'Sandbox and CNI')!.ms! > 0);
  assert.ok(asked.includes('labs-k8s-w01') && asked.includes('labs-k8s-m01'));
});

test('text: one line per hop with source and precision, the hops\' durations and the sources', async () => {
  const io = memoryIo();
  const { deps } = scriptedCluster();
  assert.equal(await runTimelineVerb(['--inventory', INVENTORY, '--name', 'web'], io, deps), 0, io.err);
  assert.match(io.out, /^kubectl run timeline: default\/web on labs-k8s-w01/);
  assert.match(io.out, /apiserver  audit     µs   POST pods received/);
  assert.match(io.out, /runtime    journal   µs   CNI ADD: IP 10\.244\.3\.17/);
  assert.match(io.out, /\nhops:\n {2}API: POST to 201 +\d+\.\d ms/);
  assert.match(io.out, /read {5}API server audit log: labs-k8s-m01 served the create/);
});

test('a context that is not the inventory\'s cluster never dials the inventory\'s hosts', async () => {
  const io = memoryIo();
  const { deps, asked } = scriptedCluster('https://192.0.2.10:6443');
  assert.equal(await runTimelineVerb(['--inventory', INVENTORY, '--name', 'web', '--json'], io, deps), 0, io.err);
  assert.deepEqual(asked, []);
  assert.match(io.err, /is not the inventory's cluster/);
  const out = JSON.parse(io.out) as { steps: { source: string }[] };
  assert.ok(!out.steps.some((s) => s.source === 'audit' || s.source === 'journal'));
});

test('Ctrl-C while waiting for Ready: the wait ends and the test pod is deleted, exit 1', async () => {
  const io = memoryIo();
  const { deps, requests } = scriptedCluster();
  let stop: (() => void) | undefined;
  let unhooked = false;
  const connect = deps.connect!;
  const interrupting: TimelineDeps = {
    ...deps,
    // The user presses Ctrl-C right after the create was answered, before the pod is Ready.
    connect: async (o) => {
      const c = await connect(o);
      const send = c.transport.send.bind(c.transport);
      // A pod that never gets Ready (its watch stays silent): only the Ctrl-C can end the wait before --timeout.
      const transport = Object.assign(Object.create(c.transport) as typeof c.transport, {
        watch: () => () => undefined,
        send: async (...a: Parameters<typeof send>) => {
          const r = await send(...a);
          if (a[0] === 'POST') setTimeout(() => stop?.(), 0);
          return r;
        },
      });
      return { ...c, transport };
    },
    onInterrupt: (s) => ((stop = s), () => (unhooked = true)),
  };
  const t0 = Date.now();
  assert.equal(await runTimelineVerb(['--inventory', INVENTORY, '--node', 'labs-k8s-w01', '--name', 'web', '--timeout', '60', '--json'], io, interrupting), 1, io.err);
  assert.ok(Date.now() - t0 < 20_000, `the wait ended at the Ctrl-C, not at --timeout (${Date.now() - t0} ms)`);
  assert.match(io.err, /interrupted: deleting the test pod web/);
  assert.match(requests.at(-1)!, /^DELETE \/api\/v1\/namespaces\/default\/pods\/web/);
  assert.equal(io.out, '', 'no report of a run that was stopped');
  assert.ok(unhooked, 'the Ctrl-C handler is removed afterwards');
});
