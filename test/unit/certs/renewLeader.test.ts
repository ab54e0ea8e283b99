/**
 * `certs renew` and the etcd leader: the plan run by the real plan runner against a model of the cluster (which member
 * leads, which HAProxy server is in which state on which balancer), the leadership handed over only by the node that
 * leads and only before its etcd restarts, the balancers' "every other server UP" gate before any node is taken out;
 * and the check's shell with a stand-in etcdctl. The lab runs the same plan on the lab cluster.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { memberFollowsCommand } from '../../../src/core/certs/renewPlan';
import { parseCertificate } from '../../../src/core/certs/x509';
import { haproxyServerNames } from '../../../src/core/generate/haproxy';
import type { Inventory } from '../../../src/core/inventory/types';
import { createLedger } from '../../../src/engine/state/runLedger';
import { HostLocks } from '../../../src/engine/state/hostLocks';
import { runPlan, type StepExecutor } from '../../../src/core/plan/runner';
import type { Plan, Step } from '../../../src/core/plan/types';
import { moveLeaderAway, prepareRenew } from '../../../src/engine/renew';
import { EtcdHosts, IDS, inv } from '../backup/etcdHosts';
import { PkiFixture } from './pkiFixture';
import { tempDir } from '../../tempDir';

const pki = new PkiFixture({ address: '10.3.60.51', endpointHost: '10.3.60.100' });
const withLbs: Inventory = { ...inv, hosts: [...inv.hosts, { name: 'lb1', address: '10.3.60.50', roles: ['loadbalancer'] }, { name: 'lb2', address: '10.3.60.56', roles: ['loadbalancer'] }] };
const serverOf = (h: string) => haproxyServerNames(withLbs).find((s) => s.host === h)!.server;
const hostOfServer = (s: string) => haproxyServerNames(withLbs).find((x) => x.server === s)!.host;
const hex = (n: keyof typeof IDS) => BigInt(IDS[n]).toString(16);
const nameOfHex = (id: string) => (Object.keys(IDS) as (keyof typeof IDS)[]).find((n) => hex(n) === id)!;

/**
 * The cluster as SSH (the gates' in-process reads) and the plan's executor see it: `leader` names the leading member
 * (move-leader changes it; `movesLeader: false` makes a move that never takes), `servers` each balancer's state of
 * each server. Every command that changes something is recorded in `events`, in order.
 */
function cluster(o: { leader: string; servers?: Record<string, string>; movesLeader?: boolean }) {
  const state = { leader: o.leader, servers: { ...o.servers } as Record<string, string> };
  const events: string[] = [];
  const ok = (stdout = '') => ({ code: 0, signal: null, stdout, stderr: '' });
  const opts = {
    leader: state.leader,
    extra: (host: string, text: string) => {
      const move = / move-leader (\w+)/.exec(text);
      if (move) {
        events.push(`${host}:move-leader->${nameOfHex(move[1]!)}`);
        if (o.movesLeader !== false) state.leader = opts.leader = nameOfHex(move[1]!);
        return ok();
      }
      if (text.includes('kw-file')) {
        const marked = text.replace(/'\/(etc|var)\//g, `'${pki.root}/$1/`).replace(/ \/(etc|var)\//g, ` ${pki.root}/$1/`);
        return ok(execFileSync('sh', ['-c', marked], { encoding: 'utf8' }).split(pki.root).join(''));
      }
      if (text.includes('cat /etc/kubernetes/pki/apiserver.crt')) return ok(pki.read('/etc/kubernetes/pki/apiserver.crt'));
      return undefined;
    },
  };
  const ssh = new EtcdHosts(opts);
  const status = (b: string, s: string) => state.servers[`${b}/${s}`] ?? 'UP';
  const executor: StepExecutor = {
    async exec(host, command, io) {
      const t = command.text;
      const set = /set server [\w-]+\/([\w.-]+) state (maint|ready)/.exec(t);
      if (set) {
        state.servers[`${host}/${set[1]}`] = set[2] === 'maint' ? 'MAINT' : 'UP';
        events.push(`${host}:${set[2]}:${hostOfServer(set[1]!)}`);
        const cut = /shutdown sessions server [\w-]+\/([\w.-]+)/.exec(t);
        if (cut) events.push(`${host}:sessions-closed:${hostOfServer(cut[1]!)}`);
        return { code: 0 };
      }
      if (t.includes('show stat')) {
        // serverIs, once per server asked (the others-UP gate asks several): each must have the state its case wants.
        const asked = [...t.matchAll(/-v s='?([\w.-]+)'? .*?case "\$st" in (UP|MAINT)\*/g)];
        assert.ok(asked.length, `a show stat command that asks nothing: ${t}`);
        const bad = asked.filter(([, s, want]) => !status(host, s!).startsWith(want!));
        if (bad.length) io.onStderr?.(`${bad.map(([, s]) => `${s} is ${status(host, s!)}`).join(', ')}\n`);
        return { code: bad.length ? 1 : 0 };
      }
      if (t.includes('"member_id"')) return { code: state.leader === host ? 1 : 0 }; // the move-leader step's check
      const restart = /crictl ps -q --name '\^(etcd|kube-apiserver|kube-controller-manager)\$' --state running\) \|\| exit 1/.exec(t);
      if (restart) {
        events.push(`${host}:restart:${restart[1]}`);
        return { code: 0 };
      }
      if (t === 'kubeadm certs renew all') {
        events.push(`${host}:renew`);
        pki.leaf('/etc/kubernetes/pki/apiserver', 'ca', '/CN=kube-apiserver', 365, 'serverAuth', ['IP:10.3.60.51', 'IP:10.3.60.100']);
        return { code: 0 };
      }
      return { code: 0 }; // the verifies (endpoint health, running again)
    },
    async upload() {},
  };
  return { ssh, executor, events, state };
}

async function run(plan: Plan, executor: StepExecutor) {
  const dir = tempDir('kw-renew-');
  const ledger = createLedger(join(dir, 'runs'), 'certs-renew', plan.fingerprint);
  return runPlan(plan, { executor, ledger, locks: new HostLocks(join(dir, 'locks'), ledger.data.runId), maxParallelHosts: 4, verifyIntervalMs: 1 });
}

async function planFor(c: ReturnType<typeof cluster>) {
  // Every API server serves the file on disk (the fixture's): the old one before, the renewed one after its restart.
  const prep = await prepareRenew({ inventory: withLbs, ssh: c.ssh, become: () => undefined, served: async () => parseCertificate(pki.read('/etc/kubernetes/pki/apiserver.crt')), readyz: async () => true });
  assert.deepEqual(prep.refusals, []);
  return prep.plan;
}

const ids = (plan: Plan) => plan.phases[0]!.steps.map((s: Step) => s.id);

test('plan order: every other server UP on every balancer, then maintenance, then the leader moved, then the etcd restart', async () => {
  const c = cluster({ leader: 'm01' });
  const plan = await planFor(c);
  const lbs = (k: string, h: string) => ['lb1', 'lb2'].map((b) => `renew-certs/${h}/${k}@${b}`);
  assert.deepEqual(ids(plan), ['m01', 'm02', 'm03'].flatMap((h) => [
    `renew-certs/${h}/guard`, `renew-certs/${h}/renew`, ...lbs('haproxy-others-up', h), ...lbs('haproxy-maint', h), `renew-certs/${h}/move-leader`,
    `renew-certs/${h}/etcd`, `renew-certs/${h}/apiserver`, ...lbs('haproxy-ready', h), `renew-certs/${h}/controllers`,
  ]));
  const gate = plan.phases[0]!.steps.find((s) => s.id === 'renew-certs/m02/haproxy-others-up@lb2')!;
  assert.equal(gate.host, 'lb2');
  const display = (gate.run as { display: string }).display;
  for (const h of ['m01', 'm03']) assert.ok(display.includes(serverOf(h)), `the gate asks ${h}'s server: ${display}`);
  assert.ok(!display.includes(serverOf('m02')), 'not the server of the node it is about');
  const move = plan.phases[0]!.steps.find((s) => s.id === 'renew-certs/m02/move-leader')!;
  assert.match(move.check!.display, /endpoint status '-w' json.*member_id/, 'skipped when the member follows');
});

test('run: only the leading node hands the leadership over, each time before its own etcd restart, to a node renewed already or last in line', async () => {
  const c = cluster({ leader: 'm01' });
  const result = await run(await planFor(c), c.executor);
  assert.equal(result.ok, true, result.failed?.error);
  const moves = c.events.filter((e) => e.includes('move-leader'));
  // m01 leads: to m03 (the last in line), not m02 (renewed next, it would have to move again). m02 never leads.
  // m03 leads when its turn comes: to m01, renewed already.
  assert.deepEqual(moves, ['m01:move-leader->m03', 'm03:move-leader->m01'], c.events.join('\n'));
  for (const m of moves) {
    const host = m.split(':')[0]!;
    const at = c.events.indexOf(m);
    assert.ok(at < c.events.indexOf(`${host}:restart:etcd`), `${host}: the leadership moved before its etcd restarted:\n${c.events.join('\n')}`);
    assert.ok(at > c.events.indexOf(`lb2:maint:${host}`), `${host}: after its server is out of every balancer`);
  }
  // Every node's open connections closed on every balancer after its maintenance, before its etcd restarts.
  for (const h of ['m01', 'm02', 'm03']) {
    for (const b of ['lb1', 'lb2']) {
      const cut = c.events.indexOf(`${b}:sessions-closed:${h}`);
      assert.ok(cut > c.events.indexOf(`${b}:maint:${h}`) && cut < c.events.indexOf(`${h}:restart:etcd`), `${b}: ${h}'s sessions closed between its maintenance and its etcd restart:\n${c.events.join('\n')}`);
    }
  }
  assert.equal(c.state.leader, 'm01');
  assert.ok(Object.values(c.state.servers).every((s) => s === 'UP'), 'every server back UP');
});

test('run: a server left in maintenance on one balancer stops the run at the gate, before any server is taken out or etcd restarts', async () => {
  const c = cluster({ leader: 'm02', servers: { [`lb2/${serverOf('m03')}`]: 'MAINT' } });
  const result = await run(await planFor(c), c.executor);
  assert.equal(result.ok, false);
  assert.equal(result.failed?.step.id, 'renew-certs/m01/haproxy-others-up@lb2');
  assert.match(result.failed?.error ?? '', new RegExp(`${serverOf('m03')} is MAINT`));
  assert.deepEqual(c.events, ['m01:renew'], 'nothing taken out of a balancer, nothing restarted');
});

test('move: the new leader must answer as the leader before the step is done; none healthy to take over refuses', async () => {
  const stuck = cluster({ leader: 'm02', movesLeader: false });
  await assert.rejects(
    moveLeaderAway({ inventory: withLbs, ssh: stuck.ssh, become: () => undefined, leaderWaitMs: 600 }, 'm02', ['m03'], () => undefined),
    /m01 did not answer as the leader within 0\.6 s after the move from m02/,
  );
  assert.deepEqual(stuck.events, ['m02:move-leader->m01']);
  const alone = new EtcdHosts({ leader: 'm01', downMembers: ['m02', 'm03'] });
  await assert.rejects(moveLeaderAway({ inventory: withLbs, ssh: alone, become: () => undefined }, 'm01', [], () => undefined), /no other voting member is healthy to take over/);
  const follower = cluster({ leader: 'm03' });
  const said: string[] = [];
  await moveLeaderAway({ inventory: withLbs, ssh: follower.ssh, become: () => undefined }, 'm01', [], (l) => said.push(l));
  assert.deepEqual(follower.events, [], 'a follower moves nothing (a resumed run after the move asks first)');
  assert.match(said.join('\n'), /m01: its etcd member does not lead \(m03 does\)/);
});

/** The check through a real shell with a stand-in etcdctl printing what etcdctl 3.6 prints for `endpoint status -w json`. */
test('move-leader check: skipped when this member answers and another leads; runs when it leads or does not answer', () => {
  const dir = tempDir('kw-etcdctl-');
  const etcdctl = join(dir, 'etcdctl');
  const check = (leader: string | null): number => {
    writeFileSync(etcdctl, leader === null
      ? '#!/bin/sh\necho "context deadline exceeded" >&2\nexit 1\n'
      : `#!/bin/sh\necho '[{"Endpoint":"https://127.0.0.1:2379","Status":{"header":{"cluster_id":14841639068965178418,"member_id":${IDS.m01},"revision":4321,"raft_term":7},"version":"3.6.5","dbSize":2502656,"leader":${leader},"raftIndex":5000,"raftTerm":7,"raftAppliedIndex":5000,"dbSizeInUse":1200128}}]'\n`);
    chmodSync(etcdctl, 0o755);
    try {
      execFileSync('sh', ['-c', memberFollowsCommand().text], { env: { ...process.env, PATH: `${dir}:${process.env.PATH}` }, stdio: 'pipe' });
      return 0;
    } catch (e) {
      return (e as { status: number }).status;
    }
  };
  assert.equal(check(IDS.m02), 0, 'another member leads: nothing to move, skipped');
  assert.notEqual(check(IDS.m01), 0, 'this member leads: the move runs');
  assert.notEqual(check('0'), 0, 'no leader now: not skipped, the step asks the cluster');
  assert.notEqual(check(null), 0, 'the member does not answer: not skipped');
});

/**
 * The maintenance step's HAProxy commands through a real shell with a stand-in socat answering as HAProxy's admin
 * socket does: `shutdown sessions` is sent for the right server (an answer such as "No such server." fails it), and
 * the verify waits for no session left (the `scur` column found by its header's name).
 */
test('maintenance closes the open connections: shutdown sessions sent, verified by no current session left', async () => {
  const dir = tempDir('kw-socat-');
  const got = join(dir, 'got');
  const stat = join(dir, 'stat');
  const answer = join(dir, 'answer');
  writeFileSync(join(dir, 'socat'), `#!/bin/sh\ncmd=$(cat)\necho "$cmd" >> ${got}\ncase "$cmd" in 'show stat') cat ${stat} ;; *) cat ${answer} 2>/dev/null ;; esac\n`);
  chmodSync(join(dir, 'socat'), 0o755);
  const sh = (text: string): number => {
    try {
      execFileSync('sh', ['-c', text], { env: { ...process.env, PATH: `${dir}:${process.env.PATH}` }, stdio: 'pipe' });
      return 0;
    } catch (e) {
      return (e as { status: number }).status;
    }
  };
  const p = await planFor(cluster({ leader: 'm01' }));
  const maint = p.phases[0]!.steps.find((s) => s.id === 'renew-certs/m02/haproxy-maint@lb1')!;
  const server = serverOf('m02');
  writeFileSync(answer, '');
  assert.equal(sh((maint.run as { text: string }).text), 0);
  assert.deepEqual(readFileSync(got, 'utf8').trim().split('\n'), [`set server kubernetes-master-nodes/${server} state maint`, `shutdown sessions server kubernetes-master-nodes/${server}`]);
  writeFileSync(answer, 'No such server.\n');
  assert.notEqual(sh((maint.run as { text: string }).text), 0, 'a refusal by the socket fails the step');
  const csv = (status: string, scur: number) =>
    `# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status\nkubernetes-master-nodes,${server},0,0,${scur},3,,40,0,0,,0,,0,0,0,0,${status}\nkubernetes-master-nodes,other,0,0,7,3,,40,0,0,,0,,0,0,0,0,UP\n`;
  writeFileSync(stat, csv('MAINT', 2));
  assert.notEqual(sh(maint.verify!.text), 0, 'sessions still open: not verified yet');
  writeFileSync(stat, csv('MAINT', 0));
  assert.equal(sh(maint.verify!.text), 0, 'in maintenance with no session left');
  writeFileSync(stat, csv('UP', 0));
  assert.notEqual(sh(maint.verify!.text), 0, 'not in maintenance');
});
