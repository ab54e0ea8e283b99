/**
 * The network partition drill on the lab's control plane, through `kubeadm-workbench drill --kind partition`:
 *  - a follower (m02 unless it leads etcd) cut by the drill's own nftables table over SSH (the product's default);
 *  - the etcd leader cut by the lab's own fault (its link down on the bridge) given as the user's cut/heal commands.
 * For each: quorum kept (a write through the VIP during the cut), the leader elected within etcd's bound when the
 * leader was cut, the backend DOWN on both balancers within HAProxy's bound for a silent host (read here from its
 * own `show stat`), NotReady within the grace-period bound, no request through the VIP failing once HAProxy marked
 * the backend DOWN (an authenticated client of the test's own), and everything back after the heal.
 * DESTRUCTIVE for the lab for about four minutes; the drill heals every cut (the nftables one would heal itself).
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseInventory } from '../../src/core/inventory/parse';
import { recordBench } from './bench';
import { waitHealthy } from './clusterHealth';
import { etcdLeader, LAB, measured, runDrill, serverStatus, sleep, ssh, type DrillRun } from './drillRun';
import { pollHttp } from './httpPoller';
import { labEnv } from './labEditor';
import { adminTls } from './upgradeTarget';
import { tempDir } from '../tempDir';

const env = labEnv();
const home = tempDir('kw-partition-home-');
const inv = parseInventory(readFileSync(env.LAB_INVENTORY!, 'utf8')).inventory!;
const balancers = inv.hosts.filter((h) => h.roles.includes('loadbalancer')).map((h) => h.name);
const controlPlanes = inv.hosts.filter((h) => h.roles.includes('control-plane'));
const VIP = inv.cluster.controlPlaneEndpoint.split(':')[0]!;
const kubectl = (...args: string[]) => execFileSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, '--request-timeout=10s', ...args], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } });

/** HAProxy's check numbers for the backend, read from a balancer's haproxy.cfg with regular expressions. */
function checkNumbers(): { inter: number; fall: number; timeoutConnect: number } {
  const cfg = ssh(env, balancers[0]!, 'cat /etc/haproxy/haproxy.cfg').stdout;
  const time = (re: RegExp, d: number) => {
    const m = re.exec(cfg);
    return m ? Number(m[1]) * (m[2] === 'ms' ? 0.001 : 1) : d;
  };
  return { inter: time(/\binter\s+(\d+)(ms|s)?/, 2), fall: Number(/\bfall\s+(\d+)/.exec(cfg)?.[1] ?? 3), timeoutConnect: time(/timeout\s+connect\s+(\d+)(ms|s)?/, 5) };
}

/**
 * While `run` goes: the first moment each balancer's `show stat` says the target's server is DOWN (Date.now()), every
 * 250 ms per balancer, in parallel (a multiplexed ssh: a round trip a read); and one write through the VIP once both
 * did (quorum kept: etcd commits it with two of three members).
 */
async function watchBackend(target: string, run: Promise<DrillRun>): Promise<{ down: Record<string, number>; wrote: boolean | undefined }> {
  const down: Record<string, number> = {};
  let done = false;
  void run.finally(() => (done = true));
  await Promise.all(
    balancers.map(async (b) => {
      while (!done && down[b] === undefined) {
        if (/^DOWN/.test((await serverStatus(env, b, target)) ?? '')) down[b] = Date.now();
        else await sleep(250);
      }
    }),
  );
  let wrote: boolean | undefined;
  if (balancers.every((b) => down[b] !== undefined) && !done) {
    try {
      kubectl('create', 'configmap', `partition-write-${Date.now()}`, '-n', 'default', '--from-literal=x=1');
      wrote = true;
    } catch {
      wrote = false;
    }
  }
  return { down, wrote };
}

async function partition(target: string, extra: string[], leaderCut: boolean): Promise<Record<string, number | string>> {
  const c = checkNumbers();
  // a silent host: each check waits its timeout (no `timeout check`: inter), fall of them, fastinter apart, after up to
  // inter until the first one — the drill's own bound, computed here from the file
  const downBound = c.inter + c.fall * Math.min(c.inter, c.timeoutConnect) + (c.fall - 1) * c.inter;
  const started = Date.now();
  const api = pollHttp([`https://${VIP}:6443/api/v1/namespaces/default`], { ...adminTls(env.KUBECONFIG!), expect: /"name":\s*"default"/, everyMs: 250 });
  const running = runDrill(env, home, ['--host', target, '--kind', 'partition', ...extra], 8 * 60_000);
  const backend = await watchBackend(target, running);
  const run = await running;
  const polled = await api.stop();
  assert.equal(run.code, 0, run.out.slice(-4000));
  const r = run.report!;
  for (const b of balancers) {
    const m = measured(r, `haproxy-down@${b}`);
    assert.equal(m.verdict, 'pass', `${b}: ${m.seconds} s vs ${m.expected}`);
    const ours = backend.down[b] === undefined ? undefined : (backend.down[b]! - run.faultAt!) / 1000;
    // our show stat every 250 ms + an ssh round trip, and a local cut command's own time before the cut lands: 1 s + it
    const margin = 1 + (extra.length ? (r.run.faultSeconds ?? 0) : 0);
    assert.ok(ours !== undefined && ours <= downBound + margin, `${b}: our show stat saw ${target} DOWN at ${ours} s, bound ${downBound} + ${margin} s`);
  }
  assert.equal(backend.wrote, true, 'a write through the VIP during the cut (quorum kept)');
  assert.match(r.quorum ?? '', /quorum holds, writes go on/);
  const leader = measured(r, 'etcd-leader');
  if (leaderCut) assert.equal(leader.verdict, 'pass', `new leader at ${leader.seconds} s vs ${leader.expected}`);
  else assert.match(leader.detail ?? '', /leader unchanged/);
  const notReady = measured(r, 'node-notready');
  assert.equal(notReady.verdict, 'pass', `NotReady at ${notReady.seconds} s vs ${notReady.expected}`);
  // no request through the VIP fails once both balancers marked it DOWN (+ the client's 2 s timeout)
  const lastDown = Math.max(...balancers.map((b) => backend.down[b]!));
  const late = polled.failures.filter((f) => started + Number(/^\+([\d.]+) s/.exec(f)![1]) * 1000 > lastDown + 2000 && started + Number(/^\+([\d.]+) s/.exec(f)![1]) * 1000 < run.restoreAt!);
  // at least one request per half second of the drill (a failing one waits out its 2 s timeout)
  const minPolls = Math.floor(((Date.now() - started) / 1000) * 2);
  assert.ok(polled.polls >= minPolls, `only ${polled.polls} requests (at least ${minPolls})`);
  assert.deepEqual(late, [], 'requests through the VIP failed after HAProxy marked the backend DOWN');
  // the way back after the heal
  for (const id of ['node-ready', 'etcd-caught-up', ...balancers.map((b) => `haproxy-up@${b}`)]) assert.equal(measured(r, id).verdict, 'pass', `${id}: ${measured(r, id).detail ?? ''}`);
  assert.equal(r.ok, true, r.notes.join('\n'));
  const out: Record<string, number | string> = { downBound, notReady: notReady.seconds ?? -1, notReadyBound: notReady.expected, leader: leader.seconds ?? -1, failed: polled.failures.length, polls: polled.polls, nodeReadyAfterHeal: measured(r, 'node-ready').seconds ?? -1 };
  for (const b of balancers) out[`down@${b}`] = measured(r, `haproxy-down@${b}`).seconds ?? -1;
  console.log(`partition of ${target}: ${JSON.stringify(out)}`);
  return out;
}

describe('network partition drill on the lab control plane', { timeout: 20 * 60_000 }, () => {
  before(async () => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root');
    await waitHealthy(env, home, 240_000);
  });

  test('a follower cut with nftables over SSH (the default): quorum kept, DOWN, NotReady, no failure after DOWN, back after the heal', async () => {
    const leaderAddr = /https:\/\/([\d.]+):/.exec(etcdLeader(env, controlPlanes[0]!.name))![1];
    const target = controlPlanes.find((h) => h.name.endsWith('m02') && h.address !== leaderAddr) ?? controlPlanes.find((h) => h.address !== leaderAddr)!;
    const n = await partition(target.name, [], false);
    // the self-heal was disarmed by the drill's heal: no table and no timer left on the host
    assert.equal(ssh(env, target.name, 'nft list table inet kubeadm_workbench_drill').code !== 0, true, 'the drill table is gone');
    assert.equal(ssh(env, target.name, "systemctl list-timers --all --no-legend 'kubeadm-workbench-heal-*' | wc -l").stdout.trim(), '0');
    recordBench(Object.fromEntries(Object.entries(n).filter(([, v]) => typeof v === 'number').map(([k, v]) => [`partition.follower.${k}`, v])));
    await waitHealthy(env, home, 240_000);
  });

  test("the etcd leader cut by the lab's link fault (the user's own cut/heal commands): a new leader within etcd's bound, quorum kept, back after the heal", async () => {
    const leaderAddr = /https:\/\/([\d.]+):/.exec(etcdLeader(env, controlPlanes[0]!.name))![1];
    const target = controlPlanes.find((h) => h.address === leaderAddr)!;
    const n = await partition(target.name, ['--cut-command', `bash ${LAB} fault cut {host}`, '--heal-command', `bash ${LAB} fault restore {host}`], true);
    const after = /https:\/\/([\d.]+):/.exec(etcdLeader(env, controlPlanes.find((h) => h !== target)!.name))![1];
    console.log(`etcd leader after the heal: ${after} (was ${leaderAddr})`);
    recordBench(Object.fromEntries(Object.entries(n).filter(([, v]) => typeof v === 'number').map(([k, v]) => [`partition.leader.${k}`, v])));
    await waitHealthy(env, home, 240_000);
  });
});
