/**
 * The restore's memory-heavy part as one process runs it, on real SSH: the snapshot hashed as a stream
 * (engine/backupFiles.ts, as prepareRestore does), the restore plan built (core/backup/restorePlan.ts), and its first
 * phase — the snapshot sent to every member, checked there by size and SHA-256 — run by the plan runner through
 * the SSH executor and the ssh2 pool, to loopback sshd "members" (each one's target remapped into a folder of its
 * own, as three nodes share this machine's disk). Prints one JSON line: bytes, seconds per part, peak RSS.
 * Started bundled (test/integration/live/restoreStream.test.ts), so that the RSS is the
 * product's code and Node, not a TypeScript loader.
 *
 * Input: KW_SEND (JSON): { snapshot, stateDir, hosts: [{ name, port, dir }], identity, knownHosts }.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SshPool } from '../../src/adapters/ssh/pool';
import { buildRestorePlan, SNAPSHOT_ON_NODE } from '../../src/core/backup/restorePlan';
import { runPlan } from '../../src/core/plan/runner';
import { SshExecutor } from '../../src/core/plan/sshExecutor';
import type { Plan } from '../../src/core/plan/types';
import { resolveHost } from '../../src/core/ssh/config';
import { HostKeyVerifier } from '../../src/core/ssh/hostKeyPolicy';
import { sh } from '../../src/core/ssh/command';
import { hashSnapshot, reopenSnapshot } from '../../src/engine/backupFiles';
import { createLedger } from '../../src/engine/state/runLedger';
import { HostLocks } from '../../src/engine/state/hostLocks';

interface Input {
  snapshot: string;
  stateDir: string;
  hosts: { name: string; port: number; dir: string }[];
  identity: string;
  knownHosts: string;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.env.KW_SEND ?? '') as Input;
  const t0 = performance.now();
  const digest = await hashSnapshot(input.snapshot);
  const hashed = performance.now();
  const sent = new Map<string, number>();
  const plan = buildRestorePlan(
    {
      members: input.hosts.map((h) => ({ host: h.name, name: h.name, peerURL: 'https://127.0.0.1:2380' })),
      snapshot: { size: digest.size, open: () => reopenSnapshot(input.snapshot, digest), onProgress: (host, n) => sent.set(host, n) },
      sha256: digest.sha256,
      stamp: '20261130120000',
      fingerprint: 'bench',
    },
    { checkMembers: async () => undefined, apiBack: async () => undefined },
  );
  const send = plan.phases[0]!;
  const remapped: Plan = {
    fingerprint: 'bench',
    phases: [{ ...send, steps: send.steps.map((s) => {
      const target = join(input.hosts.find((h) => h.name === s.host)!.dir, 'snapshot.db');
      return { ...s, stream: { ...s.stream!, path: target }, check: sh`false` };
    }) }],
  };
  if (!send.steps.every((s) => s.stream?.path === SNAPSHOT_ON_NODE)) throw new Error('the send phase is not the snapshot to every member');
  const env = { files: [] as string[], homeDir: input.stateDir, localUser: 'root', readFile: (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined), listDir: () => [] };
  const ports = new Map(input.hosts.map((h) => [h.name, h.port]));
  const pool = new SshPool({
    resolve: (name) => resolveHost({ name, address: '127.0.0.1', explicit: { identityFile: input.identity, user: 'root', port: ports.get(name)! } }, env),
    hostKeys: new HostKeyVerifier({ files: [input.knownHosts], ownFile: join(input.stateDir, 'own_known_hosts'), read: async (p) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined), append: async () => undefined }, {
      unknown: async () => 'reject',
      changed: async () => undefined,
      revoked: async () => undefined,
    }),
    auth: { agentSocket: '' },
  });
  mkdirSync(join(input.stateDir, 'runs'), { recursive: true });
  const ledger = createLedger(join(input.stateDir, 'runs'), 'restore', 'bench');
  const result = await runPlan(remapped, { executor: new SshExecutor(pool), ledger, locks: new HostLocks(join(input.stateDir, 'locks'), ledger.data.runId), maxParallelHosts: 10 });
  const done = performance.now();
  await pool.close();
  const usage = process.resourceUsage();
  process.stdout.write(
    JSON.stringify({
      ok: result.ok,
      error: result.failed?.error,
      bytes: digest.size,
      members: input.hosts.length,
      sentBytes: [...sent.values()].reduce((a, b) => a + b, 0),
      hashSeconds: (hashed - t0) / 1000,
      sendSeconds: (done - hashed) / 1000,
      peakRssBytes: usage.maxRSS * 1024,
    }) + '\n',
  );
}

main().catch((e: Error) => {
  process.stdout.write(JSON.stringify({ ok: false, error: e.stack ?? e.message }) + '\n');
  process.exitCode = 1;
});
