/**
 * The pool against a real OpenSSH sshd that refuses new connections past `MaxStartups 1` while another client
 * holds its one unauthenticated slot: the pool's handshake is dropped, retried with backoff, and gets in once
 * the slot frees. Without retries the same situation fails; a host key mismatch is never retried.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { SshPool } from '../../../src/adapters/ssh/pool';
import { sh } from '../../../src/core/ssh/command';
import { resolveHost, type SshConfigEnv } from '../../../src/core/ssh/config';
import type { ConnectPolicy } from '../../../src/core/ssh/connectPolicy';
import { HostKeyVerifier } from '../../../src/core/ssh/hostKeyPolicy';
import { SshConnectError } from '../../../src/core/ssh/transport';
import { keygen, tempDir, type TestKey } from './keys';
import { startSshd, type Sshd } from './sshd';

const tmp = tempDir('kw-retry-');
let clientKey: TestKey;
let sshd: Sshd;
const pools: SshPool[] = [];

before(async () => {
  clientKey = keygen(tmp.dir, 'client', 'ed25519');
  // sshd keeps the first value: this MaxStartups wins over the harness's roomy default.
  sshd = await startSshd(tmp.dir, 'crowded', { authorizedKeys: [clientKey.pub], extra: ['MaxStartups 1'] });
});

after(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await sshd.stop();
  tmp.cleanup();
});

function makePool(policy: Partial<ConnectPolicy>, hostKey: TestKey = sshd.hostKey) {
  const kh = join(tmp.dir, `known_hosts_${pools.length}`);
  writeFileSync(kh, `[127.0.0.1]:${sshd.port} ${hostKey.pub}\n`);
  const env: SshConfigEnv = { files: [], homeDir: tmp.dir, localUser: 'root', readFile: () => undefined, listDir: () => [] };
  const prompts: string[] = [];
  const verifier = new HostKeyVerifier(
    {
      files: [kh],
      ownFile: join(tmp.dir, 'own_known_hosts'),
      read: async (p) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined),
      append: async (p, t) => appendFileSync(p, t, { mode: 0o600 }),
    },
    {
      unknown: async (host) => {
        prompts.push(`unknown ${host}`);
        return 'reject';
      },
      changed: async (host) => void prompts.push(`changed ${host}`),
      revoked: async (host) => void prompts.push(`revoked ${host}`),
    },
  );
  const pool = new SshPool({
    resolve: (name) => resolveHost({ name, address: '127.0.0.1', explicit: { user: 'root', port: sshd.port, identityFile: clientKey.path } }, env),
    hostKeys: verifier,
    auth: { agentSocket: '' },
    connectPolicy: { baseBackoffMs: 100, maxBackoffMs: 300, ...policy },
  });
  pools.push(pool);
  return { pool, prompts };
}

/** An unauthenticated connection that sits on sshd's only startup slot until released. */
async function holdStartupSlot(): Promise<Socket> {
  const s = connect(sshd.port, '127.0.0.1');
  s.on('error', () => undefined);
  // The server's banner means sshd accepted it and counts it as a startup.
  await new Promise<void>((resolve) => s.once('data', () => resolve()));
  return s;
}

test('a handshake dropped past MaxStartups is retried with backoff and gets in once the slot frees', async () => {
  const { pool } = makePool({ attempts: 20 });
  const blocker = await holdStartupSlot();
  const t0 = Date.now();
  setTimeout(() => blocker.destroy(), 800).unref();
  const r = await pool.exec('crowded', sh`echo in`);
  assert.equal(r.stdout, 'in\n');
  assert.ok(Date.now() - t0 >= 700, 'it got in only after the slot was released');
  const stats = pool.stats();
  assert.ok(stats.retries >= 1, `retried (${JSON.stringify(stats)})`);
  assert.equal(stats.failedConnections, 0);
  assert.match(sshd.log(), /past MaxStartups/, 'sshd really dropped the first attempts');
});

test('without retries the same refusal fails as a network error that names the host', async () => {
  const { pool } = makePool({ attempts: 1 });
  const blocker = await holdStartupSlot();
  try {
    await assert.rejects(pool.exec('crowded', sh`echo in`), (e: unknown) => e instanceof SshConnectError && e.kind === 'network' && /^crowded: /.test(e.message));
    assert.deepEqual({ retries: pool.stats().retries, failed: pool.stats().failedConnections }, { retries: 0, failed: 1 });
  } finally {
    blocker.destroy();
  }
});

test('a host key mismatch is refused at once and never retried', async () => {
  const other = keygen(tmp.dir, 'impostor', 'ed25519');
  const { pool, prompts } = makePool({ attempts: 20 }, other);
  await assert.rejects(pool.exec('crowded', sh`echo in`), (e: unknown) => e instanceof SshConnectError && e.kind === 'host-key' && e.hostKeyStatus === 'changed');
  // The previous test's startup may still hold sshd's one slot, so an attempt may have been dropped and retried
  // first; but once the key was seen and refused, there was no other attempt.
  const stats = pool.stats();
  assert.equal(stats.handshakes, stats.retries + 1, `no attempt after the host key refusal (${JSON.stringify(stats)})`);
  assert.deepEqual(prompts, [`changed 127.0.0.1`]);
});
