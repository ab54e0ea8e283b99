/**
 * etcd maintenance against a real 3-member TLS etcd on loopback, through the workflow the CLI and the editor run
 * (engine/workflows/etcdWorkflow.ts): every remote command the plans send runs in a local shell as on a control-plane
 * host, with a stand-in `etcdctl` first on PATH that turns kubeadm's node paths (127.0.0.1:2379, the etcd PKI under
 * /etc/kubernetes) into the member of the "host" it runs on and this test's certificates, then runs the real etcdctl.
 *  - status: DB size, in use, quota and % of it, free pages, per member;
 *  - the rolling defragmentation: refused while a member is down and while another run holds a host; on a
 *    fragmented keyspace (keys written, deleted, compacted) the followers first, the leader last, every file smaller;
 *  - NOSPACE: one member started with a small --quota-backend-bytes, its file filled with the history of one key:
 *    the alarm is raised and writes are refused cluster-wide; the guided recovery (compact, defragment, disarm, write)
 *    leaves no alarm and writes working.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Inventory } from '../../../src/core/inventory/types';
import type { RemoteCommand } from '../../../src/core/ssh/command';
import { RemoteCommandError, type ExecOptions, type ExecResult, type SshTransport } from '../../../src/core/ssh/transport';
import { memberSpace } from '../../../src/core/etcd/space';
import { readEtcdStatus } from '../../../src/engine/etcdMaintenance';
import { HostLocks } from '../../../src/engine/state/hostLocks';
import { etcdDefragWorkflow, etcdNospaceWorkflow, type EtcdWorkflowInput } from '../../../src/engine/workflows/etcdWorkflow';
import { ScriptedUi } from '../../unit/workflows/scriptedUi';
import { etcdctl, findBinary, makePki, startEtcdCluster, startProc, waitFor, type EtcdMemberProc, type Pki } from '../apiserver';
import { tempDir } from '../../tempDir';

let root: string;
let pki: Pki;
let members: EtcdMemberProc[];
let bin: string;

const inv = (): Inventory => ({
  cluster: { name: 'loop', kubernetesVersion: '1.34.12', controlPlaneEndpoint: '127.0.0.1:6443', podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12', cni: 'flannel' },
  ssh: {},
  hosts: members.map((m) => ({ name: m.name, address: '127.0.0.1', roles: ['control-plane'] as const })) as Inventory['hosts'],
});

/** `etcdctl` as a control-plane host has it: kubeadm's paths, rewritten to this test's member and certificates. */
function standInEtcdctl(): string {
  const dir = join(root, 'bin');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'etcdctl'), [
    '#!/bin/sh',
    'reset=1; for a in "$@"; do',
    '  [ $reset = 1 ] && { set --; reset=0; }',
    '  case "$a" in',
    '    --endpoints=https://127.0.0.1:2379) a="--endpoints=$KW_ETCD_ENDPOINT" ;;',
    `    --cacert=/etc/kubernetes/pki/etcd/*) a="--cacert=${pki.ca}" ;;`,
    `    --cert=/etc/kubernetes/pki/etcd/*) a="--cert=${pki.file('healthcheck-client.crt')}" ;;`,
    `    --key=/etc/kubernetes/pki/etcd/*) a="--key=${pki.file('healthcheck-client.key')}" ;;`,
    '  esac',
    '  set -- "$@" "$a"',
    'done',
    `exec ${findBinary('etcdctl')} "$@"`,
  ].join('\n') + '\n', { mode: 0o755 });
  return dir;
}

/** The hosts over a local shell: each runs the command with its own member as 127.0.0.1:2379. */
class LoopHosts implements SshTransport {
  readonly commands: { host: string; display: string }[] = [];
  loginUser(): string {
    return 'root';
  }
  exec(host: string, command: RemoteCommand, opts: ExecOptions = {}): Promise<ExecResult> {
    this.commands.push({ host, display: command.display });
    const member = members.find((m) => m.name === host)!;
    return new Promise((resolve, reject) => {
      const child = spawn('sh', ['-c', command.text], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, KW_ETCD_ENDPOINT: member.clientUrl, ETCDCTL_API: '3' } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d, opts.onStdout?.(d.toString())));
      child.stderr.on('data', (d: Buffer) => (stderr += d, opts.onStderr?.(d.toString())));
      const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined;
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        const r: ExecResult = { code, signal: signal ?? null, stdout, stderr };
        if (!(opts.okCodes ?? [0]).includes(code ?? -1)) reject(new RemoteCommandError(host, command, r));
        else resolve(r);
      });
    });
  }
  async close(): Promise<void> {}
}

function input(hosts: LoopHosts, stateDir: string): EtcdWorkflowInput {
  return {
    deps: { inventory: inv(), ssh: hosts }, loginUser: () => 'root',
    run: { stateDir, ssh: hosts, maxParallelHosts: 1, again: { resume: 'r', startOver: 's' } },
  };
}

const yes = () => new ScriptedUi({ confirm: (r) => r.actions[0] });

before(async () => {
  root = tempDir('kw-etcd-maint-');
  pki = makePki(join(root, 'pki'));
  members = await startEtcdCluster(root, pki, 3);
  await waitFor(() => etcdctl(pki, members[0]!.clientUrl, ['endpoint', 'health', '--cluster']).code === 0, 20_000, 'all 3 members healthy');
  bin = standInEtcdctl();
});

after(async () => {
  await Promise.all((members ?? []).map((m) => m.stop()));
  if (root && !process.env.KW_KEEP_TEST_DIR) rmSync(root, { recursive: true, force: true });
});

const put = (key: string, bytes: number) => etcdctl(pki, members[0]!.clientUrl, ['put', key, 'x'.repeat(bytes)]);

test('status: every member with its DB size, in use, quota, % of quota and free pages', async () => {
  const model = await readEtcdStatus({ inventory: inv(), ssh: new LoopHosts(), become: () => undefined });
  assert.equal(model.members.length, 3);
  for (const m of model.members) {
    const s = memberSpace(m);
    assert.equal(m.host, m.name);
    assert.ok(s.dbSize! > 0 && s.dbSizeInUse! > 0 && s.dbSizeInUse! <= s.dbSize!, JSON.stringify(s));
    assert.equal(s.quota, 2 * 1024 * 1024 * 1024, "etcd's default quota, as the member reports it");
    assert.ok(s.percentOfQuota! < 1 && s.level === 'ok');
  }
});

test('defrag: refused while a member is down, and while another run holds a host', async () => {
  const hosts = new LoopHosts();
  const state = tempDir('kw-etcd-maint-state-');
  // A live run (this test's own process) holding etcd2: an upgrade, a renewal or a restore.
  const other = new HostLocks(join(state, 'locks'), 'upgrade-20250101');
  await other.acquire('etcd2');
  const ui = yes();
  const out = await etcdDefragWorkflow(ui, input(hosts, state));
  assert.equal(out.kind, 'refused');
  assert.match(ui.messages('error')[0]!, /refused; nothing was done: etcd2 is being changed by another run \(upgrade-20250101/);
  assert.ok(!hosts.commands.some((c) => /defrag/.test(c.display)), 'nothing defragmented');
  await other.releaseAll();

  const down = members[2]!;
  await down.stop();
  try {
    const ui2 = yes();
    const out2 = await etcdDefragWorkflow(ui2, input(new LoopHosts(), tempDir('kw-etcd-maint-state-')));
    assert.equal(out2.kind, 'refused');
    assert.match(ui2.messages('error')[0]!, /etcd member etcd3 \(unreachable[^)]*\): every member must be healthy first/);
  } finally {
    const p = startProc(down.child.spawnfile, down.child.spawnargs.slice(1).map((a) => (a === 'new' ? 'existing' : a)), down.log);
    members[2] = { ...down, ...p };
    await waitFor(() => etcdctl(pki, members[0]!.clientUrl, ['endpoint', 'health', '--cluster']).code === 0, 30_000, 'etcd3 back');
  }
});

test('rolling defrag on a fragmented keyspace: followers first, the leader last, every file smaller', async () => {
  for (let i = 0; i < 160; i++) assert.equal(put(`/registry/configmaps/frag/cm-${i}`, 48 * 1024).code, 0);
  assert.equal(etcdctl(pki, members[0]!.clientUrl, ['del', '--prefix', '/registry/configmaps/frag/']).code, 0);
  const rev = /"revision":(\d+)/.exec(etcdctl(pki, members[0]!.clientUrl, ['endpoint', 'status', '-w', 'json']).stdout)![1]!;
  assert.equal(etcdctl(pki, members[0]!.clientUrl, ['compaction', '--physical', rev]).code, 0);
  const hosts = new LoopHosts();
  const ui = yes();
  // A member's freed pages count as free once a later write transaction has released them (bbolt keeps them pending
  // until then): on an idle loopback cluster that takes a write, which a real cluster makes every few seconds.
  let before = await readEtcdStatus({ inventory: inv(), ssh: hosts, become: () => undefined });
  await waitFor(async () => {
    put('/registry/leases/kube-node-lease/tick', 10);
    before = await readEtcdStatus({ inventory: inv(), ssh: hosts, become: () => undefined });
    return before.members.every((m) => memberSpace(m).freeBytes! > 5_000_000);
  }, 20_000, 'every member compacted', 1000);
  const leader = before.members.find((m) => m.isLeader)!.name;
  const out = await etcdDefragWorkflow(ui, input(hosts, tempDir('kw-etcd-maint-state-')));
  assert.ok('members' in out && out.kind === 'ran' && out.result.ok, JSON.stringify(ui.transcript));
  assert.match(ui.documents.get('etcd-defrag-plan.txt')!, /expected to give back about \d/);
  const order = out.members.map((m) => m.name);
  console.log(`defrag: ${out.members.map((m) => `${m.name}${m.leader ? ` (leader, handed to ${m.leadershipTo})` : ''} ${m.defragSeconds?.toFixed(2)} s, ${m.reclaimedBytes} bytes back`).join('; ')}`);
  assert.equal(order.at(-1), leader, `the leader last: ${order.join(', ')}`);
  assert.deepEqual([...order].sort(), ['etcd1', 'etcd2', 'etcd3']);
  for (const m of out.members) {
    assert.equal(m.skipped, false);
    assert.ok(m.dbSizeAfter! < m.dbSizeBefore!, `${m.name}: ${m.dbSizeBefore} → ${m.dbSizeAfter}`);
    assert.ok(m.reclaimedBytes! > 5_000_000, `${m.name} gave back ${m.reclaimedBytes}`);
  }
  // One member at a time, each let go by the quorum guard once the previous one's defragmentation had ended.
  for (const [i, m] of out.members.entries()) {
    assert.ok(m.guard && m.guard.healthyOthers >= m.guard.quorum, `${m.name}: guard ${JSON.stringify(m.guard)}`);
    assert.ok(m.guard.at <= m.defragStartedAt!, `${m.name}: guarded before its defrag`);
    if (i > 0) assert.ok(m.guard.at >= out.members[i - 1]!.defragEndedAt!, `${m.name}: guarded after ${out.members[i - 1]!.name}'s defrag ended`);
  }
  // The leader handed its leadership to the member defragmented just before it, and was defragmented as a follower:
  // etcd itself names the new leader.
  const handedTo = out.members.at(-1)!.leadershipTo;
  assert.equal(handedTo, order.at(-2), `the leader's leadership went to ${order.at(-2)} first: ${JSON.stringify(out.members.at(-1))}`);
  const now = await readEtcdStatus({ inventory: inv(), ssh: new LoopHosts(), become: () => undefined });
  assert.equal(now.members.find((m) => m.isLeader)?.name, handedTo, 'etcd names the transferee as its leader');
  assert.match(ui.messages('info').join('\n') + ui.transcript.join('\n'), new RegExp(`its leadership handed to ${handedTo} first`));
  // Run again: nothing left to give back, every member skipped by its check.
  const again = await etcdDefragWorkflow(yes(), input(new LoopHosts(), tempDir('kw-etcd-maint-state-')));
  assert.ok('members' in again && again.members.every((m) => m.skipped), JSON.stringify('members' in again ? again.members : again));
});

test('NOSPACE: a small quota on one member, filled by one key\'s history → alarm, writes refused; the recovery leaves writes working', async () => {
  // Without an alarm there is nothing to recover: said, and nothing run.
  const calm = yes();
  assert.equal((await etcdNospaceWorkflow(calm, input(new LoopHosts(), tempDir('kw-etcd-maint-state-')))).kind, 'nothing');
  assert.match(calm.messages('info')[0]!, /no NOSPACE alarm is on; nothing to recover/);
  // etcd3 restarted with a quota a few MiB above its file: the NOSPACE it raises is the whole cluster's.
  const small = members[2]!;
  const size = memberSpace((await readEtcdStatus({ inventory: inv(), ssh: new LoopHosts(), become: () => undefined })).members.find((m) => m.name === 'etcd3')!).dbSize!;
  const quota = size + 4 * 1024 * 1024;
  await small.stop();
  const p = startProc(small.child.spawnfile, [...small.child.spawnargs.slice(1).map((a) => (a === 'new' ? 'existing' : a)), `--quota-backend-bytes=${quota}`], small.log);
  members[2] = { ...small, ...p };
  await waitFor(() => etcdctl(pki, members[0]!.clientUrl, ['endpoint', 'health', '--cluster']).code === 0, 30_000, 'etcd3 back with a small quota');
  let refused = '';
  for (let i = 0; i < 400 && !refused; i++) {
    const r = put('/registry/events/default/history', 96 * 1024); // under the 128 KiB a single argument may have
    if (r.code !== 0) refused = r.stderr;
  }
  assert.match(refused, /database space exceeded/, 'writes refused once etcd3 passed its quota');
  const alarmed = await readEtcdStatus({ inventory: inv(), ssh: new LoopHosts(), become: () => undefined });
  assert.ok(alarmed.members.find((m) => m.name === 'etcd3')!.alarms.includes('NOSPACE'), JSON.stringify(alarmed.members.map((m) => [m.name, m.alarms])));
  assert.match(put('/registry/configmaps/default/after', 10).stderr, /database space exceeded/, 'the alarm refuses writes through every member');

  // A defragmentation alone is refused and points to the recovery.
  const d = yes();
  assert.equal((await etcdDefragWorkflow(d, input(new LoopHosts(), tempDir('kw-etcd-maint-state-')))).kind, 'refused');
  assert.match(d.messages('error')[0]!, /NOSPACE alarm is on.*etcd alarms --disarm/);

  const t0 = Date.now();
  const ui = yes();
  const out = await etcdNospaceWorkflow(ui, input(new LoopHosts(), tempDir('kw-etcd-maint-state-')));
  const seconds = (Date.now() - t0) / 1000;
  assert.ok('members' in out && out.kind === 'ran' && out.result.ok, JSON.stringify(ui.transcript));
  console.log(`NOSPACE recovery: ${seconds.toFixed(1)} s (${out.members.map((m) => `${m.name} ${m.skipped ? 'skipped' : `${m.defragSeconds?.toFixed(2)} s`}`).join(', ')})`);
  const now = await readEtcdStatus({ inventory: inv(), ssh: new LoopHosts(), become: () => undefined });
  assert.deepEqual(now.members.flatMap((m) => m.alarms), [], 'no alarm left');
  assert.ok(now.members.every((m) => m.healthy));
  assert.equal(put('/registry/configmaps/default/after', 10).code, 0, 'writes work');
  const etcd3 = memberSpace(now.members.find((m) => m.name === 'etcd3')!);
  assert.ok(etcd3.dbSize! < quota, `etcd3 under its quota: ${etcd3.dbSize} < ${quota}`);
  // On loopback the recovery is a handful of etcdctl calls per member; 30 s leaves room for a loaded 2-core machine.
  assert.ok(seconds < 30, `recovery took ${seconds} s`);
});
