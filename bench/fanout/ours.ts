/**
 * One task of the fan-out bench done by our SSH layer, in a process of its own (so its peak RSS is ours alone):
 *
 *   node --import tsx bench/fanout/ours.ts facts|command|upload HOSTS_DIR
 *
 * facts: the facts script on every host, parsed (what `kubeadm-workbench facts` does); command: `uname -r`;
 * upload: a 1 MiB file written through the runner's upload path (SshExecutor: temp file, its SHA-256 compared with
 * the content's on the host in the same command, chmod, rename; a mismatch fails the host). Host keys come from the known_hosts file the harness built from the hosts'
 * generated keys; an unknown key is refused. Prints one JSON line: hosts ok/failed, pool stats, peak RSS.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SshPool } from '../../src/adapters/ssh/pool';
import { parseFacts } from '../../src/core/phases/facts';
import { FACTS_SCRIPT } from '../../src/core/phases/factsScript';
import { SshExecutor } from '../../src/core/plan/sshExecutor';
import { sh } from '../../src/core/ssh/command';
import { resolveHost, type SshConfigEnv } from '../../src/core/ssh/config';
import { CliHostKeyPrompt, HostKeyVerifier } from '../../src/core/ssh/hostKeyPolicy';

export const UPLOAD_DIR = '/run/kwfan-upload';

/** The bench's 1 MiB payload: text (the runner uploads text files), the same bytes for every tool. */
export function payload(): string {
  const line = createHash('sha256').update('kwfan').digest('hex');
  let out = '';
  for (let i = 0; out.length < 1024 * 1024; i++) out += `${i.toString().padStart(8, '0')} ${line}\n`;
  return out.slice(0, 1024 * 1024);
}

async function main(): Promise<void> {
  const [task, dir] = process.argv.slice(2);
  if (!task || !dir || !['facts', 'command', 'upload'].includes(task)) throw new Error('usage: ours.ts facts|command|upload HOSTS_DIR');
  const hosts = readFileSync(join(dir, 'hosts'), 'utf8').split('\n').filter(Boolean);
  const env: SshConfigEnv = { files: [], homeDir: dir, localUser: 'root', readFile: () => undefined, listDir: () => [] };
  const refused: string[] = [];
  const prompt = new CliHostKeyPrompt([], (line) => refused.push(line));
  const verifier = new HostKeyVerifier(
    {
      files: [join(dir, 'known_hosts')],
      ownFile: join(dir, 'own_known_hosts'),
      read: async (p) => {
        try {
          return readFileSync(p, 'utf8');
        } catch {
          return undefined;
        }
      },
      append: async () => {
        throw new Error('the bench never writes a host key');
      },
    },
    prompt,
  );
  const pool = new SshPool({
    resolve: (name) => resolveHost({ name, address: name, explicit: { user: 'root', identityFile: join(dir, 'client') } }, env),
    hostKeys: verifier,
    auth: { agentSocket: '' },
    // Every host at once: the pacing in the pool decides how fast connections open.
    maxParallelHosts: hosts.length,
  });
  // No per-command timeout: an exec's timeout also runs while it waits for its paced connection, and 500 hosts
  // on a busy machine wait minutes for the last handshakes (the connect timeout still bounds each handshake).
  const failures: string[] = [];
  const data = task === 'upload' ? payload() : '';
  const executor = new SshExecutor(pool);
  await Promise.all(
    hosts.map(async (h) => {
      try {
        if (task === 'facts') {
          const r = await pool.exec(h, sh`sh -c ${FACTS_SCRIPT}`);
          if (!parseFacts(h, r.stdout).hostname) throw new Error(`${h}: facts without a hostname`);
        } else if (task === 'command') {
          const r = await pool.exec(h, sh`uname -r`);
          if (!r.stdout.trim()) throw new Error(`${h}: no output`);
        } else {
          const path = `${UPLOAD_DIR}/ours.bin`;
          await executor.upload(h, { path, content: data, mode: 0o644 });
        }
      } catch (e) {
        failures.push((e as Error).message);
      }
    }),
  );
  await pool.close();
  const stats = pool.stats();
  process.stdout.write(
    JSON.stringify({
      ok: hosts.length - failures.length,
      failed: failures.length,
      failures: failures.slice(0, 5),
      refusedKeys: refused.length,
      ...stats,
      maxRssKb: process.resourceUsage().maxRSS,
    }) + '\n',
  );
}

if (/ours\.[jt]s$/.test(process.argv[1] ?? '')) {
  main().catch((e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  });
}
