/**
 * The renewal's restart commands through a real shell (sh) with stand-ins for crictl, ss and the kubeconfig files:
 * which containers they stop, when the API server is killed instead of waited for, and that a crictl that cannot
 * answer fails the step. The lab runs the same commands on real nodes (test/lab/day2.test.ts, ui-day2.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { restartComponentCommand, type ControlPlaneComponent } from '../../../src/core/certs/renewPlan';
import { tempDir } from '../../tempDir';

/**
 * A node with stand-in tools in `dir`: crictl logs each call and answers `ps` from the file `running`, `inspect`
 * with a start time (`started`) or a pid (4242); its `stop --timeout 20` of an API server (ids api…) hangs like one
 * that never exits, until a `stop --timeout 0` (the kill) comes or 8 s passed. ss lists the pid as listening while the
 * file `listening` has lines left (one consumed per call). Paths under /etc/kubernetes point into `dir`.
 */
function node() {
  const dir = tempDir('kw-restart-');
  const calls = join(dir, 'calls');
  const bin = join(dir, 'bin');
  spawnSync('mkdir', ['-p', bin, join(dir, 'etc/kubernetes')]);
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
    `  *'{{.status.startedAt}}'*) cat ${dir}/started 2>/dev/null ;;`,
    `  *'stop --timeout 0'*) touch ${dir}/killed ;;`,
    `  *'stop --timeout 20 api'*) i=0; while [ ! -f ${dir}/killed ] && [ $i -lt 80 ]; do sleep 0.1; i=$((i+1)); done ;;`,
    'esac',
    'exit 0',
  ].join('\n'));
  script('ss', `n=$(wc -l < ${dir}/listening 2>/dev/null || echo 0); if [ "$n" -gt 0 ]; then sed -i 1d ${dir}/listening; echo 'LISTEN 0 4096 *:6443 *:* users:(("kube-apiserver",pid=4242,fd=3))'; fi`);
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
  return { dir, run, stops, put: (name: string, text: string) => writeFileSync(join(dir, name), text) };
}

test('etcd: a running member is stopped; none running is left to the kubelet; a crictl that cannot answer fails', () => {
  const n = node();
  n.put('running', 'abc123\n');
  assert.equal(n.run('etcd').code, 0);
  assert.deepEqual(n.stops(), ['--timeout 60s stop --timeout 20 abc123']);
  n.put('running', '');
  n.put('calls', '');
  const none = n.run('etcd');
  assert.equal(none.code, 0, 'not running now: nothing to stop, the kubelet starts it with the renewed files');
  assert.match(none.stderr, /etcd is not running now/);
  assert.deepEqual(n.stops(), []);
  n.put('broken', '');
  assert.notEqual(n.run('etcd').code, 0, 'a crictl that cannot answer is not "none running"');
});

test('controllers: only a container started before its kubeconfig was renewed is stopped', () => {
  const n = node();
  const conf = join(n.dir, 'etc/kubernetes/scheduler.conf');
  n.put('etc/kubernetes/scheduler.conf', 'renewed');
  utimesSync(conf, new Date('2026-12-03T10:00:00Z'), new Date('2026-12-03T10:00:00Z'));
  n.put('running', 'sched1\n');
  n.put('started', '2026-12-03T10:00:05.123456789Z\n');
  const fresh = n.run('kube-scheduler');
  assert.equal(fresh.code, 0);
  assert.deepEqual(n.stops(), [], 'it exited when its API server restarted and runs with the renewed file: not stopped again');
  assert.match(fresh.stderr, /kube-scheduler started after .*scheduler\.conf was renewed/);
  n.put('started', '2026-12-03T09:59:00.5Z\n');
  assert.equal(n.run('kube-scheduler').code, 0);
  assert.deepEqual(n.stops(), ['--timeout 60s stop --timeout 20 sched1'], 'started before the renewal: stopped');
  n.put('calls', '');
  n.put('started', 'not a time\n');
  assert.equal(n.run('kube-controller-manager').code, 0);
  assert.deepEqual(n.stops(), ['--timeout 60s stop --timeout 20 sched1'], 'a start time that cannot be read (and no kubeconfig) counts as stale');
});

test('kube-apiserver: killed 2 s after it closed its listener instead of waiting for the SIGKILL at 20 s', () => {
  const n = node();
  n.put('running', 'api1\n');
  n.put('listening', 'x\nx\nx\n');
  const r = n.run('kube-apiserver');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(n.stops(), ['--timeout 60s stop --timeout 20 api1', '--timeout 60s stop --timeout 0 api1']);
  assert.ok(r.seconds >= 2 && r.seconds < 6, `after the listener closed (3 polls) and 2 s more: ${r.seconds} s`);
});

test('kube-apiserver: without ss on the node it is not killed early (the graceful stop runs its course)', () => {
  const n = node();
  n.put('running', 'api1\n');
  const r = n.run('kube-apiserver', { ss: false });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(n.stops(), ['--timeout 60s stop --timeout 20 api1'], 'no kill');
  assert.ok(r.seconds >= 7, `the stand-in stop ran its 8 s: ${r.seconds} s`);
});
