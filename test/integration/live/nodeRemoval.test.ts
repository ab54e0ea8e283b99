/**
 * Removing a dead control-plane node's etcd member, on a real three-member TLS etcd with one member killed
 * (its node powered off for good): the guard reads the real cluster's health and allows removing the dead
 * member but refuses removing a healthy one; the plan's `member remove` (by ID, in a healthy member's etcd
 * "pod") and its check run in a local shell with a stand-in kubectl that turns `kubectl exec etcd-… --
 * etcdctl …` into the real etcdctl; afterwards two voting members are healthy. And the HAProxy backend check
 * against a real HAProxy's admin socket.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { buildEtcd } from '../../../src/core/live/etcd';
import { readEtcd } from '../../../src/core/live/etcdSource';
import type { Inventory } from '../../../src/core/inventory/types';
import { backendServers, memberAbsent, memberRemove } from '../../../src/core/nodes/commands';
import { checkMemberRemoval, guardMembersOf } from '../../../src/core/nodes/quorumGuard';
import type { RemoteCommand } from '../../../src/core/ssh/command';
import { etcdctl, etcdPodKubectl, findBinary, freePort, makePki, startEtcdCluster, waitFor, type EtcdMemberProc, type Pki } from '../apiserver';
import { tempDir } from '../../tempDir';

let root: string;
let pki: Pki;
let members: EtcdMemberProc[];
let bin: string;

const inventory = { cluster: {}, hosts: ['etcd1', 'etcd2', 'etcd3'].map((name) => ({ name, address: '127.0.0.1', roles: ['control-plane'] })) } as unknown as Inventory;

function local(cmd: RemoteCommand): { code: number; stdout: string; stderr: string } {
  const r = spawnSync('sh', ['-c', cmd.text], { encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${dirname(findBinary('etcdctl'))}:${process.env.PATH}` }, timeout: 30_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

async function guardModel() {
  const raw = await readEtcd(async (args) => etcdctl(pki, members[0]!.clientUrl, args), ['--command-timeout=1500ms', '--dial-timeout=1s']);
  return buildEtcd(raw, 'test', Date.now(), inventory);
}

before(async () => {
  root = tempDir('kw-node-removal-');
  pki = makePki(join(root, 'pki'));
  members = await startEtcdCluster(root, pki, 3);
  bin = etcdPodKubectl(root, pki, members[0]!);
  await waitFor(() => etcdctl(pki, members[0]!.clientUrl, ['endpoint', 'health', '--cluster']).code === 0, 20_000, 'every member healthy');
});

after(async () => {
  await Promise.all((members ?? []).map((m) => m.stop()));
  if (root && !process.env.KW_KEEP_TEST_DIR) rmSync(root, { recursive: true, force: true });
});

test('a powered-off member: the guard allows removing it, refuses removing a healthy one; member remove by ID from a healthy member leaves two healthy voters', async () => {
  await members[2]!.stop();
  const model = await guardModel();
  const guardMembers = guardMembersOf(model);
  const dead = guardMembers.find((m) => m.host === 'etcd3');
  assert.ok(dead && !dead.healthy && !dead.learner, JSON.stringify(guardMembers));
  const verdict = checkMemberRemoval(guardMembers, { operation: 'replace', target: 'etcd3' });
  assert.equal(verdict.allowed, true, verdict.reasons.join(' '));
  const healthyOne = checkMemberRemoval(guardMembers, { operation: 'remove', target: 'etcd2', forceTyped: 'etcd2' });
  assert.equal(healthyOne.allowed, false, 'removing a healthy member while another is dead loses the quorum of two');

  assert.notEqual(local(memberAbsent('etcd1', dead.id)).code, 0, 'the dead member is still listed');
  const removed = local(memberRemove('etcd1', dead.id));
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(local(memberAbsent('etcd1', dead.id)).code, 0, 'the check that makes a re-run skip the step');
  const after = await guardModel();
  assert.equal(after.voting, 2);
  assert.equal(after.healthyVoting, 2);
  assert.ok(after.leaderId, 'a leader');
});

// ------------------------------------------------------------------------------------------ HAProxy

let haproxy: ChildProcess | undefined;
let listener: Server | undefined;

after(() => {
  haproxy?.kill('SIGKILL');
  listener?.close();
});

test('the backend check reads a real HAProxy through its admin socket: exact server list, UP servers', async () => {
  const dir = tempDir('kw-haproxy-');
  const socket = join(dir, 'admin.sock');
  listener = createServer((s) => s.end());
  const upPort = await freePort();
  await new Promise<void>((r) => listener!.listen(upPort, '127.0.0.1', r));
  const [front, downPort] = await Promise.all([freePort(), freePort()]);
  writeFileSync(join(dir, 'haproxy.cfg'), [
    'global', `    stats socket ${socket} mode 600 level admin`,
    'defaults', '    mode tcp', '    timeout connect 1s', '    timeout client 5s', '    timeout server 5s',
    'frontend fe', `    bind 127.0.0.1:${front}`, '    default_backend kubernetes-master-nodes',
    'backend kubernetes-master-nodes',
    `    server labs-k8s-m02 127.0.0.1:${upPort} check inter 200ms fall 1 rise 1`,
    `    server labs-k8s-m04 127.0.0.1:${downPort} check inter 200ms fall 1 rise 1`, '',
  ].join('\n'));
  const bin = spawnSync('sh', ['-c', 'PATH=$PATH:/usr/sbin:/usr/local/sbin command -v haproxy'], { encoding: 'utf8' }).stdout.trim();
  assert.ok(bin, 'haproxy is installed (scripts/setup.sh installs it)');
  haproxy = spawn(bin, ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: 'ignore' });
  const check = (servers: string[], up: string[]) => {
    const cmd = backendServers('kubernetes-master-nodes', servers, up);
    return spawnSync('sh', ['-c', cmd.text.split('/run/haproxy/admin.sock').join(socket)], { encoding: 'utf8', timeout: 10_000 });
  };
  await waitFor(() => check(['labs-k8s-m02', 'labs-k8s-m04'], ['labs-k8s-m02']).status === 0, 10_000, 'm02 UP in HAProxy');
  const down = check(['labs-k8s-m02', 'labs-k8s-m04'], ['labs-k8s-m04']);
  assert.notEqual(down.status, 0, 'a server that is not UP fails the check');
  assert.match(down.stderr, /labs-k8s-m04 is DOWN/);
  const extra = check(['labs-k8s-m02'], []);
  assert.notEqual(extra.status, 0, 'a server HAProxy still balances over that the inventory no longer has fails the check');
  assert.match(extra.stderr, /servers of kubernetes-master-nodes: labs-k8s-m02 labs-k8s-m04/);
  rmSync(dir, { recursive: true, force: true });
});
