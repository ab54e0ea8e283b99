/**
 * The renewal's restart commands through a real shell (/bin/sh) with stand-ins for crictl, ss and the kubeconfig files:
 * which containers they stop, when the API server is killed instead of waited for, and that a crictl that cannot
 * answer fails the step. The lab runs the same commands on real nodes (test/lab/day2.test.ts, ui-day2.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killApiServerOnceClosed, restartComponentCommand, type ControlPlaneComponent } from '../../../src/core/certs/renewPlan';
import { tempDir } from '../../tempDir';

/** How long the stand-in's graceful stop of an API server hangs when nothing kills it (the real one: 20 s). */
const HANG_S = 6;

/**
 * A node with stand-in tools in `dir`: crictl logs each call and answers `ps` from the file `running`, `inspect` with
 * a start time (the file `started-<id>`) or a pid (4242); its `stop --timeout 20` of an API server (ids api…) hangs
 * like one that never exits, until a `stop --timeout 0` (the kill) comes or HANG_S passed. ss lists the pid in `ss-pid`
 * (default 4242) as listening while the file `listening` has lines left (one consumed per call); it fails when the file
 * `ss-broken` exists, or once `listening` is used up when `ss-fails-after` exists. Paths under /etc/kubernetes point
 * into `dir`.
 */
function node() {
  const dir = tempDir('kw-restart-');
  const calls = join(dir, 'calls');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  mkdirSync(join(dir, 'etc/kubernetes'), { recursive: true });
  const script = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  script('crictl', [
    `echo "$*" >> ${calls}`,
    `[ -f ${dir}/broken ] && exit 1`,
    'case "$*" in',
    `  ps*|*' ps '*) cat ${dir}/running 2>/dev/null ;;`,
    `  *'{{.info.pid}}'*) echo 4242 ;;`,
    `  *'{{.status.startedAt}}'*) for id; do :; done; cat ${dir}/started-$id 2>/dev/null ;;`,
    `  *'stop --timeout 0'*) touch ${dir}/killed ;;`,
    `  *'stop --timeout 20 api'*) i=0; while [ ! -f ${dir}/killed ] && [ $i -lt ${HANG_S * 10} ]; do sleep 0.1; i=$((i+1)); done ;;`,
    'esac',
    'exit 0',
  ].join('\n'));
  script('ss', [
    `[ -f ${dir}/ss-broken ] && exit 1`,
    `n=$(wc -l < ${dir}/listening 2>/dev/null || echo 0)`,
    `if [ "$n" -gt 0 ]; then sed -i 1d ${dir}/listening; echo "LISTEN 0 4096 *:6443 *:* users:((\\"kube-apiserver\\",pid=$(cat ${dir}/ss-pid 2>/dev/null || echo 4242),fd=3))"`,
    `elif [ -f ${dir}/ss-fails-after ]; then exit 1; fi`,
  ].join('\n'));
  const run = (component: ControlPlaneComponent, opts: { ss?: boolean } = {}) => {
    const text = restartComponentCommand(component).text.replaceAll('/etc/kubernetes/', `${dir}/etc/kubernetes/`);
    let path = `${bin}:${process.env.PATH}`;
    if (opts.ss === false) {
      // A node without iproute2: only the stand-ins and the tools the commands use, found where this machine has them.
      spawnSync('rm', ['-f', join(bin, 'ss')]);
      for (const tool of ['tr', 'sleep', 'grep', 'date', 'stat', 'cat', 'touch', 'wc', 'sed']) {
        const where = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
        if (where) symlinkSync(where, join(bin, tool));
      }
      path = bin;
    }
    const t0 = Date.now();
    const r = spawnSync('/bin/sh', ['-c', text], { env: { ...process.env, PATH: path }, encoding: 'utf8' });
    return { code: r.status, stderr: r.stderr, seconds: (Date.now() - t0) / 1000 };
  };
  const stops = (): string[] => (existsSync(calls) ? readFileSync(calls, 'utf8') : '').split('\n').filter((l) => / stop /.test(l));
  const put = (name: string, text: string) => writeFileSync(join(dir, name), text);
  return { dir, run, stops, put, reset: () => put('calls', '') };
}

test('etcd: a running member is stopped; none running is left to the kubelet; a crictl that cannot answer fails', () => {
  const n = node();
  n.put('running', 'abc123\n');
  assert.equal(n.run('etcd').code, 0);
  assert.deepEqual(n.stops(), ['--timeout 60s stop --timeout 20 abc123']);
  n.put('running', '');
  n.reset();
  const none = n.run('etcd');
  assert.equal(none.code, 0, 'not running now: nothing to stop, the kubelet starts it with the renewed files');
  assert.match(none.stderr, /etcd is not running now/);
  assert.deepEqual(n.stops(), []);
  n.put('broken', '');
  assert.notEqual(n.run('etcd').code, 0, 'a crictl that cannot answer is not "none running"');
});

test('controllers: only a container started before its kubeconfig was renewed is stopped', () => {
  const n = node();
  const renewedAt = new Date('2026-12-03T10:00:00Z');
  n.put('etc/kubernetes/scheduler.conf', 'renewed');
  utimesSync(join(n.dir, 'etc/kubernetes/scheduler.conf'), renewedAt, renewedAt);
  n.put('running', 'sched1\n');
  n.put('started-sched1', '2026-12-03T10:00:05.123456789Z\n');
  const fresh = n.run('kube-scheduler');
  assert.equal(fresh.code, 0);
  assert.deepEqual(n.stops(), [], 'it exited when its API server restarted and runs with the renewed file: not stopped again');
  assert.match(fresh.stderr, /kube-scheduler started after .*scheduler\.conf was renewed/);

  n.put('started-sched1', '2026-12-03T09:59:00.5Z\n');
  assert.equal(n.run('kube-scheduler').code, 0);
  assert.deepEqual(n.stops(), ['--timeout 60s stop --timeout 20 sched1'], 'started before the renewal: stopped');

  n.reset();
  n.put('running', 'sched1\nsched2\n');
  n.put('started-sched1', '2026-12-03T10:00:05Z\n');
  n.put('started-sched2', '2026-12-03T09:00:00Z\n');
  assert.equal(n.run('kube-scheduler').code, 0);
  assert.deepEqual(n.stops(), ['--timeout 60s stop --timeout 20 sched2'], 'of two containers, only the stale one');

  n.reset();
  n.put('running', 'sched1\n');
  n.put('started-sched1', 'not a time\n');
  assert.equal(n.run('kube-scheduler').code, 0);
  assert.deepEqual(n.stops(), ['--timeout 60s stop --timeout 20 sched1'], 'a start time that cannot be read counts as stale');

  n.reset();
  n.put('started-sched1', '2026-12-03T10:00:05Z\n');
  assert.equal(n.run('kube-controller-manager').code, 0);
  assert.deepEqual(n.stops(), ['--timeout 60s stop --timeout 20 sched1'], 'a kubeconfig that cannot be read: stale');

  n.reset();
  n.put('running', '');
  const none = n.run('kube-scheduler');
  assert.equal(none.code, 0);
  assert.deepEqual(n.stops(), []);
  assert.match(none.stderr, /kube-scheduler is not running now/);
});

test('kube-apiserver: killed 2 s after it closed its listener instead of waiting for the SIGKILL', () => {
  const n = node();
  n.put('running', 'api1\n');
  n.put('listening', 'x\n'.repeat(10)); // seen before the stop, then about 1 s of polls
  const r = n.run('kube-apiserver');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(n.stops(), ['--timeout 60s stop --timeout 20 api1', '--timeout 60s stop --timeout 0 api1']);
  // not at 2 s after the stop (the listener's second of polls first), not at the stand-in's HANG_S
  assert.ok(r.seconds >= 2.8 && r.seconds < HANG_S - 0.5, `after the listener closed and 2 s more: ${r.seconds} s`);
});

test('kube-apiserver: no early kill unless its own listener was seen to close', () => {
  const otherPid = node();
  otherPid.put('running', 'api1\n');
  otherPid.put('listening', 'x\n'.repeat(100));
  otherPid.put('ss-pid', '42420');
  assert.equal(otherPid.run('kube-apiserver').code, 0);
  assert.deepEqual(otherPid.stops(), ['--timeout 60s stop --timeout 20 api1'], 'a listener of another pid: it was never seen listening');

  const ssFails = node();
  ssFails.put('running', 'api1\n');
  ssFails.put('listening', 'x\n'.repeat(5));
  ssFails.put('ss-fails-after', '');
  const r = ssFails.run('kube-apiserver');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(ssFails.stops(), ['--timeout 60s stop --timeout 20 api1'], 'an ss that fails is not a closed listener');
  assert.ok(r.seconds >= HANG_S - 0.5, `the stand-in stop ran its ${HANG_S} s: ${r.seconds} s`);

  const noSs = node();
  noSs.put('running', 'api1\n');
  assert.equal(noSs.run('kube-apiserver', { ss: false }).code, 0);
  assert.deepEqual(noSs.stops(), ['--timeout 60s stop --timeout 20 api1'], 'without ss on the node: no kill');
});

test('beside kubeadm\'s manifest phase: the stopping API server is killed 2 s after it closed its listener, and only then', () => {
  const n = node();
  n.put('running', 'api1\n');
  // Listening for the first check and four more polls, then closed (the kubelet's SIGTERM).
  n.put('listening', 'x\nx\nx\nx\nx\n');
  const t0 = Date.now();
  const r = spawnSync('/bin/sh', ['-c', killApiServerOnceClosed().text], { env: { ...process.env, PATH: `${join(n.dir, 'bin')}:${process.env.PATH}` }, encoding: 'utf8' });
  const seconds = (Date.now() - t0) / 1000;
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(n.stops(), ['--timeout 60s stop --timeout 0 api1']);
  assert.ok(seconds >= 2 && seconds < 2 + 5, `killed 2 s after the close (${seconds} s)`);
  // A manifest that did not change: the API server keeps listening, nothing is killed before the caller stops the watcher.
  n.reset();
  n.put('listening', 'x\n'.repeat(500));
  const w = spawnSync('/bin/sh', ['-c', `${killApiServerOnceClosed().text} & w=$!; sleep 1.5; kill $w; wait $w; true`], { env: { ...process.env, PATH: `${join(n.dir, 'bin')}:${process.env.PATH}` }, encoding: 'utf8' });
  assert.equal(w.status, 0);
  assert.deepEqual(n.stops(), []);
});
