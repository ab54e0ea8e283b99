/**
 * `join` as a login user who is not root: a worker is reset and joined back through the CLI's join
 * verb, logged in as `kwadmin`, whose sudoers rule asks for a password. Real sudo and sshd on the lab
 * node: a wrong password stops at the first step naming the host, and nothing runs; the right one
 * joins the node (re-uploading a file the reset removed, through sudo), and the password appears in
 * no output or run log. Needs a running lab cluster (the lab tier's bring-up).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { recordBench } from './bench';
import { checkRunLogs, secretsIn } from './secrets';
import { tempDir } from '../tempDir';

const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist/cli.js');
const HOST = 'labs-k8s-w02';
const USER = 'kwadmin';
const PASSWORD = `pw ${randomBytes(9).toString('base64url')}`;
const env: Record<string, string> = {};
let inventory = '';
let kubeconfig = '';
const report: Record<string, number> = {};
/** Run logs there before this file's runs: the scan below covers this file's join runs only. */
let earlierLogs = new Set<string>();

function lab(args: string[]): string {
  const r = spawnSync('bash', [join(ROOT, 'lab/lab.sh'), ...args], { encoding: 'utf8', timeout: 10 * 60_000 });
  if (r.status !== 0) throw new Error(`lab ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
const asRoot = (host: string, script: string) => execFileSync('ssh', ['-F', env.LAB_SSH_CONFIG!, host, script], { encoding: 'utf8', timeout: 5 * 60_000 });
const kubectl = (...args: string[]) => execFileSync('kubectl', ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } });

function join_(stdin: string): { code: number; out: string; seconds: number } {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [CLI, 'join', '--inventory', inventory, '--host', HOST, '--ask-become-pass', '--yes', '--fresh', '--ssh-config', env.LAB_SSH_CONFIG!, '--known-hosts', env.LAB_KNOWN_HOSTS!],
    { encoding: 'utf8', input: stdin, timeout: 15 * 60_000, env: { ...process.env, PATH: env.PATH!, HOME: env.HOME_DIR! }, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status ?? -1, out: `${r.stdout}\n${r.stderr}`, seconds: (Date.now() - t0) / 1000 };
}

describe(`join ${HOST} back as a sudo user`, { timeout: 30 * 60_000 }, () => {
  before(() => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root');
    for (const m of lab(['env']).matchAll(/^export (\w+)="(.*)"$/gm)) env[m[1]!] = m[2]!.replace('$PATH', process.env.PATH ?? '');
    env.HOME_DIR = tempDir('kw-home-');
    kubeconfig = join(env.HOME_DIR, 'admin.conf');
    writeFileSync(kubeconfig, asRoot('labs-k8s-m01', 'cat /etc/kubernetes/admin.conf'), { mode: 0o600 });
    kubectl('get', 'node', HOST);
    const runs = join(dirname(env.LAB_INVENTORY!), '.kubeadm-workbench', 'runs');
    earlierLogs = new Set(existsSync(runs) ? readdirSync(runs) : []);
    // The same inventory (beside the original, so its relative files resolve) with this host reached as kwadmin.
    const doc = parseDocument(readFileSync(env.LAB_INVENTORY!, 'utf8'));
    const hosts = doc.get('hosts') as { items: { get(k: string): unknown; set(k: string, v: unknown): void }[] };
    hosts.items.find((h) => h.get('name') === HOST)!.set('ssh', doc.createNode({ user: USER }));
    inventory = join(dirname(env.LAB_INVENTORY!), 'inventory-sudo-user.yaml');
    writeFileSync(inventory, doc.toString());
    // A user who may use sudo with a password only; root's lab key lets the test log in as that user.
    asRoot(HOST, `id ${USER} >/dev/null 2>&1 || useradd -m -s /bin/bash ${USER}
      install -d -m 700 -o ${USER} -g ${USER} /home/${USER}/.ssh
      install -m 600 -o ${USER} -g ${USER} /root/.ssh/authorized_keys /home/${USER}/.ssh/authorized_keys
      echo '${USER} ALL=(ALL:ALL) ALL' > /etc/sudoers.d/${USER} && chmod 440 /etc/sudoers.d/${USER}`);
    asRoot(HOST, `printf '%s:%s\\n' ${USER} '${PASSWORD}' | chpasswd`);
    // Take the worker out: drained, deleted, reset; and a prepare file gone, so the join re-uploads it through sudo.
    kubectl('drain', HOST, '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=120s');
    kubectl('delete', 'node', HOST);
    asRoot(HOST, 'kubeadm reset -f >/dev/null 2>&1; rm -f /etc/modules-load.d/k8s.conf /etc/cni/net.d/*; ip link del cni0 2>/dev/null; ip link del flannel.1 2>/dev/null; true');
  });

  after(() => {
    console.log('join report:', JSON.stringify(report));
    rmSync(inventory, { force: true });
    spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, HOST, `rm -f /etc/sudoers.d/${USER}; userdel -r ${USER} 2>/dev/null; true`]);
  });

  test('a wrong sudo password is said before any step, naming the host and user; nothing ran', () => {
    const r = join_('not the password\n');
    assert.equal(r.code, 1, r.out.slice(-3000));
    assert.deepEqual(secretsIn(r.out, [PASSWORD]), []);
    // Tried before the plan runs (sudo -S -k true), said with the host and the user, and asked again: the input ended.
    assert.match(r.out, new RegExp(`The sudo password did not work: ${HOST}: sudo did not accept the password for ${USER}`));
    assert.match(r.out, /not started — a question had no answer \(the input ended\); nothing ran/);
    assert.doesNotMatch(r.out, /FAILED after|Run \d+ steps/, 'no step ran and nothing was confirmed');
    assert.doesNotMatch(r.out, /not the password/);
    assert.equal(asRoot(HOST, 'test -e /etc/modules-load.d/k8s.conf && echo present || echo absent').trim(), 'absent');
    assert.equal(asRoot(HOST, 'test -e /etc/kubernetes/kubelet.conf && echo joined || echo not-joined').trim(), 'not-joined');
  });

  test('with the password the worker joins through sudo and is Ready; the password is nowhere', () => {
    const r = join_(`${PASSWORD}\n`);
    report.joinSeconds = r.seconds;
    recordBench({ joinSudoSeconds: r.seconds });
    assert.equal(r.code, 0, r.out.slice(-4000));
    assert.match(r.out, new RegExp(`${HOST}: logged in as ${USER}, so every step runs through sudo`));
    assert.doesNotMatch(r.out, new RegExp(PASSWORD.slice(3)));
    assert.deepEqual(secretsIn(r.out, [PASSWORD, PASSWORD.slice(3)]), []);
    kubectl('wait', '--for=condition=Ready', `node/${HOST}`, '--timeout=120s');
    // The file the reset removed is back, root's, with its mode — written through sudo.
    assert.equal(asRoot(HOST, 'stat -c "%U %a" /etc/modules-load.d/k8s.conf').trim(), 'root 644');
    // Real sudo did the work: its journal names kwadmin running commands as root.
    assert.match(asRoot(HOST, `journalctl -q --no-pager _COMM=sudo | grep -c '${USER} : .*USER=root' || true`).trim(), /^[1-9]\d*$/);
    const runs = join(dirname(inventory), '.kubeadm-workbench', 'runs');
    for (const f of readdirSync(runs)) assert.doesNotMatch(readFileSync(join(runs, f), 'utf8'), new RegExp(PASSWORD.slice(3)), f);
    // This file's one run log: the join that ran, its worker join showing `--token ***` (the refused password stopped
    // the other before its run opened).
    const logs = checkRunLogs(runs, { known: [PASSWORD, PASSWORD.slice(3)], only: (f) => !earlierLogs.has(f) });
    assert.equal(logs.length, 1, JSON.stringify(logs));
    assert.ok(logs.some((l) => l.masked.token >= 1), `the join's log shows the token as ***: ${JSON.stringify(logs)}`);
    // No staging file left in the user's temp directory.
    assert.equal(asRoot(HOST, 'ls /tmp | grep -c "^tmp\\." || true').trim(), '0');
  });
});
