/**
 * The ssh2 adapter: an SshTransport with one connection per host (and per jump chain), reused for every
 * command.
 *
 * - Channels per connection are capped (default 8, below OpenSSH's MaxSessions 10); further commands queue.
 * - At most `maxParallelHosts` hosts (default 10) have commands in flight at once; others wait.
 * - Keepalive (15 s × 3); a dropped connection is forgotten and the next command reconnects.
 * - ProxyJump: each hop is a pooled connection; the next hop runs over `forwardOut` from the previous one, and
 *   every hop's host key goes through the HostKeyVerifier.
 * - Auth: ssh-agent (SSH_AUTH_SOCK or IdentityAgent), then the identity files; an encrypted key's passphrase
 *   is asked once through `auth.passphrase` and kept in memory for the pool's life. No password auth, no
 *   keyboard-interactive.
 * - Cancel: the command runs in the session's own process group (sshd makes every session a process-group
 *   leader; the command first reports that pid on stderr, which is stripped). Abort sends the `signal` channel
 *   request (TERM), kills the whole group from a second channel (`kill -TERM -- -PGID`, then KILL after 2 s)
 *   and closes the channel — without a pty, closing alone would leave the remote process running.
 * - Many hosts: new handshakes are paced and a handshake the server refused or reset before its host key is
 *   retried with backoff (connectPolicy.ts); the pieces live beside this file: connection.ts (one handshake),
 *   channel.ts (one command), waiting.ts (slots and cancellable waits).
 */
import type { ClientChannel } from 'ssh2';
import type { RemoteCommand } from '../../core/ssh/command';
import type { ResolvedHop, ResolvedHost } from '../../core/ssh/config';
import { backoffMs, DEFAULT_CONNECT_POLICY, HandshakePacer, isRetryableHandshake, type ConnectPolicy } from '../../core/ssh/connectPolicy';
import type { HostKeyAcceptance, HostKeyVerifier, RefusedHostKey } from '../../core/ssh/hostKeyPolicy';
import { describeSshFailure } from '../../core/ssh/failures';
import { RemoteCommandCancelled, SshConnectError, type ExecOptions, type ExecResult, type SshTransport } from '../../core/ssh/transport';
import { ChannelOpenError, runOnChannel } from './channel';
import { errorMessage } from '../../core/errors';
import { Connection, handshake, HandshakeError, KeyRing, type ConnectionInfo, type HandshakeSettings } from './connection';
import { abortable, AbortedWhileWaiting, Semaphore } from './waiting';
import { t } from '../../core/l10n';

export type { ConnectionInfo } from './connection';

export interface AuthCallbacks {
  /**
   * Asked for the passphrase of an encrypted key file (attempt 1, 2, 3 after a wrong one). Undefined skips
   * the key. The editor asks with an input box and may offer to keep it in SecretStorage.
   */
  passphrase?: (keyFile: string, attempt: number) => Promise<string | undefined>;
  /** Told when a passphrase worked (the editor stores it if the user ticked "remember"). */
  passphraseAccepted?: (keyFile: string, passphrase: string) => void;
  /** Told when a stored passphrase was wrong (the editor forgets it). */
  passphraseRejected?: (keyFile: string) => void;
  /** The agent socket; default process.env.SSH_AUTH_SOCK. Empty string: no agent. */
  agentSocket?: string;
}

export interface PoolOptions {
  /** Inventory host name → resolved connection parameters (src/core/ssh/config.ts resolveHost). */
  resolve: (host: string) => ResolvedHost;
  hostKeys: HostKeyVerifier;
  auth?: AuthCallbacks;
  /** Called before every new connection; false refuses (restricted mode). */
  allowConnect?: () => boolean;
  maxParallelHosts?: number;
  maxChannelsPerConnection?: number;
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  /** Network part of connecting (TCP + handshake + auth), not counting time spent in a host key prompt. */
  connectTimeoutMs?: number;
  /** Idle connections (no channel, no tunnelled connection) are closed after this long; 0 keeps them. Default 5 min. */
  /** Pacing of new handshakes and retry of refused ones (default DEFAULT_CONNECT_POLICY). */
  connectPolicy?: Partial<ConnectPolicy>;
  idleTimeoutMs?: number;
  readKeyFile?: (path: string) => Promise<Buffer | undefined>;
  debug?: (message: string) => void;
}

/** Counts for a run's report (the scale bench prints them). */
export interface PoolStats {
  /** Handshakes started, retries among them, and connections that failed in the end. */
  handshakes: number;
  retries: number;
  failedConnections: number;
  /** Most handshakes in flight at once. */
  peakHandshakes: number;
}

/** How one connect goes when a caller needs a bound (the preflight): its own time limit per hop, and attempts. */
export interface ConnectOptions {
  timeoutMs?: number;
  /** Attempts in all (default: the pool's policy). */
  attempts?: number;
}

function hopKey(h: ResolvedHop): string {
  return `${h.user}@${h.hostname}:${h.port}`;
}

export class SshPool implements SshTransport, HostKeyAcceptance {
  private readonly conns = new Map<string, Promise<Connection>>();
  private readonly all: Connection[] = [];
  private readonly hostSlots: Semaphore;
  private readonly hosts = new Map<string, { count: number; ready: Promise<void> }>();
  private readonly pacer: HandshakePacer;
  private readonly policy: ConnectPolicy;
  private readonly handshakeSettings: HandshakeSettings;
  private readonly counts = { handshakes: 0, retries: 0, failedConnections: 0 };
  private readonly resolved = new Map<string, ResolvedHost>();
  private readonly opts: Required<Pick<PoolOptions, 'maxChannelsPerConnection' | 'keepaliveIntervalMs' | 'keepaliveCountMax' | 'connectTimeoutMs' | 'idleTimeoutMs'>> & PoolOptions;

  constructor(opts: PoolOptions) {
    this.opts = { maxChannelsPerConnection: 8, keepaliveIntervalMs: 15_000, keepaliveCountMax: 3, connectTimeoutMs: 20_000, idleTimeoutMs: 300_000, ...opts };
    this.hostSlots = new Semaphore(Math.max(1, opts.maxParallelHosts ?? 10));
    this.policy = { ...DEFAULT_CONNECT_POLICY, ...opts.connectPolicy };
    this.pacer = new HandshakePacer(this.policy);
    const o = this.opts;
    this.handshakeSettings = {
      hostKeys: o.hostKeys,
      connectTimeoutMs: o.connectTimeoutMs,
      keepaliveIntervalMs: o.keepaliveIntervalMs,
      keepaliveCountMax: o.keepaliveCountMax,
      maxChannelsPerConnection: o.maxChannelsPerConnection,
      keys: new KeyRing(o.auth, o.readKeyFile, o.debug),
      ...(o.debug ? { debug: o.debug } : {}),
    };
  }

  /** Handshakes, retries and failed connections so far. */
  stats(): PoolStats {
    return { ...this.counts, peakHandshakes: this.pacer.peak };
  }

  /** Every connection opened so far (for stats, tests and the "connections" view). */
  connections(): ConnectionInfo[] {
    return this.all.map((c) => c.info);
  }

  /** Hosts with commands in flight right now. */
  get activeHosts(): number {
    return this.hostSlots.inUse;
  }

  /** The host's resolved SSH parameters (inventory, SSH config, defaults); throws an SshConnectError of kind `config`. */
  resolve(host: string): ResolvedHost {
    let r = this.resolved.get(host);
    if (!r) {
      try {
        r = this.opts.resolve(host);
      } catch (e) {
        const failure = describeSshFailure({ hostname: host, port: 22, user: '', stage: 'connect', configError: errorMessage(e) });
        throw new SshConnectError(host, failure.cause, 'config', undefined, failure);
      }
      this.resolved.set(host, r);
    }
    return r;
  }

  /** The user the host is logged into as (from the inventory or the SSH config); throws on a configuration error. */
  loginUser(host: string): string {
    return this.resolve(host).user;
  }

  /** The key `host` presented when it was last refused (see HostKeyVerifier). */
  refusedKey(host: string): RefusedHostKey | undefined {
    return this.opts.hostKeys.refusedKey(host);
  }

  /** The user accepts exactly this key of `host` for this pool's session; the next connection takes it. */
  acceptKey(host: string, fingerprint: string): void {
    this.opts.hostKeys.acceptKey(host, fingerprint);
  }

  /** The user accepts this unknown key of `host` and wants it remembered (the own known_hosts file). */
  rememberKey(host: string, fingerprint: string): Promise<void> {
    return this.opts.hostKeys.rememberKey(host, fingerprint);
  }

  /** While on, unknown host keys are refused and kept for one review (the preflight) instead of asked about. */
  deferUnknownKeys(on: boolean): void {
    this.opts.hostKeys.deferUnknownKeys(on);
  }

  /** Connects (or reuses the connection) without running anything; returns the connection info. */
  async connect(host: string, options: ConnectOptions = {}): Promise<ConnectionInfo> {
    const r = this.resolve(host);
    const conn = await this.connection([...r.jumps, r], host, options);
    conn.scheduleIdle(this.opts.idleTimeoutMs);
    return conn.info;
  }

  async exec(host: string, command: RemoteCommand, opts: ExecOptions = {}): Promise<ExecResult> {
    const ac = new AbortController();
    const onAbort = () => ac.abort(opts.signal?.reason);
    if (opts.signal?.aborted) throw new RemoteCommandCancelled(host, command, 'was cancelled before it started');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = opts.timeoutMs ? setTimeout(() => ac.abort(new Error(`timed out after ${opts.timeoutMs} ms`)), opts.timeoutMs) : undefined;
    const notStarted = () => new RemoteCommandCancelled(host, command, ac.signal.reason instanceof Error && /timed out/.test(ac.signal.reason.message) ? `${ac.signal.reason.message} before it started` : 'was cancelled before it started');
    try {
      const slot = this.acquireHost(host);
      try {
        await abortable(slot, ac.signal).catch((e: unknown) => {
          throw e instanceof AbortedWhileWaiting ? notStarted() : e;
        });
        if (ac.signal.aborted) throw notStarted();
        const r = this.resolve(host);
        const chain = [...r.jumps, r];
        for (let attempt = 0; ; attempt++) {
          const conn = await abortable(this.connection(chain, host), ac.signal).catch((e: unknown) => {
            throw e instanceof AbortedWhileWaiting ? notStarted() : e;
          });
          conn.cancelIdle();
          try {
            await conn.channels.acquire(ac.signal);
          } catch {
            conn.scheduleIdle(this.opts.idleTimeoutMs);
            throw notStarted();
          }
          try {
            if (ac.signal.aborted) throw notStarted();
            if (conn.closed) throw new ChannelOpenError(t('connection closed'));
            conn.info.commands++;
            return await runOnChannel(conn, host, command, opts, ac.signal, this.opts.debug);
          } catch (e) {
            // The channel never opened, so the command did not start: reconnect once.
            if (e instanceof ChannelOpenError && attempt === 0) {
              this.opts.debug?.(`${host}: ${e.message}; reconnecting`);
              this.forget(conn);
              continue;
            }
            if (e instanceof ChannelOpenError) throw new SshConnectError(host, t('cannot open a channel: {0}', e.message), 'network');
            throw e;
          } finally {
            conn.channels.release();
            conn.scheduleIdle(this.opts.idleTimeoutMs);
          }
        }
      } finally {
        this.releaseHost(host);
      }
    } finally {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    const conns = [...this.all];
    const pending = [...this.conns.values()];
    this.conns.clear();
    // A connection still in its handshake (a cancel came first) is ended once it is up: nothing asked for it uses it.
    for (const p of pending) p.then((c) => void (conns.includes(c) || c.client.end()), () => undefined);
    await Promise.all(
      conns.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.closed) return resolve();
            c.client.once('close', () => resolve());
            c.client.end();
            setTimeout(() => {
              c.client.destroy();
              resolve();
            }, 2000).unref();
          }),
      ),
    );
  }


  // -------------------------------------------------------------------------------------------------------------

  /** Counts the host as active (taking a host slot for its first command); release with releaseHost. */
  private acquireHost(host: string): Promise<void> {
    const e = this.hosts.get(host);
    if (e) {
      e.count++;
      return e.ready;
    }
    const entry = { count: 1, ready: this.hostSlots.acquire() };
    this.hosts.set(host, entry);
    return entry.ready;
  }

  private releaseHost(host: string): void {
    const e = this.hosts.get(host);
    if (!e) return;
    if (--e.count === 0) {
      this.hosts.delete(host);
      // Release once the slot was actually granted (a caller may give up while still queued).
      void e.ready.then(() => this.hostSlots.release());
    }
  }

  private forget(conn: Connection): void {
    if (this.conns.get(conn.info.key) !== undefined) {
      void this.conns.get(conn.info.key)!.then((c) => {
        if (c === conn) this.conns.delete(conn.info.key);
      });
    }
    conn.client.end();
  }

  private connection(chain: ResolvedHop[], host: string, options: ConnectOptions = {}): Promise<Connection> {
    const key = chain.map(hopKey).join(' > ');
    const existing = this.conns.get(key);
    if (existing) {
      return existing.then((c) => {
        if (!c.closed) return c;
        if (this.conns.get(key) === existing) this.conns.delete(key);
        return this.connection(chain, host, options);
      });
    }
    const p = this.open(chain, key, host, options);
    this.conns.set(key, p);
    p.then(
      (c) => c.client.on('close', () => this.conns.get(key) === p && this.conns.delete(key)),
      () => this.conns.get(key) === p && this.conns.delete(key),
    );
    return p;
  }

  /**
   * Opens the connection: paced with every other handshake, retried with backoff while the server refuses or
   * resets it before showing its host key (sshd past MaxStartups), never after (host key, login).
   */
  private async open(chain: ResolvedHop[], key: string, host: string, options: ConnectOptions): Promise<Connection> {
    let reconnectedAfterPrompt = false;
    const attempts = options.attempts ?? this.policy.attempts;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.openOnce(chain, key, host, options);
      } catch (e) {
        if (!(e instanceof HandshakeError)) throw e;
        // sshd drops a connection whose login takes longer than its LoginGraceTime (120 s) — e.g. while the user
        // reads the host key dialog. The answer is remembered (once/remember), so one new attempt does not ask again.
        if (e.prompted && e.cause.kind === 'network' && !reconnectedAfterPrompt) {
          reconnectedAfterPrompt = true;
          this.opts.debug?.(`${host}: connection dropped while the host key prompt was open; reconnecting`);
          continue;
        }
        if (isRetryableHandshake(e.failure, attempt) && attempt < attempts) {
          const wait = backoffMs(this.policy, attempt, Math.random());
          this.counts.retries++;
          this.opts.debug?.(`${host}: ${e.cause.message}; retry ${attempt} of ${attempts - 1} in ${wait} ms`);
          await new Promise((r) => setTimeout(r, wait));
          continue;
        }
        this.counts.failedConnections++;
        const c = e.cause;
        throw attempt > 1 ? new SshConnectError(c.host, `${c.message.slice(c.host.length + 2)} (after ${attempt} attempts)`, c.kind, c.hostKeyStatus, c.failure) : c;
      }
    }
  }

  private async openOnce(chain: ResolvedHop[], key: string, host: string, options: ConnectOptions): Promise<Connection> {
    if (this.opts.allowConnect && !this.opts.allowConnect()) {
      const failure = describeSshFailure({ hostname: host, port: 22, user: '', stage: 'connect', restricted: true });
      throw new SshConnectError(host, failure.cause, 'restricted', undefined, failure);
    }
    const hop = chain[chain.length - 1]!;
    const label = chain.length > 1 ? `${host} (via ${chain.slice(0, -1).map((h) => h.alias).join(' → ')})` : host;
    // This hop's place in the host's whole chain (a jump host's own connection is a prefix of it).
    const place = { index: chain.length, of: this.resolved.has(host) ? this.resolve(host).jumps.length + 1 : chain.length };
    let sock: NodeJS.ReadableStream | undefined;
    let via: Connection | undefined;
    if (chain.length > 1) {
      via = await this.connection(chain.slice(0, -1), host, options);
      const jumpConn = via;
      sock = await new Promise<ClientChannel>((resolve, reject) =>
        jumpConn.client.forwardOut('127.0.0.1', 0, hop.hostname, hop.port, (err, stream) => {
          if (!err) return resolve(stream);
          const failure = describeSshFailure({ hostname: hop.hostname, port: hop.port, user: hop.user, stage: 'connect', forwardError: { via: jumpConn.info.alias, message: err.message }, hop: { ...place, alias: hop.alias } });
          reject(new SshConnectError(label, failure.cause, 'network', undefined, failure));
        }),
      );
      jumpConn.cancelIdle();
      jumpConn.dependents++;
    }
    // Paced per server: its MaxStartups counts the handshakes to it, not ours to every host.
    const done = await this.pacer.start(`${hop.hostname}:${hop.port}`);
    this.counts.handshakes++;
    try {
      const conn = await handshake(this.handshakeSettings, hop, key, label, sock, place, options.timeoutMs);
      this.pacer.eased();
      this.all.push(conn);
      if (via) {
        const jumpConn = via;
        conn.client.on('close', () => {
          jumpConn.dependents--;
          jumpConn.scheduleIdle(this.opts.idleTimeoutMs);
        });
      }
      return conn;
    } catch (e) {
      if (e instanceof HandshakeError && (e.failure.timedOut || isRetryableHandshake(e.failure))) this.pacer.congested();
      if (via) {
        via.dependents--;
        via.scheduleIdle(this.opts.idleTimeoutMs);
      }
      throw e;
    } finally {
      done();
    }
  }

}
