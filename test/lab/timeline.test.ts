/**
 * The `kubectl run` timeline on the lab's HA cluster, whose API servers write the audit log (the lab inventory sets
 * cluster.apiServerAuditLog, so the palette bring-up built them that way): two runs of `timeline` on one worker, the
 * image removed from it first (cold: pulled) and then again (warm: already there). Each run must show every hop of
 * the seed's sequence from its best source, in causal order: the POST and 201 (client, ms), the API server's
 * RequestReceived and its 201 after the etcd write (audit, µs), the Scheduled event, the binding (audit, µs),
 * the kubelet's first line about the pod, RunPodSandbox and its return, the CNI ADD with an IP of the node's podCIDR, the pull
 * (cold run only), CreateContainer and StartContainer (journal, µs), and watch seeing the pod bound, running and
 * Ready (ms). The per-hop durations of both runs go to the lab bench.
 * Runs on the cluster the tier already has (after day2.test.ts); it leaves nothing behind (the CLI deletes its pod).
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TimelineReport } from '../../src/core/timeline/report';
import { recordBench } from './bench';
import { IMAGE, PULL, SEQUENCE, WORKERS, causalInversions, checkAgainstSources, coldNode, inSubnet, labSsh, orderedPairs } from './timelineSeed';
import { tempDir } from '../tempDir';

const ROOT = resolve(__dirname, '../..');
const LAB = join(ROOT, 'lab/lab.sh');
const CLI = join(ROOT, 'dist/cli.js');
const env: Record<string, string> = {};

type Run = TimelineReport & { image: string; ready: boolean; failures: string[] };

const ssh = (host: string, command: string) => labSsh(env, host, command);

let NODE = '';

function timeline(name: string): { run: Run; seconds: number } {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [CLI, 'timeline', '--inventory', env.LAB_INVENTORY!, '--ssh-config', env.LAB_SSH_CONFIG!, '--known-hosts', env.LAB_KNOWN_HOSTS!, '--kubeconfig', env.KUBECONFIG!, '--node', NODE, '--image', IMAGE, '--name', name, '--timeout', '180', '--json'], {
    env: { ...process.env, PATH: env.PATH!, HOME: env.HOME_DIR! },
    encoding: 'utf8',
    timeout: 5 * 60_000,
  });
  process.stderr.write(r.stderr);
  assert.equal(r.status, 0, `timeline exited ${r.status}:\n${r.stdout.slice(-4000)}\n${r.stderr}`);
  return { run: JSON.parse(r.stdout) as Run, seconds: (Date.now() - t0) / 1000 };
}

function checkRun(label: string, run: Run, cold: boolean, podCidr: string): void {
  const lines = run.steps.map((s) => `${s.offsetMs.toFixed(1).padStart(8)} ms  ${s.step.padEnd(18)} ${s.source.padEnd(8)} ${s.label}`);
  console.log(`${label} run (${run.pod.name} on ${run.pod.node}):\n${lines.join('\n')}\n  hops: ${run.hops.map((h) => `${h.hop} ${h.ms === undefined ? '—' : `${h.ms.toFixed(1)} ms`}`).join(' · ')}`);
  assert.ok(run.ready, `${label}: the pod became Ready`);
  assert.deepEqual(run.failures, [], `${label}: no failure`);
  assert.equal(run.pod.node, NODE);
  for (const s of run.sources) assert.ok(s.state === 'read' || !/audit|journal|CNI/.test(s.source), `${label}: ${s.source} was read: ${s.text}`);
  const want = SEQUENCE.filter(([step]) => cold || !PULL.has(step));
  const first = (step: string, source: string) => run.steps.find((s) => s.step === step && s.source === source);
  for (const [step, source, precision] of want) {
    const s = first(step, source);
    assert.ok(s, `${label}: ${step} from ${source} is on the timeline:\n${lines.join('\n')}`);
    assert.ok(precision.split('|').includes(s.precision), `${label}: ${step} from ${source} has ${precision} precision, not ${s.precision}`);
  }
  assert.ok(run.steps.some((s) => s.step === 'bind-observed' && s.source === 'watch'), `${label}: watch saw the binding`);
  if (!cold) assert.ok(!run.steps.some((s) => s.step === 'pulling' && s.source === 'journal'), `${label}: nothing was pulled`);
  // Causal order: each hop is drawn no earlier than every hop of the seed's sequence the model's laws put before it.
  for (const [[a, as], [b, bs]] of orderedPairs(want)) {
    assert.ok(first(a, as)!.offsetMs <= first(b, bs)!.offsetMs, `${label}: ${a} (${first(a, as)!.offsetMs} ms) before ${b} (${first(b, bs)!.offsetMs} ms)`);
  }
  // Every drawn step against its source's time (the lab's machines share one clock), and the causal order of every
  // pair of steps drawn, not only the seed's hops.
  assert.deepEqual(checkAgainstSources(run, true), [], `${label}: drawn steps against their sources`);
  assert.deepEqual(causalInversions(run.steps.map((s) => ({ step: s.step, source: s.source, container: s.container, pos: s.offsetMs, label: s.label }))), [], `${label}: causal order of every step`);
  const ip = /CNI ADD: IP (\d+\.\d+\.\d+\.\d+)/.exec(first('cni-add', 'journal')!.label)?.[1];
  assert.ok(ip && inSubnet(ip, podCidr), `${label}: the CNI ADD gave ${ip}, an address of ${NODE}'s podCIDR ${podCidr}`);
}

function hopBench(prefix: string, run: Run, seconds: number): Record<string, number> {
  const out: Record<string, number> = { [`${prefix}Seconds`]: seconds };
  for (const h of run.hops) if (h.ms !== undefined) out[`${prefix}@${h.hop}`] = Math.round(h.ms * 10) / 10;
  const ready = run.steps.find((s) => s.step === 'ready-observed');
  if (ready) out[`${prefix}@POST to Ready (watch)`] = Math.round(ready.offsetMs * 10) / 10;
  if (run.sli) out[`${prefix}@startup SLI`] = run.sli.valueMs;
  return out;
}

describe('kubectl run timeline on the lab cluster: every hop of the seed, cold and warm', { timeout: 10 * 60_000 }, () => {
  let podCidr = '';
  before(async () => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root');
    if (!existsSync(CLI)) throw new Error('dist/cli.js missing: run npm run build first');
    for (const m of execFileSync('bash', [LAB, 'env'], { encoding: 'utf8' }).matchAll(/^export (\w+)="(.*)"$/gm)) env[m[1]!] = m[2]!.replace('$PATH', process.env.PATH ?? '');
    assert.ok(existsSync(env.KUBECONFIG!), `no lab cluster: ${env.KUBECONFIG} is missing — bring one up with the engine first`);
    env.HOME_DIR = tempDir('kw-timeline-home-');
    const node = await coldNode(env);
    assert.ok(node, `${IMAGE} could not be removed from any of ${WORKERS.join(', ')}: a running container uses it on each`);
    NODE = node;
    podCidr = execFileSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, 'get', 'node', NODE, '-o', 'jsonpath={.spec.podCIDR}'], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } }).trim();
    assert.match(podCidr, /^\d+\.\d+\.\d+\.\d+\/\d+$/);
    // The API servers were started with the policy the inventory asked for.
    for (const cp of ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03']) {
      const r = ssh(cp, "stat -c '%U %a' /etc/kubernetes/audit/policy.yaml && test -f /var/log/kubernetes/audit/audit.log");
      assert.equal(r.code, 0, `${cp}: ${r.out}`);
      assert.match(r.out, /^root 600$/m, `${cp}: the policy is root's, 0600`);
    }
  });

  test('cold (image removed from the node first), then warm: every hop in causal order with its source; per-hop durations to the bench', async () => {
    // Cold: before() removed the image from NODE.
    const suffix = Date.now().toString(36);
    const cold = timeline(`timeline-cold-${suffix}`);
    checkRun('cold', cold.run, true, podCidr);
    const warm = timeline(`timeline-warm-${suffix}`);
    checkRun('warm', warm.run, false, podCidr);
    const pull = cold.run.hops.find((h) => h.hop === 'Image pull')?.ms;
    assert.ok(pull !== undefined && pull > 0, `the cold run's pull took time: ${pull}`);
    recordBench({ ...hopBench('timelineCold', cold.run, cold.seconds), ...hopBench('timelineWarm', warm.run, warm.seconds) });
    // The CLI deleted its test pods: the last one may still be terminating a moment after the CLI exits.
    const ours = new RegExp(`timeline-(cold|warm)-${suffix}`);
    let left = '';
    for (let i = 0; i < 30; i++) {
      left = execFileSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, 'get', 'pods', '-o', 'name'], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } });
      if (!ours.test(left)) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    assert.doesNotMatch(left, ours, 'the test pods are deleted within 30 s of the CLI\'s exit');
  });
});
