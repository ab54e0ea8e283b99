/**
 * The balancer drills on the lab's pair (labs-k8s-balancer MASTER 100, labs-k8s-balancer2 BACKUP 90, advert_int 1,
 * chk_haproxy `killall -0 haproxy` every 2 s, weight −20), through `kubeadm-workbench drill` as an admin runs it, each
 * number asserted against the bound the seed's formula gives from the files on the balancers (read here with regular
 * expressions, not the product's parser), with probes of the test's own: who holds the VIP (ssh + ip addr, every
 * 250 ms) and an authenticated client through the VIP (every 250 ms, 2 s timeout):
 *  - HAProxy stopped on the VIP holder: the VIP on the BACKUP within interval × fall + Master_Down_Interval, the
 *    failed requests only until then, back after the restore (preempt) with at most the one request in flight failed;
 *  - weights too small (−5: 100 − 5 = 95 not below 90): refused before anything runs, naming the numbers;
 *  - keepalived stopped on the VIP holder: the VIP on the BACKUP within its skew (a priority-0 advert), at most the one
 *    request in flight failed each way, back after the start (preempt);
 *  - the VIP holder powered off: the VIP on the BACKUP within Master_Down_Interval, a node's ARP entry with it, the
 *    failed requests bounded by the SYN retry, back (preempt) within a bound from keepalived's start on the powered-on
 *    holder, with at most the one request in flight failed;
 *  - split brain: VRRP blocked by the drill — both MASTER, the live view's read names it within 5 s; and by the lab's
 *    own fault — `status --ssh`, run once the second MASTER is seen (again until it names it), names it with its cause
 *    (exit 1) within 5 s of the second MASTER.
 * DESTRUCTIVE for the lab for about three and a half minutes; every fault is undone by the drill or here.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseInventory } from '../../src/core/inventory/parse';
import { recordBench } from './bench';
import { waitHealthy, TAKE_OVER_HEALTHY_MS } from './clusterHealth';
import { keepalivedNumbers, lab, LAB, masterDownSeconds, measured, ROOT, runDrill, sleep, ssh, watchVip, type DrillRun } from './drillRun';
import { pollHttp, type PollResult } from './httpPoller';
import { labEnv } from './labEditor';
import { adminTls } from './upgradeTarget';
import { tempDir } from '../tempDir';

const env = labEnv();
const home = tempDir('kw-balancers-home-');
const inv = parseInventory(readFileSync(env.LAB_INVENTORY!, 'utf8')).inventory!;
const [LB1, LB2] = inv.hosts.filter((h) => h.roles.includes('loadbalancer')).map((h) => h.name) as [string, string];
const VIP = inv.cluster.controlPlaneEndpoint.split(':')[0]!;
const numbers: Record<string, unknown> = {};
/** The test's own VIP poll (250 ms + an ssh round trip) and the fault command's start: what may lie between the drill's moment and ours. */
const POLL_MARGIN = 1;
/**
 * Requests through the VIP that may fail while it moves gracefully (keepalived stopped, or the VIP's return by preempt):
 * the old holder drops the VIP as the new one takes it with gratuitous ARP, which a Linux client applies at once (a
 * gratuitous ARP overrides the neighbour entry's locktime). Our client sends one request at a time, so one at most is in
 * flight when its ARP entry flips: that one may time out (its answer lost between the two). A request on a kept-alive
 * connection reset by the new holder before any answer is sent again by the poller (as Go's transport does); a new
 * connection whose SYN met the old holder is retried by TCP 1 s later, after the move, within the 2 s timeout.
 */
const GRACEFUL_IN_FLIGHT = 1;

/** The authenticated client through the VIP: a GET of the default namespace, as any kubectl call. */
function apiClient() {
  return pollHttp([`https://${VIP}:6443/api/v1/namespaces/default`], { ...adminTls(env.KUBECONFIG!), expect: /"name":\s*"default"/, everyMs: 250 });
}

/**
 * A VIP drill of `LB1` watched from outside: the authenticated client through the VIP and the test's own VIP watch run
 * from before the drill until our watch sees `LB1` alone holding the VIP again (within `backWithinMs` of the drill's
 * restore: bounded, not raced); the drill must pass its own `vip-moved` verdict.
 */
async function observedDrill(args: string[], backWithinMs: number, timeoutMs?: number) {
  const started = Date.now();
  const api = apiClient();
  const vip = watchVip(env, VIP, [LB1, LB2]);
  const run = await runDrill(env, home, ['--host', LB1, ...args], timeoutMs);
  if (run.restoreAt) await vip.seenAlone(LB1, run.restoreAt, backWithinMs);
  const changes = await vip.stop();
  const polled = await api.stop();
  assert.equal(run.code, 0, run.out.slice(-3000));
  const r = run.report!;
  const moved = measured(r, 'vip-moved');
  assert.equal(moved.verdict, 'pass', `${moved.seconds} s vs ${moved.expected}`);
  return { started, run, changes, polled, r, moved };
}

/** Seconds after `from` of each `+S s URL: …` failure of a poller started at `started`. */
function failureTimes(failures: string[], started: number, from: number): number[] {
  return failures.map((f) => started + Number(/^\+([\d.]+) s/.exec(f)![1]) * 1000 - from).map((ms) => Math.round(ms / 100) / 10);
}

type VipChanges = { at: number; holders: string[] }[];

/** Seconds from `from` to `at`, to a tenth. */
const secondsAfter = (at: number | undefined, from: number): number | undefined => (at === undefined ? undefined : Math.round((at - from) / 100) / 10);

/** When the test's own poll first saw `holder` holding the VIP alone after `from` (seconds after it). */
function seenAlone(changes: VipChanges, holder: string, from: number): number | undefined {
  return secondsAfter(changes.find((x) => x.at >= from && x.holders.length === 1 && x.holders[0] === holder)?.at, from);
}

/** When (Date.now()) the test's own poll first saw `host` without the VIP at or after `from`. */
function seenWithout(changes: VipChanges, host: string, from: number): number | undefined {
  return changes.find((x) => x.at >= from && !x.holders.includes(host))?.at;
}

/** The moment (Date.now()) keepalived started on `host` at or after `fromMs`: the first `Starting` line of its unit's journal. */
function keepalivedStartedAt(host: string, fromMs: number): number | undefined {
  // -o short-unix: epoch seconds with microseconds; the lab's machines are containers of this kernel, on this clock
  const out = ssh(env, host, `journalctl -u keepalived -o short-unix --no-pager --since @${Math.floor(fromMs / 1000) - 1}`).stdout;
  const line = out.split('\n').map((l) => /^(\d+\.\d+) .*Starting/.exec(l)).find((m) => m && Number(m[1]) * 1000 >= fromMs);
  return line ? Number(line[1]) * 1000 : undefined;
}

interface StatusRun {
  /** Date.now() at its start and its end. */
  start: number;
  end: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `status --ssh --json` as an admin runs it, asynchronously (the VIP watch goes on beside it). */
function statusOnce(): Promise<StatusRun> {
  return new Promise((res) => {
    const start = Date.now();
    const p = spawn(process.execPath, [join(ROOT, 'dist/cli.js'), 'status', '--json', '--ssh', '--inventory', env.LAB_INVENTORY!, '--kubeconfig', env.KUBECONFIG!, '--ssh-config', env.LAB_SSH_CONFIG!, '--known-hosts', env.LAB_KNOWN_HOSTS!], { env: { ...process.env, PATH: env.PATH!, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => p.kill('SIGKILL'), 60_000);
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', (e) => (clearTimeout(timer), res({ start, end: Date.now(), code: null, stdout, stderr: `${stderr}${e.message}` })));
    // 'close', not 'exit': the JSON may still be in the pipe when the process has exited
    p.on('close', (code) => (clearTimeout(timer), res({ start, end: Date.now(), code, stdout, stderr })));
  });
}

/** The split-brain problem of a status run's JSON, if it names one. */
function splitBrainProblem(s: StatusRun): { severity: string; what: string } | undefined {
  try {
    return (JSON.parse(s.stdout) as { problems: { severity: string; what: string }[] }).problems.find((x) => /split brain/.test(x.what));
  } catch {
    return undefined;
  }
}

/**
 * The failed requests (seconds after the fault, as they failed) split at the restore by when each began: `back`, the
 * VIP's way back, those begun once the restore had begun. A request that timed out began its 2 s earlier: one in flight
 * at the move may fail after a restore that came soon after it, and belongs to the move.
 */
function splitAtRestore(polled: PollResult, run: DrillRun): { during: number[]; back: number[] } {
  const t = (f: PollResult['failed'][number]) => Math.round((f.at - run.faultAt!) / 100) / 10;
  const back = (f: PollResult['failed'][number]) => f.at - (/^timed out/.test(f.problem) ? 2000 : 0) >= run.restoreAt!;
  return { during: polled.failed.filter((f) => !back(f)).map(t), back: polled.failed.filter(back).map(t) };
}

describe('balancer drills on the lab pair', { timeout: 20 * 60_000 }, () => {
  before(async () => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root');
    await waitHealthy(env, home, TAKE_OVER_HEALTHY_MS);
    assert.ok(ssh(env, LB1, `ip -o -4 addr show | grep -q ' ${VIP}/'`).code === 0, `${LB1} does not hold the VIP at the start`);
  });

  after(() => {
    console.log('balancer drill numbers:', JSON.stringify(numbers, null, 2));
    // flat, as the bench file keeps them: balancer.haproxy.moved, balancer.powerOff.failed, …
    recordBench(Object.fromEntries(Object.entries(numbers).flatMap(([k, v]) => Object.entries(v as Record<string, unknown>).filter(([, x]) => typeof x === 'number').map(([kk, x]) => [`balancer.${k}.${kk}`, x as number]))));
  });

  test('HAProxy stopped on the VIP holder: the VIP moves within interval × fall + Master_Down_Interval, failures only until then, back after (preempt)', async () => {
    const m = keepalivedNumbers(env, LB1);
    const b = keepalivedNumbers(env, LB2);
    const mdi = masterDownSeconds(b.advert, b.priority);
    const bound = m.interval * m.fall + mdi; // lab: 2 × 1 + 3 + (256 − 90)/256 = 5.65 s
    const back = m.interval * m.rise + masterDownSeconds(m.advert, m.priority); // 2 × 1 + 3.61 = 5.61 s
    // the drill ends once its own probe sees the VIP back: ours is waited for (bounded), not raced
    const { started, run, changes, polled, r, moved } = await observedDrill(['--kind', 'haproxy'], 30_000);
    assert.ok(moved.seconds! <= bound + 1, `the drill saw the move at ${moved.seconds} s, bound ${bound.toFixed(2)} s`);
    // our own poll: the VIP alone on the BACKUP within the bound (+ the poll's own margin)
    const ours = seenAlone(changes, LB2, run.faultAt!);
    assert.ok(ours !== undefined && ours <= bound + POLL_MARGIN, `our poll saw ${LB2} alone at ${ours} s after the fault, bound ${bound.toFixed(2)} + ${POLL_MARGIN} s`);
    // HAProxy refuses at once on the holder: every request until the move fails, none after it (+ the 2 s timeout)
    const times = failureTimes(polled.failures, started, run.faultAt!);
    const whileFailed = times.filter((t) => t >= -0.5 && run.restoreAt && t < (run.restoreAt - run.faultAt!) / 1000);
    const allowed = Math.ceil((bound + POLL_MARGIN) / 0.25) + 1;
    // at least one request per half second of the drill (a failing one waits out its 2 s timeout)
    const minPolls = Math.floor(((Date.now() - started) / 1000) * 2);
    assert.ok(polled.polls >= minPolls, `only ${polled.polls} requests through the VIP (at least ${minPolls})`);
    assert.ok(whileFailed.length <= allowed, `${whileFailed.length} requests failed during the fault (allowed ${allowed}): ${polled.failures.join('; ')}`);
    assert.ok(whileFailed.every((t) => t <= ours! + 2.5), `a request failed after the VIP moved (${ours} s): ${times.join(', ')}`);
    // back: preempt, within rise × interval + lb1's master-down interval after HAProxy runs again
    const vipBack = measured(r, 'vip-back');
    assert.equal(vipBack.verdict, 'pass', `${vipBack.seconds} s vs ${vipBack.expected}`);
    const oursBack = seenAlone(changes, LB1, run.restoreAt!);
    assert.ok(oursBack !== undefined && oursBack <= back + POLL_MARGIN + (r.run.restore.seconds ?? 0), `our poll saw ${LB1} back at ${oursBack} s after the restore, bound ${back.toFixed(2)} s`);
    // the way back is a graceful preempt, HAProxy already running on lb1 (its check passing is what raised lb1's
    // priority): only the one request in flight when the client's ARP entry flips may fail
    const failedBack = splitAtRestore(polled, run).back;
    assert.ok(failedBack.length <= GRACEFUL_IN_FLIGHT, `${failedBack.length} requests failed on the way back (allowed ${GRACEFUL_IN_FLIGHT}, in flight at the preempt): ${polled.failures.join('; ')}`);
    numbers.haproxy = { bound, moved: moved.seconds, ours, failed: whileFailed.length, allowed, polls: polled.polls, backBound: back, back: vipBack.seconds, oursBack, failedBack: failedBack.length };
    console.log(`HAProxy stopped on ${LB1}: VIP on ${LB2} at ${moved.seconds} s (ours ${ours} s; bound interval ${m.interval} × fall ${m.fall} + Master_Down_Interval ${mdi.toFixed(2)} = ${bound.toFixed(2)} s); ${whileFailed.length} of ${polled.polls} requests failed (allowed ${allowed}); back at ${vipBack.seconds} s (bound ${back.toFixed(2)} s), ${failedBack.length} failed on the way back (allowed ${GRACEFUL_IN_FLIGHT})`);
    await waitHealthy(env, home, 120_000);
  });

  test('weights too small: the haproxy drill is refused before running, naming the numbers', async () => {
    const reload = (host: string, from: string, to: string) => assert.equal(ssh(env, host, `sed -i 's/weight ${from}$/weight ${to}/' /etc/keepalived/keepalived.conf && systemctl reload keepalived`).code, 0);
    reload(LB1, '-20', '-5');
    try {
      // keepalived runs with it once reloaded: the plan reads its data dump, which must say −5
      for (let i = 0; i < 20 && !/weight -5/.test(ssh(env, LB1, 'kill -USR1 $(cat /run/keepalived.pid); sleep 0.3; grep -E "^     chk_haproxy weight" /tmp/keepalived.data').stdout); i++) await sleep(500);
      const run = await runDrill(env, home, ['--host', LB1, '--kind', 'haproxy']);
      assert.equal(run.code, 1, run.out.slice(-2000));
      assert.equal(run.report, undefined, 'a refused drill runs nothing and reports nothing');
      assert.match(run.out, /REFUSED — nothing will be done/);
      assert.match(run.out, /when HAProxy dies labs-k8s-balancer's priority falls to 100 − 5 \(chk_haproxy\) = 95, not below labs-k8s-balancer2's 90: the VIP would never move \(black hole\); a weight of -11 or lower on chk_haproxy moves it/);
      assert.doesNotMatch(run.out, /\] fault: /);
      assert.equal(ssh(env, LB1, 'systemctl is-active haproxy').stdout.trim(), 'active', 'nothing was done');
    } finally {
      reload(LB1, '-5', '-20');
    }
    await waitHealthy(env, home, 120_000);
  });

  test('keepalived stopped on the VIP holder: the VIP on the BACKUP within its skew (a priority-0 advert), no failure but the one in flight, back after the start (preempt)', async () => {
    const m = keepalivedNumbers(env, LB1);
    const b = keepalivedNumbers(env, LB2);
    // a graceful stop: keepalived sends an advert of priority 0 and drops the VIP; the BACKUP takes it after its skew
    // alone: (256 − 90)/256 × 1 = 0.65 s
    const bound = ((256 - b.priority) / 256) * b.advert;
    // back: keepalived starts on lb1 (100 > 90, preempt) and takes the VIP at once, or one Master_Down_Interval of its own
    // after the last advert it accepted; + one advert_int for the unit's start: 3 + (256 − 100)/256 + 1 = 4.61 s
    const back = masterDownSeconds(m.advert, m.priority) + m.advert;
    const { started, run, changes, polled, r, moved } = await observedDrill(['--kind', 'stop'], 30_000);
    // the priority-0 advert goes out while `systemctl stop` runs: the command's own time is in the margin
    const margin = POLL_MARGIN + (r.run.faultSeconds ?? 0);
    const ours = seenAlone(changes, LB2, run.faultAt!);
    assert.ok(ours !== undefined && ours <= bound + margin, `our poll saw ${LB2} alone at ${ours} s after the fault, bound ${bound.toFixed(2)} + ${margin.toFixed(1)} s`);
    const split = splitAtRestore(polled, run);
    const during = split.during.filter((t) => t >= -0.5);
    const minPolls = Math.floor(((Date.now() - started) / 1000) * 2);
    assert.ok(polled.polls >= minPolls, `only ${polled.polls} requests (at least ${minPolls})`);
    assert.ok(during.length <= GRACEFUL_IN_FLIGHT, `${during.length} requests failed during the stop (allowed ${GRACEFUL_IN_FLIGHT}, in flight at the move): ${polled.failures.join('; ')}`);
    const vipBack = measured(r, 'vip-back');
    assert.equal(vipBack.verdict, 'pass', `${vipBack.seconds} s vs ${vipBack.expected}`);
    // keepalived starts while `systemctl start` runs: the restore command's time is in the margin
    const oursBack = seenAlone(changes, LB1, run.restoreAt!);
    assert.ok(oursBack !== undefined && oursBack <= back + POLL_MARGIN + (r.run.restore.seconds ?? 0), `our poll saw ${LB1} back at ${oursBack} s after the restore, bound ${back.toFixed(2)} + ${POLL_MARGIN} s + the start command's ${r.run.restore.seconds} s`);
    const failedBack = split.back;
    assert.ok(failedBack.length <= GRACEFUL_IN_FLIGHT, `${failedBack.length} requests failed on the way back (allowed ${GRACEFUL_IN_FLIGHT}): ${polled.failures.join('; ')}`);
    numbers.stop = { bound, moved: moved.seconds, ours, failed: during.length, polls: polled.polls, backBound: back, back: vipBack.seconds, oursBack, failedBack: failedBack.length };
    console.log(`keepalived stopped on ${LB1}: VIP on ${LB2} at ${moved.seconds} s (ours ${ours} s; bound skew (256 − ${b.priority})/256 × ${b.advert} = ${bound.toFixed(2)} s); ${during.length} of ${polled.polls} requests failed; back at ${vipBack.seconds} s (ours ${oursBack} s; bound ${back.toFixed(2)} s), ${failedBack.length} failed on the way back`);
    await waitHealthy(env, home, 120_000);
  });

  test('the VIP holder powered off: the VIP and a node\'s ARP entry on the BACKUP within Master_Down_Interval, failures bounded by the SYN retry, back after the power-on', async () => {
    const m = keepalivedNumbers(env, LB1);
    const b = keepalivedNumbers(env, LB2);
    const mdi = masterDownSeconds(b.advert, b.priority); // 3.65 s
    // back, from keepalived's start on the powered-on lb1: at its start its check may find HAProxy not yet running (boot
    // order), then it passes rise times (interval × rise) before lb1's priority is 100 again; lb1 then preempts one
    // Master_Down_Interval of its own after the last advert it accepted (lb2's 90 are ignored: preempt); + one advert_int
    // for the VRRP child's start after the journal's line: 2 × 1 + 3 + (256 − 100)/256 + 1 = 6.61 s
    const backBound = m.interval * m.rise + masterDownSeconds(m.advert, m.priority) + m.advert;
    // The drill ends once its own probe sees the VIP back; ours asks the powered-on machine over a new connection,
    // which may take a few seconds more: our own sighting of the return is waited for (bounded), not raced.
    const { started, run, changes, polled, r, moved } = await observedDrill(['--kind', 'power-off', '--power-off-command', `bash ${LAB} fault power-off {host}`, '--power-on-command', `bash ${LAB} fault power-on {host}`], 60_000, 8 * 60_000);
    const ours = seenAlone(changes, LB2, run.faultAt!);
    // the power-off command itself (lab: the machine killed) comes first: its time is in the margin
    const margin = POLL_MARGIN + (r.run.faultSeconds ?? 0);
    assert.ok(ours !== undefined && ours <= mdi + margin, `our poll saw ${LB2} alone at ${ours} s, Master_Down_Interval ${mdi.toFixed(2)} + ${margin.toFixed(1)} s`);
    const neighbour = measured(r, 'neighbour-moved');
    assert.equal(neighbour.verdict, 'pass', `${neighbour.detail}`);
    // a request fails when its SYN and the retry 1 s later both meet the dead holder: started in [0, move − 1 s]
    const { during, back: failedBack } = splitAtRestore(polled, run);
    // the failing window opens when the machine dies (at some point during the power-off command) and closes 1 s
    // before the move, at most Master_Down_Interval later: ⌈(MDI − 1 + the poll's margin) / 0.25⌉ + 1 in flight + 1
    const allowed = Math.ceil(Math.max(0, mdi - 1 + POLL_MARGIN) / 0.25) + 2;
    const minPolls = Math.floor(((Date.now() - started) / 1000) * 2);
    assert.ok(polled.polls >= minPolls, `only ${polled.polls} requests (at least ${minPolls})`);
    assert.ok(during.length <= allowed, `${during.length} requests failed during the power-off (allowed ${allowed}: ⌈(${mdi.toFixed(2)} − 1 + ${POLL_MARGIN}) / 0.25⌉ + 2): ${polled.failures.join('; ')}`);
    assert.ok(during.every((t) => t <= ours! + 2.5), `a request failed after the move: ${during.join(', ')}`);
    assert.equal(measured(r, 'api').verdict, 'pass', measured(r, 'api').detail);
    // back: preempt once keepalived runs again on the powered-on holder
    const vipBack = measured(r, 'vip-back');
    assert.equal(vipBack.verdict, 'pass', vipBack.detail);
    assert.ok(seenAlone(changes, LB1, run.restoreAt!) !== undefined, `the VIP did not return to ${LB1}: ${JSON.stringify(changes)}`);
    // The return's moment: lb2 dropping the VIP, which it does as soon as it hears lb1's advert of priority 100 (our
    // probe of lb2 kept its connection; lb1's had to open a new one after the boot and may see it seconds later).
    const kaStart = keepalivedStartedAt(LB1, run.restoreAt!);
    assert.ok(kaStart !== undefined, `no keepalived start in ${LB1}'s journal after the power-on`);
    const released = seenWithout(changes, LB2, kaStart);
    const returned = secondsAfter(released, kaStart);
    assert.ok(returned !== undefined && returned <= backBound + POLL_MARGIN, `${LB2} dropped the VIP ${returned} s after keepalived started on ${LB1}, bound ${backBound.toFixed(2)} + ${POLL_MARGIN} s`);
    // the way back is a graceful preempt onto a booted lb1 whose check passes (HAProxy running): only the request in
    // flight when the client's ARP entry flips may fail
    assert.ok(failedBack.length <= GRACEFUL_IN_FLIGHT, `${failedBack.length} requests failed on the way back (allowed ${GRACEFUL_IN_FLIGHT}, in flight at the preempt): ${polled.failures.join('; ')}`);
    numbers.powerOff = { mdi, moved: moved.seconds, ours, neighbour: neighbour.seconds, failed: during.length, allowed, polls: polled.polls, back: vipBack.seconds, keepalivedStarted: secondsAfter(kaStart, run.restoreAt!), backBound, backAfterKeepalived: returned, failedBack: failedBack.length };
    console.log(`power-off of ${LB1}: VIP on ${LB2} at ${moved.seconds} s (ours ${ours} s; Master_Down_Interval 3 × ${b.advert} + (256 − ${b.priority})/256 = ${mdi.toFixed(2)} s); ARP on ${neighbour.detail} at ${neighbour.seconds} s; ${during.length} of ${polled.polls} requests failed (allowed ${allowed}); back ${vipBack.seconds} s after the power-on began, ${returned} s after keepalived started (bound interval ${m.interval} × rise ${m.rise} + Master_Down_Interval ${masterDownSeconds(m.advert, m.priority).toFixed(2)} + advert_int ${m.advert} = ${backBound.toFixed(2)} s), ${failedBack.length} failed on the way back (allowed ${GRACEFUL_IN_FLIGHT})`);
    await waitHealthy(env, home, 240_000);
  });

  test('split brain: the drill blocks VRRP, both become MASTER, the live view\'s read names it within 5 s; the lab\'s own block: status says so with the cause', async () => {
    const b = keepalivedNumbers(env, LB2);
    const mdi = masterDownSeconds(b.advert, b.priority);
    const run = await runDrill(env, home, ['--host', LB2, '--kind', 'split-brain']);
    assert.equal(run.code, 0, run.out.slice(-3000));
    const r = run.report!;
    const split = measured(r, 'split-brain');
    assert.equal(split.verdict, 'pass', `${split.seconds} s vs ${split.expected}`);
    const detected = measured(r, 'split-brain-detected');
    assert.equal(detected.verdict, 'pass', `${detected.seconds} s (${detected.detail})`);
    assert.ok(detected.seconds! - split.seconds! <= 5, `detected ${(detected.seconds! - split.seconds!).toFixed(1)} s after the second MASTER`);
    assert.match(detected.detail ?? '', /both MASTER.*they do not hear each other's adverts — VRRP \(IP protocol 112\) is blocked or lost between them/);
    assert.equal(measured(r, 'split-brain-healed').verdict, 'pass');
    // The lab's own fault (nftables on the balancer, not the drill's table), no fixed wait: our own VIP watch notes the
    // second MASTER, then `status --ssh --json`, as an admin runs it, again and again until one names the split brain —
    // timed from the second MASTER (as the drill times the live view's read from its own poll) to the end of that run,
    // against the 5 s. A run reads the balancers part-way through (after the API, etcd and the manifests, before
    // the certificates): the first one started after the second MASTER names it, unless it raced keepalived's state.
    const vip = watchVip(env, VIP, [LB1, LB2]);
    const blockedAt = Date.now();
    lab('fault', 'vrrp-block', LB2);
    const runs: StatusRun[] = [];
    let named: StatusRun | undefined;
    let changes: VipChanges = [];
    let second: number | undefined;
    try {
      // the second MASTER comes one Master_Down_Interval after the block (+ our poll)
      second = await vip.seen((h) => h.length > 1, blockedAt, (mdi + 10) * 1000);
      // 30 s: far beyond a status run, to show how long it takes when it is late
      for (const end = Date.now() + 30_000; second !== undefined && !named && Date.now() < end; ) {
        const s = await statusOnce();
        runs.push(s);
        if (splitBrainProblem(s)) named = s;
      }
    } finally {
      changes = await vip.stop();
      lab('fault', 'vrrp-unblock', LB2);
    }
    const durations = runs.map((x) => Math.round((x.end - x.start) / 100) / 10);
    assert.ok(second !== undefined, `our watch never saw both balancers hold the VIP: ${JSON.stringify(changes)}`);
    assert.ok(named, `no status run named the split brain (${runs.length} runs of ${durations.join(', ')} s): ${runs.at(-1)?.stdout.slice(-2000)} ${runs.at(-1)?.stderr.slice(-1000)}`);
    assert.equal(named.code, 1, 'status exits 1 while degraded');
    const p = splitBrainProblem(named)!;
    assert.equal(p.severity, 'critical', named.stdout.slice(-2000));
    assert.match(p.what, new RegExp(`held by ${LB1} and ${LB2} at once \\(split brain\\): both MASTER .*blocked or lost between them`));
    const statusAfter = secondsAfter(named.end, second)!;
    const took = (named.end - named.start) / 1000;
    const startedAfter = Math.round((named.start - second) / 100) / 10;
    numbers.splitBrain = { mdi, second: split.seconds, detected: detected.seconds, detectedAfter: Math.round((detected.seconds! - split.seconds!) * 10) / 10, healed: measured(r, 'split-brain-healed').seconds, statusSeconds: took, statusAfter, statusStartedAfter: startedAfter, statusRuns: runs.length };
    console.log(`split brain: ${LB2} MASTER too at ${split.seconds} s (Master_Down_Interval ${mdi.toFixed(2)} s), named by the live view's read at ${detected.seconds} s; under the lab's block status --ssh named it ${statusAfter} s after the second MASTER our watch saw (${secondsAfter(second, blockedAt)} s after the block; the naming run started ${startedAfter} s after it and took ${took.toFixed(1)} s; runs of ${durations.join(', ')} s) and said: ${p.what}`);
    assert.ok(statusAfter <= 5, `status named the split brain ${statusAfter} s after the second MASTER (bound 5 s); its runs took ${durations.join(', ')} s`);
    await waitHealthy(env, home, 120_000);
  });
});
