/**
 * Day-2 maintenance on the lab tier's cluster, through the command line:
 *  - `etcd defrag`: keys written and deleted and the keyspace compacted (free pages in every member's file), then the
 *    rolling defragmentation with an authenticated client polling the API through the VIP: the followers first and the
 *    leader last, every file smaller, no request failed;
 *  - NOSPACE: one follower restarted with a --quota-backend-bytes a little above its file (the NOSPACE a member raises
 *    is the whole cluster's), filled with one key's history until writes are refused; `etcd alarms --disarm` recovers
 *    it within the node monitor's grace period less one lease renewal (so no Node went NotReady), writes work, no
 *    alarm is left; the quota put back;
 *  - drift: a flag added by hand to m02's kube-scheduler manifest is named on that node and that field;
 *  - `reconfigure`: an API server flag changed in a workspace's kubeadm-config.yaml reaches the ConfigMap and all
 *    three nodes' running API servers, one node at a time, with the API polled through the VIP (no request failed);
 *    kubeadm's regeneration takes m02's hand-made scheduler flag away too;
 *  - kubelet certificates: w02's kubelet.conf made to embed its client certificate (kubeadm#1317) is reported by
 *    `certs` and fixed by `certs fix-kubelet-conf` (drained, pointed at the rotated file, Ready, uncordoned).
 * Runs on the cluster the tier already has (after the day-2 files) and leaves it healthy: the quota back to etcd's
 * default, the scheduler as kubeadm writes it, w02 fixed and schedulable; the API servers keep the reconfigured flag
 * (--audit-log-maxbackup one more than the lab workspace's generated configuration says: `drift` names it).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseDocument, type YAMLMap, type YAMLSeq } from 'yaml';
import { clusterTimings } from '../../src/core/drill/params';
import type { DriftFinding } from '../../src/core/drift/threeWay';
import type { CertReport } from '../../src/core/certs/report';
import { recordBench } from './bench';
import { waitHealthy } from './clusterHealth';
import { pollHttp, type PollResult } from './httpPoller';
import { adminTls } from './upgradeTarget';
import { startCli } from './cliRun';
import { tempDir } from '../tempDir';

const ROOT = resolve(__dirname, '../..');
const LAB = join(ROOT, 'lab/lab.sh');
const CLI = join(ROOT, 'dist/cli.js');
const VIP = '10.3.60.100';
const env: Record<string, string> = {};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function cli(verb: string, args: string[], opts: { inventory?: string; timeoutMs?: number } = {}): { code: number; stdout: string; stderr: string; seconds: number } {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [CLI, ...verb.split(' '), '--inventory', opts.inventory ?? env.LAB_INVENTORY!, '--ssh-config', env.LAB_SSH_CONFIG!, '--known-hosts', env.LAB_KNOWN_HOSTS!, ...args], {
    env: { ...process.env, PATH: env.PATH!, HOME: env.HOME_DIR! }, encoding: 'utf8', timeout: opts.timeoutMs ?? 10 * 60_000, maxBuffer: 64 * 1024 * 1024,
  });
  process.stderr.write(r.stderr);
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, seconds: (Date.now() - t0) / 1000 };
}

/** The verb's JSON: the whole output (`--json` of a read), or its last line (after a run's narration). */
function lastJson<T>(stdout: string): T {
  try {
    return JSON.parse(stdout) as T;
  } catch {
    return JSON.parse(stdout.trim().split('\n').filter((l) => l.startsWith('{')).at(-1) ?? stdout) as T;
  }
}

/** A verb run in the background (the API poller of this process keeps polling meanwhile), its output echoed. */
async function cliAsync(verb: string, args: string[], inventory = env.LAB_INVENTORY!): Promise<{ code: number; stdout: string; seconds: number }> {
  const run = startCli(process.execPath, [CLI, ...verb.split(' '), '--inventory', inventory, '--ssh-config', env.LAB_SSH_CONFIG!, '--known-hosts', env.LAB_KNOWN_HOSTS!, ...args], { ...process.env, PATH: env.PATH!, HOME: env.HOME_DIR! });
  const out: string[] = [];
  run.child.stdout!.on('data', (d: Buffer) => out.push(d.toString('utf8')));
  const { code, seconds } = await run.exit;
  return { code: code ?? -1, stdout: out.join(''), seconds };
}

function ssh(host: string, cmd: string): string {
  return execFileSync('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', `UserKnownHostsFile=${env.LAB_KNOWN_HOSTS}`, host, cmd], { encoding: 'utf8', timeout: 120_000 });
}

/** A host's address as the lab's inventory gives it. */
const addressOf = (host: string) => new RegExp(`name: ${host}, address: ([0-9.]+)`).exec(readFileSync(env.LAB_INVENTORY!, 'utf8'))![1]!;

const kubectl = (...args: string[]) => execFileSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, '--request-timeout=15s', ...args], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } });

/** etcdctl from this machine against one member, with m01's healthcheck client certificate (copied, removed at the end). */
function etcdctl(endpoint: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync('etcdctl', [`--endpoints=${endpoint}`, `--cacert=${env.ETCD_DIR}/ca.crt`, `--cert=${env.ETCD_DIR}/client.crt`, `--key=${env.ETCD_DIR}/client.key`, '--command-timeout=10s', ...args], {
    encoding: 'utf8', env: { ...process.env, PATH: env.PATH! }, timeout: 30_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

interface DefragMember {
  host: string;
  leader: boolean;
  defragSeconds?: number;
  skipped: boolean;
  dbSizeBefore?: number;
  dbSizeAfter?: number;
  reclaimedBytes?: number;
  defragStartedAt?: number;
  defragEndedAt?: number;
  guard?: { at: number; voting: number; healthyOthers: number; quorum: number };
}
interface StatusMember { name: string; host: string; leader: boolean; dbSize: number; dbSizeInUse: number; quota: number; freeBytes: number; alarms: string[]; healthy: boolean }
const etcdStatus = () => lastJson<{ members: StatusMember[] }>(cli('etcd status', ['--json']).stdout).members;

/** The API through the VIP as an authenticated client sees it: any answer but 200 with the ConfigMap counts as failed. */
const pollApi = () => pollHttp([`https://${VIP}:6443/api/v1/namespaces/kube-system/configmaps/kubeadm-config`], { ...adminTls(env.KUBECONFIG!), expect: /"name":\s*"kubeadm-config"/ });

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

function report(what: string, p: PollResult): string {
  return `API through the VIP during ${what}: ${p.failures.length} failed of ${p.polls} polls${p.failures.length ? `\n  ${p.failures.join('\n  ')}` : ''}`;
}

describe('day-2 maintenance on the lab cluster: etcd, drift, reconfigure, kubelet certificates', { timeout: 30 * 60_000 }, () => {
  before(async () => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root');
    if (!existsSync(CLI)) throw new Error('dist/cli.js missing: run npm run build first');
    for (const m of execFileSync('bash', [LAB, 'env'], { encoding: 'utf8' }).matchAll(/^export (\w+)="(.*)"$/gm)) env[m[1]!] = m[2]!.replace('$PATH', process.env.PATH ?? '');
    assert.ok(existsSync(env.KUBECONFIG!), `no lab cluster: ${env.KUBECONFIG} is missing`);
    env.HOME_DIR = tempDir('kw-maint-home-');
    env.ETCD_DIR = tempDir('kw-maint-etcd-');
    for (const [from, to] of [['ca.crt', 'ca.crt'], ['healthcheck-client.crt', 'client.crt'], ['healthcheck-client.key', 'client.key']]) {
      writeFileSync(join(env.ETCD_DIR, to), ssh('labs-k8s-m01', `cat /etc/kubernetes/pki/etcd/${from}`), { mode: 0o600 });
    }
    await waitHealthy(env, env.HOME_DIR, 5 * 60_000);
  });

  after(() => {
    // Whatever failed above: no hand-made flag left on m02, no quota left on a member, w02 schedulable.
    for (const [host, file, flag] of [['labs-k8s-m02', 'kube-scheduler', '--v=3'], ...['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03'].map((h) => [h, 'etcd', '--quota-backend-bytes='])] as const) {
      spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', `UserKnownHostsFile=${env.LAB_KNOWN_HOSTS}`, host, `sed -i '/^    - ${flag.replace(/[.=]/g, '\\$&')}/d' /etc/kubernetes/manifests/${file}.yaml`], { timeout: 60_000 });
    }
    spawnSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, 'uncordon', 'labs-k8s-w02'], { env: { ...process.env, PATH: env.PATH! }, timeout: 30_000 });
  });

  test('etcd defrag: followers first, the leader last, every fragmented file smaller, the API through the VIP unbroken', async () => {
    const endpoint = `https://${addressOf('labs-k8s-m01')}:2379`;
    // ~12 MB written and deleted, then compacted: free pages in every member's file.
    const value = 'x'.repeat(96 * 1024);
    for (let i = 0; i < 128; i++) assert.equal(etcdctl(endpoint, 'put', `/kubeadm-workbench-test/frag/${i}`, value).code, 0);
    assert.equal(etcdctl(endpoint, 'del', '--prefix', '/kubeadm-workbench-test/frag/').code, 0);
    const rev = /"revision":(\d+)/.exec(etcdctl(endpoint, 'endpoint', 'status', '-w', 'json').stdout)![1]!;
    assert.equal(etcdctl(endpoint, 'compaction', '--physical', rev).code, 0);
    let before: StatusMember[] = [];
    const t0 = Date.now();
    // The freed pages count once a later write transaction released them (the cluster writes every few seconds).
    while (!(before = etcdStatus()).every((m) => m.freeBytes > 8_000_000)) {
      assert.ok(Date.now() - t0 < 60_000, `not every member shows the free pages: ${JSON.stringify(before.map((m) => [m.name, m.freeBytes]))}`);
      await sleep(2000);
    }
    const leader = before.find((m) => m.leader)!.host;
    const runStart = Date.now();
    const poller = pollApi();
    const run = await cliAsync('etcd defrag', ['--yes', '--json']);
    const polled = await poller.stop();
    console.log(report('the defragmentation', polled));
    const out = lastJson<{ ok: boolean; seconds: number; members: DefragMember[] }>(run.stdout);
    console.log(`etcd defrag: ${run.seconds.toFixed(1)} s; ${out.members.map((m) => `${m.host}${m.leader ? ' (leader)' : ''} ${m.defragSeconds?.toFixed(2)} s, ${m.dbSizeBefore} → ${m.dbSizeAfter} (${m.reclaimedBytes} bytes back)`).join('; ')}`);
    const bench: Record<string, number> = { defragSeconds: run.seconds, defragApiPolls: polled.polls, defragApiFailed: polled.failures.length };
    for (const m of out.members) Object.assign(bench, { [`defragMemberSeconds@${m.host}`]: m.defragSeconds ?? -1, [`defragReclaimedBytes@${m.host}`]: m.reclaimedBytes ?? -1 });
    recordBench(bench);
    assert.equal(run.code, 0, run.stdout.slice(-3000));
    assert.equal(out.members.at(-1)!.host, leader, `the leader ${leader} last: ${out.members.map((m) => m.host).join(', ')}`);
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
    assert.ok(polled.polls > 10);
    assert.deepEqual(polled.failures, [], 'no request through the VIP failed');
  });

  test('NOSPACE: a follower with a small quota filled → writes refused; the guided recovery within the grace period, writes back', async () => {
    const members = etcdStatus();
    const small = members.find((m) => !m.leader)!;
    const endpoint = `https://${addressOf(small.host)}:2379`;
    const quota = small.dbSize + 24 * 1024 * 1024;
    const cm = JSON.parse(kubectl('-n', 'kube-system', 'get', 'pod', 'kube-controller-manager-labs-k8s-m01', '-o', 'json')) as { spec: { containers: { command: string[] }[] } };
    const timings = clusterTimings({ controllerManager: cm.spec.containers[0]!.command, kubeVersion: env.LAB_KUBE_VERSION ?? '1.34' });
    // A Node whose lease was renewed just before the alarm goes NotReady a grace period after that renewal.
    const boundMs = timings.nodeMonitorGraceMs - timings.nodeLeaseRenewMs;
    const setQuota = async (flag: string | undefined) => {
      ssh(small.host, `sed -i '/^    - --quota-backend-bytes=/d' /etc/kubernetes/manifests/etcd.yaml${flag ? ` && sed -i 's#^    - etcd$#    - etcd\\n    - ${flag}#' /etc/kubernetes/manifests/etcd.yaml` : ''}`);
      const t = Date.now();
      for (;;) {
        await sleep(3000);
        const m = etcdStatus().find((x) => x.host === small.host);
        if (m?.healthy && (flag ? m.quota === quota : m.quota === 2 * 1024 * 1024 * 1024)) return;
        assert.ok(Date.now() - t < 180_000, `${small.host}'s etcd did not come back with quota ${flag ?? 'default'}`);
      }
    };
    await setQuota(`--quota-backend-bytes=${quota}`);
    // Its etcd's restart took that node's API server away for a while: every Node's lease renewed within the last lease
    // interval before the alarm (the bound below counts from a renewal at most that old).
    for (const t = Date.now(); ; await sleep(1000)) {
      let oldest = 0;
      try {
        // Through the VIP, which may still send a request to that node's API server while its etcd comes back.
        const leases = JSON.parse(kubectl('-n', 'kube-node-lease', 'get', 'leases', '-o', 'json')) as { items: { spec: { renewTime?: string } }[] };
        oldest = Math.min(...leases.items.map((l) => Date.parse(l.spec.renewTime ?? '')));
      } catch {
        // asked again
      }
      if (Date.now() - oldest < timings.nodeLeaseRenewMs) break;
      assert.ok(Date.now() - t < 120_000, 'every Node lease renewed again after the etcd restart');
    }
    try {
      const value = 'y'.repeat(96 * 1024);
      let alarmAt = 0;
      for (let i = 0; i < 600 && !alarmAt; i++) {
        const r = etcdctl(endpoint, 'put', '/kubeadm-workbench-test/history', value);
        if (r.code !== 0 && /database space exceeded/.test(r.stderr)) alarmAt = Date.now();
      }
      assert.ok(alarmAt, 'writes refused once the follower passed its quota');
      const alarms = lastJson<{ alarms: { member: string; alarm: string }[] }>(cli('etcd alarms', ['--json']).stdout).alarms;
      assert.ok(alarms.some((a) => a.alarm === 'NOSPACE'), JSON.stringify(alarms));
      const run = cli('etcd alarms', ['--disarm', '--yes', '--json']);
      const recoveredMs = Date.now() - alarmAt;
      const out = lastJson<{ ok: boolean; seconds: number; members: { host: string; defragSeconds?: number }[] }>(run.stdout);
      console.log(`NOSPACE: recovered ${(recoveredMs / 1000).toFixed(1)} s after the alarm (the CLI ${run.seconds.toFixed(1)} s; bound ${boundMs / 1000} s = node-monitor-grace-period ${timings.nodeMonitorGraceMs / 1000} s, ${timings.nodeMonitorGraceSource}, less one lease renewal); defrag ${out.members.map((m) => `${m.host} ${m.defragSeconds?.toFixed(2)} s`).join(', ')}`);
      recordBench({ nospaceRecoverySeconds: recoveredMs / 1000, nospaceCliSeconds: run.seconds, nospaceBoundSeconds: boundMs / 1000 });
      assert.equal(run.code, 0, run.stderr.slice(-3000));
      assert.equal(etcdctl(endpoint, 'put', '/kubeadm-workbench-test/after', 'ok').code, 0, 'writes work');
      assert.deepEqual(lastJson<{ alarms: unknown[] }>(cli('etcd alarms', ['--json']).stdout).alarms, [], 'no alarm left');
      assert.ok(recoveredMs < boundMs, `recovered in ${recoveredMs} ms, bound ${boundMs} ms`);
      const nodes = JSON.parse(kubectl('get', 'nodes', '-o', 'json')) as { items: { metadata: { name: string }; status: { conditions: { type: string; status: string; lastTransitionTime: string }[] } }[] };
      for (const n of nodes.items) {
        const ready = n.status.conditions.find((c) => c.type === 'Ready')!;
        assert.equal(ready.status, 'True', `${n.metadata.name} Ready`);
        assert.ok(Date.parse(ready.lastTransitionTime) < alarmAt, `${n.metadata.name} did not go NotReady meanwhile`);
      }
    } finally {
      etcdctl(endpoint, 'del', '--prefix', '/kubeadm-workbench-test/');
      await setQuota(undefined);
    }
    await waitHealthy(env, env.HOME_DIR!, 5 * 60_000);
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
    await waitHealthy(env, env.HOME_DIR!, 3 * 60_000);
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
    assert.deepEqual(polled.failures, [], 'no request through the VIP failed');
    // kubeadm wrote every manifest from the ConfigMap: m02's hand-made scheduler flag is gone, the nodes agree.
    const drift = lastJson<{ findings: DriftFinding[] }>(cli('drift', ['--json'], { inventory }).stdout);
    assert.deepEqual(drift.findings.map((f) => f.message), [], 'the workspace, the ConfigMaps and the nodes agree');
    await waitHealthy(env, env.HOME_DIR!, 5 * 60_000);
  });

  test('kubelet certificates: w02\'s kubelet.conf embedding its client certificate is reported and fixed, drained first', async () => {
    const node = 'labs-k8s-w02';
    // kubeadm#1317's state, built: the rotated file's certificate and key copied into kubelet.conf.
    ssh(node, [
      'set -e; p=/var/lib/kubelet/pki/kubelet-client-current.pem; f=/etc/kubernetes/kubelet.conf',
      "c=$(sed -n '/BEGIN CERTIFICATE/,/END CERTIFICATE/p' $p | base64 -w0); k=$(sed -n '/BEGIN .*PRIVATE KEY/,/END .*PRIVATE KEY/p' $p | base64 -w0)",
      'sed -i -e "s#^\\( *\\)client-certificate: .*#\\1client-certificate-data: $c#" -e "s#^\\( *\\)client-key: .*#\\1client-key-data: $k#" $f',
      'grep -q client-certificate-data $f && systemctl restart kubelet',
    ].join('\n'));
    const t0 = Date.now();
    while (!/True/.test(kubectl('get', `node/${node}`, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'))) {
      assert.ok(Date.now() - t0 < 120_000, `${node} Ready with the embedded kubelet.conf`);
      await sleep(2000);
    }
    const seen = JSON.parse(cli('certs', ['--host', node, '--json']).stdout) as CertReport;
    const conf = seen.hosts[0]!.entries.find((e) => e.id === 'kubelet.conf');
    assert.equal(conf?.fix, 'kubelet-conf', JSON.stringify(seen.hosts[0]!.entries.map((e) => e.id)));
    assert.match(conf!.problems.map((p) => p.message).join(), /embeds its client certificate/);
    const run = cli('certs fix-kubelet-conf', ['--host', node, '--yes']);
    console.log(`kubelet.conf fix on ${node}: ${run.seconds.toFixed(1)} s`);
    recordBench({ kubeletConfFixSeconds: run.seconds });
    assert.equal(run.code, 0, run.stderr.slice(-3000));
    const after = JSON.parse(cli('certs', ['--host', node, '--json']).stdout) as CertReport;
    assert.ok(!after.hosts[0]!.entries.some((e) => e.id === 'kubelet.conf'), 'kubelet.conf takes the rotated file: nothing embedded left');
    assert.match(ssh(node, 'grep client- /etc/kubernetes/kubelet.conf'), /client-certificate: \/var\/lib\/kubelet\/pki\/kubelet-client-current\.pem/);
    assert.equal(kubectl('get', `node/${node}`, '-o', 'jsonpath={.spec.unschedulable}').trim(), '', `${node} uncordoned`);
    await waitHealthy(env, env.HOME_DIR!, 3 * 60_000);
  });
});

