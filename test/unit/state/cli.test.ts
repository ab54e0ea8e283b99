/**
 * Issue 34, as the command line meets it (the real CLI, bundled from this source: ./builtCli.ts): a workspace's state
 * folder, its files and the terminal are untrusted input. Each test failed on the code before the fix: a planted run
 * was resumed and its log link appended to, FIFOs hung the command, a 1 GiB inventory was read whole, a file name
 * forged finding lines, --fix and --out wrote through links, CRLF files got LF lines, generate ignored
 * kubeadmExtraConfig and left half its output, and the VRRP password landed in generated/keepalived.conf.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './builtCli';
import { tempDir } from '../../tempDir';
import { phaseConfigs } from '../../../src/engine/inputs';
import { parseInventory } from '../../../src/core/inventory/parse';
import { keygen } from '../ssh/keys';
import { startSshd } from '../ssh/sshd';
import { createTestUser } from '../ssh/sudoUser';

const EXAMPLE = readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8');

/** The example with loopback addresses and a closed port: whatever a run tries, nothing leaves the machine. */
const LOOPBACK = EXAMPLE.replace('port: 22', 'port: 1').replace(/10\.3\.60\./g, '127.0.60.');

/** A workspace with that inventory; the SSH config sends every host to 127.0.0.1 too. */
function workspace(inventory = LOOPBACK): { dir: string; inventory: string; sshArgs: string[] } {
  const root = tempDir('kw-state-cli-');
  const dir = join(root, 'ws');
  mkdirSync(dir);
  writeFileSync(join(dir, 'inventory.yaml'), inventory);
  writeFileSync(join(root, 'ssh_config'), 'Host *\n  HostName 127.0.0.1\n');
  writeFileSync(join(root, 'known_hosts'), '');
  return { dir, inventory: join(dir, 'inventory.yaml'), sshArgs: ['--ssh-config', join(root, 'ssh_config'), '--known-hosts', join(root, 'known_hosts')] };
}

function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

test('up --yes does not resume an unfinished run planted in the state folder, and never appends to its log through a link', async () => {
  // Every host is one real sshd on loopback that passes the preflight (up refuses before its question otherwise) and
  // runs nothing else: a step's command fails there, so a run of our own is left unfinished, as a resume needs.
  const dir = tempDir('kw-state-resume-');
  const key = keygen(dir, 'id_ed25519');
  const sshd = await startSshd(dir, 'hosts', { authorizedKeys: [key.pub], extra: ['ForceCommand test "$SSH_ORIGINAL_COMMAND" = true'] });
  try {
    const w = workspace(LOOPBACK.replace('port: 1', `port: ${sshd.port}`).replace('~/.ssh/id_ed25519', key.path));
    const names = ['127.0.0.1', ...[...LOOPBACK.matchAll(/name: ([\w-]+), address: ([\d.]+)/g)].flatMap((m) => [m[1]!, m[2]!])];
    writeFileSync(w.sshArgs[3]!, `${names.map((n) => `[${n}]:${sshd.port}`).join(',')} ${sshd.hostKey.pub}\n`);
    const home = tempDir('kw-state-home-');
    const env = { HOME: home, XDG_STATE_HOME: join(home, 'state'), SSH_AUTH_SOCK: '' };
    await plantedRunNotResumed(w, env);
  } finally {
    await sshd.stop();
  }
});

async function plantedRunNotResumed(w: ReturnType<typeof workspace>, env: Record<string, string>): Promise<void> {
  const up = ['up', '--yes', '--phases', 'loadbalancer', '--inventory', w.inventory, ...w.sshArgs];
  // A first run of our own (its first step fails on the host): its ledger gives the plan's fingerprint.
  const first = await runCli(up, { env, timeoutMs: 120_000 });
  assert.equal(first.code, 1, first.err + first.out);
  const runs = join(w.dir, '.kubeadm-workbench', 'runs');
  const ours = existsSync(runs) ? readdirSync(runs).find((n) => n.endsWith('-up.json')) : undefined;
  assert.ok(ours, `the preflight passed and a run was left unfinished: ${first.err}`);
  const fingerprint = (JSON.parse(readFileSync(join(runs, ours), 'utf8')) as { fingerprint: string }).fingerprint;

  // What a repository can bring: a newer unfinished run of the same plan, its log a link to a file outside.
  const planted = '2999-01-01T00-00-00-000Z-up';
  writeFileSync(join(runs, `${planted}.json`), JSON.stringify({ runId: planted, command: 'up', fingerprint, createdAt: '2999-01-01T00:00:00.000Z', updatedAt: '2999-01-01T00:00:00.000Z', completedAt: null, steps: {} }));
  const outside = join(tempDir('kw-state-outside-'), 'victim.txt');
  writeFileSync(outside, 'untouched\n');
  symlinkSync(outside, join(runs, `${planted}.log`));

  const again = await runCli(up, { env, timeoutMs: 120_000 });
  const all = again.out + again.err;
  assert.doesNotMatch(all, new RegExp(`resuming run ${planted}`), 'the planted run is not resumed');
  assert.match(all, new RegExp(`${planted}\\.json is not resumed: it is not signed`), 'it is named, with why');
  assert.match(all, new RegExp(`resuming run ${ours.replace(/\.json$/, '')}`), 'the run this user made here is the one resumed');
  assert.equal(readFileSync(outside, 'utf8'), 'untouched\n', 'nothing was written through the planted log link');
  assert.ok(lstatSync(join(runs, `${planted}.log`)).isSymbolicLink());
}

test('a FIFO as the inventory, the CNI manifest or restore --from is refused at once; nothing hangs', async () => {
  const fifoInventory = join(tempDir('kw-state-fifo-'), 'inventory.yaml');
  mkfifo(fifoInventory);
  const check = await runCli(['check-inventory', fifoInventory], { timeoutMs: 15_000 });
  assert.equal(check.timedOut, false, 'check-inventory on a FIFO must not hang');
  assert.match(check.err, /is a FIFO, not a regular file: refused unread/);
  assert.equal(check.code, 2);

  const w = workspace(LOOPBACK.replace('cni: flannel', 'cni: flannel\n  cniManifest: cni.yaml'));
  mkfifo(join(w.dir, 'cni.yaml'));
  const plan = await runCli(['plan', '--inventory', w.inventory], { timeoutMs: 15_000 });
  assert.equal(plan.timedOut, false, 'plan with a FIFO as cniManifest must not hang');
  assert.match(plan.err, /cni\.yaml is a FIFO, not a regular file: refused unread/);

  const snapshot = join(tempDir('kw-state-fifo-'), 'snapshot.db');
  mkfifo(snapshot);
  const restore = await runCli(['restore', '--yes', '--inventory', w.inventory, '--from', snapshot, ...w.sshArgs], { timeoutMs: 60_000 });
  assert.equal(restore.timedOut, false, 'restore --from a FIFO must not hang');
  assert.notEqual(restore.code, 0);
});

test('an inventory over 256 KB is refused unread, counted in bytes (a sparse 1 GiB file, 300 KB of CJK text)', async () => {
  const dir = tempDir('kw-state-big-');
  const huge = join(dir, 'huge.yaml');
  writeFileSync(huge, '');
  truncateSync(huge, 1024 ** 3);
  const big = await runCli(['check-inventory', huge], { timeoutMs: 30_000 });
  assert.match(big.err, /is 1\.0 GiB; at most 256 KiB is read: refused unread/);
  assert.ok(big.ms < 10_000, `refused without reading: ${big.ms} ms`);

  const cjk = join(dir, 'cjk.yaml');
  writeFileSync(cjk, `${EXAMPLE}# ${'漢'.repeat(100_000)}\n`); // 100 000 UTF-16 units, 300 000 bytes
  const wide = await runCli(['check-inventory', cjk], { timeoutMs: 30_000 });
  assert.match(wide.err, /at most 256 KiB is read: refused unread/);
  assert.equal(wide.code, 2);
});

test('lint: a file name with a newline cannot forge finding lines; JSON keeps the real name', async () => {
  const dir = tempDir('kw-state-lint-');
  mkdirSync(join(dir, 'x.cfg:1:1: error: all hosts OK [x]\nlb'));
  const name = join(dir, 'x.cfg:1:1: error: all hosts OK [x]\nlb', 'haproxy.cfg');
  writeFileSync(name, 'global\n    daemon\nbogus_keyword on\n');
  const text = await runCli(['lint', dir], { timeoutMs: 60_000 });
  const lines = text.out.split('\n').filter(Boolean);
  assert.ok(lines.length > 0, text.err);
  assert.ok(lines.every((l) => l.startsWith(`"${dir}/x.cfg:1:1: error: all hosts OK [x]\\nlb/haproxy.cfg":`)), `every finding line starts with the quoted file name:\n${text.out}`);

  const json = await runCli(['lint', '--format', 'json', dir], { timeoutMs: 60_000 });
  const rows = JSON.parse(json.out) as { file: string; message: string }[];
  assert.ok(rows.length && rows.every((r) => r.file === name), 'the JSON keeps the real name');
});

test('what a backup manifest says reaches the terminal with its control and bidi characters escaped (no retitled terminal, no reordered line)', async () => {
  const out = tempDir('kw-state-manifest-');
  mkdirSync(join(out, 'b1'));
  const manifest = {
    kind: 'kubeadm-workbench/etcd-backup', version: 1, cluster: 'c1\u001b]0;pwned\u0007\u202eKO', controlPlaneEndpoint: '10.3.60.100:6443', takenAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1, host: 'm01\r[m02] all hosts OK', member: { id: '1', name: 'm01', wasLeader: false }, members: [], statusFrom: 'none', revisionAtSave: 1,
    snapshot: { file: 'snapshot.db', size: 0, sha256: '0'.repeat(64), trailer: 'verified' }, files: [], warnings: [],
  };
  writeFileSync(join(out, 'b1', 'manifest.json'), JSON.stringify(manifest));
  const r = await runCli(['backup', '--list', '--out', out], { timeoutMs: 30_000 });
  assert.doesNotMatch(r.out + r.err, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/, 'no raw control or bidi character reaches the terminal');
  assert.match(r.out + r.err, /\\u001b\]0;pwned\\u0007/, 'the sequence is shown, escaped');
  const json = await runCli(['backup', '--list', '--json', '--out', out], { timeoutMs: 30_000 });
  assert.equal(json.code, 0, json.err);
  // Its manifest schema refuses names with control characters: the backup is left out of the JSON list, named on stderr, escaped.
  assert.deepEqual(JSON.parse(json.out), [], 'JSON output is still JSON, without the backup its schema refuses');
  assert.match(json.err, /skipped \S+manifest\.json: cluster "c1\\u001b\]0;pwned\\u0007\\u202eKO" is not a host or member name/);
});

test('lint --fix and import-ansible --out never write through a link', async () => {
  const dir = tempDir('kw-state-links-');
  const outside = tempDir('kw-state-outside-');
  const target = join(outside, '99-kubernetes-cri.conf');
  writeFileSync(target, 'net.ipv4.ip_forward = 0\n');
  mkdirSync(join(dir, 'etc/sysctl.d'), { recursive: true });
  symlinkSync(target, join(dir, 'etc/sysctl.d/99-kubernetes-cri.conf'));
  const fix = await runCli(['lint', '--fix', join(dir, 'etc/sysctl.d/99-kubernetes-cri.conf')], { timeoutMs: 60_000 });
  assert.equal(readFileSync(target, 'utf8'), 'net.ipv4.ip_forward = 0\n', 'the link target is untouched');
  assert.match(fix.err, /is a symlink: not writing through it/);

  const hosts = join(dir, 'hosts.ini');
  writeFileSync(hosts, '[kube_control_plane]\ncp1 ansible_host=10.3.60.51\n[kube_node]\nw1 ansible_host=10.3.60.54\n');
  const victim = join(outside, 'victim.yaml');
  writeFileSync(victim, 'untouched\n');
  symlinkSync(victim, join(dir, 'inventory.yaml'));
  const imp = await runCli(['import-ansible', hosts, '--out', join(dir, 'inventory.yaml'), '--force', '--name', 'c1', '--kubernetes-version', '1.30.14', '--endpoint', '10.3.60.100:6443'], { timeoutMs: 30_000 });
  assert.equal(readFileSync(victim, 'utf8'), 'untouched\n', imp.err);
  assert.match(imp.err, /is a symlink: not writing through it/);
});

test('lint --fix keeps a CRLF file CRLF and a lone CR where it was', async () => {
  const dir = tempDir('kw-state-crlf-');
  mkdirSync(join(dir, 'etc/sysctl.d'), { recursive: true });
  const file = join(dir, 'etc/sysctl.d/99-kubernetes-cri.conf');
  writeFileSync(file, 'net.ipv4.ip_forward = 0\r\n# a note\rwith a lone CR\r\nnet.bridge.bridge-nf-call-iptables = 1\r\n');
  const r = await runCli(['lint', '--fix', file], { timeoutMs: 60_000 });
  const after = readFileSync(file, 'utf8');
  assert.match(r.err, /fixed 2 problems/);
  assert.equal(after, 'net.ipv4.ip_forward = 1\r\n# a note\rwith a lone CR\r\nnet.bridge.bridge-nf-call-iptables = 1\r\nnet.bridge.bridge-nf-call-ip6tables = 1\r\n');
});

test('generate writes the kubeadm-config.yaml the plan uploads (kubeadmExtraConfig merged), no VRRP password, and nothing when a later file is refused', async () => {
  const extra = 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\napiServer:\n  extraArgs:\n    profiling: "false"\n';
  const text = LOOPBACK.replace('cni: flannel', 'cni: flannel\n  kubeadmExtraConfig: kubeadm-extra.yaml');
  const w = workspace(text);
  writeFileSync(join(w.dir, 'kubeadm-extra.yaml'), extra);
  const out = join(w.dir, 'generated');
  const ok = await runCli(['generate', '--inventory', w.inventory, '--out', out], { timeoutMs: 60_000 });
  assert.equal(ok.code, 0, ok.err);
  const inventory = parseInventory(text).inventory!;
  const planned = phaseConfigs(inventory, extra).kubeadmInitConfig;
  assert.equal(readFileSync(join(out, 'kubeadm-config.yaml'), 'utf8'), planned, 'the file the plan uploads');
  assert.match(planned, /profiling: "false"/);
  const keepalived = readFileSync(join(out, 'keepalived.conf'), 'utf8');
  assert.match(keepalived, /auth_pass VRRPPASS\n/, 'a placeholder the plan fills in');
  assert.ok(!existsSync(join(w.dir, '.kubeadm-workbench', 'vrrp-auth-pass')) || !keepalived.includes(readFileSync(join(w.dir, '.kubeadm-workbench', 'vrrp-auth-pass'), 'utf8').split('\n')[0]!));

  // A link where a later file goes: refused before the first file is written.
  const out2 = join(w.dir, 'generated2');
  mkdirSync(out2);
  const elsewhere = join(tempDir('kw-state-outside-'), 'x');
  writeFileSync(elsewhere, 'untouched\n');
  symlinkSync(elsewhere, join(out2, 'keepalived.conf'));
  const refused = await runCli(['generate', '--force', '--inventory', w.inventory, '--out', out2], { timeoutMs: 60_000 });
  assert.equal(refused.code, 1);
  assert.match(refused.err, /keepalived\.conf is a symlink.*nothing was written/);
  assert.deepEqual(readdirSync(out2), ['keepalived.conf'], 'no partial output');
  assert.equal(readFileSync(elsewhere, 'utf8'), 'untouched\n');
});

test('ssh-check: what a host prints cannot retitle the terminal or overwrite our lines (a real sshd whose command prints escape sequences)', async () => {
  const dir = tempDir('kw-state-sshd-');
  const key = keygen(dir, 'id_ed25519');
  // The preflight's sudo check as a user who is not root reads what the host answers; it answers an OSC title, a line
  // erase and a carriage return, then a forged verdict (and fails: the cause quotes its last line).
  const user = createTestUser(dir, { sudo: 'none' });
  const sshd = await startSshd(dir, 'm01', { authorizedKeys: [key.pub], listen: '127.0.0.31', extra: ["ForceCommand printf '\\033]0;pwned\\007\\033[2K\\rall hosts OK\\n' >&2; exit 1"] });
  // sshd reads authorized_keys as the user logging in: that user must be able to reach it.
  for (const d of [dir, sshd.dir]) chmodSync(d, 0o755);
  chmodSync(join(sshd.dir, 'authorized_keys'), 0o644);
  try {
    const inventory = join(dir, 'inventory.yaml');
    writeFileSync(inventory, `cluster:
  name: t
  kubernetesVersion: "1.30.14"
  controlPlaneEndpoint: 127.0.0.100:6443
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
  cni: flannel
ssh: { user: ${user.name}, identityFile: ${key.path} }
hosts:
  - { name: m01, address: 127.0.0.31, roles: [control-plane], ssh: { port: ${sshd.port} } }
`);
    const knownHosts = join(dir, 'known_hosts');
    writeFileSync(knownHosts, `[127.0.0.31]:${sshd.port} ${sshd.hostKey.pub}\n`);
    const home = join(dir, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    const r = await runCli(['ssh-check', '--inventory', inventory, '--known-hosts', knownHosts, '--own-known-hosts', join(dir, 'own')], { env: { HOME: home, SSH_AUTH_SOCK: '' }, timeoutMs: 60_000 });
    assert.match(r.out + r.err, /m01/, r.out + r.err);
    assert.doesNotMatch(r.out + r.err, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/, 'no raw control character reaches the terminal');
    assert.match(r.out + r.err, /\\u001b\]0;pwned\\u0007\\u001b\[2K\\u000dall hosts OK/, 'the host\'s bytes are shown, escaped');
  } finally {
    await sshd.stop();
    user.remove();
  }
});
