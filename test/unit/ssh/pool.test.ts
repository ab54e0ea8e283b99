/**
 * Integration tests of the ssh2 pool against real OpenSSH sshd processes started here on 127.0.0.1 high ports.
 * No mocks of the server; host keys are always checked (known_hosts written by the test from the host keys it
 * generated; unknown keys go to a recording prompt, never auto-accepted).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'ssh2';
import { SshPool, type PoolOptions } from '../../../src/adapters/ssh/pool';
import { raw, replayedShellText, secret, sh, writeFileCommand } from '../../../src/core/ssh/command';
import { resolveHost, type SshConfigEnv } from '../../../src/core/ssh/config';
import { HostKeyVerifier, type HostKeyPrompt, type UnknownKeyAnswer } from '../../../src/core/ssh/hostKeyPolicy';
import { RemoteCommandCancelled, RemoteCommandError, SshConnectError } from '../../../src/core/ssh/transport';
import { RunOutput, formatRunLine } from '../../../src/core/ssh/runLog';
import { keygen, keygenFingerprint, tempDir, type TestKey } from './keys';
import { batchScript, expectedOutput, hostilePieces, makeCase, prng } from './fuzz';
import { startSshd, type Sshd } from './sshd';

const tmp = tempDir('kw-sshd-');
const d = tmp.dir;
let clientKey: TestKey;
let encKey: TestKey;
let a: Sshd; // plain target
let b: Sshd;
let c: Sshd;
let jump: Sshd; // jump host, forwards only to `behind`
let behind: Sshd;
const started: Sshd[] = [];
const pools: SshPool[] = [];

before(async () => {
  clientKey = keygen(d, 'client', 'ed25519');
  encKey = keygen(d, 'client_enc', 'ed25519', 'correct horse');
  const keys = [clientKey.pub, encKey.pub];
  a = await startSshd(d, 'a', { authorizedKeys: keys });
  b = await startSshd(d, 'b', { authorizedKeys: keys, hostKeyType: 'ecdsa' });
  c = await startSshd(d, 'c', { authorizedKeys: keys });
  behind = await startSshd(d, 'behind', { authorizedKeys: keys });
  jump = await startSshd(d, 'jump', {
    authorizedKeys: keys,
    logLevel: 'DEBUG1',
    extra: ['AllowTcpForwarding yes', `PermitOpen 127.0.0.1:${behind.port}`],
  });
  started.push(a, b, c, behind, jump);
});

after(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await Promise.all(started.map((s) => s.stop()));
  tmp.cleanup();
});

function knownHostsLine(s: Sshd, key = s.hostKey): string {
  return `[127.0.0.1]:${s.port} ${key.pub}\n`;
}

interface Recorded {
  unknown: string[];
  changed: string[];
  revoked: string[];
}

function recordingPrompt(answer: UnknownKeyAnswer = 'reject'): HostKeyPrompt & { calls: Recorded; answer: UnknownKeyAnswer } {
  const calls: Recorded = { unknown: [], changed: [], revoked: [] };
  const p = {
    calls,
    answer,
    unknown: async (host: string, port: number, type: string, fp: string) => {
      calls.unknown.push(`${host}:${port} ${type} ${fp}`);
      return p.answer;
    },
    changed: async (host: string, port: number, type: string, fp: string) => {
      calls.changed.push(`${host}:${port} ${type} ${fp}`);
    },
    revoked: async (host: string, port: number, type: string, fp: string) => {
      calls.revoked.push(`${host}:${port} ${type} ${fp}`);
    },
  };
  return p;
}

/** A pool whose hosts are resolved from an ssh config text, with the given known_hosts text. */
function makePool(opts: { config: string; knownHosts: string; prompt?: ReturnType<typeof recordingPrompt>; identity?: string; pool?: Partial<PoolOptions> }) {
  const n = pools.length;
  const cfgFile = join(d, `ssh_config_${n}`);
  const kh = join(d, `known_hosts_${n}`);
  const own = join(d, `own_known_hosts_${n}`);
  writeFileSync(cfgFile, opts.config);
  writeFileSync(kh, opts.knownHosts);
  const env: SshConfigEnv = {
    files: [cfgFile],
    homeDir: d,
    localUser: 'root',
    readFile: (p) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined),
    listDir: () => [],
  };
  const prompt = opts.prompt ?? recordingPrompt();
  const verifier = new HostKeyVerifier(
    {
      files: [kh],
      ownFile: own,
      read: async (p) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined),
      append: async (p, t) => appendFileSync(p, t, { mode: 0o600 }),
    },
    prompt,
  );
  const pool = new SshPool({
    resolve: (name) => resolveHost({ name, address: name, explicit: { identityFile: opts.identity ?? clientKey.path } }, env),
    hostKeys: verifier,
    auth: { agentSocket: '' },
    ...opts.pool,
  });
  pools.push(pool);
  return { pool, prompt, kh, own };
}

const hostCfg = (name: string, s: Sshd, extra = '') => `Host ${name}\n  HostName 127.0.0.1\n  Port ${s.port}\n  User root\n  IdentitiesOnly yes\n${extra}`;

test('exec: streamed output, exit codes, signals, errors that name host and command', async (t) => {
  const { pool } = makePool({ config: hostCfg('labs-k8s-m01', a), knownHosts: knownHostsLine(a) });
  const chunks: { at: number; s: string }[] = [];
  const t0 = Date.now();
  const r = await pool.exec('labs-k8s-m01', sh`for i in 1 2 3; do echo tick $i; sleep 0.3; done; echo oops >&2; exit 3`, {
    okCodes: [3],
    onStdout: (s) => chunks.push({ at: Date.now() - t0, s }),
  });
  assert.equal(r.code, 3);
  assert.equal(r.stdout, 'tick 1\ntick 2\ntick 3\n');
  assert.equal(r.stderr, 'oops\n', 'the pgid marker is stripped from stderr');
  assert.ok(chunks.length >= 3, 'output arrives in pieces');
  assert.ok(chunks[0]!.at < chunks[chunks.length - 1]!.at - 400, `streamed, not buffered (${chunks.map((c) => c.at).join(',')} ms)`);

  await assert.rejects(pool.exec('labs-k8s-m01', sh`systemctl-does-not-exist ${'restart'} kubelet`), (e: Error) => {
    assert.ok(e instanceof RemoteCommandError);
    assert.match(e.message, /^labs-k8s-m01: `systemctl-does-not-exist restart kubelet` exited 127: .*not found/);
    return true;
  });
  const killed = await pool.exec('labs-k8s-m01', sh`kill -TERM $$`, { okCodes: [] }).catch((e: RemoteCommandError) => e);
  assert.ok(killed instanceof RemoteCommandError);
  assert.equal(killed.result.signal, 'TERM');
  assert.match(killed.message, /was killed by SIGTERM/);
  // stdin and unicode
  const echo = await pool.exec('labs-k8s-m01', sh`cat; printf '%s' ${'ünïcödé ✓'}`, { stdin: 'from stdin\n' });
  assert.equal(echo.stdout, 'from stdin\nünïcödé ✓');
  // Secrets never appear in errors.
  await assert.rejects(pool.exec('labs-k8s-m01', sh`echo --token ${secret('abcdef.0123456789abcdef')} >&2; false`), (e: Error) => {
    assert.ok(!e.message.includes('0123456789abcdef'), e.message);
    assert.match(e.message, /--token \*\*\*/);
    return true;
  });
  t.diagnostic(`connect time (direct, loopback): ${pool.connections()[0]!.connectMs} ms`);
});

test('cancel really stops the remote process group (checked with pgrep), unlike closing the channel', async () => {
  const { pool } = makePool({ config: hostCfg('h', a), knownHosts: knownHostsLine(a) });
  const tag = String(700000 + Math.floor(Math.random() * 99999));
  const pg = () => spawnSync('pgrep', ['-f', `^sleep ${tag}$`], { encoding: 'utf8' }).stdout.trim();
  const ac = new AbortController();
  const run = pool.exec('h', sh`sleep ${tag} & sleep ${tag} & sh -c ${`sleep ${tag}; echo never`}; wait`, { signal: ac.signal });
  for (let i = 0; i < 200 && pg().split('\n').filter(Boolean).length < 3; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(pg().split('\n').filter(Boolean).length, 3, 'three remote sleeps running');
  const t0 = Date.now();
  ac.abort();
  await assert.rejects(run, (e: Error) => e instanceof RemoteCommandCancelled && /h: `sleep .*` was cancelled; the remote process group was killed/.test(e.message));
  for (let i = 0; i < 160 && pg() !== ''; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(pg(), '', 'no remote process survives the cancel');
  assert.ok(Date.now() - t0 < 8000, `cancel took ${Date.now() - t0} ms`);
  // A timeout cancels the same way.
  const t1 = Date.now();
  await assert.rejects(pool.exec('h', sh`sleep ${tag}`, { timeoutMs: 400 }), (e: Error) => e instanceof RemoteCommandCancelled && /timed out after 400 ms/.test(e.message));
  assert.ok(Date.now() - t1 < 8000, `timeout cancel took ${Date.now() - t1} ms`);
  for (let i = 0; i < 160 && pg() !== ''; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(pg(), '', 'no remote process survives the timeout');
  // The pool still works after a cancel.
  assert.equal((await pool.exec('h', sh`echo ok`)).stdout, 'ok\n');

  // Control: plain ssh2, closing the channel without the group kill leaves the remote process running.
  const cl = new Client();
  await new Promise<void>((resolve, reject) =>
    cl
      .on('ready', () => resolve())
      .on('error', reject)
      .connect({ host: '127.0.0.1', port: a.port, username: 'root', privateKey: readFileSync(clientKey.path), hostVerifier: (k: Buffer) => k.equals(a.hostKey.blob) }),
  );
  await new Promise<void>((resolve, reject) =>
    cl.exec(`sleep ${tag}; true`, (err, ch) => {
      if (err) return reject(err);
      setTimeout(() => {
        ch.close();
        resolve();
      }, 300);
    }),
  );
  await new Promise((r) => setTimeout(r, 500));
  const survivors = pg();
  cl.end();
  assert.notEqual(survivors, '', 'without the group kill the remote sleep survives a closed channel');
  execFileSync('kill', survivors.split('\n'));
});

test('one TCP connection reused for 20 commands; channels capped with a queue', async (t) => {
  const { pool } = makePool({ config: hostCfg('h', b), knownHosts: knownHostsLine(b), pool: { maxChannelsPerConnection: 4 } });
  const before = (b.log().match(/Accepted publickey/g) ?? []).length;
  // 20 commands, 4 at a time (queued behind the channel cap), all on one connection.
  const outs = await Promise.all(Array.from({ length: 20 }, (_, i) => pool.exec('h', sh`echo ${i}`)));
  outs.forEach((r, i) => assert.equal(r.stdout, `${i}\n`));
  const ss = execFileSync('ss', ['-Htn', 'state', 'established', `( dport = :${b.port} )`], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  assert.equal(ss.length, 1, `one established TCP connection to sshd b: ${ss.join(' | ')}`);
  assert.equal((b.log().match(/Accepted publickey/g) ?? []).length - before, 1, 'sshd logged a single login');
  assert.equal(pool.connections().length, 1);
  assert.equal(pool.connections()[0]!.commands, 20);
  // 10 concurrent commands of 0.4 s with 4 channels: 3 waves, no "open failed" from MaxSessions.
  const t0 = Date.now();
  const stamps = await Promise.all(Array.from({ length: 10 }, () => pool.exec('h', sh`date +%s%N; sleep 0.4; date +%s%N`)));
  const elapsed = Date.now() - t0;
  const spans = stamps.map((r) => r.stdout.trim().split('\n').map((x) => Number(BigInt(x) / 1_000_000n)));
  let maxOverlap = 0;
  for (const [s] of spans) maxOverlap = Math.max(maxOverlap, spans.filter(([s2, e2]) => s2! <= s! && e2! > s!).length);
  assert.ok(maxOverlap <= 4, `at most 4 channels at once (saw ${maxOverlap})`);
  assert.ok(elapsed >= 1200, `three waves (${elapsed} ms)`);
  t.diagnostic(`10 × 0.4 s commands over 4 channels: ${elapsed} ms, max overlap ${maxOverlap}`);
});

test('at most maxParallelHosts hosts at once', async (t) => {
  const { pool } = makePool({
    config: hostCfg('ha', a) + hostCfg('hb', b) + hostCfg('hc', c),
    knownHosts: knownHostsLine(a) + knownHostsLine(b) + knownHostsLine(c),
    pool: { maxParallelHosts: 2 },
  });
  let maxActive = 0;
  const timer = setInterval(() => (maxActive = Math.max(maxActive, pool.activeHosts)), 5);
  const t0 = Date.now();
  const res = await Promise.all(['ha', 'hb', 'hc'].map((h) => pool.exec(h, sh`date +%s%N; sleep 0.5; date +%s%N`)));
  clearInterval(timer);
  const spans = res.map((r) => r.stdout.trim().split('\n').map((x) => Number(BigInt(x) / 1_000_000n)));
  let overlap = 0;
  for (const [s] of spans) overlap = Math.max(overlap, spans.filter(([s2, e2]) => s2! <= s! && e2! > s!).length);
  assert.equal(maxActive, 2);
  assert.ok(overlap <= 2, `remote commands overlapped on ${overlap} hosts`);
  t.diagnostic(`3 hosts, cap 2: ${Date.now() - t0} ms; connect times ${pool.connections().map((c) => `${c.alias}=${c.connectMs}ms`).join(' ')}`);

  // Cancelling commands still queued for a host slot or a channel: they leave the queue at once, and no slot leaks.
  const ac = new AbortController();
  const long = ['ha', 'hb'].map((h) => pool.exec(h, sh`sleep 30`, { signal: ac.signal }));
  const queued = pool.exec('hc', sh`echo never`, { signal: ac.signal });
  await new Promise((r) => setTimeout(r, 300));
  const t1 = Date.now();
  ac.abort();
  await assert.rejects(queued, (e: Error) => e instanceof RemoteCommandCancelled && /before it started/.test(e.message));
  await Promise.allSettled(long);
  assert.ok(Date.now() - t1 < 8000, `cancel took ${Date.now() - t1} ms`);
  assert.equal(pool.activeHosts, 0);
  const again = await Promise.all(['ha', 'hb', 'hc'].map((h) => pool.exec(h, sh`echo ${h}`)));
  assert.deepEqual(again.map((r) => r.stdout), ['ha\n', 'hb\n', 'hc\n']);
});

test('ProxyJump: through a second sshd, host keys checked on both hops', async (t) => {
  const cfg = hostCfg('bastion', jump, `  IdentityFile ${clientKey.path}\n`) + hostCfg('inner', behind, '  ProxyJump bastion\n');
  // Both keys known: works, and the jump sshd logged the forwarded channel to the inner host.
  const ok = makePool({ config: cfg, knownHosts: knownHostsLine(jump) + knownHostsLine(behind) });
  const r = await ok.pool.exec('inner', sh`echo inner-ok`);
  assert.equal(r.stdout, 'inner-ok\n');
  assert.match(jump.log(), new RegExp(`direct-tcpip.*127\\.0\\.0\\.1 port ${behind.port}|target 127\\.0\\.0\\.1 port ${behind.port}`));
  assert.deepEqual(ok.prompt.calls, { unknown: [], changed: [], revoked: [] } as Recorded);
  assert.deepEqual(ok.pool.connections().map((c) => c.alias), ['bastion', 'inner']);
  t.diagnostic(`connect times: ${ok.pool.connections().map((c) => `${c.alias}=${c.connectMs}ms`).join(' ')}`);

  // The jump host's key is unknown: asked for that hop (with its fingerprint), rejected, nothing reached.
  const unknownJump = makePool({ config: cfg, knownHosts: knownHostsLine(behind) });
  await assert.rejects(unknownJump.pool.exec('inner', sh`true`), (e: Error) => e instanceof SshConnectError && e.kind === 'host-key' && /hop bastion/.test(e.message));
  assert.deepEqual(unknownJump.prompt.calls.unknown, [`127.0.0.1:${jump.port} ssh-ed25519 ${keygenFingerprint(`${jump.hostKey.path}.pub`)}`]);

  // The inner host's key changed: hard stop even though the jump host is fine.
  const other = keygen(d, 'impostor', 'ed25519');
  const changed = makePool({ config: cfg, knownHosts: knownHostsLine(jump) + knownHostsLine(behind, other) });
  await assert.rejects(changed.pool.exec('inner', sh`true`), (e: Error) => e instanceof SshConnectError && e.kind === 'host-key' && /CHANGED/.test(e.message));
  assert.deepEqual(changed.prompt.calls.changed, [`127.0.0.1:${behind.port} ssh-ed25519 ${keygenFingerprint(`${behind.hostKey.path}.pub`)}`]);
  assert.deepEqual(changed.prompt.calls.unknown, []);
});

test('unknown key: prompt gets the SHA256 fingerprint; reject refuses, once connects, remember persists', async () => {
  const rejecting = makePool({ config: hostCfg('h', c), knownHosts: '' });
  const loginsBefore = (c.log().match(/Accepted publickey/g) ?? []).length;
  await assert.rejects(rejecting.pool.exec('h', sh`true`), (e: Error) => e instanceof SshConnectError && e.kind === 'host-key' && /unknown/.test(e.message));
  assert.deepEqual(rejecting.prompt.calls.unknown, [`127.0.0.1:${c.port} ssh-ed25519 ${keygenFingerprint(`${c.hostKey.path}.pub`)}`]);
  assert.equal((c.log().match(/Accepted publickey/g) ?? []).length, loginsBefore, 'never authenticated to a rejected host');

  const once = makePool({ config: hostCfg('h', c), knownHosts: '', prompt: recordingPrompt('once') });
  assert.equal((await once.pool.exec('h', sh`echo hi`)).stdout, 'hi\n');
  assert.equal(existsSync(once.own), false);

  const remember = makePool({ config: hostCfg('h', c), knownHosts: '', prompt: recordingPrompt('remember') });
  await remember.pool.exec('h', sh`true`);
  const line = readFileSync(remember.own, 'utf8');
  assert.match(line, /^\|1\|/);
  const found = execFileSync('ssh-keygen', ['-F', `[127.0.0.1]:${c.port}`, '-f', remember.own], { encoding: 'utf8' });
  assert.match(found, /found: line 1/);
});

test('changed key → hard stop; revoked key → refused', async () => {
  const other = keygen(d, 'old-a', 'ed25519');
  const changed = makePool({ config: hostCfg('h', a), knownHosts: knownHostsLine(a, other), prompt: recordingPrompt('once') });
  await assert.rejects(changed.pool.exec('h', sh`true`), (e: Error) => {
    assert.ok(e instanceof SshConnectError && e.kind === 'host-key');
    assert.match(e.message, /^h: host key CHANGED for 127\.0\.0\.1:\d+ .*man-in-the-middle/);
    return true;
  });
  assert.equal(changed.prompt.calls.changed.length, 1);
  assert.equal(changed.prompt.calls.unknown.length, 0, 'a changed key is never offered for acceptance');

  const revoked = makePool({ config: hostCfg('h', a), knownHosts: knownHostsLine(a) + `@revoked * ${a.hostKey.pub}\n`, prompt: recordingPrompt('once') });
  await assert.rejects(revoked.pool.exec('h', sh`true`), (e: Error) => e instanceof SshConnectError && /revoked/.test(e.message));
  assert.equal(revoked.prompt.calls.revoked.length, 1);
});

test('auth: unknown key fails naming the host; passphrase asked once; ssh-agent', async () => {
  const stranger = keygen(d, 'stranger', 'ed25519');
  const bad = makePool({ config: hostCfg('labs-k8s-w09', a), knownHosts: knownHostsLine(a), identity: stranger.path });
  await assert.rejects(bad.pool.exec('labs-k8s-w09', sh`true`), (e: Error) => e instanceof SshConnectError && e.kind === 'auth' && /^labs-k8s-w09: authentication failed for root@127\.0\.0\.1/.test(e.message));

  const asked: string[] = [];
  const answers = ['wrong', 'correct horse'];
  const enc = makePool({
    config: hostCfg('x', a) + hostCfg('y', b),
    knownHosts: knownHostsLine(a) + knownHostsLine(b),
    identity: encKey.path,
    pool: { auth: { agentSocket: '', passphrase: async (f, attempt) => (asked.push(`${f}#${attempt}`), answers.shift()) } },
  });
  await Promise.all([enc.pool.exec('x', sh`true`), enc.pool.exec('y', sh`true`)]);
  assert.deepEqual(asked, [`${encKey.path}#1`, `${encKey.path}#2`], 'asked once per key (plus the retry after a wrong one), not per host');

  // ssh-agent with the key loaded, no key file.
  const agentSock = join(d, 'agent.sock');
  const agent = spawn('ssh-agent', ['-D', '-a', agentSock], { stdio: 'ignore' });
  try {
    for (let i = 0; i < 50 && !existsSync(agentSock); i++) await new Promise((r) => setTimeout(r, 20));
    chmodSync(clientKey.path, 0o600);
    // The socket file appears at bind(), slightly before the agent listens: retry briefly.
    for (let i = 0; ; i++) {
      const r = spawnSync('ssh-add', ['-q', clientKey.path], { env: { ...process.env, SSH_AUTH_SOCK: agentSock }, stdio: 'ignore' });
      if (r.status === 0) break;
      if (i >= 40) assert.fail('ssh-add could not reach the test agent');
      await new Promise((res) => setTimeout(res, 50));
    }
    const viaAgent = makePool({
      config: hostCfg('h', a).replace('  IdentitiesOnly yes\n', ''),
      knownHosts: knownHostsLine(a),
      identity: join(d, 'no-such-key'),
      pool: { auth: { agentSocket: agentSock } },
    });
    assert.equal((await viaAgent.pool.exec('h', sh`echo agent`)).stdout, 'agent\n');
  } finally {
    agent.kill();
  }
});

test('a dropped connection is reconnected for the next command', async () => {
  const { pool } = makePool({ config: hostCfg('h', a), knownHosts: knownHostsLine(a) });
  await pool.exec('h', sh`true`);
  // Kill this session's sshd process (the login shell's parent): the TCP connection drops.
  await pool.exec('h', sh`kill -9 $PPID`).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal((await pool.exec('h', sh`echo back`)).stdout, 'back\n');
  assert.equal(pool.connections().length, 2);
  assert.equal(pool.connections()[0]!.closed, true);
});

test('restricted mode: the pool refuses to connect when not allowed', async () => {
  const { pool } = makePool({ config: hostCfg('h', a), knownHosts: knownHostsLine(a), pool: { allowConnect: () => false } });
  await assert.rejects(pool.exec('h', sh`true`), (e: Error) => e instanceof SshConnectError && e.kind === 'restricted');
});

test('run output: host-prefixed and redacted end to end', async () => {
  const { pool } = makePool({ config: hostCfg('labs-k8s-m01', a), knownHosts: knownHostsLine(a) });
  const out = new RunOutput();
  const lines: string[] = [];
  out.addSink((l) => lines.push(formatRunLine(l)));
  const token = 'abcdef.0123456789abcdef';
  const cmd = sh`printf '%s\n' ${secret('pw-xyz')} ${raw('"kubeadm join --token')} ${token}${raw('"')}; echo cert: ${'a'.repeat(64)} >&2`;
  const s = out.forCommand('labs-k8s-m01', cmd);
  await pool.exec('labs-k8s-m01', cmd, s);
  s.end();
  assert.deepEqual(lines.sort(), ['[labs-k8s-m01] ***', '[labs-k8s-m01] cert: ***', '[labs-k8s-m01] kubeadm join --token ***'].sort());
});

test('writeFileCommand: binary content through stdin, atomic, with mode; idle connections close', async () => {
  const { pool } = makePool({ config: hostCfg('h', a), knownHosts: knownHostsLine(a), pool: { idleTimeoutMs: 300 } });
  const content = randomBytes(256 * 1024);
  const target = join(d, 'written', "we'ird $(name).bin");
  await pool.exec('h', writeFileCommand(target, { mode: 0o600, mkdir: true }), { stdin: content });
  assert.ok(readFileSync(target).equals(content));
  assert.equal(statSync(target).mode & 0o777, 0o600);
  const sum = await pool.exec('h', sh`sha256sum < ${target}`);
  assert.equal(sum.stdout.split(' ')[0], createHash('sha256').update(content).digest('hex'));
  assert.equal(existsSync(`${target}.kw-tmp`), false);
  // After the idle timeout the connection is closed; the next command reconnects.
  for (let i = 0; i < 100 && !pool.connections()[0]!.closed; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(pool.connections()[0]!.closed, true);
  assert.equal((await pool.exec('h', sh`echo again`)).stdout, 'again\n');
  assert.equal(pool.connections().length, 2);
});

test('a host key prompt that outlives sshd LoginGraceTime: one reconnect, no second prompt', async () => {
  const slow = await startSshd(d, 'slow-grace', { authorizedKeys: [clientKey.pub], extra: ['LoginGraceTime 2'] });
  started.push(slow);
  const prompt = recordingPrompt('once');
  const answer = prompt.unknown;
  prompt.unknown = async (...args) => {
    await new Promise((r) => setTimeout(r, 3000));
    return answer(...args);
  };
  const { pool } = makePool({ config: hostCfg('h', slow), knownHosts: '', prompt });
  assert.equal((await pool.exec('h', sh`echo late`)).stdout, 'late\n');
  assert.equal(prompt.calls.unknown.length, 1, 'asked once');
});

test('no time limit runs while the user reads a host key: a prompt answered after 2.5 s under a 1 s connect limit connects', async () => {
  const patient = await startSshd(d, 'patient', { authorizedKeys: [clientKey.pub] });
  started.push(patient);
  const prompt = recordingPrompt('once');
  const answer = prompt.unknown;
  prompt.unknown = async (...args) => {
    await new Promise((r) => setTimeout(r, 2500));
    return answer(...args);
  };
  const { pool } = makePool({ config: hostCfg('h', patient), knownHosts: '', prompt, pool: { connectTimeoutMs: 1_000 } });
  const t0 = Date.now();
  assert.equal((await pool.exec('h', sh`echo decided`)).stdout, 'decided\n');
  assert.ok(Date.now() - t0 >= 2500, 'the command ran after the answer');
  assert.equal(prompt.calls.unknown.length, 1, 'asked once, not again after a timeout');
});

test('ProxyJump chain of two jump hosts (comma list): three host keys checked, tunnels nested', async (t) => {
  const hopB = await startSshd(d, 'hopB', { authorizedKeys: [clientKey.pub], logLevel: 'DEBUG1', extra: ['AllowTcpForwarding yes', `PermitOpen 127.0.0.1:${behind.port}`] });
  const hopA = await startSshd(d, 'hopA', { authorizedKeys: [clientKey.pub], logLevel: 'DEBUG1', extra: ['AllowTcpForwarding yes', `PermitOpen 127.0.0.1:${hopB.port}`] });
  started.push(hopA, hopB);
  const idf = `  IdentityFile ${clientKey.path}\n`;
  const cfg = hostCfg('hopA', hopA, idf) + hostCfg('hopB', hopB, idf) + hostCfg('inner', behind, '  ProxyJump hopA,hopB\n');
  const all = knownHostsLine(hopA) + knownHostsLine(hopB) + knownHostsLine(behind);
  const ok = makePool({ config: cfg, knownHosts: all });
  const r = await ok.pool.exec('inner', sh`echo deep`);
  assert.equal(r.stdout, 'deep\n');
  assert.deepEqual(ok.pool.connections().map((c) => `${c.alias}:${c.hostKey?.how}`), ['hopA:known', 'hopB:known', 'inner:known']);
  assert.match(hopA.log(), new RegExp(`port ${hopB.port}`), 'hopA forwarded to hopB');
  assert.match(hopB.log(), new RegExp(`port ${behind.port}`), 'hopB forwarded to the target');
  t.diagnostic(`3-hop connect times: ${ok.pool.connections().map((c) => `${c.alias}=${c.connectMs}ms`).join(' ')}`);
  // The middle hop's key is unknown → refused at that hop, the target is never reached.
  const mid = makePool({ config: cfg, knownHosts: knownHostsLine(hopA) + knownHostsLine(behind) });
  await assert.rejects(mid.pool.exec('inner', sh`true`), (e: Error) => e instanceof SshConnectError && e.hostKeyStatus === 'unknown' && /hop hopB/.test(e.message));
  assert.deepEqual(mid.prompt.calls.unknown, [`127.0.0.1:${hopB.port} ssh-ed25519 ${keygenFingerprint(`${hopB.hostKey.path}.pub`)}`]);
});

test('quoting fuzz through sshd: 1000 hostile cases arrive intact via the remote login shell', async (t) => {
  const { pool } = makePool({ config: hostCfg('h', a), knownHosts: knownHostsLine(a) });
  const canary = join(d, 'remote-canary');
  const pieces = hostilePieces(canary);
  const r = prng(0xbadc0de);
  const cases = Array.from({ length: 1000 }, () => makeCase(r, pieces));
  const BATCH = 50;
  await Promise.all(
    Array.from({ length: cases.length / BATCH }, async (_, b) => {
      const batch = cases.slice(b * BATCH, (b + 1) * BATCH);
      // The remote stdout is decoded as UTF-8 by the pool; compare as text.
      const res = await pool.exec('h', sh`${replayedShellText(batchScript(batch))}`);
      assert.equal(res.stdout, expectedOutput(batch).toString('utf8'), `batch ${b}`);
    }),
  );
  assert.equal(existsSync(canary), false, 'a hostile value ran a command on the remote side');
  const shell = (await pool.exec('h', sh`ps -o comm= -p $$; true`)).stdout.trim();
  t.diagnostic(`remote login shell: ${shell}`);
});

test('a changed key (a re-imaged host): refused with its fingerprint on record; accepted for the session only with exactly that fingerprint, known_hosts untouched', async () => {
  const old = keygen(d, 'before-reimage', 'ed25519');
  const p = makePool({ config: hostCfg('h', c), knownHosts: knownHostsLine(c, old) });
  await assert.rejects(p.pool.exec('h', sh`true`), (e: Error) => e instanceof SshConnectError && e.hostKeyStatus === 'changed');
  const presented = keygenFingerprint(`${c.hostKey.path}.pub`);
  const refused = p.pool.refusedKey('h');
  assert.equal(refused?.status, 'changed');
  assert.equal(refused?.fingerprint, presented);
  assert.equal(refused?.file, p.kh);
  assert.equal(refused?.line, 1);
  p.pool.acceptKey('h', keygenFingerprint(`${old.path}.pub`));
  await assert.rejects(p.pool.exec('h', sh`true`), (e: Error) => e instanceof SshConnectError && e.hostKeyStatus === 'changed', 'another fingerprint accepts nothing');
  p.pool.acceptKey('h', presented);
  assert.equal((await p.pool.exec('h', sh`echo reimaged`)).stdout, 'reimaged\n');
  assert.equal(readFileSync(p.kh, 'utf8'), knownHostsLine(c, old), 'the old line stays until the user removes it');
  assert.equal(existsSync(p.own), false, 'nothing remembered');
  assert.equal(p.prompt.calls.changed.length, 2, 'the prompt told of the change each time it refused');
});
