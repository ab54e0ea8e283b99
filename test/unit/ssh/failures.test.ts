/**
 * The SSH failure taxonomy (core/ssh/failures.ts) against real failures: sshd processes on loopback refusing,
 * not greeting, turning a connection away, presenting an unknown, changed or revoked host key, refusing our key,
 * accepting only passwords, a jump host that cannot reach its target, a sudo that asks for a password — each
 * through the real pool, asserting the kind a person acts on, its cause and fix, and whether it was retried. DNS and
 * "no route" cannot be made on loopback without sending traffic elsewhere: their real error objects, as Node raised
 * them, are the fixtures. Never "Connection lost before handshake" as a cause.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { SshPool, type PoolOptions } from '../../../src/adapters/ssh/pool';
import { reachSsh } from '../../../src/adapters/ssh/probe';
import { sh, sudo } from '../../../src/core/ssh/command';
import { resolveHost, type SshConfigEnv } from '../../../src/core/ssh/config';
import { describeSshFailure, describeSudoFailure, type SshFailure } from '../../../src/core/ssh/failures';
import { CliHostKeyPrompt, HostKeyVerifier } from '../../../src/core/ssh/hostKeyPolicy';
import { ANY_EXIT_CODE, sshFailureOf } from '../../../src/core/ssh/transport';
import { keygen, keygenFingerprint, tempDir, type TestKey } from './keys';
import { freePort, startSshd, type Sshd } from './sshd';
import { createTestUser, type TestUser } from './sudoUser';
import { deadListener } from '../preflight/zoo';

const tmp = tempDir('kw-failures-');
const d = tmp.dir;
let key: TestKey;
let enc: TestKey;
let stranger: TestKey;
let ok: Sshd;
let pwOnly: Sshd;
let crowded: Sshd;
let bastion: Sshd;
let sudoUser: TestUser;
let plainUser: TestUser;
const started: Sshd[] = [];
const pools: SshPool[] = [];
const servers: Server[] = [];

before(async () => {
  chmodSync(d, 0o755); // sshd reads authorized_keys as the (non-root) user logging in
  key = keygen(d, 'id_test');
  enc = keygen(d, 'id_enc', 'ed25519', 'secret words');
  stranger = keygen(d, 'id_stranger');
  sudoUser = createTestUser(d, { sudo: 'password' });
  plainUser = createTestUser(d, { sudo: 'none' });
  [ok, pwOnly, crowded, bastion] = await Promise.all([
    startSshd(d, 'ok', { authorizedKeys: [key.pub, enc.pub] }),
    startSshd(d, 'pw', { authorizedKeys: [key.pub], extra: ['PubkeyAuthentication no', 'PasswordAuthentication yes'] }),
    startSshd(d, 'crowded', { authorizedKeys: [key.pub], extra: ['MaxStartups 1:100:1'] }),
    startSshd(d, 'bastion', { authorizedKeys: [key.pub], extra: ['AllowTcpForwarding yes'] }),
  ]);
  started.push(ok, pwOnly, crowded, bastion);
  for (const s of started) {
    chmodSync(s.dir, 0o755);
    chmodSync(join(s.dir, 'authorized_keys'), 0o644);
  }
});

after(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await Promise.all(started.map((s) => s.stop()));
  for (const s of servers) s.close();
  sudoUser?.remove();
  plainUser?.remove();
  tmp.cleanup();
});

interface PoolSetup {
  config: string;
  knownHosts?: string;
  identity?: string;
  agent?: string;
  passphrase?: () => Promise<string | undefined>;
  pool?: Partial<PoolOptions>;
}

function makePool(o: PoolSetup): SshPool {
  const n = pools.length;
  const cfgFile = join(d, `ssh_config_${n}`);
  const kh = join(d, `known_hosts_${n}`);
  writeFileSync(cfgFile, o.config);
  writeFileSync(kh, o.knownHosts ?? '');
  const env: SshConfigEnv = { files: [cfgFile], homeDir: d, localUser: 'root', readFile: (p) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined), listDir: () => [] };
  const verifier = new HostKeyVerifier(
    { files: [kh], ownFile: join(d, `own_${n}`), read: async (p) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined), append: async (p, t) => appendFileSync(p, t) },
    new CliHostKeyPrompt([]),
  );
  const pool = new SshPool({
    resolve: (name) => resolveHost({ name, address: name, explicit: { identityFile: o.identity ?? key.path } }, env),
    hostKeys: verifier,
    auth: { agentSocket: o.agent ?? '', passphrase: o.passphrase ?? (async () => undefined) },
    connectTimeoutMs: 1500,
    ...o.pool,
  });
  pools.push(pool);
  return pool;
}

const cfg = (name: string, port: number, extra = '') => `Host ${name}\n  HostName 127.0.0.1\n  Port ${port}\n  User root\n${extra}`;
const known = (s: Sshd, k = s.hostKey) => `[127.0.0.1]:${s.port} ${k.pub}\n`;

/** Connects and returns the taxonomy's answer carried by the error (and how long it took). */
async function failure(pool: SshPool, host: string, attempts?: number): Promise<SshFailure & { ms: number; message: string }> {
  const t0 = Date.now();
  try {
    await pool.connect(host, attempts ? { attempts } : {});
  } catch (e) {
    const f = sshFailureOf(e);
    assert.ok(f, `no taxonomy answer on ${String(e)}`);
    const message = (e as Error).message;
    assert.doesNotMatch(message, /Connection lost before handshake/, 'a cause, not the library\'s words');
    return { ...f, ms: Date.now() - t0, message };
  }
  assert.fail(`${host} connected`);
}

function listen(onConnection: (s: import('node:net').Socket) => void): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer(onConnection);
    servers.push(srv);
    srv.listen(0, '127.0.0.1', () => resolve((srv.address() as { port: number }).port));
  });
}

test('refused: nothing listens — said with the port and the fix, tried once more at most, failing in under a second', async () => {
  const port = await freePort();
  const pool = makePool({ config: cfg('h', port) });
  const f = await failure(pool, 'h');
  assert.equal(f.kind, 'refused');
  assert.match(f.cause, new RegExp(`nothing listens on 127\\.0\\.0\\.1 port ${port}: the connection was refused`));
  assert.match(f.fix, /systemctl start ssh/);
  assert.ok(pool.stats().retries <= 1 && f.ms < 1500, `${pool.stats().retries} retries, ${f.ms} ms`);
});

test('a host that never completes TCP (its SYNs dropped, as when it is off): one timeout, not retried', async () => {
  const dead = await deadListener();
  try {
    const pool = makePool({ config: cfg('h', dead.port), pool: { connectTimeoutMs: 800 } });
    const f = await failure(pool, 'h');
    assert.deepEqual([f.kind, f.retry, pool.stats().retries], ['timeout', 'no', 0]);
    assert.match(f.cause, new RegExp(`127\\.0\\.0\\.1:${dead.port} did not answer within 0\\.8 s: the host is down`));
    assert.ok(f.ms >= 750 && f.ms < 2000, `failed after ${f.ms} ms for an 800 ms limit`);
  } finally {
    dead.stop();
  }
});

test('a silent server: no SSH greeting within the limit — not a dead host, not retried more than once', async () => {
  const port = await listen((s) => s.on('error', () => undefined));
  const f = await failure(makePool({ config: cfg('h', port), pool: { connectTimeoutMs: 600 } }), 'h', 1);
  assert.equal(f.kind, 'banner-timeout');
  assert.match(f.cause, /accepted the connection but no SSH server greeted within 0\.6 s/);
});

test('sshd turns the connection away before its greeting (past MaxStartups): closed, and backoff is advised', async () => {
  const { connect } = await import('node:net');
  const hold = connect(crowded.port, '127.0.0.1');
  hold.on('error', () => undefined);
  await new Promise<void>((r) => hold.once('data', () => r()));
  try {
    const f = await failure(makePool({ config: cfg('h', crowded.port), knownHosts: known(crowded) }), 'h', 1);
    assert.equal(f.kind, 'closed');
    assert.equal(f.retry, 'backoff');
    assert.match(f.cause, /closed the connection before the SSH handshake: sshd turned it away \(too many connections at once, MaxStartups/);
  } finally {
    hold.destroy();
  }
});

test('a service that is not SSH on the port: the probe says what it answered', async () => {
  const port = await listen((s) => {
    s.on('error', () => undefined);
    s.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  });
  const r = await reachSsh('127.0.0.1', port, 2000);
  assert.equal(r.ok, false);
  assert.match(r.failure!.cause, /is not an SSH server: it answered "HTTP\/1\.1 400 Bad Request"/);
  const good = await reachSsh('127.0.0.1', ok.port, 2000);
  assert.ok(good.ok && /answered \(SSH-2\.0-OpenSSH/.test(good.detail), good.detail);
});

test('host keys: unknown (fingerprint and how to check it), changed (the line to remove), revoked — never retried', async () => {
  const unknown = await failure(makePool({ config: cfg('h', ok.port) }), 'h');
  assert.equal(unknown.kind, 'host-key-unknown');
  const fp = keygenFingerprint(`${ok.hostKey.path}.pub`);
  assert.match(unknown.cause, new RegExp(`host key ssh-ed25519 ${fp.replace(/[+/]/g, '\\$&')} of 127\\.0\\.0\\.1:${ok.port} is unknown`));
  assert.match(unknown.fix, new RegExp(`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key\\.pub.*--accept-new-host-key=${fp.replace(/[+/]/g, '\\$&')}`));
  const changed = await failure(makePool({ config: cfg('h', ok.port), knownHosts: known(ok, stranger) }), 'h');
  assert.equal(changed.kind, 'host-key-changed');
  assert.match(changed.command!, new RegExp(`^ssh-keygen -R '\\[127\\.0\\.0\\.1\\]:${ok.port}' -f .*known_hosts_\\d+$`));
  const revokedPool = makePool({ config: cfg('h', ok.port), knownHosts: `${known(ok)}@revoked * ${ok.hostKey.pub}\n` });
  const revoked = await failure(revokedPool, 'h');
  assert.equal(revoked.kind, 'host-key-revoked');
  assert.equal(revokedPool.stats().retries, 0);
});

test('logins: no usable key (which files), a key not accepted (ssh-copy-id), an encrypted key with no agent, password-only servers', async () => {
  const missing = join(d, 'nope', 'id_ed25519');
  const none = await failure(makePool({ config: cfg('h', ok.port), knownHosts: known(ok), identity: missing }), 'h');
  assert.equal(none.kind, 'no-usable-key');
  assert.match(none.cause, new RegExp(`${missing.replace(/\./g, '\\.')} does not exist`));
  assert.match(none.fix, /ssh\.identityFile in inventory\.yaml/);
  const refused = await failure(makePool({ config: cfg('h', ok.port), knownHosts: known(ok), identity: stranger.path }), 'h');
  assert.equal(refused.kind, 'key-not-accepted');
  assert.equal(refused.command, `ssh-copy-id -i ${stranger.path}.pub -p ${ok.port} root@127.0.0.1`);
  const encrypted = await failure(makePool({ config: cfg('h', ok.port), knownHosts: known(ok), identity: enc.path }), 'h');
  assert.equal(encrypted.kind, 'encrypted-key');
  assert.equal(encrypted.command, `ssh-add ${enc.path}`);
  const password = await failure(makePool({ config: cfg('h', pwOnly.port), knownHosts: known(pwOnly) }), 'h');
  assert.equal(password.kind, 'password-only');
  assert.match(password.cause, /accepts no key login there \(it offers password/);
});

test('the agent: a dead agent socket with no key file is the cause; with a key file the login still works', async () => {
  const dead = join(d, 'agent.sock');
  const f = await failure(makePool({ config: cfg('h', ok.port), knownHosts: known(ok), identity: join(d, 'missing'), agent: dead }), 'h');
  assert.equal(f.kind, 'agent');
  assert.match(f.cause, /the ssh-agent at .*agent\.sock does not answer/);
  const works = makePool({ config: cfg('h', ok.port), knownHosts: known(ok), agent: dead });
  assert.equal((await works.exec('h', sh`echo in`)).stdout, 'in\n');
});

test('ProxyJump: the hop that failed is named — an unknown key at the jump host, a target the jump host cannot reach', async () => {
  const closed = await freePort();
  const config = `${cfg('bastion', bastion.port, `  IdentityFile ${key.path}\n`)}Host inner\n  HostName 127.0.0.1\n  Port ${closed}\n  User root\n  ProxyJump bastion\n`;
  const atJump = await failure(makePool({ config }), 'inner');
  assert.equal(atJump.kind, 'host-key-unknown');
  assert.equal(atJump.hop, 'hop 1 of 2 (bastion)');
  assert.match(atJump.message, /^inner: hop bastion: host key/);
  const forward = await failure(makePool({ config, knownHosts: known(bastion) }), 'inner');
  assert.equal(forward.kind, 'jump-forward');
  assert.equal(forward.hop, 'hop 2 of 2 (inner)');
  assert.match(forward.cause, new RegExp(`the jump host bastion could not open a connection to 127\\.0\\.0\\.1:${closed} \\(connection refused\\)`));
});

test('sudo: asks for a password (sudo -n), a wrong password, the right one on stdin only, a user who may not sudo', async () => {
  const pool = makePool({ config: `${cfg('s', ok.port).replace('User root', `User ${sudoUser.name}`)}${cfg('p', ok.port).replace('User root', `User ${plainUser.name}`)}`, knownHosts: known(ok) });
  const run = async (host: string, cmd: ReturnType<typeof sh>) => pool.exec(host, cmd, { okCodes: [...ANY_EXIT_CODE] });
  const asks = await run('s', sh`LC_ALL=C sudo -n true`);
  assert.equal(describeSudoFailure({ user: sudoUser.name, host: 's', code: asks.code, stderr: asks.stderr, withPassword: false })?.kind, 'sudo-password');
  const wrong = await run('s', sudo(sh`true`, { password: 'not it' }));
  assert.equal(describeSudoFailure({ user: sudoUser.name, host: 's', code: wrong.code, stderr: wrong.stderr, withPassword: true })?.kind, 'sudo-wrong-password');
  const right = await run('s', sudo(sh`id -u`, { password: sudoUser.password }));
  assert.equal(describeSudoFailure({ user: sudoUser.name, host: 's', code: right.code, stderr: right.stderr, withPassword: true }), undefined);
  assert.equal(right.stdout.trim(), '0');
  const denied = await run('p', sudo(sh`true`, { password: plainUser.password }));
  const f = describeSudoFailure({ user: plainUser.name, host: 'p', code: denied.code, stderr: denied.stderr, withPassword: true });
  assert.equal(f?.kind, 'sudo-denied', denied.stderr);
  assert.match(f!.fix, new RegExp(`/etc/sudoers\\.d/${plainUser.name}: ${plainUser.name} ALL=\\(ALL\\) NOPASSWD: ALL`));
});

test('recorded failures that loopback cannot make: a name that does not resolve, no route, sudo not installed — never retried', () => {
  // As Node raised them (getaddrinfo for a name under .invalid; connect to an address with no route).
  const dns = describeSshFailure({ hostname: 'm01.lab.invalid', port: 22, user: 'root', stage: 'connect', error: { message: 'getaddrinfo ENOTFOUND m01.lab.invalid', code: 'ENOTFOUND', level: 'client-socket' } });
  assert.deepEqual([dns.kind, dns.retry], ['dns', 'no']);
  assert.match(dns.cause, /the name m01\.lab\.invalid does not resolve/);
  const route = describeSshFailure({ hostname: '10.3.60.51', port: 22, user: 'root', stage: 'connect', error: { message: 'connect EHOSTUNREACH 10.3.60.51:22', code: 'EHOSTUNREACH', level: 'client-socket' } });
  assert.deepEqual([route.kind, route.retry], ['no-route', 'no']);
  assert.match(route.cause, /there is no route to 10\.3\.60\.51 from this machine \(host unreachable\)/);
  const missing = describeSudoFailure({ user: 'debian', host: 'w01', code: 127, stderr: 'sh: 1: sudo: not found\n', withPassword: false });
  assert.equal(missing?.kind, 'sudo-missing');
});
