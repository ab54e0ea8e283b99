/**
 * Drain on the lab's real HA cluster, next to `kubectl drain` on the same scenario (the issue's test): on worker
 * labs-k8s-w02 a PDB-protected Deployment (2 replicas, minAvailable 1), a DaemonSet pod, a Deployment pod with an
 * emptyDir volume and a bare pod, all from the lab registry's kwlab/web image. kubectl drains it first (without
 * the overrides: the refusals; then with them, timed), the node is uncordoned, the scenario is created again in a
 * second namespace and our `drain` does the same. Evicted / kept / refused sets and the refusal messages must
 * match; the timings give the benchmark line. Then `--then 'systemctl restart kubelet' --uncordon` over SSH, and
 * the control-plane guard: a drain of labs-k8s-m01 shows the leader leases it holds and is refused while
 * labs-k8s-m03 is powered off (powered on again and back in etcd before the test ends).
 *
 * Needs a running lab cluster (`npm run lab -- up --cluster`, or the engine bring-up of test/lab/run.sh) and
 * dist/ built. Run: node --import tsx --test test/lab/drain.test.ts
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadKubeAdapter } from '../../src/adapters/kube/load';
import { parseDrainOutput, type DrainOutcome } from '../integration/drainOutput';
import { recordBench } from './bench';
import { LEADER_LEASES, leaderLeasesOnto } from './leaderLeases';

const REPO = join(__dirname, '../..');
const NODE = 'labs-k8s-w02';
const OTHER = 'labs-k8s-w01';
const IMAGE = '10.3.60.1:5000/kwlab/web:1.0';
const LABEL = 'kw-drain-test';
const NS_KUBECTL = 'kw-drain-kubectl';
const NS_OURS = 'kw-drain-ours';
const FLAGS = ['--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=120s'];

let env: Record<string, string>;

function labEnv(): Record<string, string> {
  const out = execFileSync('bash', [join(REPO, 'lab/lab.sh'), 'env'], { encoding: 'utf8' });
  return Object.fromEntries([...out.matchAll(/^export (\w+)="([^"]*)"$/gm)].map((m) => [m[1]!, m[2]!.replace('$PATH', process.env.PATH ?? '')]));
}

/** Async, so nothing blocks while a drain waits (and for honest wall-clock timings). */
function run(cmd: string, args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env: { ...process.env, PATH: env.PATH! }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.stdin.end(opts.input ?? '');
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 180_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - t0 });
    });
  });
}
const kubectl = (...args: string[]) => run('kubectl', ['--kubeconfig', env.KUBECONFIG!, ...args]);
const ours = (...args: string[]) => run(process.execPath, [join(REPO, 'dist/cli.js'), ...args, '--kubeconfig', env.KUBECONFIG!]);
async function kubectlOk(...args: string[]): Promise<string> {
  const r = await kubectl(...args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function waitFor(what: string, timeoutMs: number, cond: () => Promise<boolean>, everyMs = 1000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  assert.fail(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
}

function scenarioYaml(ns: string): string {
  const pod = (extra = '') => `
      nodeSelector: { ${LABEL}: "yes" }
      terminationGracePeriodSeconds: 5
      containers:
        - name: web
          image: ${IMAGE}
          readinessProbe: { httpGet: { path: /healthz, port: 8080 }, periodSeconds: 1 }${extra}`;
  return `apiVersion: v1
kind: Namespace
metadata: { name: ${ns} }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: ${ns} }
spec:
  replicas: 2
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:${pod()}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: { name: web, namespace: ${ns} }
spec: { minAvailable: 1, selector: { matchLabels: { app: web } } }
---
apiVersion: apps/v1
kind: DaemonSet
metadata: { name: agent, namespace: ${ns} }
spec:
  selector: { matchLabels: { app: agent } }
  template:
    metadata: { labels: { app: agent } }
    spec:${pod()}
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: cache, namespace: ${ns} }
spec:
  replicas: 1
  selector: { matchLabels: { app: cache } }
  template:
    metadata: { labels: { app: cache } }
    spec:${pod(`
          volumeMounts: [{ name: scratch, mountPath: /scratch }]
      volumes: [{ name: scratch, emptyDir: {} }]`)}
---
apiVersion: v1
kind: Pod
metadata: { name: bare, namespace: ${ns}, labels: { app: bare } }
spec:${pod()}
`;
}

/**
 * The scenario on w02 only: the pods select the label, which only w02 carries while they start. Then w01 gets
 * it too, so the Deployment's replacements have somewhere to go once w02 is cordoned (otherwise the PDB would
 * block the second eviction for ever — for both tools).
 */
async function createScenario(ns: string): Promise<void> {
  await kubectlOk('label', 'node', OTHER, `${LABEL}-`);
  await kubectlOk('label', 'node', NODE, `${LABEL}=yes`, '--overwrite');
  const r = await run('kubectl', ['--kubeconfig', env.KUBECONFIG!, 'apply', '-f', '-'], { input: scenarioYaml(ns) });
  assert.equal(r.code, 0, r.stderr);
  await waitFor(`the scenario's 5 pods Ready on ${NODE}`, 90_000, async () => {
    const pods = JSON.parse(await kubectlOk('get', 'pods', '-n', ns, '-o', 'json')) as { items: { spec: { nodeName?: string }; status: { conditions?: { type: string; status: string }[] } }[] };
    return pods.items.length === 5 && pods.items.every((p) => p.spec.nodeName === NODE && p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
  });
  await waitFor('the PDB to allow one disruption', 30_000, async () => (await kubectlOk('get', 'pdb', 'web', '-n', ns, '-o', 'jsonpath={.status.disruptionsAllowed}')) === '1', 500);
  await kubectlOk('label', 'node', OTHER, `${LABEL}=yes`, '--overwrite');
}

async function cleanup(): Promise<void> {
  await kubectl('delete', 'namespace', NS_KUBECTL, NS_OURS, '--ignore-not-found', '--wait=false');
  await kubectl('label', 'node', NODE, OTHER, `${LABEL}-`);
  await kubectl('uncordon', NODE);
}

/** Generated pod names (`web-6b7f9c8d4-x2kqp`, `agent-q8v5n`) by what they belong to, so two namespaces compare. */
const kind = (name: string) => name.replace(/^[^/]+\//, '').replace(/(-[a-z0-9]{8,10})?-[a-z0-9]{5}$/, '');
const kinds = (names: string[]) => names.map(kind).sort();

/** What a drain did with the scenario's own pods (namespace `ns`) and with the cluster's DaemonSet pods. */
function summary(o: DrainOutcome, ns: string): { evicted: string[]; keptDaemonSet: string[]; refused: Record<string, string[]> } {
  const inNs = new Set(o.evicting.filter((p) => p.startsWith(`${ns}/`)).map((p) => p.slice(ns.length + 1)));
  return {
    evicted: kinds(o.evicted.filter((n) => inNs.has(n))),
    keptDaemonSet: kinds(o.keptDaemonSet),
    refused: Object.fromEntries(Object.entries(o.refused).map(([reason, pods]) => [reason, kinds(pods)])),
  };
}

before(async () => {
  env = labEnv();
  assert.ok(existsSync(env.KUBECONFIG!), `no lab cluster: ${env.KUBECONFIG} is missing — run \`npm run lab -- up --cluster\` first`);
  assert.ok(existsSync(join(REPO, 'dist/cli.js')) && existsSync(join(REPO, 'dist/kube.js')), 'build first: npm run build');
  const nodes = await kubectl('get', 'nodes', '--no-headers');
  assert.equal(nodes.code, 0, `the lab cluster does not answer: ${nodes.stderr}`);
  assert.ok(nodes.stdout.includes(NODE), `${NODE} is not a node of the lab cluster:\n${nodes.stdout}`);
  await cleanup();
  await waitFor('earlier test namespaces gone', 90_000, async () => !(await kubectlOk('get', 'namespaces', '-o', 'name')).match(/kw-drain-/));
});

after(async () => {
  await cleanup();
});

let kubectlRefused: ReturnType<typeof summary>;
let kubectlDrained: ReturnType<typeof summary> & { ms: number; retries: number };

test('kubectl drain on the scenario: refusals without the overrides, then the drain with them (timed)', async () => {
  await createScenario(NS_KUBECTL);
  const refused = await kubectl('drain', NODE, '--timeout=60s');
  assert.notEqual(refused.code, 0);
  kubectlRefused = summary(parseDrainOutput(refused.stdout, refused.stderr), NS_KUBECTL);
  const drained = await kubectl('drain', NODE, ...FLAGS);
  assert.equal(drained.code, 0, drained.stderr);
  const o = parseDrainOutput(drained.stdout, drained.stderr);
  kubectlDrained = { ...summary(o, NS_KUBECTL), ms: drained.ms, retries: o.retries.length };
  console.log(`kubectl drain: ${(drained.ms / 1000).toFixed(1)} s, ${o.retries.length} PDB retr${o.retries.length === 1 ? 'y' : 'ies'}; evicted ${kubectlDrained.evicted.join(', ')}`);
  await kubectlOk('uncordon', NODE);
  await kubectlOk('delete', 'namespace', NS_KUBECTL, '--wait=false');
});

test('our drain on the same scenario: the same refusals and messages, the same evictions and kept pods; benchmark', async () => {
  assert.ok(kubectlDrained, 'the kubectl run comes first');
  // kubectl's namespace goes first: its DaemonSet pod, still terminating on w02, would be one more pod to drain.
  await waitFor(`namespace ${NS_KUBECTL} gone`, 90_000, async () => (await kubectl('get', 'namespace', NS_KUBECTL)).code !== 0);
  await createScenario(NS_OURS);
  const refused = await ours('drain', NODE, '--yes');
  assert.equal(refused.code, 1);
  const ourRefused = summary(parseDrainOutput(refused.stdout, refused.stderr), NS_OURS);
  assert.deepEqual(ourRefused.refused, kubectlRefused.refused, `refusals differ:\nours ${JSON.stringify(ourRefused.refused)}\nkubectl ${JSON.stringify(kubectlRefused.refused)}`);
  assert.deepEqual(Object.keys(ourRefused.refused).sort(), [
    'cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore)',
    'cannot delete Pods that declare no controller (use --force to override)',
    'cannot delete Pods with local storage (use --delete-emptydir-data to override)',
  ]);
  assert.match(refused.stdout, /refuse +kw-drain-ours\/bare +Pods that declare no controller/, 'the plan said so first');
  assert.match(refused.stderr, /FAILED at step "classify" on node labs-k8s-w02/);
  assert.match(await kubectlOk('get', 'node', NODE, '-o', 'jsonpath={.spec.unschedulable}'), /true/, 'cordoned, like kubectl leaves it');

  const drained = await ours('drain', NODE, ...FLAGS, '--yes');
  assert.equal(drained.code, 0, drained.stderr);
  const o = parseDrainOutput(drained.stdout, drained.stderr);
  const ourDrained = summary(o, NS_OURS);
  assert.deepEqual(ourDrained.evicted, kubectlDrained.evicted);
  assert.deepEqual(ourDrained.evicted, ['bare', 'cache', 'web', 'web']);
  assert.deepEqual(ourDrained.keptDaemonSet, kubectlDrained.keptDaemonSet);
  assert.ok(ourDrained.keptDaemonSet.includes('agent'), ourDrained.keptDaemonSet.join());
  assert.ok(o.drained);
  const left = JSON.parse(await kubectlOk('get', 'pods', '-n', NS_OURS, '--field-selector', `spec.nodeName=${NODE}`, '-o', 'json')) as { items: { metadata: { name: string } }[] };
  assert.deepEqual(left.items.map((p) => kind(p.metadata.name)), ['agent'], 'only the DaemonSet pod is still on the node');
  const ratio = drained.ms / kubectlDrained.ms;
  recordBench({ drainOursSeconds: drained.ms / 1000, drainKubectlSeconds: kubectlDrained.ms / 1000 });
  console.log(`drain benchmark: kubectl drain ${(kubectlDrained.ms / 1000).toFixed(1)} s (${kubectlDrained.retries} PDB retries), kubeadm-workbench drain ${(drained.ms / 1000).toFixed(1)} s (${o.retries.length} PDB retries; plan included), ratio ours/kubectl ${ratio.toFixed(2)} — ${NODE}: 2 PDB-protected Deployment pods, DaemonSet pod, emptyDir pod, bare pod`);
  await kubectlOk('uncordon', NODE);
  await kubectlOk('delete', 'namespace', NS_OURS, '--wait=false');
});

test('--then over SSH: the maintenance command runs on the node\'s host, the node comes back Ready, --uncordon', async () => {
  const r = await ours('drain', NODE, '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--then', 'systemctl restart kubelet', '--ready-timeout=120s', '--uncordon', '--yes', '--inventory', env.LAB_INVENTORY!, '--ssh-config', env.LAB_SSH_CONFIG!, '--known-hosts', env.LAB_KNOWN_HOSTS!);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /run on host labs-k8s-w02 over SSH: sh -c 'systemctl restart kubelet'/, 'the plan shows the command and the host');
  assert.match(r.stdout, /^running on labs-k8s-w02: sh -c 'systemctl restart kubelet'$/m);
  assert.match(r.stdout, /^node\/labs-k8s-w02 is Ready again after \d+s$/m);
  assert.match(r.stdout, /^node\/labs-k8s-w02 uncordoned$/m);
  assert.equal(await kubectlOk('get', 'node', NODE, '-o', 'jsonpath={.spec.unschedulable}'), '');
  console.log(`drain --then 'systemctl restart kubelet' --uncordon: ${(r.ms / 1000).toFixed(1)} s`);
});

test('control-plane guard: held leases shown; refused while labs-k8s-m03 is powered off; nothing cordoned', async () => {
  const sshFlags = ['--inventory', env.LAB_INVENTORY!, '--ssh-config', env.LAB_SSH_CONFIG!, '--known-hosts', env.LAB_KNOWN_HOSTS!];
  // The drained node holds both leader leases (kube-scheduler, kube-controller-manager): the plan must name them.
  const target = 'labs-k8s-m01';
  await leaderLeasesOnto(target, env);
  const leases = JSON.parse(await kubectlOk('get', 'lease', '-n', 'kube-system', '-o', 'json')) as { items: { metadata: { name: string }; spec: { holderIdentity?: string } }[] };
  const held = leases.items.filter((l) => l.spec.holderIdentity?.startsWith(`${target}_`)).map((l) => `kube-system/${l.metadata.name}`);
  assert.deepEqual(held.filter((l) => LEADER_LEASES.some((n) => l === `kube-system/${n}`)).sort(), ['kube-system/kube-controller-manager', 'kube-system/kube-scheduler'], `leases held by ${target}: ${held.join(', ')}`);

  const healthy = await ours('drain', target, '--ignore-daemonsets', '--dry-run=server', ...sshFlags);
  assert.equal(healthy.code, 0, healthy.stderr);
  assert.match(healthy.stdout, /Control-plane guard: OK — While .* is down, etcd tolerates no further failure \(2 of 3 members, quorum 2\)/);
  for (const l of held) assert.ok(healthy.stdout.includes(l), `the plan names the lease ${l} held by ${target}:\n${healthy.stdout}`);
  assert.equal(await kubectlOk('get', 'node', target, '-o', 'jsonpath={.spec.unschedulable}'), '', 'a server dry run cordons nothing');

  const lab = (...args: string[]) => {
    const r = spawnSync('bash', [join(REPO, 'lab/lab.sh'), ...args], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, `lab ${args.join(' ')}: ${r.stderr}`);
  };
  lab('fault', 'power-off', 'labs-k8s-m03');
  const off = Date.now();
  try {
    // HAProxy marks m03 DOWN after ~12 s (lab/README.md): until then a request through the VIP may wait for m03's
    // connect timeout. Wait for that (and for the API to answer) so the guard's own time is what gets measured.
    let inRow = 0;
    await waitFor('the API answering steadily through the VIP', 60_000, async () => {
      inRow = (await kubectl('get', '--raw', '/readyz', '--request-timeout=3s')).code === 0 ? inRow + 1 : 0;
      return inRow >= 3 && Date.now() - off > 14_000;
    }, 500);
    // Where the guard's time goes: etcd member health (exec in an etcd pod, SSH as fallback) with a member down.
    const conn = await loadKubeAdapter().connect({ kubeconfig: env.KUBECONFIG! });
    try {
      const te = Date.now();
      const etcd = await conn.readEtcd();
      console.log(`etcd read with labs-k8s-m03 down: ${Date.now() - te} ms via ${etcd.via}; ${etcd.quorumLine}`);
    } finally {
      conn.dispose();
    }
    const t0 = Date.now();
    const r = await ours('drain', target, '--ignore-daemonsets', '--yes', ...sshFlags);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /Control-plane guard: REFUSED/);
    assert.match(r.stderr, new RegExp(`refusing to drain control-plane node "${target}": etcd would lose quorum: 3 members need 2, and only 1 other healthy member would remain`));
    assert.match(r.stderr, /labs-k8s-m03/);
    assert.match(r.stderr, /nothing was done/);
    assert.equal(await kubectlOk('get', 'node', target, '-o', 'jsonpath={.spec.unschedulable}'), '', 'not cordoned');
    console.log(`control-plane guard refused the drain of ${target} with labs-k8s-m03 down in ${((Date.now() - t0) / 1000).toFixed(1)} s; leases held: ${held.join(', ')}`);
  } finally {
    lab('fault', 'power-on', 'labs-k8s-m03');
    await waitFor('labs-k8s-m03 Ready and its etcd member healthy again', 150_000, async () => {
      const ready = await kubectl('get', 'node', 'labs-k8s-m03', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}');
      if (ready.stdout !== 'True') return false;
      const etcd = await ours('drain', target, '--ignore-daemonsets', '--dry-run=client', ...sshFlags);
      return etcd.code === 0 && /Control-plane guard: OK/.test(etcd.stdout);
    }, 3000);
  }
});
