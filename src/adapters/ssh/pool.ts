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
 */
import { readFile } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { Client, utils, type AuthenticationType, type ClientChannel, type ConnectConfig, type ParsedKey } from 'ssh2';
import { sh, type RemoteCommand } from '../../core/ssh/command';
import type { ResolvedHop, ResolvedHost } from '../../core/ssh/config';
import { describeRejection, type HostKeyDecision, type HostKeyVerifier } from '../../core/ssh/hostKeyPolicy';
import { redact } from '../../core/ssh/redact';
import {
  MAX_CAPTURE,
  RemoteCommandCancelled,
  RemoteCommandError,
  SshConnectError,
  type ExecOptions,
  type ExecResult,
  type SshTransport,
} from '../../core/ssh/transport';

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
  idleTimeoutMs?: number;
  readKeyFile?: (path: string) => Promise<Buffer | undefined>;
  debug?: (message: string) => void;
}

export interface ConnectionInfo {
  key: string;
  /** Inventory host (or jump alias). */
  alias: string;
  connectMs: number;
  hostKey?: HostKeyDecision;
  openedAt: Date;
  closed: boolean;
  commands: number;
}

class Semaphore {
  private active = 0;
  private readonly waiters: (() => void)[] = [];
  constructor(readonly limit: number) {}
  /** Waits for a slot; an abort while waiting leaves the queue (and rejects) without taking one. */
  async acquire(signal?: AbortSignal): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new AbortedWhileWaiting());
      };
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.waiters.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.active--;
  }
  get inUse(): number {
    return this.active;
  }
}

class Connection {
  closed = false;
  readonly channels: Semaphore;
  readonly info: ConnectionInfo;
  /** Connections tunnelled through this one (it must stay open while they live). */
  dependents = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  constructor(
    readonly client: Client,
    key: string,
    alias: string,
    connectMs: number,
    hostKey: HostKeyDecision | undefined,
    cap: number,
  ) {
    this.channels = new Semaphore(cap);
    this.info = { key, alias, connectMs, ...(hostKey ? { hostKey } : {}), openedAt: new Date(), closed: false, commands: 0 };
    client.on('close', () => {
      this.closed = true;
      this.info.closed = true;
      this.cancelIdle();
    });
  }

  /** Ends the connection after `ms` without channels or dependents (0: never). */
  scheduleIdle(ms: number): void {
    this.cancelIdle();
    if (ms <= 0 || this.closed || this.channels.inUse > 0 || this.dependents > 0) return;
    this.idleTimer = setTimeout(() => {
      if (this.channels.inUse === 0 && this.dependents === 0) this.client.end();
    }, ms);
    this.idleTimer.unref();
  }

  cancelIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}

const PGID_MARK = /^\x1ekw-pgid:(\d+)\n/;

function hopKey(h: ResolvedHop): string {
  return `${h.user}@${h.hostname}:${h.port}`;
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class SshPool implements SshTransport {
  private readonly conns = new Map<string, Promise<Connection>>();
  private readonly all: Connection[] = [];
  private readonly hostSlots: Semaphore;
  private readonly hosts = new Map<string, { count: number; ready: Promise<void> }>();
  private readonly keys = new Map<string, Promise<ParsedKey | undefined>>();
  private readonly resolved = new Map<string, ResolvedHost>();
  private readonly opts: Required<Pick<PoolOptions, 'maxChannelsPerConnection' | 'keepaliveIntervalMs' | 'keepaliveCountMax' | 'connectTimeoutMs' | 'idleTimeoutMs'>> & PoolOptions;

  constructor(opts: PoolOptions) {
    this.opts = { maxChannelsPerConnection: 8, keepaliveIntervalMs: 15_000, keepaliveCountMax: 3, connectTimeoutMs: 20_000, idleTimeoutMs: 300_000, ...opts };
    this.hostSlots = new Semaphore(Math.max(1, opts.maxParallelHosts ?? 10));
  }

  /** Every connection opened so far (for stats, tests and the "connections" view). */
  connections(): ConnectionInfo[] {
    return this.all.map((c) => c.info);
  }

  /** Hosts with commands in flight right now. */
  get activeHosts(): number {
    return this.hostSlots.inUse;
  }

  private resolve(host: string): ResolvedHost {
    let r = this.resolved.get(host);
    if (!r) {
      try {
        r = this.opts.resolve(host);
      } catch (e) {
        throw new SshConnectError(host, errorMessage(e), 'config');
      }
      this.resolved.set(host, r);
    }
    return r;
  }

  /** The user the host is logged into as (from the inventory or the SSH config); throws on a configuration error. */
  loginUser(host: string): string {
    return this.resolve(host).user;
  }

  /** Connects (or reuses the connection) without running anything; returns the connection info. */
  async connect(host: string): Promise<ConnectionInfo> {
    const r = this.resolve(host);
    const conn = await this.connection([...r.jumps, r], host);
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
            if (conn.closed) throw new ChannelOpenError('connection closed');
            conn.info.commands++;
            return await this.run(conn, host, command, opts, ac.signal);
          } catch (e) {
            // The channel never opened, so the command did not start: reconnect once.
            if (e instanceof ChannelOpenError && attempt === 0) {
              this.opts.debug?.(`${host}: ${e.message}; reconnecting`);
              this.forget(conn);
              continue;
            }
            if (e instanceof ChannelOpenError) throw new SshConnectError(host, `cannot open a channel: ${e.message}`, 'network');
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
    this.conns.clear();
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

  private connection(chain: ResolvedHop[], host: string): Promise<Connection> {
    const key = chain.map(hopKey).join(' > ');
    const existing = this.conns.get(key);
    if (existing) {
      return existing.then((c) => {
        if (!c.closed) return c;
        if (this.conns.get(key) === existing) this.conns.delete(key);
        return this.connection(chain, host);
      });
    }
    const p = this.open(chain, key, host);
    this.conns.set(key, p);
    p.then(
      (c) => c.client.on('close', () => this.conns.get(key) === p && this.conns.delete(key)),
      () => this.conns.get(key) === p && this.conns.delete(key),
    );
    return p;
  }

  private async open(chain: ResolvedHop[], key: string, host: string): Promise<Connection> {
    try {
      return await this.openOnce(chain, key, host);
    } catch (e) {
      // sshd drops a connection whose login takes longer than its LoginGraceTime (120 s) — e.g. while the user
      // reads the host key dialog. The answer is remembered (once/remember), so one new attempt does not ask again.
      if (e instanceof HandshakeError && e.prompted && e.cause instanceof SshConnectError && e.cause.kind === 'network') {
        this.opts.debug?.(`${host}: connection dropped while the host key prompt was open; reconnecting`);
        return this.openOnce(chain, key, host).catch((e2: unknown) => Promise.reject(e2 instanceof HandshakeError ? e2.cause : e2));
      }
      throw e instanceof HandshakeError ? e.cause : e;
    }
  }

  private async openOnce(chain: ResolvedHop[], key: string, host: string): Promise<Connection> {
    if (this.opts.allowConnect && !this.opts.allowConnect()) {
      throw new SshConnectError(host, 'not connecting: the workspace is not trusted', 'restricted');
    }
    const hop = chain[chain.length - 1]!;
    const label = chain.length > 1 ? `${host} (via ${chain.slice(0, -1).map((h) => h.alias).join(' → ')})` : host;
    let sock: NodeJS.ReadableStream | undefined;
    let via: Connection | undefined;
    if (chain.length > 1) {
      via = await this.connection(chain.slice(0, -1), host);
      const jumpConn = via;
      sock = await new Promise<ClientChannel>((resolve, reject) =>
        jumpConn.client.forwardOut('127.0.0.1', 0, hop.hostname, hop.port, (err, stream) =>
          err ? reject(new SshConnectError(label, `jump host ${jumpConn.info.alias} cannot reach ${hop.hostname}:${hop.port}: ${err.message}`, 'network')) : resolve(stream),
        ),
      );
      jumpConn.cancelIdle();
      jumpConn.dependents++;
    }
    try {
      const conn = await this.handshake(hop, key, label, sock);
      if (via) {
        const jumpConn = via;
        conn.client.on('close', () => {
          jumpConn.dependents--;
          jumpConn.scheduleIdle(this.opts.idleTimeoutMs);
        });
      }
      return conn;
    } catch (e) {
      if (via) {
        via.dependents--;
        via.scheduleIdle(this.opts.idleTimeoutMs);
      }
      throw e;
    }
  }

  private handshake(hop: ResolvedHop, key: string, label: string, sock: NodeJS.ReadableStream | undefined): Promise<Connection> {
    const hopLabel = hop.alias === label.split(' ')[0] ? label : `${label}: hop ${hop.alias}`;
    return new Promise<Connection>((resolve, reject) => {
      const client = new Client();
      const started = Date.now();
      let promptMs = 0;
      let decision: HostKeyDecision | undefined;
      let verifying = false;
      let verifyError: unknown;
      let triedAuth: string[] = [];
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const timeoutMs = hop.connectTimeoutSec ? hop.connectTimeoutSec * 1000 : this.opts.connectTimeoutMs;
      const armTimer = (ms: number) => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => fail(new SshConnectError(hopLabel, `timed out connecting to ${hop.hostname}:${hop.port} after ${Math.round(ms / 1000)} s`, 'network')), ms);
      };
      const fail = (e: Error) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        client.destroy();
        reject(new HandshakeError(e, verifying || (decision?.check.status === 'unknown' && decision.accepted)));
      };
      armTimer(timeoutMs);
      client.on('ready', () => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        const conn = new Connection(client, key, hop.alias, Date.now() - started - promptMs, decision, this.opts.maxChannelsPerConnection);
        this.all.push(conn);
        this.opts.debug?.(`${hopLabel}: connected in ${conn.info.connectMs} ms`);
        resolve(conn);
      });
      client.on('error', (err: Error & { level?: string }) => {
        if (decision && !decision.accepted) return fail(new SshConnectError(hopLabel, describeRejection(decision), 'host-key', decision.check.status === 'trusted' ? 'error' : decision.check.status));
        if (verifyError) return fail(new SshConnectError(hopLabel, `host key check failed: ${errorMessage(verifyError)}`, 'host-key', 'error'));
        if (err.level === 'client-authentication') {
          return fail(new SshConnectError(hopLabel, `authentication failed for ${hop.user}@${hop.hostname}:${hop.port} (tried: ${triedAuth.join(', ') || 'nothing usable'})`, 'auth'));
        }
        fail(new SshConnectError(hopLabel, `cannot connect to ${hop.hostname}:${hop.port}: ${err.message}`, 'network'));
      });
      client.on('close', () => fail(new SshConnectError(hopLabel, `connection to ${hop.hostname}:${hop.port} closed during the handshake`, 'network')));

      const methods = this.authMethods(hop);
      triedAuth = [];
      const cfg: ConnectConfig = {
        port: hop.port,
        username: hop.user,
        readyTimeout: 0,
        keepaliveInterval: hop.serverAliveIntervalSec ? hop.serverAliveIntervalSec * 1000 : this.opts.keepaliveIntervalMs,
        keepaliveCountMax: hop.serverAliveCountMax ?? this.opts.keepaliveCountMax,
        hostVerifier: (hostKey: Buffer, verify: (ok: boolean) => void) => {
          const t0 = Date.now();
          verifying = true;
          if (timer) clearTimeout(timer);
          this.opts.hostKeys.verify(hop, hostKey).then(
            (d) => {
              verifying = false;
              decision = d;
              promptMs += Date.now() - t0;
              armTimer(timeoutMs);
              verify(d.accepted);
            },
            (e: unknown) => {
              verifying = false;
              verifyError = e;
              verify(false);
            },
          );
        },
        authHandler: (methodsLeft: AuthenticationType[] | null, _partial: boolean | null, next: (m: unknown) => void) => {
          const tryNext = (): void => {
            const m = methods.shift();
            if (!m) return next(false);
            if (methodsLeft && !methodsLeft.includes('publickey')) return next(false);
            // Loading a key may ask for its passphrase: that time does not count against the connect timeout.
            const t0 = Date.now();
            if (timer) clearTimeout(timer);
            m.make().then(
              (auth) => {
                promptMs += Date.now() - t0;
                if (!settled) armTimer(timeoutMs);
                if (!auth) return tryNext();
                triedAuth.push(m.label);
                next(auth);
              },
              () => {
                if (!settled) armTimer(timeoutMs);
                tryNext();
              },
            );
          };
          tryNext();
        },
        ...(sock ? { sock: sock as ConnectConfig['sock'] } : { host: hop.hostname }),
      } as ConnectConfig;
      client.connect(cfg);
    });
  }

  private authMethods(hop: ResolvedHop): { kind: 'agent' | 'key'; label: string; make: () => Promise<unknown> }[] {
    const out: { kind: 'agent' | 'key'; label: string; make: () => Promise<unknown> }[] = [];
    let agent = this.opts.auth?.agentSocket ?? process.env.SSH_AUTH_SOCK ?? '';
    if (hop.identityAgent === 'none') agent = '';
    else if (hop.identityAgent && hop.identityAgent !== 'SSH_AUTH_SOCK') agent = hop.identityAgent;
    if (agent && !(hop.identitiesOnly && hop.sources.IdentityFile !== 'default')) {
      out.push({ kind: 'agent', label: `ssh-agent (${agent})`, make: async () => ({ type: 'agent', username: hop.user, agent }) });
    }
    for (const file of hop.identityFiles) {
      out.push({
        kind: 'key',
        label: `key ${file}`,
        make: async () => {
          const key = await this.loadKey(file);
          return key ? { type: 'publickey', username: hop.user, key } : undefined;
        },
      });
    }
    return out;
  }

  private loadKey(file: string): Promise<ParsedKey | undefined> {
    let p = this.keys.get(file);
    if (!p) {
      p = this.loadKeyNow(file);
      this.keys.set(file, p);
    }
    return p;
  }

  private async loadKeyNow(file: string): Promise<ParsedKey | undefined> {
    const read = this.opts.readKeyFile ?? (async (f: string) => readFile(f).catch(() => undefined));
    const data = await read(file);
    if (!data) return undefined;
    const first = (k: ParsedKey | ParsedKey[] | Error): ParsedKey | Error => (Array.isArray(k) ? k[0]! : k);
    let key = first(utils.parseKey(data));
    if (!(key instanceof Error)) return key.isPrivateKey() ? key : undefined;
    if (!/encrypted|passphrase/i.test(key.message)) {
      this.opts.debug?.(`${file}: ${key.message}`);
      return undefined;
    }
    for (let attempt = 1; attempt <= 3; attempt++) {
      const pass = await this.opts.auth?.passphrase?.(file, attempt);
      if (pass === undefined) return undefined;
      key = first(utils.parseKey(data, pass));
      if (!(key instanceof Error)) {
        this.opts.auth?.passphraseAccepted?.(file, pass);
        return key;
      }
      this.opts.auth?.passphraseRejected?.(file);
    }
    return undefined;
  }

  private run(conn: Connection, host: string, command: RemoteCommand, opts: ExecOptions, signal: AbortSignal): Promise<ExecResult> {
    const wrapped = `printf '\\036kw-pgid:%s\\n' "$$" >&2; ${command.text}`;
    return new Promise<ExecResult>((resolve, reject) => {
      conn.client.exec(wrapped, (err, ch) => {
        if (err) return reject(new ChannelOpenError(err.message));
        const result: ExecResult = { code: null, signal: null, stdout: '', stderr: '' };
        const outDec = new StringDecoder('utf8');
        const errDec = new StringDecoder('utf8');
        let head = '';
        let headDone = false;
        let pgid: number | undefined;
        let cancelled: string | undefined;
        let killed = false;
        const capture = (k: 'stdout' | 'stderr', s: string) => {
          result[k] += s;
          if (result[k].length > MAX_CAPTURE * 1.25) result[k] = result[k].slice(-MAX_CAPTURE);
        };
        const emitErr = (s: string) => {
          if (!s) return;
          capture('stderr', s);
          opts.onStderr?.(s);
        };
        const killGroup = () => {
          if (killed || pgid === undefined || conn.closed) return;
          killed = true;
          const g = String(pgid);
          const kill = sh`kill -TERM -- -${g} 2>/dev/null; i=0; while kill -0 -- -${g} 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done; kill -KILL -- -${g} 2>/dev/null; true`;
          conn.client.exec(kill.text, (e, kc) => {
            if (e) return;
            kc.on('data', () => undefined).on('error', () => undefined).on('close', () => undefined);
            kc.stderr.on('data', () => undefined);
          });
        };
        const onAbort = () => {
          const reason = signal.reason instanceof Error && /timed out/.test(signal.reason.message) ? signal.reason.message : 'was cancelled';
          cancelled = reason;
          try {
            ch.signal('TERM');
          } catch {
            /* the server may not support signals */
          }
          killGroup();
          setTimeout(() => ch.close(), 300).unref();
          // A server that stops answering never confirms the close: give up waiting after 5 s.
          setTimeout(() => finish(), 5000).unref();
        };
        ch.on('error', (e: Error) => this.opts.debug?.(`${host}: channel error: ${e.message}`));
        ch.on('data', (d: Buffer) => {
          const s = outDec.write(d);
          if (!s) return;
          capture('stdout', s);
          opts.onStdout?.(s);
        });
        ch.stderr.on('data', (d: Buffer) => {
          const s = errDec.write(d);
          if (headDone) return emitErr(s);
          head += s;
          const m = PGID_MARK.exec(head);
          if (m) {
            pgid = Number(m[1]);
            headDone = true;
            emitErr(head.slice(m[0].length));
            if (cancelled) killGroup();
          } else if (head.includes('\n') || head.length > 40) {
            headDone = true;
            emitErr(head);
          }
        });
        ch.on('exit', (code: number | null, sig?: string) => {
          if (typeof code === 'number') result.code = code;
          else {
            result.code = null;
            result.signal = sig ? sig.replace(/^SIG/, '') : null;
          }
        });
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          signal.removeEventListener('abort', onAbort);
          const restOut = outDec.end();
          if (restOut) {
            capture('stdout', restOut);
            opts.onStdout?.(restOut);
          }
          if (!headDone) emitErr(head);
          emitErr(errDec.end());
          if (cancelled) return reject(new RemoteCommandCancelled(host, command, `${cancelled}; the remote process group was killed`));
          if (result.code === null && result.signal === null) {
            return reject(new SshConnectError(host, redact(`connection lost while running \`${command.display}\``, command.secrets), 'network'));
          }
          const ok = opts.okCodes ?? [0];
          if (result.code !== null && ok.includes(result.code)) return resolve(result);
          reject(new RemoteCommandError(host, command, result));
        };
        ch.on('close', finish);
        signal.addEventListener('abort', onAbort, { once: true });
        if (signal.aborted) onAbort();
        const stdin = [command.stdinPrefix, opts.stdin].filter((x) => x !== undefined && x !== '') as (string | Buffer)[];
        for (const s of stdin) ch.write(s);
        ch.end();
      });
    });
  }
}

class ChannelOpenError extends Error {}

class AbortedWhileWaiting extends Error {}

/** Rejects with AbortedWhileWaiting when `signal` aborts first (the awaited work itself goes on). */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new AbortedWhileWaiting());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortedWhileWaiting());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** A failed handshake; `prompted` when the user accepted an unknown key during it (worth one retry). */
class HandshakeError extends Error {
  constructor(
    override readonly cause: Error,
    readonly prompted: boolean,
  ) {
    super(cause.message);
  }
}
