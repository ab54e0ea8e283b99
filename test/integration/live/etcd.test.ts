/**
 * The etcd sources against a real 3-member TLS etcd cluster (kubeadm-style client certificates).
 * The SSH source runs etcdctl through a RemoteExec; here that RemoteExec runs the command with a local
 * shell — the same command string the SSH layer sends to a control-plane host.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildEtcd, memberRole, type MemberHistory } from '../../../src/core/live/etcd';
import { LiveCluster } from '../../../src/core/live/cluster';
import { describeMember } from '../../../src/core/live/render';
import { etcdctlTlsArgs, readEtcd, sshEtcdctl, type ExecResult, type RemoteExec } from '../../../src/core/live/etcdSource';
import { verdict } from '../../../src/core/live/status';
import { buildLiveModel } from '../../../src/core/live/snapshot';
import { etcdctl, findBinary, makePki, restartEtcdMember, startEtcdCluster, waitFor, type EtcdMemberProc, type Pki } from '../apiserver';
import { tempDir } from '../../tempDir';

/** RemoteExec over a local shell (what the SSH layer does on the remote host). */
const localShell: RemoteExec = {
  exec: (_host, command) =>
    new Promise<ExecResult>((resolve) => {
      const child = spawn('sh', ['-c', command], { env: { ...process.env, PATH: `${join(findBinary('etcdctl'), '..')}:${process.env.PATH}` } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    }),
};

let root: string;
let pki: Pki;
let members: EtcdMemberProc[];

before(async () => {
  root = tempDir('kw-etcd-');
  pki = makePki(join(root, 'pki'));
  members = await startEtcdCluster(root, pki, 3);
  await waitFor(() => etcdctl(pki, members[0]!.clientUrl, ['endpoint', 'health', '--cluster']).code === 0, 20_000, 'all 3 members healthy');
});

after(async () => {
  await Promise.all((members ?? []).map((m) => m.stop()));
  if (root && !process.env.KW_KEEP_TEST_DIR) rmSync(root, { recursive: true, force: true });
});

const read = async (endpoint = members[0]!.clientUrl) => buildEtcd(await readEtcd(sshEtcdctl(localShell, 'm01'), etcdctlTlsArgs(endpoint, pki.dir), true), 'ssh m01', Date.now());

test('SSH source: 3 members with exact hex IDs, one leader, raft term/index, DB sizes, quorum line — matches etcdctl table output', async () => {
  const m = await read();
  assert.equal(m.members.length, 3);
  assert.equal(m.members.filter((x) => x.isLeader).length, 1);
  assert.equal(m.quorumLine, '3 members · quorum 2 · tolerates 1 failure');
  assert.deepEqual(m.problems, []);
  // Ground truth: etcdctl's own table prints IDs in hex.
  const table = etcdctl(pki, members[0]!.clientUrl, ['member', 'list', '-w', 'simple']).stdout;
  const truth = table.trim().split('\n').map((l) => l.split(', ')).map((f) => [f[2], f[0]]).sort();
  assert.deepEqual(m.members.map((x) => [x.name, x.id]).sort(), truth);
  for (const x of m.members) {
    assert.ok(x.raftTerm! >= 2 && x.raftIndex! > 0 && x.raftAppliedIndex! > 0 && x.dbSize! > 0, JSON.stringify(x));
    assert.deepEqual(x.clientURLs, [members.find((p) => p.name === x.name)!.clientUrl]);
  }
  const leaderTruth = JSON.parse(etcdctl(pki, members[0]!.clientUrl, ['endpoint', 'status', '-w', 'json']).stdout.replace(/"leader":(\d+)/, '"leader":"$1"')) as { Status: { leader: string } }[];
  assert.equal(m.leaderId, BigInt(leaderTruth[0]!.Status.leader).toString(16));
});

test('a member goes down → within 5 s the model shows it unreachable and quorum at risk; the leader is re-elected if it was the one', async () => {
  const before = await read();
  const leader = before.members.find((x) => x.isLeader)!;
  const victim = members.find((p) => p.name === leader.name)!;
  const survivor = members.find((p) => p !== victim)!;
  await victim.stop();
  const t0 = Date.now(); // the member is gone from here on
  let m = await read(survivor.clientUrl);
  await waitFor(async () => {
    m = await read(survivor.clientUrl);
    return !!m.leaderId && m.leaderId !== leader.id && m.members.find((x) => x.name === victim.name)!.reachable === false;
  }, 5000, 'member down and a new leader', 100);
  const elapsed = Date.now() - t0;
  assert.ok(elapsed < 5000, `seen after ${elapsed} ms`);
  assert.equal(m.quorumLine, '3 members · 2 healthy · quorum 2 · tolerates 0 failures (at risk)');
  assert.match(m.members.find((x) => x.name === victim.name)!.problem!, /unreachable/);
  assert.ok(m.members.find((x) => x.isLeader)!.raftTerm! > leader.raftTerm!, 'a new term');
  const v = verdict(buildLiveModel({ pods: [], nodes: [], nodeLeases: [], systemLeases: [], daemonSets: [], deployments: [] }, Date.now(), undefined, m));
  assert.equal(v.degraded, true);
  assert.ok(v.problems.some((p) => /quorum at risk/.test(p.what)));
  console.log(`member ${victim.name} down → seen with new leader in ${elapsed} ms`);
  // Back: healthy again.
  const i = members.indexOf(victim);
  members[i] = restartEtcdMember(victim);
  await waitFor(async () => (await read(survivor.clientUrl)).problems.length === 0, 15_000, 'member back', 300);
});

test('the live poller (what the etcd view and the status bar read): a member frozen like a powered-off host → "at risk" within 5 s, labelled by what was last seen', async () => {
  const history: MemberHistory = new Map();
  const noApi = { list: () => Promise.reject(new Error('no API in this test')), watch: () => () => undefined };
  const victim = members[2]!;
  const survivor = members[0]!;
  const cluster = new LiveCluster(noApi as never, async () => buildEtcd(await readEtcd(sshEtcdctl(localShell, 'm01'), etcdctlTlsArgs(survivor.clientUrl, pki.dir)), 'ssh m01', Date.now(), undefined, history), { notifyIntervalMs: 500 });
  const release = cluster.acquire([], true);
  try {
    await waitFor(() => cluster.etcd?.tolerates === 1, 15_000, 'healthy reads', 100);
    const role = memberRole(cluster.etcd!.members.find((m) => m.name === victim.name)!);
    let seenAt: number | undefined;
    const t0 = Date.now();
    const off = cluster.onDidChange((keys) => {
      if (keys.has('etcd') && cluster.etcd?.tolerates === 0 && seenAt === undefined) seenAt = Date.now();
    });
    // SIGSTOP: the process keeps its sockets but answers nothing, like a host that lost power (connects time out).
    victim.child.kill('SIGSTOP');
    try {
      await waitFor(() => seenAt !== undefined, 10_000, 'at risk', 50);
      const elapsed = seenAt! - t0;
      console.log(`member ${victim.name} frozen → "${cluster.etcd!.quorumLine}" notified after ${elapsed} ms (poll every 2 s, etcdctl dial 1 s / command 1.5 s, notifications coalesced 500 ms)`);
      assert.ok(elapsed < 5000, `at risk after ${elapsed} ms`);
      const m = cluster.etcd!.members.find((x) => x.name === victim.name)!;
      assert.equal(m.reachable, false);
      assert.equal(m.lastSeen?.role, role);
      assert.match(describeMember(m, Date.now()), new RegExp(`unreachable since \\d\\d:\\d\\d:\\d\\d .* · last seen ${role} v3\\.`));
      assert.ok(verdict(buildLiveModel({ pods: [], nodes: [], nodeLeases: [], systemLeases: [], daemonSets: [], deployments: [] }, Date.now(), undefined, cluster.etcd)).degraded);
    } finally {
      off();
      victim.child.kill('SIGCONT');
    }
    await waitFor(() => cluster.etcd?.tolerates === 1, 20_000, 'member back', 200);
  } finally {
    release();
    cluster.dispose();
  }
});

test('the SSH source reports a clear error when etcd cannot be reached at all', async () => {
  await assert.rejects(readEtcd(sshEtcdctl(localShell, 'm01'), etcdctlTlsArgs('https://127.0.0.1:1', pki.dir)), /member list failed/);
});
