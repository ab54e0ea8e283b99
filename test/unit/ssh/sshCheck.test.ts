/**
 * `kubeadm-workbench ssh-check` / `preflight` — the preflight's command line — and `up` refusing before its question,
 * end to end against the preflight zoo (test/unit/preflight/zoo.ts): real sshd processes on loopback, a refused port,
 * an unknown host key, a key not accepted, a sudo that asks for a password, a missing identity file, a dead host.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../../src/cli/main';
import { runUp } from '../../../src/cli/bringUp';
import type { CliIo } from '../../../src/cli/io';
import type { PreflightReport } from '../../../src/core/preflight/model';
import { tempDir } from './keys';
import { startZoo, type Zoo } from '../preflight/zoo';

const tmp = tempDir('kw-sshcheck-');
let zoo: Zoo;
const savedHome = process.env.HOME;
const savedSock = process.env.SSH_AUTH_SOCK;

before(async () => {
  process.env.HOME = join(tmp.dir, 'home');
  delete process.env.SSH_AUTH_SOCK;
  zoo = await startZoo(tmp.dir, { balancer: 'ok', m01: 'refused', m02: 'unknown-key', m03: 'not-accepted', w01: 'sudo-password', w02: 'no-identity', w03: 'dead' });
});

after(async () => {
  await zoo?.stop();
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

const files = () => ['--inventory', zoo.inventory, '--ssh-config', zoo.sshConfig, '--known-hosts', zoo.knownHosts, '--own-known-hosts', join(tmp.dir, 'own')];

test('ssh-check: one row per host, each failing check with its cause and fix, the unknown key with its fingerprint; exit 1', async (t) => {
  const x = io();
  const t0 = Date.now();
  const code = await main(['ssh-check', ...files(), '--timeout', '2'], x);
  t.diagnostic(`7 hosts in ${Date.now() - t0} ms\n${x.out}`);
  assert.equal(code, 1, x.out + x.err);
  assert.match(x.out, /^Preflight for ssh-check \(labs-k8s\): 7 hosts in [\d.]+ s$/m);
  assert.match(x.out, /^labs-k8s-balancer +root@127\.0\.0\.1:\d+ +ok +ok +ok +ok +ok +ok +ok /m);
  assert.match(x.out, /^labs-k8s-m01: port FAILED — nothing listens on 127\.0\.0\.1 port \d+: the connection was refused\n {4}fix: start sshd/m);
  assert.match(x.out, /^labs-k8s-m02: host key FAILED — host key ssh-ed25519 SHA256:\S+ of 127\.0\.0\.1:\d+ is unknown/m);
  assert.match(x.out, /^labs-k8s-m03: login FAILED — authentication failed for root@127\.0\.0\.1:\d+: the server did not accept the key offered/m);
  assert.match(x.out, /^labs-k8s-w01: sudo warning — sudo asks \S+ for a password there\n {4}fix: .*--ask-become-pass/m);
  assert.match(x.out, /^labs-k8s-w02: keys FAILED — no key to log in with — \S+\/home\/\.ssh\/id_ed25519 does not exist/m);
  assert.match(x.out, /^labs-k8s-w03: port FAILED — 127\.0\.0\.1:\d+ did not answer within 2 s/m);
  const fp = /^ {2}labs-k8s-m02 +\[127\.0\.0\.1\]:\d+ +ssh-ed25519 +(SHA256:\S+) +— check: ssh-keygen -lf \/etc\/ssh\/ssh_host_ed25519_key\.pub +— accept: --accept-new-host-key=\1$/m.exec(x.out);
  assert.ok(fp, x.out);
  assert.match(x.out, /^5 of 7 hosts fail the preflight — first: labs-k8s-m01: nothing listens/m);

  // The fingerprint given back admits that host, for this run only.
  const y = io();
  assert.equal(await main(['preflight', ...files(), '--host', 'labs-k8s-m02', `--accept-new-host-key=${fp![1]}`], y), 0, y.out + y.err);
  assert.match(y.err, /accepting new host key ssh-ed25519 SHA256:\S+ .*given with --accept-new-host-key/);
  assert.match(y.out, /^the host passes the preflight$/m);
});

test('preflight --json: the same report as data; the dead host costs its timeout once, the others are judged meanwhile', async (t) => {
  const x = io();
  assert.equal(await main(['preflight', ...files(), '--json', '--timeout', '2'], x), 1);
  const r = JSON.parse(x.out) as PreflightReport;
  const first = (h: string) => r.hosts.find((x) => x.host === `labs-k8s-${h}`)!.checks.find((c) => c.state === 'fail');
  assert.deepEqual(['m01', 'm02', 'm03', 'w02', 'w03'].map((h) => first(h)?.kind), ['refused', 'host-key-unknown', 'key-not-accepted', 'no-usable-key', 'timeout']);
  assert.equal(first('balancer'), undefined);
  const dead = r.hosts.find((h) => h.host === 'labs-k8s-w03')!.ms;
  const answering = Math.max(...r.hosts.filter((h) => h.host !== 'labs-k8s-w03').map((h) => h.ms));
  t.diagnostic(`answering hosts ≤ ${answering} ms, the dead one ${dead} ms, all ${r.ms} ms`);
  assert.ok(answering < 3000 && dead < 3000 && r.ms < 3500, `answering ${answering} ms, dead ${dead} ms, all ${r.ms} ms`);
  assert.equal(x.err.includes('Preflight for'), false, 'stdout carries the JSON only, and the table is not repeated');
});

test('up refuses before its question with the same causes: the table, no "Run N steps?", no run started', async () => {
  const x = io();
  const stdin = new PassThrough();
  // Outside the inventory's folder: the bring-up refuses to write the admin credentials into a workspace.
  const kube = tempDir('kw-sshcheck-kube-');
  const code = await runUp([...files(), '--kubeconfig', join(kube.dir, 'config')], x, stdin).finally(kube.cleanup);
  assert.equal(code, 1, x.out + x.err);
  assert.ok(x.out, x.err);
  assert.doesNotMatch(x.out, /^labs-k8s-w02: login FAILED/m, 'the missing key is said once, under keys');
  assert.match(x.out, /^labs-k8s-m01: port FAILED — nothing listens/m);
  assert.match(x.out, /^labs-k8s-w02: keys FAILED — no key to log in with/m);
  // No terminal, no --ask-become-pass: the run could not give sudo its password, so it is a failure here.
  assert.match(x.out, /^labs-k8s-w01: sudo FAILED — sudo asks \S+ for a password there\n {4}fix: .*--ask-become-pass/m);
  assert.match(x.err, /^Bring-up of labs-k8s refused before it asked anything: 6 of 7 hosts fail the preflight — first: labs-k8s-m01: nothing listens/m);
  assert.doesNotMatch(x.out + x.err, /Run \d+ steps|\[y\/N\]/);
  assert.equal(existsSync(join(dirname(zoo.inventory), '.kubeadm-workbench', 'runs')), false, 'no run was started');
});

test('preflight --cluster: the kubeconfig named is checked for a context of the inventory\'s endpoint before the API is asked', async () => {
  const x = io();
  const missing = join(tmp.dir, 'nowhere', 'config');
  assert.equal(await main(['preflight', ...files(), '--host', 'labs-k8s-balancer', '--cluster', '--kubeconfig', missing, '--json'], x), 1);
  const r = JSON.parse(x.out) as PreflightReport;
  assert.deepEqual(r.clusterChecks.map((c) => [c.id, c.state]), [['kubeconfig', 'fail'], ['api', 'skipped']]);
  assert.match(r.clusterChecks[0]!.cause!, /no kubeconfig file found/);
  assert.match(r.clusterChecks[0]!.fix!, /--kubeconfig F/);
  const other = join(tmp.dir, 'other-kubeconfig');
  writeFileSync(other, 'apiVersion: v1\nkind: Config\nclusters: [{ name: c, cluster: { server: "https://127.0.0.1:1" } }]\nusers: [{ name: u, user: {} }]\ncontexts: [{ name: elsewhere, context: { cluster: c, user: u } }]\ncurrent-context: elsewhere\n');
  const y = io();
  assert.equal(await main(['preflight', ...files(), '--host', 'labs-k8s-balancer', '--cluster', '--kubeconfig', other], y), 1);
  assert.match(y.out, /^cluster: kubeconfig FAILED — no context of .*other-kubeconfig points at the inventory's endpoint 10\.3\.60\.100:6443$/m);
  assert.equal(await main(['preflight', ...files(), '--kubeconfig', other], io()), 2, '--kubeconfig alone is a usage error');
});
