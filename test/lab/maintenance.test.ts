/**
 * Day-2 maintenance on the lab tier's cluster, through the command line:
 *  - `etcd defrag`: keys written and deleted and the keyspace compacted (free pages in every member's file), then the
 *    rolling defragmentation with an authenticated client polling the API through the VIP: the followers first and the
 *    leader last, every file smaller, no request failed;
 *  - drift: a flag added by hand to m02's kube-scheduler manifest is named on that node and that field;
 *  - `reconfigure`: an API server flag changed in a workspace's kubeadm-config.yaml reaches the ConfigMap and all
 *    three nodes' running API servers, one node at a time, with the API polled through the VIP (no request failed);
 *    kubeadm's regeneration takes m02's hand-made scheduler flag away too.
 * The NOSPACE recovery and the kubelet.conf fix run from the palette (ui-maintenance.test.ts, right after this file),
 * with this CLI's `etcd alarms` and `certs` as their witnesses: each operation's workflow runs once on the lab.
 * Runs on the cluster the tier already has (after the day-2 files) and leaves it healthy: the scheduler as kubeadm
 * writes it; the API servers keep the reconfigured flag (--audit-log-maxbackup one more than the lab workspace's
 * generated configuration says: `drift` names it).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseDocument, type YAMLMap, type YAMLSeq } from 'yaml';
import type { DriftFinding } from '../../src/core/drift/threeWay';
import { recordBench } from './bench';
import { minimumPolls, waitHealthy } from './clusterHealth';
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

describe('day-2 maintenance on the lab cluster through the CLI: etcd defrag, drift, reconfigure', { timeout: 30 * 60_000 }, () => {
  before(async () => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root');
    if (!existsSync(CLI)) throw new Error('dist/cli.js missing: run npm run build first');
    env = lab.maintenanceEnv();
    assert.ok(existsSync(env.KUBECONFIG!), `no lab cluster: ${env.KUBECONFIG} is missing`);
    await waitHealthy(env, env.HOME_DIR, 5 * 60_000);
  });

  after(() => {
    // Whatever failed above: no hand-made flag left on m02.
    spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', `UserKnownHostsFile=${env.LAB_KNOWN_HOSTS}`, 'labs-k8s-m02', "sed -i '/^    - --v=3/d' /etc/kubernetes/manifests/kube-scheduler.yaml"], { timeout: 60_000 });
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
});

