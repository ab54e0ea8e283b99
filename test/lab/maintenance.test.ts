/**
 * Day-2 maintenance on the lab tier's cluster, through the command line:
 *  - `etcd defrag`: keys written and deleted and the keyspace compacted (free pages in every member's file), then the
 *    rolling defragmentation with an authenticated client polling the API through the VIP: the followers first and the
 *    leader last, every file smaller, no request failed;
 *  - drift: a flag added by hand to m02's kube-scheduler manifest is named on that node and that field;
 *  - `reconfigure`: an API server flag changed in a workspace's kubeadm-config.yaml reaches the ConfigMap and all
 *    three nodes' running API servers, one node at a time, with the API polled through the VIP (no request failed);
 *    kubeadm's regeneration takes m02's hand-made scheduler flag away too.
 *  - `etcd alarms --disarm`: a follower filled past a small quota (writes refused), the guided NOSPACE recovery within
 *    the node monitor's grace period less one lease renewal, no alarm left, writes work, no Node went NotReady;
 *  - `certs fix-kubelet-conf`: w01's kubelet.conf made to embed its client certificate (kubeadm#1317), reported by
 *    `certs`, fixed: drained before the kubelet restart (the run's ledger, and the Node watched by kubectl
 *    meanwhile), uncordoned after, nothing embedded left.
 * The same NOSPACE recovery and kubelet.conf fix run from the palette too (ui-maintenance.test.ts, right after this
 * file, on w02). Runs on the cluster the tier already has (after the day-2 files) and leaves it healthy: the scheduler
 * as kubeadm writes it; the quota back to etcd's default; w01 schedulable; the API servers keep the reconfigured flag
 * (--audit-log-maxbackup one more than the lab workspace's generated configuration says: `drift` names it).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseDocument, type YAMLMap, type YAMLSeq } from 'yaml';
import type { CertReport } from '../../src/core/certs/report';
import type { DriftFinding } from '../../src/core/drift/threeWay';
import type { LedgerData } from '../../src/core/plan/ledger';
import { recordBench } from './bench';
import { minimumPolls, waitHealthy, TAKE_OVER_HEALTHY_MS } from './clusterHealth';
import { startCli } from './cliRun';
import { failuresMessage } from './httpPoller';
import * as lab from './maintenanceLab';
import { tempDir } from '../tempDir';

const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist/cli.js');
let env: lab.MaintenanceEnv;
const cli = (verb: string, args: string[], opts?: { inventory?: string }) => lab.cli(env, verb, args, opts);
const lastJson = lab.lastJson;
const ssh = (host: string, cmd: string) => lab.ssh(env, host, cmd);
const kubectl = (...args: string[]) => lab.kubectl(env, ...args);
const pollApi = () => lab.pollKubeadmConfig(env);
const report = lab.report;

/** A verb run in the background (the API poller of this process keeps polling meanwhile), its output echoed. */
async function cliAsync(verb: string, args: string[], inventory = env.LAB_INVENTORY!): Promise<{ code: number; stdout: string; seconds: number }> {
  const run = startCli(process.execPath, [CLI, ...verb.split(' '), '--inventory', inventory, '--ssh-config', env.LAB_SSH_CONFIG!, '--known-hosts', env.LAB_KNOWN_HOSTS!, ...args], { ...process.env, PATH: env.PATH!, HOME: env.HOME_DIR });
  const out: string[] = [];
  run.child.stdout!.on('data', (d: Buffer) => out.push(d.toString('utf8')));
  const { code, seconds } = await run.exit;
  return { code: code ?? -1, stdout: out.join(''), seconds };
}

interface DefragMember {
  host: string;
  /** The etcd member's name (kubeadm names it after its node). */
  name: string;
  leader: boolean;
  /** The leader only: the member its leadership was handed to before its defragmentation. */
  leadershipTo?: string;
  defragSeconds?: number;
  skipped: boolean;
  dbSizeBefore?: number;
  dbSizeAfter?: number;
  reclaimedBytes?: number;
  defragStartedAt?: number;
  defragEndedAt?: number;
  guard?: { at: number; voting: number; healthyOthers: number; quorum: number };
}
/**
 * The defragmentations a member's etcd itself logged since `sinceMs` (its "starting defragment" / "finished
 * defragment" lines, timed by the container runtime's log prefix): the witness that no two members were defragmented
 * at once, independent of what the CLI says it did.
 */
function defragmentsLogged(host: string, sinceMs: number): { host: string; start: number; end: number }[] {
  const lines = ssh(host, "cat /var/log/pods/kube-system_etcd-*/etcd/*.log | grep -E '\"msg\":\"(starting|finished) defragment\"' || true").trim().split('\n').filter(Boolean);
  const out: { host: string; start: number; end: number }[] = [];
  let start: number | undefined;
  for (const [at, what] of lines.map((l) => [Date.parse(l.slice(0, l.indexOf(' '))), /starting defragment/.test(l) ? 'start' : 'end'] as const).filter(([at]) => at >= sinceMs).sort((a, b) => a[0] - b[0])) {
    if (what === 'start') start = at;
    else if (start !== undefined) {
      out.push({ host, start, end: at });
      start = undefined;
    }
  }
  return out;
}

/** The worker whose kubelet.conf the CLI fixes (ui-maintenance.test.ts fixes w02's from the palette). */
const KUBELET_NODE = 'labs-k8s-w01';

/**
 * A node's spec.unschedulable as the API announces it, watched by kubectl from this machine (its first line the state
 * before, then one line per change of the Node) until stopped: the drain's witness. A watch, not polling: the whole
 * fix can take under two seconds, shorter than a few polls apart.
 */
async function watchUnschedulable(node: string): Promise<{ stop(): { at: number; cordoned: boolean }[] }> {
  const events: { at: number; cordoned: boolean }[] = [];
  const child = spawn('kubectl', ['--kubeconfig', env.KUBECONFIG!, 'get', 'node', node, '--watch', '-o', 'jsonpath={.metadata.resourceVersion} {.spec.unschedulable}{"\\n"}'], { env: { ...process.env, PATH: env.PATH! }, stdio: ['ignore', 'pipe', 'ignore'] });
  let pending = '';
  let first: () => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  let ended = ''; // why kubectl's watch ended before it was stopped
  const started = new Promise<void>((resolve, reject) => {
    first = resolve;
    timer = setTimeout(() => reject(new Error(`kubectl's watch of node ${node} printed nothing in 30 s${ended ? `: ${ended}` : ''}`)), 30_000);
  });
  child.on('error', (e) => (ended = `kubectl did not start: ${e.message}`));
  child.on('exit', (code) => (ended ||= `kubectl's watch ended (exit ${code})`));
  child.stdout.on('data', (chunk: Buffer) => {
    const at = Date.now();
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines.filter((l) => l.trim())) events.push({ at, cordoned: line.trim().split(' ')[1] === 'true' });
    if (events.length) first();
  });
  try {
    await started;
  } catch (e) {
    child.kill();
    throw e;
  } finally {
    clearTimeout(timer);
  }
  return {
    stop: () => {
      child.kill();
      // A watch that ended before it was stopped saw only part of the run.
      assert.equal(ended, '', `kubectl's watch of node ${node} ended early`);
      return events;
    },
  };
}

describe('day-2 maintenance on the lab cluster through the CLI: etcd defrag, drift, reconfigure', { timeout: 30 * 60_000 }, () => {
  before(async () => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root');
    if (!existsSync(CLI)) throw new Error('dist/cli.js missing: run npm run build first');
    env = lab.maintenanceEnv();
    assert.ok(existsSync(env.KUBECONFIG!), `no lab cluster: ${env.KUBECONFIG} is missing`);
    await waitHealthy(env, env.HOME_DIR, TAKE_OVER_HEALTHY_MS);
  });

  after(() => {
    // Whatever failed above: no hand-made flag left on m02, no quota left on a member, w01 schedulable.
    const onHost = (host: string, cmd: string) => spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', `UserKnownHostsFile=${env.LAB_KNOWN_HOSTS}`, host, cmd], { timeout: 60_000 });
    onHost('labs-k8s-m02', "sed -i '/^    - --v=3/d' /etc/kubernetes/manifests/kube-scheduler.yaml");
    for (const host of lab.CONTROL_PLANE) onHost(host, "sed -i '/^    - --quota-backend-bytes=/d' /etc/kubernetes/manifests/etcd.yaml");
    spawnSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, 'uncordon', KUBELET_NODE], { env: { ...process.env, PATH: env.PATH! }, timeout: 30_000 });
  });

  test('etcd defrag: followers first, the leader last, every fragmented file smaller, the API through the VIP unbroken', async () => {
    // ~12 MB written and deleted, then compacted: free pages in every member's file.
    const before = await lab.fragment(env, 12 * 1024 * 1024, 8_000_000);
    const leader = before.find((m) => m.leader)!.host;
    const runStart = Date.now();
    const poller = pollApi();
    const run = await cliAsync('etcd defrag', ['--yes', '--json']);
    const polled = await poller.stop();
    console.log(report('the defragmentation', polled));
    const out = lastJson<{ ok: boolean; seconds: number; members: DefragMember[] }>(run.stdout);
    console.log(`etcd defrag: ${run.seconds.toFixed(1)} s; ${out.members.map((m) => `${m.host}${m.leader ? ` (leader, handed to ${m.leadershipTo})` : ''} ${m.defragSeconds?.toFixed(2)} s, ${m.dbSizeBefore} → ${m.dbSizeAfter} (${m.reclaimedBytes} bytes back)`).join('; ')}`);
    const bench: Record<string, number> = { defragSeconds: run.seconds, defragApiPolls: polled.polls, defragApiFailed: polled.failures.length };
    for (const m of out.members) Object.assign(bench, { [`defragMemberSeconds@${m.host}`]: m.defragSeconds ?? -1, [`defragReclaimedBytes@${m.host}`]: m.reclaimedBytes ?? -1 });
    recordBench(bench);
    assert.equal(run.code, 0, run.stdout.slice(-3000));
    assert.equal(out.members.at(-1)!.host, leader, `the leader ${leader} last: ${out.members.map((m) => m.host).join(', ')}`);
    // Defragmented as a follower: its leadership went to the member defragmented just before it, as etcd now says.
    assert.equal(out.members.at(-1)!.leadershipTo, out.members.at(-2)!.name, JSON.stringify(out.members.at(-1)));
    assert.equal(lab.etcdStatus(env).find((m) => m.leader)?.host, out.members.at(-2)!.host, 'etcd names the transferee as its leader');
    assert.deepEqual(out.members.map((m) => m.host).sort(), ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03']);
    for (const m of out.members) {
      assert.equal(m.skipped, false, `${m.host} was fragmented`);
      assert.ok(m.dbSizeAfter! < m.dbSizeBefore!, `${m.host}: ${m.dbSizeBefore} → ${m.dbSizeAfter}`);
    }
    // One member at a time, each let go by the quorum guard after the previous one's defragmentation ended: as the run
    // timed its steps, and as the members' own etcd logs say.
    const guard = (m: DefragMember) => m.guard!;
    for (const [i, m] of out.members.entries()) {
      assert.ok(m.guard, `${m.host}: the quorum guard was consulted before its defragmentation`);
      assert.ok(guard(m).healthyOthers >= guard(m).quorum, `${m.host}: the guard let it go with ${guard(m).healthyOthers} other healthy members, quorum ${guard(m).quorum}`);
      assert.ok(guard(m).at <= m.defragStartedAt!, `${m.host}: guarded before its defrag started`);
      if (i > 0) assert.ok(guard(m).at >= out.members[i - 1]!.defragEndedAt!, `${m.host}: guarded after ${out.members[i - 1]!.host}'s defrag ended`);
    }
    const logged = out.members.flatMap((m) => defragmentsLogged(m.host, runStart)).sort((a, b) => a.start - b.start);
    console.log(`etcd's own logs: ${logged.map((d) => `${d.host} ${new Date(d.start).toISOString().slice(11, 23)}–${new Date(d.end).toISOString().slice(11, 23)}`).join(', ')}`);
    assert.deepEqual(logged.map((d) => d.host), out.members.map((m) => m.host), 'each member defragmented once, in the run\'s order');
    for (let i = 1; i < logged.length; i++) assert.ok(logged[i]!.start >= logged[i - 1]!.end, `${logged[i]!.host} started after ${logged[i - 1]!.host} finished`);
    assert.ok(polled.polls >= minimumPolls(polled.seconds), `the API poller ran: ${polled.polls} polls in ${polled.seconds.toFixed(1)} s (at least ${minimumPolls(polled.seconds)})`);
    // Where a failure fell: in which member's turn (from its guard on), and how far from its defragmentation's start.
    const turn = (at: number) => {
      const m = [...out.members].reverse().find((x) => x.guard && x.guard.at <= at);
      return m ? `${m.host}'s turn, ${((at - (m.defragStartedAt ?? at)) / 1000).toFixed(1)} s from its defrag's start` : 'before the first guard';
    };
    assert.deepEqual(polled.failures, [], failuresMessage(polled, 'requests through the VIP failed during the defragmentation', turn));
  });

  test('drift: a flag added by hand to m02\'s kube-scheduler manifest is named on that node and that field', async () => {
    ssh('labs-k8s-m02', "sed -i 's#^    - kube-scheduler$#    - kube-scheduler\\n    - --v=3#' /etc/kubernetes/manifests/kube-scheduler.yaml");
    const r = cli('drift', ['--json']);
    const { findings } = lastJson<{ findings: DriftFinding[] }>(r.stdout);
    console.log(`drift: ${r.seconds.toFixed(1)} s, ${findings.length} finding(s):\n  ${findings.map((f) => f.message).join('\n  ')}`);
    recordBench({ driftSeconds: r.seconds });
    assert.equal(r.code, 1, 'a difference exits 1');
    const nodeFindings = findings.filter((f) => f.layer === 'cluster-node');
    assert.deepEqual(nodeFindings.map((f) => [f.host, f.component, f.field, f.actual]), [['labs-k8s-m02', 'kube-scheduler', '--v', '3']]);
    await waitHealthy(env, env.HOME_DIR, 3 * 60_000);
  });

  test('reconfigure: an API server flag from the workspace reaches the ConfigMap and all three nodes, the API through the VIP unbroken', async () => {
    // A workspace of its own: the lab's inventory with a kubeadm-config.yaml beside it, the cluster's configuration
    // with one flag changed.
    const ws = tempDir('kw-maint-ws-');
    for (const f of ['inventory.yaml', 'kubeadm-extra.yaml', 'kube-flannel.yml']) copyFileSync(join(dirname(env.LAB_INVENTORY!), f), join(ws, f));
    const current = kubectl('-n', 'kube-system', 'get', 'cm', 'kubeadm-config', '-o', 'jsonpath={.data.ClusterConfiguration}');
    // The flag: --audit-log-maxbackup one more (the product's bring-up of the lab writes an audit log), else --profiling=false.
    const doc = parseDocument(current);
    const args = (doc.getIn(['apiServer', 'extraArgs']) as YAMLSeq<YAMLMap> | undefined)?.items ?? [];
    const backup = args.find((a) => a.get('name') === 'audit-log-maxbackup');
    const profiling = args.find((a) => a.get('name') === 'profiling');
    const flag = backup ? { name: 'audit-log-maxbackup', value: String(Number(backup.get('value')) + 1) } : { name: 'profiling', value: profiling?.get('value') === 'false' ? 'true' : 'false' };
    const existing = backup ?? profiling;
    if (existing) existing.set('value', flag.value);
    else doc.setIn(['apiServer', 'extraArgs'], doc.createNode([...args.map((a) => a.toJSON() as unknown), flag]));
    writeFileSync(join(ws, 'kubeadm-config.yaml'), doc.toString());
    const inventory = join(ws, 'inventory.yaml');
    const poller = pollApi();
    const run = await cliAsync('reconfigure', ['--yes', '--json'], inventory);
    const polled = await poller.stop();
    console.log(report('the reconfigure', polled));
    const out = lastJson<{ ok: boolean; seconds: number; perNode: { host: string; seconds?: number }[] }>(run.stdout);
    console.log(`reconfigure: ${out.seconds?.toFixed(1)} s (CLI ${run.seconds.toFixed(1)} s); per node ${out.perNode?.map((n) => `${n.host} ${n.seconds?.toFixed(1)} s`).join(', ')}`);
    const bench: Record<string, number> = { reconfigureSeconds: out.seconds ?? -1, reconfigureApiPolls: polled.polls, reconfigureApiFailed: polled.failures.length };
    for (const n of out.perNode ?? []) bench[`reconfigureNodeSeconds@${n.host}`] = n.seconds ?? -1;
    recordBench(bench);
    assert.equal(run.code, 0, run.stdout.slice(-3000));
    assert.match(kubectl('-n', 'kube-system', 'get', 'cm', 'kubeadm-config', '-o', 'jsonpath={.data.ClusterConfiguration}'), new RegExp(`name: ${flag.name}\\n\\s*value: "${flag.value}"`));
    for (const node of ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03']) {
      const command = kubectl('-n', 'kube-system', 'get', 'pod', `kube-apiserver-${node}`, '-o', 'jsonpath={.spec.containers[0].command}');
      assert.ok(command.includes(`"--${flag.name}=${flag.value}"`), `${node}'s running API server has the new flag: ${command}`);
    }
    assert.deepEqual(polled.failures, [], failuresMessage(polled, 'requests through the VIP failed during the reconfigure'));
    // kubeadm wrote every manifest from the ConfigMap: m02's hand-made scheduler flag is gone, the nodes agree.
    const drift = lastJson<{ findings: DriftFinding[] }>(cli('drift', ['--json'], { inventory }).stdout);
    assert.deepEqual(drift.findings.map((f) => f.message), [], 'the workspace, the ConfigMaps and the nodes agree');
    await waitHealthy(env, env.HOME_DIR, 5 * 60_000);
  });

  test('etcd alarms --disarm: a follower filled past a small quota, recovered by the CLI within the grace period, writes back, no alarm', async () => {
    const full = await lab.bringToNospace(env);
    try {
      // No alarm read first: the clock runs from the alarm, and a run that finds no NOSPACE alarm prints no JSON.
      const run = cli('etcd alarms', ['--disarm', '--yes', '--json']);
      const recoveredMs = Date.now() - full.alarmAt;
      let out: { ok: boolean; seconds: number; members: { host: string; skipped: boolean; defragSeconds?: number }[] };
      try {
        out = lastJson(run.stdout);
      } catch {
        assert.fail(`etcd alarms --disarm printed no result (exit ${run.code}): ${run.stdout.slice(-3000)}`);
      }
      console.log(`etcd alarms --disarm: recovered ${(recoveredMs / 1000).toFixed(1)} s after the alarm on ${full.host} (CLI ${run.seconds.toFixed(1)} s, its run ${out.seconds?.toFixed(1)} s; bound ${full.boundMs / 1000} s = node-monitor-grace-period ${full.timings.nodeMonitorGraceMs / 1000} s, ${full.timings.nodeMonitorGraceSource}, less one lease renewal); defragmented ${out.members?.map((m) => `${m.host} ${m.defragSeconds?.toFixed(2)} s`).join(', ')}`);
      recordBench({ nospaceRecoverySeconds: recoveredMs / 1000, nospaceBoundSeconds: full.boundMs / 1000 });
      assert.equal(run.code, 0, run.stdout.slice(-3000));
      assert.equal(out.ok, true);
      assert.deepEqual(out.members.map((m) => [m.host, m.skipped]).sort(), lab.CONTROL_PLANE.map((h) => [h, false]), 'every member defragmented');
      assert.equal(lab.etcdctl(env, full.endpoint, 'put', '/kubeadm-workbench-test/after', 'ok').code, 0, 'writes work');
      assert.deepEqual(lab.etcdAlarms(env), [], 'no alarm left');
      assert.ok(recoveredMs < full.boundMs, `recovered in ${recoveredMs} ms, bound ${full.boundMs} ms`);
      lab.noNodeWentNotReady(env, full.alarmAt);
    } finally {
      await full.restore();
    }
    await waitHealthy(env, env.HOME_DIR, 5 * 60_000);
  });

  test('certs fix-kubelet-conf: w01\'s embedded kubelet.conf reported, drained before the kubelet restart, fixed, uncordoned', async () => {
    await lab.embedKubeletClientCertificate(env, KUBELET_NODE);
    const seen = lastJson<CertReport>(cli('certs', ['--host', KUBELET_NODE, '--json']).stdout);
    assert.equal(seen.hosts[0]!.entries.find((e) => e.id === 'kubelet.conf')?.fix, 'kubelet-conf', '`certs` reports the embedded certificate');
    assert.equal(kubectl('get', `node/${KUBELET_NODE}`, '-o', 'jsonpath={.spec.unschedulable}').trim(), '', `${KUBELET_NODE} schedulable before`);
    const runs = join(dirname(env.LAB_INVENTORY!), '.kubeadm-workbench', 'runs');
    const t0 = Date.now();
    const watch = await watchUnschedulable(KUBELET_NODE);
    let events: { at: number; cordoned: boolean }[] = [];
    let run: Awaited<ReturnType<typeof cliAsync>>;
    try {
      run = await cliAsync('certs fix-kubelet-conf', ['--host', KUBELET_NODE, '--yes']);
      await lab.sleep(1000); // the uncordon's own event
    } finally {
      events = watch.stop();
    }
    const file = readdirSync(runs).filter((f) => f.endsWith('-kubelet-conf.json') && statSync(join(runs, f)).mtimeMs >= t0).sort().at(-1);
    assert.ok(file, `the run's ledger in ${runs}`);
    const ledger = JSON.parse(readFileSync(join(runs, file), 'utf8')) as LedgerData;
    const entry = (suffix: string) => {
      const [id, e] = Object.entries(ledger.steps).find(([k]) => k.endsWith(suffix))!;
      return { id, state: e.state, start: Date.parse(e.startedAt!), end: Date.parse(e.finishedAt!) };
    };
    const [drain, restart, uncordon] = [entry(`/drain-${KUBELET_NODE}`), entry(`${KUBELET_NODE}/kubelet-restart`), entry(`/uncordon-${KUBELET_NODE}`)];
    // The watch's events in order: the first that says cordoned, and the first after it that says schedulable again
    // (each timed when it reached this machine, so no earlier than the change itself; lines of one read share a time).
    const cordonedIndex = events.findIndex((e) => e.cordoned);
    const cordonedAt = cordonedIndex < 0 ? undefined : events[cordonedIndex]!.at;
    const uncordonedAt = cordonedIndex < 0 ? undefined : events.find((e, i) => i > cordonedIndex && !e.cordoned)?.at;
    const ms = (at: number | undefined) => (at === undefined ? 'never' : `${((at - t0) / 1000).toFixed(2)} s`);
    // The restart's bound: the node's own Lease duration. Renewed within it, the node never looked gone to the cluster.
    const leaseSeconds = Number(kubectl('get', 'lease', '-n', 'kube-node-lease', KUBELET_NODE, '-o', 'jsonpath={.spec.leaseDurationSeconds}'));
    console.log(`certs fix-kubelet-conf on ${KUBELET_NODE}: ${run.seconds.toFixed(1)} s; drain ${((drain.end - drain.start) / 1000).toFixed(1)} s, kubelet restart to its Lease renewed and Ready ${((restart.end - restart.start) / 1000).toFixed(1)} s (bound: the Lease's ${leaseSeconds} s), uncordoned ${((uncordon.end - restart.end) / 1000).toFixed(1)} s after; the Node's watch: ${events.length} events, cordoned at ${ms(cordonedAt)}, schedulable again at ${ms(uncordonedAt)} (kubelet restart ${ms(restart.start)} to ${ms(restart.end)})`);
    recordBench({ kubeletConfFixSeconds: run.seconds });
    assert.equal(run.code, 0, run.stdout.slice(-3000));
    assert.deepEqual([drain, restart, uncordon].map((x) => x.state), ['done', 'done', 'done'], JSON.stringify(ledger.steps));
    assert.ok(drain.end <= restart.start, `drained (${new Date(drain.end).toISOString()}) before the kubelet restart (${new Date(restart.start).toISOString()})`);
    assert.ok(restart.end <= uncordon.start, 'uncordoned after the kubelet was Ready again');
    assert.ok(leaseSeconds > 0 && restart.end - restart.start < leaseSeconds * 1000, `the restarted kubelet renewed its Lease and was Ready in ${restart.end - restart.start} ms, within the Lease's ${leaseSeconds} s`);
    // The witness outside the product: the API said the node was unschedulable before its kubelet restarted, and not
    // schedulable again until the restart was over (to within the watch's delivery, milliseconds here; the ledger's
    // order above covers the rest).
    assert.equal(events[0]?.cordoned, false, `${KUBELET_NODE} schedulable when the watch began: ${JSON.stringify(events)}`);
    assert.ok(cordonedAt !== undefined && cordonedAt <= restart.start, `cordoned (seen ${ms(cordonedAt)}) before the kubelet restart began (${ms(restart.start)})`);
    assert.ok(uncordonedAt !== undefined && uncordonedAt >= restart.end, `schedulable again (seen ${ms(uncordonedAt)}) only after the kubelet restart ended (${ms(restart.end)})`);
    assert.equal(kubectl('get', `node/${KUBELET_NODE}`, '-o', 'jsonpath={.spec.unschedulable}').trim(), '', `${KUBELET_NODE} uncordoned`);
    const after = lastJson<CertReport>(cli('certs', ['--host', KUBELET_NODE, '--json']).stdout);
    assert.ok(!after.hosts[0]!.entries.some((e) => e.id === 'kubelet.conf'), 'kubelet.conf takes the rotated file: nothing embedded left');
    assert.match(ssh(KUBELET_NODE, 'grep client- /etc/kubernetes/kubelet.conf'), /client-certificate: \/var\/lib\/kubelet\/pki\/kubelet-client-current\.pem/);
    // A worker drained of a few pods, its kubelet restarted and Ready by its own credentials: well within 90 s; more
    // means a step sat out a timeout (the drain's 300 s, the Ready wait's 3 min).
    assert.ok(run.seconds < 90, `the fix took ${run.seconds.toFixed(1)} s (bound 90 s)`);
  });
});
