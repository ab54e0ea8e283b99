/**
 * Live views against the lab's real HA cluster (3 stacked-etcd control planes behind the HAProxy/Keepalived VIP).
 * Needs `npm run lab -- up --cluster` first; then `npm run test:lab:live`. DESTRUCTIVE for the lab: it powers a
 * control-plane node off and on again (lab fault power-off/power-on). Fails with a clear message when the lab is
 * not up (it never skips silently).
 *
 * Checks: the Control Plane / Leases / etcd trees match kubectl and etcdctl ground truth; etcd is read both through
 * the API (etcdctl exec'd in an etcd pod) and over SSH; powering off a control-plane node shows its etcd member
 * down and the quorum line updated within 5 s, the leader leases move off it, and its node lease goes stale.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadKubeAdapter } from '../../../src/adapters/kube/load';
import type { KubeConnection } from '../../../src/adapters/kube/index';
import { createInventoryPool } from '../../../src/adapters/ssh/fromInventory';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { Inventory } from '../../../src/core/inventory/types';
import { buildEtcd } from '../../../src/core/live/etcd';
import { etcdctlTlsArgs, readEtcd, sshEtcdctl, type RemoteExec } from '../../../src/core/live/etcdSource';
import { ALL_RESOURCES } from '../../../src/core/live/resources';
import { verdict } from '../../../src/core/live/status';
import type { Node, Pod } from '../../../src/core/live/types';
import { sh } from '../../../src/core/ssh/command';
import { CliHostKeyPrompt } from '../../../src/core/ssh/hostKeyPolicy';

const REPO = join(__dirname, '../../..');

function labEnv(): Record<string, string> {
  const out = execFileSync('bash', [join(REPO, 'lab/lab.sh'), 'env'], { encoding: 'utf8' });
  return Object.fromEntries([...out.matchAll(/^export (\w+)="([^"]*)"$/gm)].map((m) => [m[1]!, m[2]!.replace('$PATH', process.env.PATH ?? '')]));
}

function lab(...args: string[]): void {
  const r = spawnSync('bash', [join(REPO, 'lab/lab.sh'), ...args], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `lab ${args.join(' ')}: ${r.stderr}`);
}

let env: Record<string, string>;
let inventory: Inventory;
let conn: KubeConnection;
let remote: RemoteExec;
let closeSsh: () => Promise<void>;

const kubectl = (...args: string[]) => execFileSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, ...args], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } });

before(async () => {
  env = labEnv();
  assert.ok(existsSync(env.KUBECONFIG!), `no lab cluster: ${env.KUBECONFIG} is missing — run \`npm run lab -- up --cluster\` first`);
  const parsed = parseInventory(readFileSync(env.LAB_INVENTORY!, 'utf8'));
  assert.ok(parsed.inventory, `lab inventory ${env.LAB_INVENTORY} does not parse`);
  inventory = parsed.inventory;
  conn = await loadKubeAdapter().connect({ kubeconfig: env.KUBECONFIG!, inventory, live: { etcdIntervalMs: 1000 } });
  const h = await conn.health();
  assert.ok(h.ok, `the lab API does not answer through ${conn.server}: ${h.error?.describe() ?? h.detail}`);
  const { pool } = createInventoryPool(inventory, { sshConfigFile: env.LAB_SSH_CONFIG!, knownHostsFile: env.LAB_KNOWN_HOSTS!, prompt: new CliHostKeyPrompt([]) });
  const anyCode = Array.from({ length: 256 }, (_, i) => i);
  remote = { exec: async (host, script) => { const r = await pool.exec(host, sh`sh -c ${script}`, { okCodes: anyCode, timeoutMs: 20_000 }); return { code: r.code ?? -1, stdout: r.stdout, stderr: r.stderr }; } };
  closeSsh = () => pool.close();
});

after(async () => {
  conn?.dispose();
  await closeSsh?.();
});

test('the trees match kubectl: control-plane nodes, their four mirror pods, add-ons, leases', async () => {
  const release = conn.cluster.acquire(ALL_RESOURCES);
  try {
    const t0 = Date.now();
    while (!conn.cluster.synced(ALL_RESOURCES)) {
      assert.ok(Date.now() - t0 < 15_000, 'not synced within 15 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    const model = conn.cluster.model();
    const nodes = (JSON.parse(kubectl('get', 'nodes', '-o', 'json')) as { items: Node[] }).items;
    const cpTruth = nodes.filter((n) => 'node-role.kubernetes.io/control-plane' in (n.metadata.labels ?? {})).map((n) => n.metadata.name).sort();
    assert.deepEqual(model.controlPlane.nodes.map((n) => n.name), cpTruth);
    const pods = (JSON.parse(kubectl('get', 'pods', '-n', 'kube-system', '-o', 'json')) as { items: Pod[] }).items;
    for (const n of model.controlPlane.nodes) {
      for (const c of n.components) {
        const truth = pods.find((p) => p.metadata.name === `${c.component}-${n.name}`);
        assert.ok(truth, `${c.component}-${n.name}`);
        assert.equal(c.phase, truth.status?.phase);
        assert.equal(c.restarts, (truth.status?.containerStatuses ?? []).reduce((a, s) => a + s.restartCount, 0));
        assert.ok(c.mirror, `${c.podName} is a mirror pod`);
      }
    }
    assert.deepEqual(model.controlPlane.addons.map((a) => a.name).sort(), ['coredns', 'kube-flannel-ds', 'kube-proxy']);
    const leases = JSON.parse(kubectl('get', 'lease', '-n', 'kube-system', '-o', 'json')) as { items: { metadata: { name: string }; spec: { holderIdentity: string } }[] };
    for (const l of model.leases.leaders) assert.equal(l.holderIdentity, leases.items.find((x) => x.metadata.name === l.name)!.spec.holderIdentity);
    assert.equal(model.leases.apiservers.length, 3);
    // The verdict against kubectl's own view: degraded exactly when a node is not Ready (or a control-plane pod is not).
    const notReady = nodes.filter((n) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True').map((n) => n.metadata.name);
    const v = verdict(model);
    assert.equal(v.degraded, notReady.length > 0 || pods.some((p) => p.metadata.labels?.tier === 'control-plane' && p.status?.phase !== 'Running'), JSON.stringify(v.problems));
    for (const n of notReady) assert.ok(v.problems.some((p) => p.what.includes(`node ${n} is`)), `${n} NotReady is reported`);
  } finally {
    release();
  }
});

test('etcd through the API (exec in an etcd pod) and over SSH agree with etcdctl', async () => {
  const viaApi = await conn.readEtcd();
  assert.match(viaApi.via, /^exec etcd-/);
  assert.equal(viaApi.quorumLine, '3 members · quorum 2 · tolerates 1 failure');
  const cp = inventory.hosts.find((h) => h.roles.includes('control-plane'))!;
  const viaSsh = buildEtcd(await readEtcd(sshEtcdctl(remote, cp.name, (inventory.ssh.user ?? 'root') !== 'root'), etcdctlTlsArgs()), `ssh ${cp.name}`, Date.now(), inventory);
  assert.deepEqual(viaSsh.members.map((m) => [m.name, m.id]), viaApi.members.map((m) => [m.name, m.id]));
  const pod = `etcd-${viaApi.members[0]!.name}`;
  const table = kubectl('exec', '-n', 'kube-system', pod, '--', 'etcdctl', ...etcdctlTlsArgs(), 'member', 'list', '-w', 'simple');
  const truth = table.trim().split('\n').map((l) => l.split(', ')).map((f) => [f[2], f[0]]).sort();
  assert.deepEqual(viaApi.members.map((m) => [m.name, m.id]).sort(), truth);
  assert.equal(viaApi.members.filter((m) => m.isLeader).length, 1);
});

test('power off a control-plane node: etcd member down and quorum line within 5 s; leader leases move; node lease goes stale', async () => {
  const release = conn.cluster.acquire(ALL_RESOURCES, true);
  // The node holding the scheduler's leader lease (a healthy cluster always has one): its leases must move.
  for (const t = Date.now(); Date.now() - t < 15_000 && !conn.cluster.model().leases.leaders.some((l) => l.name === 'kube-scheduler' && l.holderHost); ) await new Promise((r) => setTimeout(r, 200));
  const model0 = conn.cluster.model();
  const victim = model0.leases.leaders.find((l) => l.name === 'kube-scheduler')?.holderHost;
  assert.ok(victim, `no control-plane node holds the kube-scheduler lease: ${JSON.stringify(model0.leases.leaders)}`);
  const held = model0.leases.leaders.filter((l) => l.holderHost === victim).map((l) => l.name);
  assert.ok(model0.leases.nodes.some((l) => l.node === victim && l.health === 'healthy'), `${victim}'s node lease is healthy before the power-off`);
  const host = inventory.hosts.find((h) => h.name === victim);
  assert.ok(host, `${victim} is a host of the inventory`);
  try {
    lab('fault', 'power-off', host.name);
    const t0 = Date.now();
    let seenMs: number | undefined;
    while (Date.now() - t0 < 10_000) {
      const e = conn.cluster.etcd;
      if (e && e.fetchedAt > t0 && e.members.find((m) => m.name === victim)?.reachable === false && /2 healthy/.test(e.quorumLine)) {
        seenMs = Date.now() - t0;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(seenMs !== undefined && seenMs <= 5000, `etcd tree did not show ${victim} down within 5 s (${seenMs} ms)`);
    console.log(`etcd member ${victim} down after ${seenMs} ms; ${conn.cluster.etcd!.quorumLine}`);
    // Each lease the node held is taken by another control-plane node (not merely no longer the victim's).
    const movedOff = () => held.every((name) => {
      const h = conn.cluster.model().leases.leaders.find((l) => l.name === name)?.holderHost;
      return h !== undefined && h !== victim;
    });
    const t1 = Date.now();
    while (Date.now() - t1 < 40_000 && !movedOff()) await new Promise((r) => setTimeout(r, 200));
    assert.ok(movedOff(), `leases ${held.join(', ')} did not move to another node: ${JSON.stringify(conn.cluster.model().leases.leaders)}`);
    console.log(`leader leases ${held.join(', ')} moved off ${victim} after ${Date.now() - t0} ms`);
    const t2 = Date.now();
    const nodeLease = () => conn.cluster.model().leases.nodes.find((l) => l.node === victim);
    while (Date.now() - t2 < 40_000 && nodeLease()?.health === 'healthy') await new Promise((r) => setTimeout(r, 200));
    assert.ok(nodeLease(), `${victim}'s node lease is still listed`);
    assert.notEqual(nodeLease()!.health, 'healthy');
    assert.equal(verdict(conn.cluster.model()).degraded, true);
  } finally {
    lab('fault', 'power-on', host.name);
    release();
  }
});
