/**
 * Test harness: real OpenSSH sshd processes on 127.0.0.1 high ports, each with its own config, host key,
 * authorized_keys and pid file in a temp directory (never the system's sshd or port 22).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { keygen, type TestKey } from './keys';

export const SSHD = '/usr/sbin/sshd';

export interface Sshd {
  name: string;
  port: number;
  hostKey: TestKey;
  dir: string;
  logFile: string;
  proc: ChildProcess;
  /** Everything sshd logged so far. */
  log(): string;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface SshdOptions {
  /** Public key lines allowed to log in. */
  authorizedKeys: string[];
  /** Extra sshd_config lines (e.g. PermitOpen). */
  extra?: string[];
  hostKeyType?: 'ed25519' | 'ecdsa' | 'rsa';
  /** Reuse this host key (to restart "the same host"). */
  hostKey?: TestKey;
  logLevel?: 'VERBOSE' | 'DEBUG1';
  /** Loopback address to listen on (default 127.0.0.1; any 127.x.y.z works on Linux). */
  listen?: string;
}

export async function startSshd(baseDir: string, name: string, opts: SshdOptions): Promise<Sshd> {
  if (!existsSync(SSHD)) throw new Error(`${SSHD} is not installed (apt-get install openssh-server)`);
  // The privilege separation directory compiled into Debian's sshd.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = join(baseDir, name);
  mkdirSync(dir, { recursive: true });
  const hostKey = opts.hostKey ?? keygen(dir, `host_${opts.hostKeyType ?? 'ed25519'}`, opts.hostKeyType ?? 'ed25519');
  const authorized = join(dir, 'authorized_keys');
  writeFileSync(authorized, opts.authorizedKeys.join('\n') + '\n', { mode: 0o600 });
  const logFile = join(dir, 'sshd.log');
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const cfg = join(dir, 'sshd_config');
    writeFileSync(
      cfg,
      [
        // sshd keeps the first value of each keyword: the test's extra lines go first.
        ...(opts.extra ?? []),
        `Port ${port}`,
        `ListenAddress ${opts.listen ?? '127.0.0.1'}`,
        `HostKey ${hostKey.path}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${authorized}`,
        'StrictModes no',
        'PermitRootLogin prohibit-password',
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'AllowTcpForwarding no',
        'X11Forwarding no',
        'PrintMotd no',
        'MaxSessions 10',
        // sshd takes the last MaxStartups, not the first: a test's own value replaces this roomy one.
        ...((opts.extra ?? []).some((l) => /^MaxStartups\b/i.test(l)) ? [] : ['MaxStartups 100:30:200']),
        `LogLevel ${opts.logLevel ?? 'VERBOSE'}`,
        '',
      ].join('\n'),
    );
    writeFileSync(logFile, '');
    const proc = spawn(SSHD, ['-D', '-e', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    proc.stderr!.on('data', (d: Buffer) => {
      log += d.toString();
      try {
        writeFileSync(logFile, log);
      } catch {
        /* the temp dir is gone at the end of the test */
      }
    });
    const ok = await new Promise<boolean>((resolve) => {
      const t = setInterval(() => {
        if (/Server listening on 127\.\d+\.\d+\.\d+ port/.test(log)) {
          clearInterval(t);
          resolve(true);
        }
      }, 20);
      proc.once('exit', () => {
        clearInterval(t);
        resolve(false);
      });
    });
    if (!ok) {
      if (attempt < 3 && /Address already in use/.test(log)) continue;
      throw new Error(`sshd ${name} did not start:\n${log}`);
    }
    return {
      name,
      port,
      hostKey,
      dir,
      logFile,
      proc,
      log: () => log,
      stop: () =>
        new Promise<void>((resolve) => {
          if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
          proc.once('exit', () => resolve());
          proc.kill('SIGTERM');
        }),
    };
  }
}

export function readLog(s: Sshd): string {
  return readFileSync(s.logFile, 'utf8');
}
