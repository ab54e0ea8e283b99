/**
 * The upgrade plan's own steps against real parts: its HAProxy maint and ready steps through a real HAProxy's
 * admin socket (while a control-plane node is in maintenance no connection through the frontend reaches it; once
 * ready, and UP by its check, connections reach it again), and its etcd gate between control-plane nodes on a real
 * three-member TLS etcd (passes while every voter is healthy, fails when another member is down). The steps'
 * commands run in a local shell as the SSH layer would run them on the balancer and the first control-plane node
 * (the etcd one with the stand-in kubectl that turns `kubectl exec etcd-… -- etcdctl …` into the real etcdctl).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { RemoteCommand } from '../../../src/core/ssh/command';
import type { Step } from '../../../src/core/plan/types';
import { buildUpgradePlan } from '../../../src/core/upgrade/plan';
import { targetPackageSource } from '../../../src/core/upgrade/packageSource';
import { labText } from '../../unit/upgrade/fixtures';
import { etcdPodKubectl, findBinary, freePort, makePki, startEtcdCluster, waitFor, type EtcdMemberProc } from '../apiserver';
import { tempDir } from '../../tempDir';

const inv = parseInventory(labText.replace(/labs-k8s-m0(\d)/g, 'etcd$1')).inventory!;
const target = { major: 1, minor: 34, patch: 12 };
const hooks = { snapshot: { run: async () => undefined, display: 'x' }, drain: async () => undefined, uncordon: async () => undefined };
const plan = buildUpgradePlan({ inventory: inv, target, source: targetPackageSource(inv, target) }, hooks);
const stepById = (id: string): Step => {
  const s = plan.phases.flatMap((p) => p.steps).find((x) => x.id === id);
  assert.ok(s, id);
  return s;
};

const cleanups: (() => void | Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

// ------------------------------------------------------------------------------------------ HAProxy

/** A backend server that answers each connection with its name. */
async function namedServer(name: string): Promise<number> {
  const server: Server = createServer((s) => s.end(`${name}\n`));
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  cleanups.push(() => void server.close());
  return port;
}

function through(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let got = '';
    s.on('data', (d) => (got += d.toString()));
    s.on('end', () => resolve(got.trim()));
    s.on('error', reject);
  });
}

test('the maint step keeps every connection through the frontend off the node; the ready step brings it back once UP', async () => {
  const dir = tempDir('kw-upgrade-haproxy-');
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const socket = join(dir, 'admin.sock');
  const [p1, p2, front] = [await namedServer('etcd1'), await namedServer('etcd2'), await freePort()];
  writeFileSync(join(dir, 'haproxy.cfg'), [
    'global', `    stats socket ${socket} mode 600 level admin`,
    'defaults', '    mode tcp', '    timeout connect 1s', '    timeout client 5s', '    timeout server 5s',
    'frontend fe', `    bind 127.0.0.1:${front}`, '    default_backend kubernetes-master-nodes',
    'backend kubernetes-master-nodes', '    balance roundrobin',
    `    server etcd1 127.0.0.1:${p1} check inter 200ms fall 1 rise 2`,
    `    server etcd2 127.0.0.1:${p2} check inter 200ms fall 1 rise 2`, '',
  ].join('\n'));
  const bin = spawnSync('sh', ['-c', 'PATH=$PATH:/usr/sbin:/usr/local/sbin command -v haproxy'], { encoding: 'utf8' }).stdout.trim();
  assert.ok(bin, 'haproxy is installed (scripts/setup.sh installs it)');
  const haproxy: ChildProcess = spawn(bin, ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: 'ignore' });
  cleanups.push(() => void haproxy.kill('SIGKILL'));
  const sh = (cmd: RemoteCommand) => spawnSync('sh', ['-c', cmd.text.split('/run/haproxy/admin.sock').join(socket)], { encoding: 'utf8', timeout: 10_000 });
  const maint = stepById('upgrade/labs-k8s-balancer/haproxy-maint-etcd2');
  const ready = stepById('upgrade/labs-k8s-balancer/haproxy-ready-etcd2');
  await waitFor(() => sh(ready.check!).status === 0, 10_000, 'etcd2 UP in HAProxy');
  assert.notEqual(sh(maint.verify!).status, 0, 'not in maintenance before the step');

  const m = sh(maint.run as RemoteCommand);
  assert.equal(m.status, 0, m.stderr);
  assert.equal(sh(maint.verify!).status, 0, 'MAINT in show stat after the step');
  assert.notEqual(sh(ready.check!).status, 0, 'the ready step\'s check sees it is not UP: a resumed run puts it back');
  const answers = await Promise.all(Array.from({ length: 12 }, () => through(front)));
  assert.deepEqual([...new Set(answers)], ['etcd1'], 'no connection reaches the node in maintenance');

  const r = sh(ready.run as RemoteCommand);
  assert.equal(r.status, 0, r.stderr);
  await waitFor(() => sh(ready.verify!).status === 0, 10_000, 'etcd2 UP after ready');
  const back = await Promise.all(Array.from({ length: 12 }, () => through(front)));
  assert.ok(back.includes('etcd2'), `connections reach etcd2 again: ${back.join(' ')}`);

  assert.equal(sh(maint.run as RemoteCommand).status, 0, 'maint again is idempotent');
  assert.equal(sh(ready.run as RemoteCommand).status, 0);
  const bad = spawnSync('sh', ['-c', (maint.run as RemoteCommand).text.split('etcd2').join('etcd9').split('/run/haproxy/admin.sock').join(socket)], { encoding: 'utf8' });
  assert.notEqual(bad.status, 0, 'a server HAProxy does not know fails the step (the socket\'s answer is read)');
  assert.match(bad.stderr, /No such server|not found/i);
});

// ------------------------------------------------------------------------------------------ etcd

let members: EtcdMemberProc[] = [];
let kubectlBin = '';

before(async () => {
  const root = tempDir('kw-upgrade-etcd-');
  const pki = makePki(join(root, 'pki'));
  members = await startEtcdCluster(root, pki, 3);
  kubectlBin = etcdPodKubectl(root, pki, members[0]!);
  cleanups.push(async () => {
    await Promise.all(members.map((m) => m.stop()));
    if (!process.env.KW_KEEP_TEST_DIR) rmSync(root, { recursive: true, force: true });
  });
});

function gate(step: Step): { code: number; stderr: string } {
  const r = spawnSync('sh', ['-c', step.verify!.text], { encoding: 'utf8', env: { ...process.env, PATH: `${kubectlBin}:${dirname(findBinary('etcdctl'))}:${process.env.PATH}` }, timeout: 30_000 });
  return { code: r.status ?? -1, stderr: r.stderr };
}

test('the etcd gate between control-plane nodes passes on a healthy cluster and stops the upgrade while another member is down', async () => {
  const before2 = stepById('upgrade/etcd1/etcd-before-etcd2');
  const after1 = stepById('upgrade/etcd1/etcd-after-etcd1');
  assert.equal(gate(before2).code, 0, gate(before2).stderr);
  assert.equal(gate(after1).code, 0);
  await members[2]!.stop();
  const r = gate(before2);
  assert.notEqual(r.code, 0, 'etcd3 is down: restarting etcd2 now would leave one healthy member of three');
  assert.match(r.stderr, /unhealthy|deadline|connection refused/i);
});
