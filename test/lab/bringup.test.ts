/**
 * Issue 5 against the lab's bare Debian 12 nodes, through the command line (the same engine the
 * extension runs): facts on 7 hosts and the cloned-VM trap, then `up` from bare nodes to an HA
 * cluster — killed with SIGKILL in the middle of kubeadm init (and its kubeadm with it), resumed onto a reset
 * m01, killed with SIGKILL (kubeadm on the node too) while etcd adds labs-k8s-m02, resumed over the half-joined
 * member it left, cancelled with SIGINT while etcd adds labs-k8s-m03, resumed again over that one — a second
 * `up` that finds everything done, a node whose host key changed refused by the preflight before any step, and at the end every run log
 * of all of them scanned for secrets and for the masked forms that show the secrets were used.
 * Needs root and the lab (npm run lab -- build once). Run: node --import tsx --test test/lab/bringup.test.ts
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { recordBench } from './bench';
import { startCli as startCliRun, type CliRun } from './cliRun';
import { checkRunLogs, secretsIn } from './secrets';
import { tempDir } from '../tempDir';

const ROOT = resolve(__dirname, '../..');
const LAB = join(ROOT, 'lab/lab.sh');
const CLI = join(ROOT, 'dist/cli.js');
const report: Record<string, number | string> = {};
const env: Record<string, string> = {};
/** The Kubernetes minor the nodes and the inventory are at (KW_LAB_MINOR; the lab tier runs this file at the previous minor, whose cluster the upgrade test then takes). */
const MINOR_ARGS = process.env.KW_LAB_MINOR ? ['--kubernetes-version', process.env.KW_LAB_MINOR] : [];
let kubeconfig = '';

function lab(args: string[], timeoutMs = 30 * 60_000): string {
  const r = spawnSync('bash', [LAB, ...args], { encoding: 'utf8', timeout: timeoutMs });
  if (r.status !== 0) throw new Error(`lab ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** The CLI's arguments for the lab: the inventory, and the lab's SSH config and known_hosts unless given. */
function cliArgs(args: string[]): string[] {
  return [CLI, ...args, '--inventory', env.LAB_INVENTORY!, ...(args.includes('--ssh-config') ? [] : ['--ssh-config', env.LAB_SSH_CONFIG!]), ...(args.includes('--known-hosts') ? [] : ['--known-hosts', env.LAB_KNOWN_HOSTS!])];
}
const cliEnv = () => ({ ...process.env, PATH: env.PATH ?? process.env.PATH!, HOME: env.HOME_DIR! });

function cli(args: string[], timeoutMs = 40 * 60_000): { code: number; out: string; seconds: number } {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, cliArgs(args), { encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL', env: cliEnv(), maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status ?? -1, out: `${r.stdout}\n${r.stderr}`, seconds: (Date.now() - t0) / 1000 };
}

/** The CLI as a child process whose output is watched while it runs (to kill it at a chosen moment). */
/** The CLI started as a child process, watched while it runs (to kill it at a chosen moment). */
function startCli(args: string[]): CliRun {
  return startCliRun(process.execPath, cliArgs(args), cliEnv(), false);
}

const kubectl = (...args: string[]) => execFileSync('kubectl', ['--kubeconfig', kubeconfig, '--request-timeout=10s', ...args], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } });
const etcdctl = (...args: string[]) => kubectl('-n', 'kube-system', 'exec', 'etcd-labs-k8s-m01', '--', 'etcdctl', '--endpoints=https://127.0.0.1:2379', '--cacert=/etc/kubernetes/pki/etcd/ca.crt',
  '--cert=/etc/kubernetes/pki/etcd/server.crt', '--key=/etc/kubernetes/pki/etcd/server.key', ...args);
const etcdMembers = () => etcdctl('member', 'list');
const ssh = (host: string, cmd: string) => spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, host, cmd], { encoding: 'utf8', timeout: 60_000 });
/** Kills every kubeadm on `host` (as when the node's own process dies with it) and waits until none is left. */
async function killKubeadm(host: string): Promise<void> {
  ssh(host, 'pkill -9 -x kubeadm; true');
  for (const t0 = Date.now(); ssh(host, 'pgrep -x kubeadm').status !== 1; await new Promise((r) => setTimeout(r, 200))) {
    if (Date.now() - t0 > 10_000) assert.fail(`a kubeadm is still running on ${host}: ${ssh(host, 'pgrep -ax kubeadm').stdout}`);
  }
}
/** `f()`, asked again for up to 90 s: right after a kill the VIP may still send a request to a half-joined node. */
async function retrying<T>(f: () => T): Promise<T> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      return f();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
}
/** etcd's members as `id, status, name, peer URLs, client URLs, is learner`. */
const memberLines = () => retrying(() => etcdMembers().trim().split('\n').map((l) => l.split(', ')));
/** The etcd member an interrupted join of `host` left: it must be there before the resume, and gone after. */
async function halfJoinedMember(host: string, address: string): Promise<string> {
  const members = await memberLines();
  const mine = members.filter((m) => m[3] === `https://${address}:2380`);
  assert.equal(mine.length, 1, `one etcd member of the interrupted join of ${host} at ${address}:2380:\n${members.map((m) => m.join(', ')).join('\n')}`);
  // Never a finished join: kubeadm labels the Node a control-plane node only after etcd.
  assert.doesNotMatch(await retrying(() => kubectl('get', 'nodes', '-l', 'node-role.kubernetes.io/control-plane', '-o', 'name')), new RegExp(`node/${host}$`, 'm'));
  console.log(`half-joined ${host}: ${mine[0]!.join(', ')}`);
  return mine[0]![0]!;
}
function tryOr<T>(f: () => T, or: (e: Error) => T): T {
  try {
    return f();
  } catch (e) {
    return or(e as Error);
  }
}

/** Every CLI output of this file, scanned for secrets at the end with the run logs. */
const outputs: { what: string; text: string }[] = [];

describe('bring-up engine on the lab\'s bare nodes', { timeout: 90 * 60_000 }, () => {
  before(() => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root: run as root');
    if (!existsSync(CLI)) throw new Error('dist/cli.js missing: run npm run build first');
    // The lab tier (test/lab/run.sh) has built it and may be building the previous minor beside: no second build.
    if (process.env.KW_LAB_BUILT !== '1') lab(['build'], 90 * 60_000);
    lab(['down']);
    lab(['up', ...MINOR_ARGS]);
    for (const m of lab(['env']).matchAll(/^export (\w+)="(.*)"$/gm)) env[m[1]!] = m[2]!.replace('$PATH', process.env.PATH ?? '');
    // A fresh HOME: the CLI's own known_hosts and kubeconfig must not come from this machine's user.
    env.HOME_DIR = tempDir('kw-home-');
    // Runs of earlier lab lives would be resumed otherwise.
    rmSync(join(dirname(env.LAB_INVENTORY!), '.kubeadm-workbench'), { recursive: true, force: true });
    kubeconfig = join(env.HOME_DIR, '.kube', 'config');
  });

  after(() => {
    console.log('bring-up report:', JSON.stringify(report, null, 2));
    const n = (k: string) => (typeof report[k] === 'number' ? { [k]: report[k] as number } : {});
    recordBench({
      ...(typeof report.upSeconds === 'number' ? { engineUpSeconds: report.upSeconds } : {}),
      // The run killed in kubeadm init and its resumed run killed at m02's etcd join.
      ...(typeof report.upFirstRunSeconds === 'number' ? { engineUpFirstRunSeconds: report.upFirstRunSeconds + ((report.upKilledInInitSeconds as number | undefined) ?? 0) } : {}),
      // Both resumed runs (after the kill, after the cancel), which join m02 and m03 a second time.
      ...(typeof report.resumeAfterCancelSeconds === 'number' ? { engineUpResumeSeconds: (report.resumeAfterKillSeconds as number) + report.resumeAfterCancelSeconds } : {}),
      ...n('secondUpSeconds'),
      ...n('factsSeconds'),
      factsHosts: 7,
    });
    if (!process.env.KW_LAB_KEEP) spawnSync('bash', [LAB, 'down']);
    // Kept: the cluster this test built answers to `lab env` (its KUBECONFIG) like the reference one.
    else if (kubeconfig && existsSync(kubeconfig) && env.KUBECONFIG) writeFileSync(env.KUBECONFIG, readFileSync(kubeconfig), { mode: 0o600 });
  });

  test('facts of 7 bare hosts in parallel: only what prepare will fix is reported', () => {
    const r = cli(['facts', '--json']);
    report.factsSeconds = r.seconds;
    const json = JSON.parse(r.out.slice(r.out.indexOf('{'), r.out.lastIndexOf('}') + 1));
    assert.equal(json.facts.length, 7, r.out);
    assert.deepEqual(json.failures, []);
    const errors = json.findings.filter((f: { severity: string }) => f.severity === 'error').map((f: { rule: string }) => f.rule);
    // Bare Debian: IP forwarding is off until the prepare phase turns it on; nothing else is wrong.
    assert.deepEqual([...new Set(errors)], ['facts/sysctl'], JSON.stringify(json.findings, null, 1));
  });

  test('the cloned-VM trap is flagged on both hosts, naming machine-id, product_uuid and host key', () => {
    lab(['fault', 'clone-identity', 'labs-k8s-w01', 'labs-k8s-w02']);
    try {
      const r = cli(['facts', '--json', '--host', 'labs-k8s-w01', '--host', 'labs-k8s-w02']);
      assert.equal(r.code, 1);
      const json = JSON.parse(r.out.slice(r.out.indexOf('{'), r.out.lastIndexOf('}') + 1));
      const rules = json.findings.map((f: { host: string; rule: string }) => `${f.host}:${f.rule}`).sort();
      for (const h of ['labs-k8s-w01', 'labs-k8s-w02']) for (const rule of ['facts/cloned-machine-id', 'facts/cloned-product-uuid', 'facts/cloned-host-key']) assert.ok(rules.includes(`${h}:${rule}`), rules.join());
      // The host key finding names the key both present and both hosts.
      const hostKey = json.findings.find((f: { host: string; rule: string }) => f.host === 'labs-k8s-w02' && f.rule === 'facts/cloned-host-key') as { message: string };
      assert.match(hostKey.message, /^SSH host key SHA256:\S+ is shared by labs-k8s-w01, labs-k8s-w02\.$/);
    } finally {
      // w02 gets its own identity back (seconds; a `lab reset` of every node took about 35 s here).
      lab(['fault', 'restore-identity', 'labs-k8s-w02']);
    }
    const again = cli(['facts', '--json', '--host', 'labs-k8s-w01', '--host', 'labs-k8s-w02']);
    assert.doesNotMatch(again.out, /facts\/cloned-/, 'w02 has its own identity again');
  });

  test('up from bare nodes, SIGKILLed while etcd adds m02 and SIGINTed while it adds m03, resumes each time and converges: 5 Ready nodes, 3 voting etcd members, no duplicate', async () => {
    const upArgs = ['up', '--yes', '--kubeconfig', kubeconfig];
    const stateDir = join(dirname(env.LAB_INVENTORY!), '.kubeadm-workbench');
    // kubeadm prints this right after adding the host's etcd member (a learner) and before writing etcd's manifest.
    const etcdAdded = (host: string) => new RegExp(`^\\[${host}\\] \\[etcd\\] Announced new etcd member`, 'm');

    // 0. A crash in the middle of kubeadm init: once admin.conf is written on m01 (init's kubeconfig phase, well
    // before it finishes), the CLI and the kubeadm on m01 are killed. admin.conf alone must not pass for done.
    const zeroth = startCli(upArgs);
    await zeroth.waitFor(/^\[labs-k8s-m01\] -> kubeadm init --upload-certs/m, 20 * 60_000);
    const initDeadline = Date.now() + 120_000;
    while (spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, 'labs-k8s-m01', 'test -f /etc/kubernetes/admin.conf']).status !== 0) {
      if (Date.now() > initDeadline) throw new Error(`no admin.conf on labs-k8s-m01 within 120 s:\n${zeroth.out().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    zeroth.child.kill('SIGKILL');
    const killedInInit = await zeroth.exit;
    await killKubeadm('labs-k8s-m01');
    assert.equal(killedInInit.signal, 'SIGKILL');
    assert.notEqual(spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, 'labs-k8s-m01', 'test -f /etc/kubernetes/manifests/kube-apiserver.yaml && kubectl --kubeconfig /etc/kubernetes/admin.conf -n kube-system get deployment coredns --request-timeout=5s']).status, 0,
      'the init was interrupted before its add-ons');
    // What the interrupted init left: its CA, its admin.conf, no kubeadm running. The resumed run must reset it
    // and init again (a new CA), not take admin.conf for a finished init.
    const halfInitCa = ssh('labs-k8s-m01', 'test -f /etc/kubernetes/admin.conf && sha256sum /etc/kubernetes/pki/ca.crt');
    assert.equal(halfInitCa.status, 0, `the interrupted init left admin.conf and a CA on m01: ${halfInitCa.stderr}`);
    outputs.push({ what: 'up killed in kubeadm init', text: zeroth.out() });

    // 1. A crash of the run and of the join: SIGKILL for the CLI and for kubeadm on m02 right after it added m02's
    // etcd member (the node's kubeadm dies with its host, or is killed: nothing finishes the join).
    const first = startCli(upArgs);
    await first.waitFor(etcdAdded('labs-k8s-m02'), 20 * 60_000);
    first.child.kill('SIGKILL');
    await killKubeadm('labs-k8s-m02');
    const killed = await first.exit;
    assert.equal(killed.signal, 'SIGKILL');
    outputs.push({ what: 'up killed at m02\'s etcd join', text: first.out() });
    // The resumed run found the half-initialised m01, reset it and ran init again (not "already done").
    assert.match(first.out(), /resuming run /);
    assert.match(first.out(), /<- kubeadm init --upload-certs: done/, 'init ran again after the interrupted one');
    const newCa = ssh('labs-k8s-m01', 'sha256sum /etc/kubernetes/pki/ca.crt').stdout;
    assert.ok(newCa && newCa !== halfInitCa.stdout, 'the interrupted init was reset: the cluster has a CA of its own, not the half-made one');
    const runId = /^\S+-up$/.exec(readdirSync(join(stateDir, 'runs')).filter((f) => f.endsWith('-up.json')).sort().pop()!.replace(/\.json$/, ''))![0];
    const ledger = () => JSON.parse(readFileSync(join(stateDir, 'runs', `${runId}.json`), 'utf8')) as { steps: Record<string, { state: string }>; completedAt: string | null };
    assert.equal(ledger().steps['join-control-plane/labs-k8s-m02/join']?.state, 'running', 'the ledger shows the join the crash interrupted');
    const lock = JSON.parse(readFileSync(join(stateDir, 'locks', 'labs-k8s-m02.lock'), 'utf8')) as { pid: number };
    assert.equal(lock.pid, first.child.pid, 'the dead run still holds m02\'s lock');
    console.log(`killed after ${killed.seconds} s; etcd right after the kill:\n${tryOr(etcdMembers, (e) => `(${e.message.split('\n')[0]})`)}`);
    const halfM02 = await halfJoinedMember('labs-k8s-m02', '10.3.60.52');
    const forgotten = (host: string) => Object.entries(ledger().steps).find(([id]) => id.endsWith(`/forget-partial-${host}`))?.[1].state;

    // 2. Resume right away: the stale lock is taken over, the half-joined member removed before m02 joins again.
    const second = startCli(upArgs);
    await second.waitFor(new RegExp(`resuming run ${runId}`), 60_000);
    await second.waitFor(etcdAdded('labs-k8s-m03'), 20 * 60_000);
    const cancelAt = Date.now();
    second.child.kill('SIGINT');
    const cancelled = await second.exit;
    report.cancelToExitSeconds = (Date.now() - cancelAt) / 1000;
    outputs.push({ what: 'resumed up cancelled at m03\'s etcd join', text: second.out() });
    assert.equal(cancelled.code, 1, second.out().slice(-3000));
    assert.match(second.out(), /cancelled after [\d.]+ s at labs-k8s-m03: kubeadm join --control-plane/);
    assert.ok(report.cancelToExitSeconds < 15, `a cancel stops the run within seconds (${report.cancelToExitSeconds} s)`);
    assert.equal(ledger().steps['join-control-plane/labs-k8s-m03/join']?.state, 'cancelled');
    assert.ok(!existsSync(join(stateDir, 'locks', 'labs-k8s-m03.lock')), 'a cancelled run releases its locks');
    assert.equal(forgotten('labs-k8s-m02'), 'done', 'the resumed run removed what the interrupted join of m02 left (not skipped)');
    const afterSecond = await memberLines();
    assert.ok(!afterSecond.some((m) => m[0] === halfM02), `the half-joined member ${halfM02} of m02 is gone:\n${afterSecond.map((m) => m.join(', ')).join('\n')}`);
    assert.ok(afterSecond.some((m) => m[2] === 'labs-k8s-m02' && m[1] === 'started' && m[5] === 'false'), 'm02 joined again as a voting member');
    // Whatever the cancel left running on m03 is gone too, as after a crash of the node's kubeadm.
    await killKubeadm('labs-k8s-m03');
    const halfM03 = await halfJoinedMember('labs-k8s-m03', '10.3.60.53');

    const stepEnds = (out: string) => out.split('\n').filter((l) => /^\[labs-k8s-m0[123]\] <- /.test(l) && /m02|m03/.test(l)).join('\n');
    console.log(`resumed after the kill, then cancelled:\n${stepEnds(second.out())}`);

    // 3. Resume again: to the end.
    const third = startCli(upArgs);
    const done = await third.exit;
    const out = third.out();
    outputs.push({ what: 'resumed up to the end', text: out });
    assert.equal(done.code, 0, out.slice(-4000));
    // `up` ends when the cluster is healthy: `status` (the same health model) agrees right after it.
    const status = cli(['status', '--kubeconfig', kubeconfig], 60_000);
    assert.equal(status.code, 0, `status right after up:\n${status.out.slice(-3000)}`);
    assert.equal(forgotten('labs-k8s-m03'), 'done', 'the last run removed what the cancelled join of m03 left (not skipped)');
    assert.match(out, new RegExp(`resuming run ${runId} \\(steps already done are skipped\\)`));
    assert.ok(ledger().completedAt, 'the ledger records the run as finished');
    console.log(`resumed after the cancel:\n${stepEnds(out)}`);
    report.upFirstRunSeconds = killed.seconds;
    report.resumeAfterKillSeconds = cancelled.seconds;
    report.resumeAfterCancelSeconds = done.seconds;
    // The ratio against the reference script uses the whole bring-up: the three runs together, which
    // include joining m02 and m03 a second time after the interruptions.
    report.upKilledInInitSeconds = killedInInit.seconds;
    report.upSeconds = killedInInit.seconds + killed.seconds + cancelled.seconds + done.seconds;
    report.upSecondsNote = 'run killed in kubeadm init + resumed run (killed at m02\'s etcd join) + resumed run (cancelled at m03\'s) + resumed run to the end';

    type NodeJson = { metadata: { name: string; labels: Record<string, string> }; status: { conditions: { type: string; status: string }[] } };
    const nodes = JSON.parse(kubectl('get', 'nodes', '-o', 'json')).items as NodeJson[];
    const ready = nodes.filter((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True')).map((n) => n.metadata.name).sort();
    assert.deepEqual(ready, ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03', 'labs-k8s-w01', 'labs-k8s-w02']);
    const controlPlanes = nodes.filter((n) => 'node-role.kubernetes.io/control-plane' in n.metadata.labels).map((n) => n.metadata.name).sort();
    assert.deepEqual(controlPlanes, ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03'], 'the interrupted joins finished: their nodes are control-plane nodes');
    // id, status, name, peer URLs, client URLs, is learner
    const members = etcdMembers().trim().split('\n').map((l) => l.split(', '));
    assert.equal(members.length, 3, `exactly three members:\n${etcdMembers()}`);
    assert.deepEqual(members.map((m) => m[1]), ['started', 'started', 'started'], 'no unstarted member');
    assert.deepEqual(members.map((m) => m[2]).sort(), ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03'], 'one member per control-plane node');
    assert.deepEqual(new Set(members.map((m) => m[3])).size, 3, 'no two members at one peer URL');
    assert.deepEqual(members.map((m) => m[5]), ['false', 'false', 'false'], 'every member votes (no learner left unpromoted)');
    assert.deepEqual(members.filter((m) => m[0] === halfM02 || m[0] === halfM03), [], 'neither half-joined member is left');
    etcdctl('endpoint', 'health', '--cluster');
    const vip = execFileSync('ssh', ['-F', env.LAB_SSH_CONFIG!, 'labs-k8s-balancer', 'ip -br addr show ens192'], { encoding: 'utf8' });
    assert.match(vip, /10\.3\.60\.100\//);
    assert.match(readFileSync(kubeconfig, 'utf8'), /labs-k8s-admin@labs-k8s/);
    const facts = cli(['facts', '--json']);
    const json = JSON.parse(facts.out.slice(facts.out.indexOf('{'), facts.out.lastIndexOf('}') + 1));
    assert.deepEqual(json.findings.filter((f: { severity: string }) => f.severity === 'error'), [], 'after bring-up the facts find nothing wrong');
    // The units' states (one systemctl on each host, real systemd): what runs where after the bring-up.
    type F = { host: string; containerd?: { active: boolean }; kubelet?: { active: boolean }; haproxy?: { active: boolean }; keepalived?: { active: boolean } };
    const states = (json.facts as F[]).map((f) => `${f.host}:${['containerd', 'kubelet', 'haproxy', 'keepalived'].filter((u) => f[u as 'kubelet']?.active).join('+')}`).sort();
    assert.deepEqual(states, ['labs-k8s-balancer:haproxy+keepalived', 'labs-k8s-balancer2:haproxy+keepalived', ...['m01', 'm02', 'm03', 'w01', 'w02'].map((n) => `labs-k8s-${n}:containerd+kubelet`)].sort());
  });

  test('a second up finds every step done and changes nothing', () => {
    const r = cli(['up', '--yes', '--fresh', '--kubeconfig', kubeconfig]);
    report.secondUpSeconds = r.seconds;
    outputs.push({ what: 'up --fresh', text: r.out });
    assert.equal(r.code, 0, r.out.slice(-3000));
    assert.doesNotMatch(r.out, /kubeadm init --config .* \(\d/, 'init did not run again');
    assert.match(r.out, /kubeadm init --upload-certs: already done, skipped/);
  });
  test('a node whose host key changed: up is refused before its question and before any step, m02 and the changed key named with the fix, no login on it, no flag overrides it', () => {
    // known_hosts and the SSH config that names it, copied; m02's keys replaced by w01's (valid keys, not m02's).
    const dir = tempDir('kw-hostkey-');
    const lines = readFileSync(env.LAB_KNOWN_HOSTS!, 'utf8').split('\n');
    const keyOf = (host: string, type: string) => lines.find((l) => l.startsWith(`${host},`) && l.split(' ')[1] === type)!.split(' ')[2];
    const knownHosts = join(dir, 'known_hosts');
    writeFileSync(knownHosts, lines.map((l) => (l.startsWith('labs-k8s-m02,') ? `${l.split(' ')[0]} ${l.split(' ')[1]} ${keyOf('labs-k8s-w01', l.split(' ')[1]!)}` : l)).join('\n'));
    const sshConfig = join(dir, 'ssh_config');
    writeFileSync(sshConfig, readFileSync(env.LAB_SSH_CONFIG!, 'utf8').split(env.LAB_KNOWN_HOSTS!).join(knownHosts));
    const files = ['--ssh-config', sshConfig, '--known-hosts', knownHosts];
    const m02 = (cmd: string) => execFileSync('ssh', ['-F', env.LAB_SSH_CONFIG!, 'labs-k8s-m02', cmd], { encoding: 'utf8' }).trim();
    // From the next second on: this login is before it, the one that reads the journal after it.
    const since = Number(m02('date +%s')) + 1;
    execFileSync('sleep', ['1.2']);

    const facts = cli(['facts', ...files]);
    assert.equal(facts.code, 1, facts.out);
    assert.match(facts.out, /labs-k8s-m02: host key CHANGED for 10\.3\.60\.52 — the server presented \S+ SHA256:\S+, but .*known_hosts:\d+ records a different/);
    const presented = /the server presented \S+ (SHA256:[^,\s]+),/.exec(facts.out)![1]!;
    assert.doesNotMatch(facts.out, /labs-k8s-(m01|m03|w01|w02|balancer2?): host key/, 'only m02 is refused');

    // Offering the presented fingerprint as a new key changes nothing: a changed key is not "new". The preflight
    // refuses before the question and before any step: no run starts, no ledger is written.
    const runs = join(dirname(env.LAB_INVENTORY!), '.kubeadm-workbench', 'runs');
    const ledgers = () => (existsSync(runs) ? readdirSync(runs).filter((f) => f.endsWith('-up.json')).length : 0);
    const ledgersBefore = ledgers();
    const up = cli(['up', '--yes', '--kubeconfig', kubeconfig, ...files, `--accept-new-host-key=${presented}`]);
    report.hostKeyChangedStopSeconds = up.seconds;
    outputs.push({ what: 'facts with a changed host key', text: facts.out }, { what: 'up with a changed host key', text: up.out });
    assert.equal(up.code, 1, up.out.slice(-3000));
    assert.match(up.out, /labs-k8s-m02: host key FAILED — host key CHANGED for 10\.3\.60\.52 .*connection refused/);
    assert.match(up.out, /refused before it asked anything: 1 of \d+ hosts fails the preflight/);
    // The next step: read the key on m02's console, and only then remove the old line (the exact command, its file).
    assert.match(up.out, new RegExp(`fix: read the key on the host's console \\(ssh-keygen -lf [^)]+\\); only when it is the same, remove the old line \\(ssh-keygen -R '10\\.3\\.60\\.52' -f ${knownHosts.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`));
    assert.doesNotMatch(up.out, /Run \d+ steps\?/, 'no question was asked');
    assert.doesNotMatch(up.out, /accepting new host key/);
    assert.doesNotMatch(up.out, /== Prepare/, 'no phase started');
    assert.equal(ledgers(), ledgersBefore, 'no run was started');
    // m02's sshd saw no login during the two runs: host key verification fails before authentication.
    const logins = m02(`journalctl -q --no-pager _COMM=sshd --since @${since} | grep -c 'Accepted publickey' || true`);
    assert.equal(Number(logins), 1, 'the only login since then is this check itself');
    rmSync(dir, { recursive: true, force: true });
  });

  test('every run log (killed, resumed, cancelled, resumed, --fresh) and every output: secrets only as ***', () => {
    const runs = join(dirname(env.LAB_INVENTORY!), '.kubeadm-workbench', 'runs');
    // The cluster's live bootstrap tokens, as literals: found in a log whatever shape they take there.
    const live = ssh('labs-k8s-m01', 'kubeadm token list').stdout.match(/[a-z0-9]{6}\.[a-z0-9]{16}/g) ?? [];
    const logs = checkRunLogs(runs, { known: live });
    console.log('run logs checked:', JSON.stringify(logs));
    // The bring-up's log (one run id across the kill, the resumes and the cancel) joined both control-plane nodes.
    assert.ok(logs.some((l) => l.masked.token >= 2 && l.masked.certificateKey >= 2), `a log shows both control-plane joins masked: ${JSON.stringify(logs)}`);
    assert.ok(logs.length >= 2, `the bring-up's log and the later runs' logs: ${logs.map((l) => l.name).join(', ')}`);
    assert.ok(outputs.length >= 6, outputs.map((o) => o.what).join(', '));
    for (const o of outputs) assert.deepEqual(secretsIn(o.text, live), [], o.what);
  });
});
