/** `kubeadm-workbench ssh-check` end to end against real sshd processes on loopback addresses. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli/main';
import type { CliIo } from '../../../src/cli/io';
import { keygen, keygenFingerprint, tempDir, type TestKey } from './keys';
import { startSshd, type Sshd } from './sshd';

const tmp = tempDir('kw-sshcheck-');
const d = tmp.dir;
const home = join(d, 'home');
let key: TestKey;
const hosts: Record<string, Sshd> = {};
const savedHome = process.env.HOME;
const savedSock = process.env.SSH_AUTH_SOCK;
let inventory: string;
let knownHosts: string;
let impostor: TestKey;

before(async () => {
  // Isolate from the machine's ~/.ssh and agent.
  mkdirSync(join(home, '.ssh'), { recursive: true });
  process.env.HOME = home;
  delete process.env.SSH_AUTH_SOCK;
  key = keygen(d, 'id_ed25519');
  impostor = keygen(d, 'impostor');
  const names = ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03', 'labs-k8s-w01', 'labs-k8s-w02'];
  await Promise.all(names.map(async (n, i) => (hosts[n] = await startSshd(d, n, { authorizedKeys: [key.pub], listen: `127.0.0.${11 + i}` }))));
  inventory = join(d, 'inventory.yaml');
  writeFileSync(
    inventory,
    `cluster:
  name: t
  kubernetesVersion: "1.30.14"
  controlPlaneEndpoint: 127.0.0.100:6443
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
  cni: flannel
ssh: { user: root, identityFile: ${key.path} }
hosts:
${names.map((n, i) => `  - { name: ${n}, address: 127.0.0.${11 + i}, roles: [${n.includes('-w') ? 'worker' : 'control-plane'}], ssh: { port: ${hosts[n]!.port} } }`).join('\n')}
`,
  );
  // m01, m02, w01 known; m03 unknown; w02 known with another key (changed).
  knownHosts = join(d, 'lab_known_hosts');
  writeFileSync(
    knownHosts,
    ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-w01'].map((n, _) => `[127.0.0.${11 + names.indexOf(n)}]:${hosts[n]!.port} ${hosts[n]!.hostKey.pub}\n`).join('') +
      `[127.0.0.15]:${hosts['labs-k8s-w02']!.port} ${impostor.pub}\n`,
  );
});

after(async () => {
  await Promise.all(Object.values(hosts).map((h) => h.stop()));
  process.env.HOME = savedHome;
  if (savedSock !== undefined) process.env.SSH_AUTH_SOCK = savedSock;
  tmp.cleanup();
});

function io(): CliIo & { out: string; err: string } {
  const o = {
    out: '',
    err: '',
    stdout: (t: string) => void (o.out += t),
    stderr: (t: string) => void (o.err += t),
    readFile: async (p: string) => readFileSync(p, 'utf8'),
    writeFile: async () => undefined,
  };
  return o;
}

test('ssh-check: ok hosts answer uname -n; unknown and changed keys fail with exit 1 naming the hosts', async (t) => {
  const x = io();
  const t0 = Date.now();
  const code = await main(['ssh-check', '--inventory', inventory, '--known-hosts', knownHosts, '--own-known-hosts', join(d, 'own')], x);
  t.diagnostic(`5 hosts in ${Date.now() - t0} ms\n${x.out}`);
  assert.equal(code, 1, x.out + x.err);
  assert.match(x.out, /^labs-k8s-m01 +ok +\S+ +\(root@127\.0\.0\.11:\d+; connect \d+ ms/m);
  assert.match(x.out, /^labs-k8s-m02 +ok /m);
  assert.match(x.out, /^labs-k8s-w01 +ok /m);
  assert.match(x.out, /^labs-k8s-m03 +FAILED +labs-k8s-m03: host key ssh-ed25519 SHA256:\S+ of 127\.0\.0\.13:\d+ is unknown/m);
  assert.match(x.out, /^labs-k8s-w02 +FAILED +labs-k8s-w02: host key CHANGED/m);
  assert.match(x.err, /ssh-check failed for 2 of 5 hosts: host key unknown: labs-k8s-m03; host key CHANGED: labs-k8s-w02/);
  const fp = keygenFingerprint(`${hosts['labs-k8s-m03']!.hostKey.path}.pub`);
  assert.ok(x.err.includes(`--accept-new-host-key=${fp}`), 'tells which fingerprint to pass after checking it');
});

test('ssh-check: --accept-new-host-key with the exact fingerprint admits the unknown host (never a changed one)', async () => {
  const fpM03 = keygenFingerprint(`${hosts['labs-k8s-m03']!.hostKey.path}.pub`);
  const fpW02 = keygenFingerprint(`${hosts['labs-k8s-w02']!.hostKey.path}.pub`);
  const x = io();
  const code = await main(
    ['ssh-check', '--inventory', inventory, '--known-hosts', knownHosts, '--own-known-hosts', join(d, 'own'), `--accept-new-host-key=${fpM03}`, `--accept-new-host-key=${fpW02}`, '--host', 'labs-k8s-m03', '--host', 'labs-k8s-w02'],
    x,
  );
  assert.equal(code, 1);
  assert.match(x.out, /^labs-k8s-m03 +ok /m);
  assert.match(x.out, /^labs-k8s-w02 +FAILED .*CHANGED/m);
  assert.match(x.err, /ssh-check failed for 1 of 2 hosts: host key CHANGED: labs-k8s-w02/);
});

test('ssh-check: all good → exit 0; auth failure → exit 1 naming the host; usage errors → 2', async () => {
  const x = io();
  assert.equal(await main(['ssh-check', '--inventory', inventory, '--known-hosts', knownHosts, '--own-known-hosts', join(d, 'own'), '--host', 'labs-k8s-m01', '--host', 'labs-k8s-w01'], x), 0, x.out + x.err);
  assert.match(x.out, /all 2 hosts answered/);
  const other = keygen(d, 'not-authorized');
  const inv2 = join(d, 'inventory2.yaml');
  writeFileSync(inv2, readFileSync(inventory, 'utf8').replace(key.path, other.path));
  const y = io();
  assert.equal(await main(['ssh-check', '--inventory', inv2, '--known-hosts', knownHosts, '--own-known-hosts', join(d, 'own'), '--host', 'labs-k8s-m01'], y), 1);
  assert.match(y.out, /labs-k8s-m01: authentication failed for root@127\.0\.0\.11/);
  assert.match(y.err, /authentication: labs-k8s-m01/);
  assert.equal(await main(['ssh-check'], io()), 2);
  assert.equal(await main(['ssh-check', '--inventory', inventory, '--accept-new-host-key=abc'], io()), 2);
  assert.equal(await main(['ssh-check', '--inventory', inventory, '--host', 'nope'], io()), 2);
});
