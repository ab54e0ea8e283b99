import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateHaproxyConfig } from '../../../src/core/generate/haproxy';
import { haproxyDownExpectation, notReadyExpectation, quorumText } from '../../../src/core/drill/expect';
import { parseJournalState, parseShowStat } from '../../../src/core/drill/haproxyState';
import { expandTemplate, splitTemplate, TemplateError } from '../../../src/core/drill/localCommand';
import { DrillObserver } from '../../../src/core/drill/observer';
import { clusterTimings, haproxyCfgInfo, parseGoDuration, parseHaproxyTime, serversFor } from '../../../src/core/drill/params';
import { buildDrillPlan, evictablePods, renderDrillPlan, type DrillPodJson } from '../../../src/core/drill/plan';
import { apiStats, buildDrillReport, renderDrillReport, type RunFacts } from '../../../src/core/drill/report';
import { cfg, etcdModel, ids, inv, lease, node, pod, powerOff, snapshot } from './nodeCluster';


// ------------------------------------------------------------------ settings

test('Go durations and HAProxy times', () => {
  assert.equal(parseGoDuration('40s'), 40_000);
  assert.equal(parseGoDuration('1m0s'), 60_000);
  assert.equal(parseGoDuration('500ms'), 500);
  assert.equal(parseGoDuration('1h2m3.5s'), 3_723_500);
  assert.equal(parseGoDuration('forty'), undefined);
  assert.equal(parseHaproxyTime('2s'), 2000);
  assert.equal(parseHaproxyTime('2000'), 2000, 'a bare number is milliseconds');
  assert.equal(parseHaproxyTime('1m'), 60_000);
});

test('the generated haproxy.cfg: admin socket, one server per control-plane node, fall 3 rise 2 inter 2s, timeout connect 5s', () => {
  assert.equal(cfg.statsSocket, '/run/haproxy/admin.sock');
  assert.deepEqual(cfg.servers.map((s) => `${s.backend}/${s.server} ${s.address}:${s.port}`), [
    'kubernetes-master-nodes/labs-k8s-m01 10.3.60.51:6443',
    'kubernetes-master-nodes/labs-k8s-m02 10.3.60.52:6443',
    'kubernetes-master-nodes/labs-k8s-m03 10.3.60.53:6443',
  ]);
  assert.deepEqual(cfg.servers[0]!.params, { inter: 2000, fastinter: 2000, downinter: 2000, fall: 3, rise: 2, timeoutConnect: 5000, timeoutCheck: undefined, checked: true, httpCheck: 'GET /readyz' });
  assert.equal(serversFor(cfg, { name: 'renamed', address: '10.3.60.52' })[0]?.server, 'labs-k8s-m02', 'found by address first');
});

test('default-server and timeout check are honoured', () => {
  const c = haproxyCfgInfo(['defaults', '  timeout connect 3s', '  timeout check 1s', 'backend api', '  default-server inter 1s fall 2', '  server a 10.0.0.1:6443 check rise 5', '  server b 10.0.0.2:6443'].join('\n'));
  assert.deepEqual(c.servers[0]!.params, { inter: 1000, fastinter: 1000, downinter: 1000, fall: 2, rise: 5, timeoutConnect: 3000, timeoutCheck: 1000, checked: true, httpCheck: undefined });
  assert.equal(c.servers[1]!.params.checked, false);
});

test('grace period: 50 s by default since 1.32, 40 s before, the flag wins', () => {
  assert.equal(clusterTimings({ kubeVersion: 'v1.34.12' }).nodeMonitorGraceMs, 50_000);
  assert.equal(clusterTimings({ kubeVersion: 'v1.30.14' }).nodeMonitorGraceMs, 40_000);
  const t = clusterTimings({ kubeVersion: 'v1.34.12', controllerManager: ['kube-controller-manager', '--node-monitor-grace-period=20s', '--leader-elect-retry-period', '1s'], etcd: ['etcd', '--election-timeout=2500'] });
  assert.equal(t.nodeMonitorGraceMs, 20_000);
  assert.equal(t.nodeMonitorGraceSource, 'kube-controller-manager --node-monitor-grace-period');
  assert.equal(t.leaderRetryPeriodMs, 1000);
  assert.equal(t.etcdElectionTimeoutMs, 2500);
});

// ------------------------------------------------------------------ expectations

test('HAProxy DOWN: a powered-off host times out every check (≤ 12 s), a stopped one refuses at once (4–6 s)', () => {
  const p = cfg.servers[0]!.params;
  const off = haproxyDownExpectation('lb', 'm01', p, 'power-off', 2);
  assert.equal(off.min, 4);
  assert.equal(off.max, 12, 'inter 2 + fall 3 × check timeout 2 (= inter, no timeout check) + 2 × fastinter 2');
  assert.match(off.basis, /no `timeout check`/);
  const stop = haproxyDownExpectation('lb', 'm01', p, 'stop', 2);
  assert.deepEqual([stop.min, stop.max], [4, 6]);
  const withCheck = haproxyDownExpectation('lb', 'm01', { ...p, inter: 5000, fastinter: 5000, timeoutCheck: 1000, timeoutConnect: 1000 }, 'power-off', 2);
  assert.equal(withCheck.max, 5 + 3 * 1 + 2 * 5, 'with timeout check the connect phase is min(inter, timeout connect)');
});

test('NotReady: grace minus one lease renewal up to grace plus one monitor period; quorum arithmetic', () => {
  const e = notReadyExpectation(clusterTimings({ kubeVersion: 'v1.34.1' }), 1);
  assert.deepEqual([e.min, e.max], [40, 55]);
  assert.match(quorumText(3, 3, true), /quorum ⌊3\/2⌋\+1 = 2; 3 healthy now, 2 while the node is down → quorum holds, writes go on; tolerates 0 further failures/);
  assert.match(quorumText(3, 2, true), /QUORUM LOST/);
});

// ------------------------------------------------------------------ HAProxy state

const HEADER = '# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,weight,act,bck,chkfail,chkdown,lastchg,downtime,qlimit,pid,iid,sid,throttle,lbtot,tracked,type,rate,rate_lim,rate_max,check_status,check_code,check_duration';
const row = (sv: string, status: string, chk: string, lastchg: number) => `kubernetes-master-nodes,${sv},0,0,0,3,,120,1,1,,0,,0,0,0,0,${status},1,1,0,3,1,${lastchg},12,,1,3,1,,40,,2,0,,3,${chk},,2001`;

test('show stat: status, last check and seconds since the change of one server', () => {
  const csv = [HEADER, 'kubernetes-api,FRONTEND,,,0,3,4096,120,,,,,,,,,,OPEN,,,,,,,,,1,2,0,,,,0,0,0,3,,,', row('labs-k8s-m01', 'DOWN', 'L4TOUT', 3), row('labs-k8s-m02', 'UP', 'L4OK', 900), ''].join('\n');
  assert.deepEqual(parseShowStat(csv, 'kubernetes-master-nodes', 'labs-k8s-m01'), { status: 'DOWN', check: 'L4TOUT', lastChangeSeconds: 3 });
  assert.equal(parseShowStat(csv, 'kubernetes-master-nodes', 'labs-k8s-m02')?.status, 'UP');
  assert.equal(parseShowStat(csv, 'kubernetes-master-nodes', 'nope'), undefined);
});

test('journal fallback: the last UP/DOWN line of the server decides', () => {
  const j = [
    '[WARNING]  (812) : Server kubernetes-master-nodes/labs-k8s-m01 is DOWN, reason: Layer4 timeout, check duration: 2001ms. 2 active and 0 backup servers left.',
    'Server kubernetes-master-nodes/labs-k8s-m02 is DOWN, reason: Layer4 connection problem',
    '[WARNING]  (812) : Server kubernetes-master-nodes/labs-k8s-m01 is UP, reason: Layer4 check passed, check duration: 1ms.',
  ].join('\n');
  assert.deepEqual(parseJournalState(j, 'kubernetes-master-nodes', 'labs-k8s-m01'), { status: 'UP', check: 'Layer4 check passed' });
  assert.deepEqual(parseJournalState(j, 'kubernetes-master-nodes', 'labs-k8s-m02'), { status: 'DOWN', check: 'Layer4 connection problem' });
  assert.equal(parseJournalState(j, 'kubernetes-master-nodes', 'labs-k8s-m03'), undefined);
});

// ------------------------------------------------------------------ local power commands

test('power command templates: words split like a shell would, {host} one argument, never shell syntax', () => {
  assert.deepEqual(splitTemplate(`govc vm.power -off "dc1/vm/{host}" 'a b' c\\ d`), ['govc', 'vm.power', '-off', 'dc1/vm/{host}', 'a b', 'c d']);
  const c = expandTemplate('bash lab/lab.sh fault power-off {host}', { host: 'labs-k8s-m01', address: '10.3.60.51' });
  assert.deepEqual(c.argv, ['bash', 'lab/lab.sh', 'fault', 'power-off', 'labs-k8s-m01']);
  const evil = expandTemplate('virsh destroy {host}', { host: 'x; rm -rf ~', address: '1.2.3.4' });
  assert.deepEqual(evil.argv, ['virsh', 'destroy', 'x; rm -rf ~'], 'a hostile name stays one argument');
  assert.equal(evil.display, `virsh destroy 'x; rm -rf ~'`);
  assert.throws(() => expandTemplate('poweroff-everything', { host: 'h', address: 'a' }), TemplateError);
  assert.throws(() => expandTemplate('ipmitool -H {bmc} -U {host} power off', { host: 'h', address: 'a' }), /unknown placeholder \{bmc\}/);
  assert.throws(() => splitTemplate(`say 'unbalanced`), /unbalanced ' quote/);
});

// ------------------------------------------------------------------ plan


test('plan for powering off the etcd leader: commands, quorum, what moves, expected numbers', () => {
  const plan = buildDrillPlan(inv, powerOff, snapshot());
  assert.deepEqual(plan.refusals, []);
  assert.equal(plan.target.role, 'control-plane');
  assert.deepEqual(plan.fault?.where === 'local' && plan.fault.command.argv, ['bash', 'lab/lab.sh', 'fault', 'power-off', 'labs-k8s-m01']);
  assert.deepEqual(plan.etcd?.survivors, ['labs-k8s-m02', 'labs-k8s-m03']);
  assert.equal(plan.etcd?.leader, plan.etcd?.targetMember, 'm01 leads etcd');
  assert.deepEqual(plan.leases.map((l) => `${l.name}:${l.onTarget}`), ['kube-scheduler:true', 'kube-controller-manager:false']);
  const byId = Object.fromEntries(plan.expectations.map((e) => [e.id, e]));
  assert.deepEqual([byId['haproxy-down@labs-k8s-balancer']?.min, byId['haproxy-down@labs-k8s-balancer']?.max], [4, 12]);
  assert.deepEqual([byId['etcd-leader']?.min, byId['etcd-leader']?.max], [1, 2.2]);
  assert.deepEqual([byId['lease@kube-scheduler']?.min, byId['lease@kube-scheduler']?.max], [13, 21.4]);
  assert.equal(byId['lease@kube-controller-manager']?.informational, true);
  assert.deepEqual([byId['node-notready']?.min, byId['node-notready']?.max], [40, 55]);
  const text = renderDrillPlan(plan);
  assert.match(text, /local: bash lab\/lab.sh fault power-off labs-k8s-m01/);
  assert.match(text, /quorum holds, writes go on; tolerates 0 further failures/);
  assert.match(text, /the failed node is the leader: a new one will be elected/);
  assert.match(text, /kube-scheduler lease: held by labs-k8s-m01 — the failed node: it will move/);
});

test('stop over SSH: the commands go through sudo for a non-root login', () => {
  const plan = buildDrillPlan(inv, { host: 'labs-k8s-w01', kind: 'stop' }, snapshot({ targetCheck: { ok: true, detail: '' } }), () => ({}));
  assert.deepEqual(plan.refusals, []);
  assert.equal(plan.target.role, 'worker');
  assert.equal(plan.fault?.where, 'ssh');
  assert.match(plan.fault?.where === 'ssh' ? plan.fault.command.display : '', /^sudo -n -- sh -c '.*systemctl stop kubelet.*crictl stop --timeout 0/);
  assert.match(plan.restore?.where === 'ssh' ? plan.restore.command.display : '', /systemctl start containerd kubelet/);
  assert.equal(plan.balancers.length, 0, 'a worker is no HAProxy backend');
  assert.equal(plan.etcd, undefined);
});

test('refusals: quorum at stake, a backend already DOWN, no way to power back on, a NotReady target', () => {
  const two = buildDrillPlan(inv, powerOff, snapshot({ etcd: etcdModel('m01', ['m02']), nodes: ['m01', 'm02', 'm03', 'w01', 'w02'].map((n) => node(`labs-k8s-${n}`, n === 'm02' ? 'Unknown' : 'True')) }));
  assert.ok(two.refusals.some((r) => /etcd would lose quorum: 3 members need 2, and only 1 other healthy member/.test(r)), two.refusals.join('\n'));
  assert.ok(two.refusals.some((r) => /labs-k8s-m02 is NotReady/.test(r)));
  const s = snapshot();
  s.balancers[0]!.states!['kubernetes-master-nodes/labs-k8s-m03'] = { status: 'DOWN', check: 'L4CON' };
  assert.ok(buildDrillPlan(inv, powerOff, s).refusals.some((r) => /labs-k8s-m03 is DOWN; fix it before failing labs-k8s-m01/.test(r)));
  const noOn = buildDrillPlan(inv, { ...powerOff, powerOnCommand: undefined }, snapshot());
  assert.ok(noOn.refusals.some((r) => /power-off needs a power-on command/.test(r)));
  const notReady = buildDrillPlan(inv, { host: 'labs-k8s-w01', kind: 'stop' }, snapshot({ nodes: [node('labs-k8s-w01', 'Unknown')] }));
  assert.ok(notReady.refusals.some((r) => /labs-k8s-w01 is NotReady already/.test(r)));
  assert.match(renderDrillPlan(noOn), /REFUSED — nothing will be done/);
  // the seed's single balancer: a balancer drill has nothing to move the VIP to
  assert.match(buildDrillPlan(inv, { host: 'labs-k8s-balancer', kind: 'stop' }, snapshot()).refusals[0] ?? '', /the inventory has one balancer: nothing would take the VIP over/);
});

test('evictable pods: not DaemonSet or static pods; tolerationSeconds per pod', () => {
  const ds = pod('flannel', { ownerReferences: [{ kind: 'DaemonSet', name: 'kube-flannel-ds' }] });
  const mirror = pod('etcd-x', { annotations: { 'kubernetes.io/config.mirror': 'h' }, ownerReferences: [{ kind: 'Node', name: 'x' }] });
  const forever = pod('forever', {}, 'forever');
  const none: DrillPodJson = { metadata: { name: 'bare', namespace: 'default' }, spec: { nodeName: 'w01' }, status: { phase: 'Running' } };
  assert.deepEqual(evictablePods([pod('web-1', {}, 10), ds, mirror, forever, none]), [
    { key: 'default/web-1', tolerationSeconds: 10, owner: 'ReplicaSet/web-5d9c' },
    { key: 'default/forever', tolerationSeconds: undefined, owner: 'ReplicaSet/web-5d9c' },
    { key: 'default/bare', tolerationSeconds: 0, owner: undefined },
  ]);
});

// ------------------------------------------------------------------ timeline → report

const facts = (over: Partial<RunFacts> = {}): RunFacts => ({ startedAt: '2025-01-01T00:00:00Z', faultSeconds: 1.2, observedSeconds: 60, restore: { ok: true, seconds: 6, attempted: true }, recoverySeconds: 40, cancelled: false, probeErrors: {}, ...over });

test('control-plane power-off: the measured moments against their bounds, API failures only before DOWN', () => {
  const plan = buildDrillPlan(inv, powerOff, snapshot());
  const o = new DrillObserver({
    role: 'control-plane',
    targetNode: 'labs-k8s-m01',
    balancers: ['labs-k8s-balancer'],
    etcd: { targetMember: plan.etcd!.targetMember, leader: plan.etcd!.leader, term: 4, names: plan.etcd!.names },
    leases: plan.leases.map((l) => ({ name: l.name, holder: l.holder, onTarget: l.onTarget })),
    evictable: [],
    replicaSets: [],
    waitForEvictions: false,
  });
  const lines: string[] = [];
  const feed = (x: Parameters<DrillObserver['observe']>[0]) => lines.push(...o.observe(x));
  for (let t = 0; t < 20_000; t += 500) feed({ source: 'api', t, ok: !(t >= 1000 && t <= 11_000 && t % 1500 === 0), ms: 10 });
  feed({ source: 'etcd', t: 800, via: 'm02', points: [{ member: ids.m02, leader: ids.m01, term: 4, index: 5100, applied: 5100 }] });
  feed({ source: 'etcd', t: 1700, via: 'm02', points: [{ member: ids.m02, leader: '0', term: 5, index: 5101, applied: 5101 }] });
  feed({ source: 'etcd', t: 2100, via: 'm03', points: [{ member: ids.m03, leader: ids.m03, term: 5, index: 5102, applied: 5102 }] });
  feed({ source: 'haproxy', t: 5000, balancer: 'labs-k8s-balancer', state: { status: 'UP 2/3', check: 'L4TOUT' } });
  feed({ source: 'haproxy', t: 11_300, balancer: 'labs-k8s-balancer', state: { status: 'DOWN', check: 'L4TOUT' } });
  feed({ source: 'lease', t: 17_500, name: 'kube-scheduler', holder: 'labs-k8s-m03_77aa' });
  feed({ source: 'lease', t: 17_600, name: 'kube-controller-manager', holder: 'labs-k8s-m02_0f3c' });
  assert.equal(o.failureComplete(), false, 'NotReady not seen yet');
  feed({ source: 'node', t: 44_000, ready: 'Unknown', reason: 'NodeStatusUnknown', taints: ['node.kubernetes.io/unreachable:NoExecute'] });
  assert.equal(o.failureComplete(), true);
  o.restoreStarted(60_000);
  feed({ source: 'etcd', t: 70_000, via: 'm02', points: [{ member: ids.m01, leader: ids.m03, term: 5, index: 5900, applied: 5880 }, { member: ids.m03, leader: ids.m03, term: 5, index: 6000, applied: 6000 }] });
  feed({ source: 'etcd', t: 72_000, via: 'm02', points: [{ member: ids.m01, leader: ids.m03, term: 5, index: 6100, applied: 6100 }, { member: ids.m03, leader: ids.m03, term: 5, index: 6101, applied: 6101 }] });
  feed({ source: 'node', t: 80_000, ready: 'True', taints: [] });
  assert.equal(o.recoveryComplete(), false, 'HAProxy not UP yet');
  feed({ source: 'haproxy', t: 90_000, balancer: 'labs-k8s-balancer', state: { status: 'UP', check: 'L4OK' } });
  assert.equal(o.recoveryComplete(), true);
  assert.ok(lines.includes('etcd-leader: labs-k8s-m03 elected, term 4 → 5'), lines.join('\n'));

  const report = buildDrillReport(plan, o.timeline(), facts());
  const m = Object.fromEntries(report.measurements.map((x) => [x.id, x]));
  assert.deepEqual([m['haproxy-down@labs-k8s-balancer']?.seconds, m['haproxy-down@labs-k8s-balancer']?.verdict], [11.3, 'pass']);
  assert.deepEqual([m['etcd-leader']?.seconds, m['etcd-leader']?.verdict], [2.1, 'pass']);
  assert.deepEqual([m['lease@kube-scheduler']?.seconds, m['lease@kube-scheduler']?.verdict], [17.5, 'pass']);
  assert.equal(m['lease@kube-controller-manager']?.detail, 'stayed on labs-k8s-m02');
  assert.deepEqual([m['node-notready']?.seconds, m['node-notready']?.verdict], [44, 'pass']);
  assert.deepEqual([m['etcd-caught-up']?.seconds, m['etcd-caught-up']?.sinceFault], [12, 72]);
  assert.deepEqual([m['haproxy-up@labs-k8s-balancer']?.seconds, m['haproxy-up@labs-k8s-balancer']?.verdict], [30, 'pass']);
  assert.equal(m.api?.verdict, 'pass');
  assert.match(m.api!.detail!, /failed while the node was down \(\d+ before HAProxy marked it DOWN, 0 after\)/);
  assert.equal(report.ok, true);
  const md = renderDrillReport(report);
  assert.match(md, /— PASSED/);
  assert.match(md, /\| HAProxy on labs-k8s-balancer marks labs-k8s-m01 DOWN \| 11.3 s \| 4–12 s \| pass \| DOWN \(L4TOUT\) \|/);
  assert.match(md, /leader labs-k8s-m01 → labs-k8s-m03, term 4 → 5/);
});

test('a request failing after HAProxy marked the server DOWN fails the drill; a missing NotReady too', () => {
  const plan = buildDrillPlan(inv, powerOff, snapshot({ etcd: etcdModel('m02') }));
  const o = new DrillObserver({ role: 'control-plane', targetNode: 'labs-k8s-m01', balancers: ['labs-k8s-balancer'], etcd: { targetMember: plan.etcd!.targetMember, leader: plan.etcd!.leader, term: 4, names: plan.etcd!.names }, leases: [], evictable: [], replicaSets: [], waitForEvictions: false });
  o.observe({ source: 'haproxy', t: 10_000, balancer: 'labs-k8s-balancer', state: { status: 'DOWN' } });
  o.observe({ source: 'api', t: 15_000, ok: false, ms: 2000, error: 'timed out' });
  o.observe({ source: 'etcd', t: 3000, via: 'm02', points: [{ member: ids.m02, leader: ids.m02, term: 4, index: 1, applied: 1 }] });
  o.restoreStarted(80_000);
  const report = buildDrillReport(plan, o.timeline(), facts());
  const m = Object.fromEntries(report.measurements.map((x) => [x.id, x]));
  assert.equal(m.api?.verdict, 'fail');
  assert.equal(m['etcd-leader']?.verdict, 'info');
  assert.equal(m['etcd-leader']?.detail, 'leader unchanged (labs-k8s-m02), term 4 → 4');
  assert.equal(m['node-notready']?.verdict, 'fail');
  assert.equal(m['node-ready']?.verdict, 'fail', 'never came back within the limit');
  assert.equal(report.ok, false);
});

test('worker: evictions not waited for say how long they would take; waited for, they are measured', () => {
  const pods = [pod('web-1', {}, 10), pod('web-2', {}, 10)];
  const s = snapshot({ pods, replicaSets: [{ key: 'default/web-5d9c', desired: 4 }], targetCheck: { ok: true, detail: '' } });
  const notWaited = buildDrillPlan(inv, { host: 'labs-k8s-w01', kind: 'stop' }, s);
  const o1 = new DrillObserver({ role: 'worker', targetNode: 'labs-k8s-w01', balancers: [], leases: [], evictable: ['default/web-1', 'default/web-2'], replicaSets: [], waitForEvictions: false });
  o1.observe({ source: 'node', t: 45_000, ready: 'Unknown', taints: [] });
  assert.equal(o1.failureComplete(), true);
  const r1 = buildDrillReport(notWaited, o1.timeline(), facts());
  const ev1 = r1.measurements.find((x) => x.id === 'evictions-later')!;
  assert.equal(ev1.verdict, 'not waited');
  assert.equal(ev1.detail, 'would take 50–85 s after the fault; run with an eviction wait to watch them');
  assert.equal(notWaited.awaited.length, 0);

  const waited = buildDrillPlan(inv, { host: 'labs-k8s-w01', kind: 'stop', evictionWaitSeconds: 60 }, { ...s, pods: [...pods, pod('slow', {}, 300)] });
  assert.deepEqual(waited.awaited, ['default/web-1', 'default/web-2'], 'the pod tolerating 300 s does not fit in a 60 s wait');
  assert.deepEqual(waited.replicaSets, [{ key: 'default/web-5d9c', desired: 4 }]);
  const o2 = new DrillObserver({ role: 'worker', targetNode: 'labs-k8s-w01', balancers: [], leases: [], evictable: ['default/web-1', 'default/web-2'], replicaSets: [{ key: 'default/web-5d9c', desired: 4 }], waitForEvictions: true });
  o2.observe({ source: 'node', t: 45_000, ready: 'Unknown', taints: ['node.kubernetes.io/unreachable:NoExecute'] });
  o2.observe({ source: 'pods', t: 56_000, pods: [{ key: 'default/web-1', deleting: true }, { key: 'default/web-2', deleting: false }] });
  o2.observe({ source: 'pods', t: 58_000, pods: [{ key: 'default/web-1', deleting: true }, { key: 'default/web-2', deleting: true }] });
  assert.equal(o2.failureComplete(), false, 'replicas not back yet');
  o2.observe({ source: 'replicas', t: 63_000, key: 'default/web-5d9c', ready: 4, desired: 4 });
  assert.equal(o2.failureComplete(), true);
  o2.restoreStarted(64_000);
  o2.observe({ source: 'node', t: 70_000, ready: 'True', taints: [] });
  assert.equal(o2.recoveryComplete(), false, 'Terminating pods still listed');
  o2.observe({ source: 'pods', t: 72_000, pods: [] });
  assert.equal(o2.recoveryComplete(), true);
  const r2 = buildDrillReport(waited, o2.timeline(), facts());
  const m = Object.fromEntries(r2.measurements.map((x) => [x.id, x]));
  assert.deepEqual([m.evictions?.seconds, m.evictions?.verdict, m.evictions?.expected], [58, 'pass', '54–60 s'], 'counted from the taint seen at 45 s (up to a poll after it came): tolerationSeconds 10 (+5)');
  assert.deepEqual([m['node-taint']?.seconds, m['node-taint']?.verdict, m['node-taint']?.expected], [45, 'pass', '44–60 s']);
  assert.equal(m['evictions-first']?.seconds, 56);
  assert.equal(m.replicas?.seconds, 63);
  assert.deepEqual([m['pods-cleaned']?.seconds, m['pods-cleaned']?.sinceFault], [8, 72]);
  assert.equal(m.api?.verdict, 'pass', 'no request at all is no failure');
  assert.equal(m['evictions-later']?.detail, 'would take 340–375 s after the fault');
  assert.match(renderDrillPlan(waited), /the drill waits for the eviction of 2: default\/web-1, default\/web-2/);
});

test('worker: the evictions are judged from the taint, which may wait its turn (node-eviction-rate) after NotReady', () => {
  const pods = [pod('web-1', {}, 10)];
  const s = snapshot({ pods, replicaSets: [], targetCheck: { ok: true, detail: '' } });
  const plan = buildDrillPlan(inv, { host: 'labs-k8s-w01', kind: 'stop', evictionWaitSeconds: 45 }, s);
  const run = (taintAt: number, evictedAt: number) => {
    const o = new DrillObserver({ role: 'worker', targetNode: 'labs-k8s-w01', balancers: [], leases: [], evictable: ['default/web-1'], replicaSets: [], waitForEvictions: true });
    o.observe({ source: 'node', t: 52_000, ready: 'Unknown', taints: [] });
    o.observe({ source: 'node', t: taintAt, ready: 'Unknown', taints: ['node.kubernetes.io/unreachable:NoExecute'] });
    o.observe({ source: 'pods', t: evictedAt, pods: [{ key: 'default/web-1', deleting: true }] });
    return Object.fromEntries(buildDrillReport(plan, o.timeline(), facts()).measurements.map((x) => [x.id, x]));
  };
  // Tainted 10 s after NotReady (another node's taint took the zone's token): the pod goes 10 s after the taint.
  const late = run(62_000, 74_000);
  assert.deepEqual([late['node-taint']?.verdict, late['node-taint']?.expected], ['pass', '51–67 s']);
  assert.deepEqual([late.evictions?.verdict, late.evictions?.expected], ['pass', '71–77 s']);
  assert.match(late.evictions?.detail ?? '', /counted from the taint seen at 62 s: tolerationSeconds 10 s \(\+ 5 s\)/);
  // Tainted at once, but the pod lingers 22 s: the eviction controller is late, whatever the fault's window says.
  const slow = run(52_000, 74_000);
  assert.deepEqual([slow.evictions?.verdict, slow.evictions?.expected], ['fail', '61–67 s']);
  // A taint long after NotReady is reported as such.
  assert.equal(run(75_000, 85_000)['node-taint']?.verdict, 'fail');
  // The taint came at 52.2 s but was seen at the next poll, 54 s: a pod deleted 10 s after it is on time, not early.
  const seenLate = run(54_000, 62_200);
  assert.equal(seenLate.evictions?.verdict, 'pass', seenLate.evictions?.detail);
  // The node's probe failed for a while and saw the taint only after the evictions: judged from the fault instead.
  const afterwards = run(70_000, 65_000);
  assert.deepEqual([afterwards.evictions?.verdict, afterwards.evictions?.expected], ['pass', '50–85 s']);
  const early = run(52_000, 58_000).evictions;
  assert.equal(early?.verdict, 'fail');
  assert.match(early?.detail ?? '', /cannot happen that early after the node-taint seen at 52 s/);
});

test('worker: with --node-eviction-rate 0 the controller taints no node: nothing is waited for, the taint is not judged', () => {
  const s = snapshot({ pods: [pod('web-1', {}, 10)], replicaSets: [], targetCheck: { ok: true, detail: '' }, componentArgs: { kubeVersion: 'v1.34.12', controllerManager: ['kube-controller-manager', '--node-eviction-rate=0'] } });
  const plan = buildDrillPlan(inv, { host: 'labs-k8s-w01', kind: 'stop', evictionWaitSeconds: 120 }, s);
  assert.equal(plan.timings.nodeEvictionRate, 0);
  assert.deepEqual(plan.awaited, []);
  assert.ok(plan.warnings.some((w) => /--node-eviction-rate 0: it taints no node NoExecute/.test(w)), plan.warnings.join('\n'));
  assert.ok(!plan.expectations.some((e) => e.id === 'evictions'));
  // the pod not waited for is not given a time it would go: it stays
  assert.ok(!plan.expectations.some((e) => e.id === 'evictions-later'));
  assert.match(plan.expectations.find((e) => e.id === 'evictions-never')?.basis ?? '', /--node-eviction-rate 0/);
});

test('API availability: outage windows, failures before and after DOWN, recovery failures apart', () => {
  const s = apiStats([{ t: 0, ok: true }, { t: 500, ok: false }, { t: 1000, ok: false }, { t: 1500, ok: true }, { t: 9000, ok: false }, { t: 9500, ok: true }, { t: 30_000, ok: false }, { t: 30_500, ok: true }], 6000, 20_000);
  assert.equal(s.requests, 8);
  assert.equal(s.requestsWhileDown, 6);
  assert.equal(s.failedBeforeDown, 2);
  assert.equal(s.failedAfterDown, 1);
  assert.equal(s.failedDuringRecovery, 1);
  assert.equal(s.longestOutageSeconds, 1);
});

test('a failed restore is reported with the command to run by hand', () => {
  const plan = buildDrillPlan(inv, powerOff, snapshot());
  const o = new DrillObserver({ role: 'control-plane', targetNode: 'labs-k8s-m01', balancers: [], leases: [], evictable: [], replicaSets: [], waitForEvictions: false });
  const r = buildDrillReport(plan, o.timeline(), facts({ restore: { ok: false, seconds: undefined, error: 'exited 1: no such VM', attempted: true } }));
  assert.equal(r.ok, false);
  assert.ok(r.notes.some((n) => n.includes('RESTORE FAILED: exited 1: no such VM — bring labs-k8s-m01 back by hand: bash lab/lab.sh fault power-on labs-k8s-m01')));
});

test('the failed node ran the controller-manager leader: NotReady counts from the takeover (measured on the lab: lease 19 s, NotReady 71.1 s)', () => {
  const plan = buildDrillPlan(inv, powerOff, snapshot({ leaderLeases: [lease('kube-scheduler', 'labs-k8s-m01'), lease('kube-controller-manager', 'labs-k8s-m01')] }));
  const nr = plan.expectations.find((e) => e.id === 'node-notready')!;
  assert.deepEqual([nr.min, nr.max], [63, 78.4], 'lease handover 13–21.4 s + grace 50 s (+ monitor period 5 s + 2 s sync)');
  assert.match(nr.basis, /new leader's controller counts node-monitor-grace-period 50 s .* from its takeover/);
  assert.equal(plan.limits.observeSeconds, 109, 'the observation lasts long enough for it');
  const o = new DrillObserver({ role: 'control-plane', targetNode: 'labs-k8s-m01', balancers: [], leases: plan.leases.map((l) => ({ name: l.name, holder: l.holder, onTarget: l.onTarget })), evictable: [], replicaSets: [], waitForEvictions: false });
  o.observe({ source: 'lease', t: 19_000, name: 'kube-controller-manager', holder: 'labs-k8s-m03_1' });
  o.observe({ source: 'node', t: 71_100, ready: 'Unknown', taints: [] });
  o.restoreStarted(71_400);
  const m = buildDrillReport(plan, o.timeline(), facts()).measurements.find((x) => x.id === 'node-notready')!;
  assert.deepEqual([m.seconds, m.expected, m.verdict], [71.1, '69–76 s', 'pass']);
  assert.match(m.detail!, /counted from the controller-manager takeover at 19 s/);
});

test('both bounds are judged: a moment earlier than the settings allow fails the drill, on the way down and back', () => {
  // A worker: NotReady cannot come before node-monitor-grace-period minus one lease renewal (50 − 10 s on 1.34).
  const worker = buildDrillPlan(inv, { host: 'labs-k8s-w01', kind: 'stop' }, snapshot({ targetCheck: { ok: true, detail: '' } }));
  const early = new DrillObserver({ role: 'worker', targetNode: 'labs-k8s-w01', balancers: [], leases: [], evictable: [], replicaSets: [], waitForEvictions: false });
  early.observe({ source: 'node', t: 3000, ready: 'Unknown', taints: [] });
  early.restoreStarted(4000);
  early.observe({ source: 'node', t: 9000, ready: 'True', taints: [] });
  const r = buildDrillReport(worker, early.timeline(), facts());
  const nr = r.measurements.find((x) => x.id === 'node-notready')!;
  assert.deepEqual([nr.seconds, nr.expected, nr.verdict], [3, '40–55 s', 'fail']);
  assert.match(nr.detail!, /faster than the 40 s floor/);
  assert.equal(r.ok, false);
  assert.match(renderDrillReport(r), /— FAILED/);
  // Just inside the floor's allowance (polls are never early; samples are stamped mid-request): still a pass.
  const onTime = new DrillObserver({ role: 'worker', targetNode: 'labs-k8s-w01', balancers: [], leases: [], evictable: [], replicaSets: [], waitForEvictions: false });
  onTime.observe({ source: 'node', t: 38_600, ready: 'Unknown', taints: [] });
  onTime.restoreStarted(39_000);
  onTime.observe({ source: 'node', t: 45_000, ready: 'True', taints: [] });
  assert.equal(buildDrillReport(worker, onTime.timeline(), facts()).ok, true);

  // A control-plane power-off: HAProxy needs fall checks fastinter apart to mark DOWN (≥ 4 s) and rise checks to
  // mark UP again (≥ 2 s after the restore); NotReady after the controller-manager takeover needs the grace period.
  const cp = buildDrillPlan(inv, powerOff, snapshot({ etcd: etcdModel('m02'), leaderLeases: [lease('kube-scheduler', 'labs-k8s-m02'), lease('kube-controller-manager', 'labs-k8s-m01')] }));
  const upFloor = cp.expectations.find((e) => e.id === 'haproxy-up@labs-k8s-balancer')!;
  assert.deepEqual([upFloor.min, upFloor.max, upFloor.informational], [2, 300, undefined]);
  const o = new DrillObserver({ role: 'control-plane', targetNode: 'labs-k8s-m01', balancers: ['labs-k8s-balancer'], etcd: { targetMember: cp.etcd!.targetMember, leader: cp.etcd!.leader, term: 4, names: cp.etcd!.names }, leases: cp.leases.map((l) => ({ name: l.name, holder: l.holder, onTarget: l.onTarget })), evictable: [], replicaSets: [], waitForEvictions: false });
  o.observe({ source: 'haproxy', t: 1000, balancer: 'labs-k8s-balancer', state: { status: 'DOWN', check: 'L4TOUT' } });
  o.observe({ source: 'lease', t: 18_000, name: 'kube-controller-manager', holder: 'labs-k8s-m03_1' });
  o.observe({ source: 'node', t: 40_000, ready: 'Unknown', taints: [] });
  o.restoreStarted(41_000);
  o.observe({ source: 'node', t: 50_000, ready: 'True', taints: [] });
  o.observe({ source: 'etcd', t: 50_000, via: 'm02', points: [{ member: ids.m01, leader: ids.m02, term: 4, index: 10, applied: 10 }, { member: ids.m02, leader: ids.m02, term: 4, index: 10, applied: 10 }] });
  o.observe({ source: 'haproxy', t: 41_200, balancer: 'labs-k8s-balancer', state: { status: 'UP', check: 'L4OK' } });
  const m = Object.fromEntries(buildDrillReport(cp, o.timeline(), facts()).measurements.map((x) => [x.id, x]));
  assert.deepEqual([m['haproxy-down@labs-k8s-balancer']?.verdict, m['haproxy-down@labs-k8s-balancer']?.detail], ['fail', 'DOWN (L4TOUT); faster than the 4 s floor (−1.5 s slack): it cannot happen that early after this fault']);
  assert.deepEqual([m['node-notready']?.seconds, m['node-notready']?.expected, m['node-notready']?.verdict], [40, '68–75 s', 'fail']);
  assert.deepEqual([m['haproxy-up@labs-k8s-balancer']?.seconds, m['haproxy-up@labs-k8s-balancer']?.expected, m['haproxy-up@labs-k8s-balancer']?.verdict], [0.2, '2–300 s', 'fail']);
});

// ------------------------------------------------------------------ a control plane back: admitted before it can serve

const tcpCfg = haproxyCfgInfo(generateHaproxyConfig(inv).replace('    option httpchk GET /readyz\n    http-check expect status 200\n', '    option tcp-check\n').replace(/ check-ssl verify none/g, ''));

test('the check kind: the backend\'s option httpchk over the defaults\', option tcp-check resets it, a bare httpchk is OPTIONS /', () => {
  assert.equal(tcpCfg.servers[0]!.params.httpCheck, undefined);
  const c = haproxyCfgInfo(['defaults', '  option httpchk', 'backend a', '  server a 10.0.0.1:6443 check', 'backend b', '  option tcp-check', '  server b 10.0.0.2:6443 check'].join('\n'));
  assert.deepEqual(c.servers.map((s) => s.params.httpCheck), ['OPTIONS /', undefined]);
});

/** m03 stopped and restored at 20 s: HAProxy UP at `upAt`, its own /readyz ok at 31 s, requests failing at `failAt`. */
function comeBack(check: typeof cfg, upAt: number, failAt: number[], probed = true) {
  const plan = buildDrillPlan(inv, { host: 'labs-k8s-m03', kind: 'stop' }, snapshot({ balancers: [{ ...snapshot().balancers[0]!, cfg: check }] }));
  const o = new DrillObserver({ role: 'control-plane', targetNode: 'labs-k8s-m03', balancers: ['labs-k8s-balancer'], apiserverProbed: probed, etcd: { targetMember: plan.etcd!.targetMember, leader: plan.etcd!.leader, term: 4, names: plan.etcd!.names }, leases: [], evictable: [], replicaSets: [], waitForEvictions: false });
  o.observe({ source: 'haproxy', t: 5000, balancer: 'labs-k8s-balancer', state: { status: 'DOWN', check: 'L4CON' } });
  o.restoreStarted(20_000);
  for (let t = 20_000; t < 40_000; t += 500) o.observe({ source: 'api', t, ok: !failAt.includes(t), ms: 5 });
  o.observe({ source: 'node', t: 22_000, ready: 'True', taints: [] });
  o.observe({ source: 'etcd', t: 24_000, via: 'labs-k8s-m01', points: [{ member: ids.m03, leader: ids.m01, term: 4, index: 6100, applied: 6100 }, { member: ids.m01, leader: ids.m01, term: 4, index: 6100, applied: 6100 }] });
  o.observe({ source: 'apiserver', t: 30_000, ready: false });
  o.observe({ source: 'haproxy', t: upAt, balancer: 'labs-k8s-balancer', state: { status: 'UP', check: upAt < 31_000 ? 'L4OK' : 'L7OK' } });
  const completeBeforeReady = o.recoveryComplete();
  o.observe({ source: 'apiserver', t: 31_000, ready: true });
  return { plan, completeBeforeReady, complete: o.recoveryComplete(), report: buildDrillReport(plan, o.timeline(), facts({ apiserverProbed: probed })) };
}

test('a control plane back under a TCP check: admitted before its own /readyz, the failures named with the fix; the drill waits for readiness', () => {
  const { plan, completeBeforeReady, complete, report } = comeBack(tcpCfg, 25_000, [26_000, 27_500]);
  assert.match(renderDrillPlan(plan), /once kube-apiserver listens again/);
  assert.equal(completeBeforeReady, false, 'HAProxy UP is not the end of the way back while the API server cannot serve');
  assert.equal(complete, true);
  const m = Object.fromEntries(report.measurements.map((x) => [x.id, x]));
  assert.deepEqual([m['apiserver-ready']?.seconds, m['apiserver-ready']?.verdict], [11, 'pass']);
  assert.equal(report.api.failedDuringRecovery, 2);
  const note = report.notes.find((n) => n.includes('came back'));
  assert.match(note ?? '', /^2 API request\(s\) through the VIP failed while labs-k8s-m03 came back\. HAProxy admitted it \(labs-k8s-balancer 5 s after the restore began\) before its own \/readyz was ok \(11 s\)\. labs-k8s-balancer checks it over TCP.*option httpchk GET \/readyz/);
  // No failure seen (few requests hit it), the early admission is still reported.
  const quiet = comeBack(tcpCfg, 25_000, []);
  assert.match(quiet.report.notes.find((n) => n.includes('came back')) ?? '', /^no API request failed while labs-k8s-m03 came back, but HAProxy admitted it .* could fail\. labs-k8s-balancer checks it over TCP/);
});

test('a control plane back under the /readyz check: admitted after it can serve, nothing to say; not reachable directly: not measured, not waited for', () => {
  const { plan, report } = comeBack(cfg, 32_000, []);
  assert.match(renderDrillPlan(plan), /answers `GET \/readyz` as the backend expects/);
  assert.equal(report.notes.filter((n) => n.includes('came back')).length, 0, report.notes.join('\n'));
  const off = comeBack(cfg, 32_000, [], false);
  assert.equal(off.completeBeforeReady, true, 'nothing waits for a readiness it cannot see');
  const m = off.report.measurements.find((x) => x.id === 'apiserver-ready');
  assert.equal(m?.verdict, 'not observed');
  assert.match(m?.detail ?? '', /10\.3\.60\.53 did not answer \/readyz from here/);
});
