/**
 * The failure drill (`kubeadm-workbench drill`) against the lab's running HA cluster, through the
 * command line the way an admin runs it:
 *  - power-off of the control-plane node that holds the scheduler's leader lease, through the lab's own
 *    fault commands as the "hypervisor" (`lab.sh fault power-off|power-on {host}`): HAProxy DOWN on both
 *    balancers, the etcd election (or "leader unchanged"), the lease handover, NotReady, no failed API
 *    request after DOWN; then the node back: Ready, etcd caught up, HAProxy UP;
 *  - `stop` of a worker over SSH with a Deployment whose pods tolerate the unreachable taint for 10 s:
 *    NotReady, the evictions, the replacements on the other worker, the Terminating pods cleaned up after
 *    the restore.
 * Needs root and a lab cluster (the lab tier brings one up first; alone: `npm run lab -- up --cluster`).
 * DESTRUCTIVE for the lab for about 4 minutes; every fault is restored by the drill itself.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DrillReport, Measurement } from '../../src/core/drill/report';
import { showStat } from '../../src/core/nodes/commands';
import { apiCheckOf, apiServerStates, installHaproxyCfg, readHaproxyCfg, withApiCheck, type ApiCheck } from './apiHealthCheck';
import { recordBench } from './bench';
import { minimumPolls, pollApi, waitHealthy, TAKE_OVER_HEALTHY_MS } from './clusterHealth';
import { watchHaproxy, type StateChange } from './haproxyWatch';
import type { PollResult } from './httpPoller';
import { runDrill, type DrillRun } from './drillRun';
import { secretsIn } from './secrets';
import { tempDir } from '../tempDir';

const ROOT = resolve(__dirname, '../..');
const LAB = join(ROOT, 'lab/lab.sh');
const CLI = join(ROOT, 'dist/cli.js');
const env: Record<string, string> = {};
const numbers: Record<string, unknown> = {};

const kubectl = (...args: string[]) => execFileSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, '--request-timeout=10s', ...args], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the drill verb (drillRun.ts: the report from stdout, the commentary echoed as it comes) as this file's user. */
function drill(args: string[], timeoutMs = 6 * 60_000): Promise<DrillRun> {
  return runDrill(env, env.HOME_DIR!, args, timeoutMs);
}

function assertOutputClean(stdout: string, stderr: string): void {
  assert.match(stderr, /\] fault: /, 'the commentary names the fault');
  assert.deepEqual(secretsIn(`${stdout}\n${stderr}`), []);
}

/** A recovery moment: seen, within [floor, ceiling] seconds of the restore, and judged a pass. */
function assertRecovery(m: Measurement, floor: number, ceiling: number): number {
  assert.ok(m.seconds !== undefined && m.seconds >= floor && m.seconds <= ceiling, `${m.title}: ${m.seconds} s after the restore began, expected ${floor}–${ceiling} s`);
  assert.equal(m.verdict, 'pass', `${m.title}: ${m.detail ?? ''} vs ${m.expected}`);
  return m.seconds;
}

function measured(r: DrillReport, id: string): Measurement {
  const m = r.measurements.find((x) => x.id === id);
  assert.ok(m, `no measurement ${id} in the report: ${r.measurements.map((x) => x.id).join(', ')}`);
  return m;
}

/**
 * The test's own witnesses beside a drill (not the drill's verdict): an authenticated client polling the API through
 * the VIP (clusterHealth.pollApi: the admin's GET, any non-2xx a failure) and HAProxy's server states on the MASTER
 * balancer, which holds the VIP (haproxyWatch.ts).
 */
function witnesses(): { stop(): Promise<{ api: PollResult; haproxy: StateChange[] }> } {
  const api = pollApi(env.KUBECONFIG!);
  const haproxy = watchHaproxy(env.LAB_SSH_CONFIG!, 'labs-k8s-balancer');
  return { stop: async () => ({ api: await api.stop(), haproxy: await haproxy.stop() }) };
}

function readyNodes(): string[] {
  type N = { metadata: { name: string }; status: { conditions: { type: string; status: string }[] } };
  return (JSON.parse(kubectl('get', 'nodes', '-o', 'json')).items as N[]).filter((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True')).map((n) => n.metadata.name);
}

async function allReady(timeoutMs: number): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    try {
      if (readyNodes().length === 5) return;
    } catch {
      // the API may be catching up
    }
    if (Date.now() - t0 > timeoutMs) assert.fail(`not all 5 nodes Ready after ${timeoutMs / 1000} s: ${readyNodes().join(', ')}`);
    await sleep(2000);
  }
}

describe('failure drill on the lab cluster', { timeout: 15 * 60_000 }, () => {
  before(async () => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root');
    if (!existsSync(CLI)) throw new Error('dist/cli.js missing: run npm run build first');
    for (const m of execFileSync('bash', [LAB, 'env'], { encoding: 'utf8' }).matchAll(/^export (\w+)="(.*)"$/gm)) env[m[1]!] = m[2]!.replace('$PATH', process.env.PATH ?? '');
    assert.ok(existsSync(env.KUBECONFIG!), `no lab cluster: ${env.KUBECONFIG} is missing — run \`npm run lab -- up --cluster\` first`);
    assert.equal(readyNodes().length, 5, 'the drill starts from a healthy 5-node cluster');
    // A fresh HOME: the CLI's own known_hosts must not come from this machine's user.
    env.HOME_DIR = tempDir('kw-drill-home-');
    await waitHealthy(env, env.HOME_DIR, TAKE_OVER_HEALTHY_MS);
  });

  after(async () => {
    try {
      kubectl('delete', 'deployment', 'drill-web', '--ignore-not-found', '--wait=false');
    } catch {
      // best effort
    }
    console.log('failure drill numbers:', JSON.stringify(numbers, null, 2));
  });

  test('power-off of the control-plane node holding the scheduler lease: measured, within bounds, and it comes back', async () => {
    const holder = JSON.parse(kubectl('-n', 'kube-system', 'get', 'lease', 'kube-scheduler', '-o', 'json')).spec.holderIdentity as string;
    const target = /^labs-k8s-m0\d/.exec(holder)?.[0] ?? 'labs-k8s-m01';
    const t0 = Date.now();
    // The moment of the fault, written by the power-off command itself (the drill runs it here, as a hypervisor's).
    const faultMark = join(tempDir('kw-drill-fault-'), 'at');
    const judges = witnesses();
    const { code, report, stdout, stderr } = await drill(['--host', target, '--kind', 'power-off', '--power-off-command', `bash -c 'date +%s%3N > ${faultMark}; exec bash ${LAB} fault power-off "$1"' kw {host}`, '--power-on-command', `bash ${LAB} fault power-on {host}`]);
    const seen = await judges.stop();
    assert.ok(report, `no JSON report (exit ${code}):\n${stderr.slice(-3000)}`);
    assertOutputClean(stdout, stderr);
    const m = (id: string) => measured(report, id);
    const find = (id: string) => report.measurements.find((x) => x.id === id);
    const opt = (id: string) => find(id)?.seconds;
    numbers.controlPlanePowerOff = {
      target,
      seconds: (Date.now() - t0) / 1000,
      haproxyDown: Object.fromEntries(['labs-k8s-balancer', 'labs-k8s-balancer2'].map((b) => [b, opt(`haproxy-down@${b}`)])),
      etcdLeader: { seconds: opt('etcd-leader'), detail: find('etcd-leader')?.detail },
      schedulerLease: opt('lease@kube-scheduler'),
      controllerManagerLease: opt('lease@kube-controller-manager') ?? find('lease@kube-controller-manager')?.detail,
      notReady: opt('node-notready'),
      api: report.api,
      restore: report.run.restore,
      nodeReadyAfterRestore: opt('node-ready'),
      etcdRejoin: opt('etcd-rejoin'),
      etcdCaughtUp: opt('etcd-caught-up'),
      haproxyUp: Object.fromEntries(['labs-k8s-balancer', 'labs-k8s-balancer2'].map((b) => [b, opt(`haproxy-up@${b}`)])),
      failed: report.measurements.filter((x) => x.verdict === 'fail').map((x) => `${x.id}: ${x.seconds} s (${x.expected}) ${x.detail ?? ''}`),
    };
    console.log('control-plane power-off:', JSON.stringify(numbers.controlPlanePowerOff, null, 2));
    const bench: Record<string, number> = {};
    for (const [k, id] of [['drillHaproxyDownSeconds', 'haproxy-down@labs-k8s-balancer'], ['drillEtcdLeaderSeconds', 'etcd-leader'], ['drillSchedulerLeaseSeconds', 'lease@kube-scheduler'], ['drillControlPlaneNotReadySeconds', 'node-notready'], ['drillControlPlaneReadyAfterRestoreSeconds', 'node-ready'], ['drillEtcdCaughtUpAfterRestoreSeconds', 'etcd-caught-up']] as const) {
      const v = opt(id);
      if (v !== undefined) bench[k] = v;
    }
    bench.drillApiFailedRequestsBeforeDown = report.api.failedBeforeDown;
    recordBench(bench);
    assert.equal(report.run.restore.ok, true, `the node was not restored: ${report.run.restore.error}`);
    for (const b of ['labs-k8s-balancer', 'labs-k8s-balancer2']) {
      const down = m(`haproxy-down@${b}`);
      assert.ok(down.seconds !== undefined && down.seconds > 1 && down.seconds < 20, `${b}: HAProxy DOWN after ${down.seconds} s`);
      assert.equal(down.verdict, 'pass', `${b}: ${down.detail} vs ${down.expected}`);
      // UP again: rise 2 checks fastinter apart at least, after the node booted and kube-apiserver listens.
      assertRecovery(m(`haproxy-up@${b}`), 1, 90);
    }
    const lease = m('lease@kube-scheduler');
    assert.ok(lease.seconds !== undefined && lease.seconds > 8 && lease.seconds < 30, `scheduler lease moved after ${lease.seconds} s`);
    const leader = m('etcd-leader');
    if (leader.verdict === 'info') assert.match(leader.detail ?? '', /^leader unchanged/);
    else assert.ok(leader.seconds !== undefined && leader.seconds < 10 && leader.verdict === 'pass', `etcd leader after ${leader.seconds} s`);
    // 40–55 s after the fault; grace period after the takeover when the node also ran the controller-manager leader.
    const nr = m('node-notready');
    assert.ok(nr.seconds !== undefined && nr.seconds > 30 && nr.seconds < 90, `NotReady after ${nr.seconds} s`);
    assert.equal(nr.verdict, 'pass', `NotReady after ${nr.seconds} s, expected ${nr.expected}: ${nr.detail}`);
    assert.equal(m('api').verdict, 'pass', m('api').detail);
    assert.ok(report.api.requestsWhileDown > 20, `the API probe ran (${report.api.requestsWhileDown} requests)`);
    // After the power-on (lab/README.md: 12–20 s each): the node boots, kubelet reports Ready, etcd catches up.
    assertRecovery(m('node-ready'), 0, 90);
    const rejoined = assertRecovery(m('etcd-rejoin'), 0, 90);
    assert.ok(assertRecovery(m('etcd-caught-up'), 0, 90) >= rejoined, 'etcd caught up only once the member answered');
    assert.ok(m('node-ready').sinceFault! > nr.seconds!, 'Ready again after it had turned NotReady');
    assert.equal(code, report.ok ? 0 : 1);
    assert.equal(report.ok, true, `failed measurements: ${JSON.stringify(numbers.controlPlanePowerOff)}`);
    // The independent judges. HAProxy on the MASTER: the target's server DOWN within the same bound as the drill's
    // (fall 3 checks, each to a dead host waiting `timeout connect` 5 s: 1–20 s), and within 2 s of what the drill
    // measured (the watch samples every 0.5 s, the drill every 0.5–1 s).
    const faultAt = Number(readFileSync(faultMark, 'utf8').trim());
    const downAt = seen.haproxy.find((c) => c.server === target && c.at >= faultAt && /^DOWN/.test(c.status))?.at;
    assert.ok(downAt !== undefined, `HAProxy never showed ${target} DOWN after the fault: ${JSON.stringify(seen.haproxy)}`);
    const ourDown = (downAt - faultAt) / 1000;
    numbers.controlPlanePowerOffJudged = { haproxyDownSeconds: ourDown, apiPolls: seen.api.polls, apiFailed: seen.api.failures };
    console.log(`judged: ${target} DOWN on the MASTER ${ourDown.toFixed(1)} s after the fault (drill: ${m('haproxy-down@labs-k8s-balancer').seconds} s); API ${seen.api.failures.length} failed of ${seen.api.polls}`);
    assert.ok(ourDown >= 1 && ourDown <= 20, `HAProxy DOWN ${ourDown} s after the fault`);
    assert.ok(Math.abs(ourDown - m('haproxy-down@labs-k8s-balancer').seconds!) <= 2, `the drill's HAProxy DOWN (${m('haproxy-down@labs-k8s-balancer').seconds} s) is what HAProxy showed (${ourDown.toFixed(1)} s)`);
    // An authenticated client through the VIP: no failed request once HAProxy took the dead node out (2 s for a request
    // already in flight to it), and it ran the whole time.
    assert.ok(seen.api.polls >= minimumPolls(seen.api.seconds), `the API poller ran: ${seen.api.polls} polls in ${seen.api.seconds.toFixed(1)} s`);
    // Until HAProxy takes it back: the lab's check is the seed's TCP check, which lets a request reach a kube-apiserver
    // that listens before it is ready (the balancer drill's "/readyz check 0 failed" compares the two); that window is
    // the check's, not the failover's.
    const upAt = seen.haproxy.find((c) => c.server === target && c.at > downAt && /^UP/.test(c.status))?.at ?? Infinity;
    const whileDown = seen.api.failed.filter((f) => f.at > downAt + 2000 && f.at < upAt);
    const listed = whileDown.map((f) => `+${((f.at - faultAt) / 1000).toFixed(1)} s ${f.problem}`);
    assert.deepEqual(listed, [], `no API request through the VIP failed while HAProxy had the dead node DOWN (+${((downAt - faultAt) / 1000).toFixed(1)} s to +${((upAt - faultAt) / 1000).toFixed(1)} s): ${listed.join('; ')}`);
    await allReady(120_000);
  });

  test('stop of a worker: NotReady, pods with a 10 s toleration evicted and replaced, cleaned up after the restore', async () => {
    const manifest = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'drill-web', namespace: 'default' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'drill-web' } },
        template: {
          metadata: { labels: { app: 'drill-web' } },
          spec: {
            // Preferably on w01 (the node that fails), so that its pods are the ones evicted.
            affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['labs-k8s-w01'] }] } }] } },
            tolerations: ['node.kubernetes.io/unreachable', 'node.kubernetes.io/not-ready'].map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 })),
            terminationGracePeriodSeconds: 5,
            containers: [{ name: 'web', image: '10.3.60.1:5000/kwlab/web:1.0', ports: [{ containerPort: 8080 }] }],
          },
        },
      },
    };
    // Earlier lab tests (drain) may have left a worker cordoned.
    kubectl('uncordon', 'labs-k8s-w01', 'labs-k8s-w02');
    execFileSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, 'apply', '-f', '-'], { input: JSON.stringify(manifest), encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } });
    kubectl('rollout', 'status', 'deployment/drill-web', '--timeout=120s');
    const onW01 = kubectl('get', 'pods', '-l', 'app=drill-web', '--field-selector', 'spec.nodeName=labs-k8s-w01', '-o', 'name').trim().split('\n').filter(Boolean);
    assert.ok(onW01.length >= 1, 'at least one drill-web pod runs on labs-k8s-w01');

    const t0 = Date.now();
    const judges = witnesses();
    const { code, report, stdout, stderr } = await drill(['--host', 'labs-k8s-w01', '--kind', 'stop', '--evictions-wait', '45s']);
    const seen = await judges.stop();
    assert.ok(report, `no JSON report (exit ${code}):\n${stderr.slice(-3000)}`);
    assertOutputClean(stdout, stderr);
    const m = (id: string) => measured(report, id);
    const find = (id: string) => report.measurements.find((x) => x.id === id);
    const opt = (id: string) => find(id)?.seconds;
    numbers.workerStop = {
      seconds: (Date.now() - t0) / 1000,
      podsOnW01: onW01.length,
      notReady: opt('node-notready'),
      taint: opt('node-taint'),
      evictionsFirst: opt('evictions-first'),
      evictions: { seconds: opt('evictions'), expected: find('evictions')?.expected },
      replicasBack: opt('replicas'),
      nodeReadyAfterRestore: opt('node-ready'),
      podsCleaned: opt('pods-cleaned'),
      api: { requests: report.api.requests, failed: report.api.failed },
      failed: report.measurements.filter((x) => x.verdict === 'fail').map((x) => `${x.id}: ${x.seconds} s (${x.expected}) ${x.detail ?? ''}`),
    };
    console.log('worker stop:', JSON.stringify(numbers.workerStop, null, 2));
    const bench: Record<string, number> = {};
    for (const [k, id] of [['drillWorkerNotReadySeconds', 'node-notready'], ['drillEvictionsSeconds', 'evictions'], ['drillReplicasBackSeconds', 'replicas'], ['drillWorkerReadyAfterRestoreSeconds', 'node-ready']] as const) {
      const v = opt(id);
      if (v !== undefined) bench[k] = v;
    }
    recordBench(bench);
    assert.equal(report.run.restore.ok, true, `the worker was not restored: ${report.run.restore.error}`);
    const nr = m('node-notready').seconds!;
    assert.ok(nr > 30 && nr < 70, `NotReady after ${nr} s`);
    const ev = m('evictions');
    assert.equal(ev.verdict, 'pass', `${ev.seconds} s vs ${ev.expected}: ${ev.detail}`);
    assert.ok(ev.seconds! >= nr + 5 && ev.seconds! <= nr + 30, `evicted ${ev.seconds} s after the fault, NotReady at ${nr} s, tolerationSeconds 10`);
    assert.ok(m('replicas').seconds !== undefined, 'the Deployment is back to 3 ready pods on the other worker');
    // `systemctl start containerd kubelet` (lab/README.md: 4–5 s to Ready): bounded, and the clean-up after it.
    const readyAgain = assertRecovery(m('node-ready'), 0, 60);
    const cleaned = m('pods-cleaned').seconds;
    assert.ok(cleaned !== undefined && cleaned <= 60, `the Terminating pods went away ${cleaned} s after the restore began`);
    assert.ok(m('node-ready').sinceFault! > nr, 'Ready again after it had turned NotReady');
    console.log(`worker back: Ready ${readyAgain} s, Terminating pods gone ${cleaned} s after the restore began`);
    assert.equal(m('api').verdict, 'pass', m('api').detail);
    // The drill's own API probe ran (a request every half poll interval, 0.5 s by default): at least one a second.
    assert.ok(report.api.requests >= (report.run.observedSeconds ?? 0), `the drill's API probe: ${report.api.requests} requests over ${report.run.observedSeconds} s`);
    // The independent judges: a worker's fault touches neither the API nor HAProxy — no failed request from our client
    // (which ran throughout), and every API server UP on the MASTER the whole time.
    assert.ok(seen.api.polls >= minimumPolls(seen.api.seconds), `the API poller ran: ${seen.api.polls} polls in ${seen.api.seconds.toFixed(1)} s`);
    assert.deepEqual(seen.api.failures, [], 'no API request through the VIP failed while a worker was down');
    assert.deepEqual(seen.haproxy.filter((c) => !/^UP/.test(c.status)), [], 'every API server stayed UP in HAProxy');
    assert.ok(seen.haproxy.length >= 3, `the HAProxy watch saw the three servers: ${JSON.stringify(seen.haproxy)}`);
    assert.equal(report.ok, true, JSON.stringify(numbers.workerStop));
    assert.equal(code, 0);
    await allReady(120_000);
  });

  // The seed's balancers check the API servers over TCP; ours ask HTTPS /readyz. The same fault twice on one node,
  // once with each check on both balancers: a client through the VIP sees the difference while the node comes back
  // (its kube-apiserver listens on 6443 seconds before it can serve: its local etcd has to rejoin first).
  test('HAProxy\'s check through a control-plane crash and restart: the TCP check admits a not-ready API server, the /readyz check does not', async () => {
    const balancers = ['labs-k8s-balancer', 'labs-k8s-balancer2'];
    const sshConfig = env.LAB_SSH_CONFIG!;
    const original = Object.fromEntries(balancers.map((b) => [b, readHaproxyCfg(sshConfig, b)]));
    const states = (b: string) => apiServerStates(sshConfig, b, showStat().text);
    const allUp = async (why: string) => {
      const t0 = Date.now();
      for (;;) {
        const s = balancers.map(states);
        if (s.every((x) => Object.keys(x).length === 3 && Object.values(x).every((v) => v === 'UP'))) return;
        if (Date.now() - t0 > 120_000) assert.fail(`${why}: the API servers not all UP on both balancers after 120 s: ${JSON.stringify(s)}`);
        await sleep(500);
      }
    };
    const results: Partial<Record<ApiCheck, { failedDuringRecovery: number; requests: number; longestOutageSeconds: number; haproxyUp: (number | undefined)[]; apiserverReady: number; note: string | undefined; seconds: number }>> = {};
    try {
      for (const check of ['tcp', 'readyz'] as const) {
        for (const b of balancers) installHaproxyCfg(sshConfig, b, withApiCheck(original[b]!, check));
        await allUp(`after switching to the ${check} check`);
        const t0 = Date.now();
        // NotReady is not waited for (its 40 s grace would only lengthen the run): 20 s of the fault are enough
        // for both balancers to mark the server DOWN; then the restore, and the drill watches it come back.
        const { code, report, stderr } = await drill(['--host', 'labs-k8s-m03', '--kind', 'stop', '--observe-limit', '20s', '--poll', '250ms']);
        assert.ok(report, `no JSON report (exit ${code}):\n${stderr.slice(-3000)}`);
        assert.equal(report.run.restore.ok, true, `m03 was not restored: ${report.run.restore.error}`);
        const up = balancers.map((b) => report.measurements.find((x) => x.id === `haproxy-up@${b}`)?.seconds);
        const ready = measured(report, 'apiserver-ready');
        assert.equal(ready.verdict, 'pass', `m03's own /readyz: ${ready.detail}`);
        const note = report.notes.find((n) => n.includes('came back'));
        results[check] = { failedDuringRecovery: report.api.failedDuringRecovery, requests: report.api.requests, longestOutageSeconds: report.api.longestOutageSeconds, haproxyUp: up, apiserverReady: ready.seconds!, note, seconds: (Date.now() - t0) / 1000 };
        console.log(`${check} check: ${JSON.stringify(results[check])}`);
        await allUp(`after the ${check} drill`);
        await waitHealthy(env, env.HOME_DIR!, 240_000);
      }
    } finally {
      for (const b of balancers) installHaproxyCfg(sshConfig, b, original[b]!);
    }
    numbers.apiHealthCheck = results;
    const tcp = results.tcp!;
    const readyz = results.readyz!;
    recordBench({ drillTcpCheckFailedDuringRecovery: tcp.failedDuringRecovery, drillTcpCheckRequests: tcp.requests, drillReadyzCheckFailedDuringRecovery: readyz.failedDuringRecovery, drillReadyzCheckRequests: readyz.requests });
    console.log(`failed API requests through the VIP while m03 came back: TCP check ${tcp.failedDuringRecovery} of ${tcp.requests}, /readyz check ${readyz.failedDuringRecovery} of ${readyz.requests}`);
    // The drill's own account: the TCP check admitted m03 before its /readyz was ok, and the report says so with
    // the fix; the /readyz check admitted it only after, and the report has nothing to say.
    assert.ok(tcp.haproxyUp.some((u) => u !== undefined && u < tcp.apiserverReady), `TCP check: UP at ${tcp.haproxyUp} s, ready at ${tcp.apiserverReady} s`);
    assert.match(tcp.note ?? '', /HAProxy admitted it .* before its own \/readyz was ok .* checks? it over TCP/);
    assert.ok(readyz.haproxyUp.every((u) => u !== undefined && u >= readyz.apiserverReady - 0.5), `/readyz check: UP at ${readyz.haproxyUp} s, ready at ${readyz.apiserverReady} s`);
    assert.equal(readyz.note, undefined, 'nothing to report with the /readyz check');
    assert.equal(readyz.failedDuringRecovery, 0, 'with the /readyz check no request through the VIP fails while the API server comes back');
    assert.ok(tcp.failedDuringRecovery > 0, 'with the TCP check the restarting API server was admitted before it could serve (the drill\'s finding), and requests failed');
    assert.deepEqual(balancers.map((b) => apiCheckOf(readHaproxyCfg(sshConfig, b))), balancers.map((b) => apiCheckOf(original[b]!)), 'both balancers have their own check back');
  });
});
