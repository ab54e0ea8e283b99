/**
 * Opening one SSH connection (one hop): TCP, key exchange, the host key through the HostKeyVerifier (never
 * auto-accepted), then public-key login (agent, then identity files, an encrypted key's passphrase asked once).
 * A failure is told by the taxonomy (core/ssh/failures.ts) from what is known here — how far the handshake got,
 * whether TCP was up, what ssh2 and the socket said, which keys were considered and how each stood, which methods
 * the server still offered — so it names its cause and fix, and the pool retries only what a retry can help.
 */
import { readRegular } from '../fs/safeFile';
import type * as Ssh2 from 'ssh2';
import type { AuthenticationType, Client, ConnectConfig, ParsedKey } from 'ssh2';
import type { ResolvedHop } from '../../core/ssh/config';
import type { HandshakeFailure, HandshakeStage } from '../../core/ssh/connectPolicy';
import { describeSshFailure, type HandshakeFacts, type KeyOffer } from '../../core/ssh/failures';
import type { HostKeyDecision, HostKeyVerifier } from '../../core/ssh/hostKeyPolicy';
import { errorMessage } from '../../core/errors';
import { SshConnectError } from '../../core/ssh/transport';
import type { AuthCallbacks } from './pool';
import { Semaphore } from './waiting';

let ssh2: Promise<typeof Ssh2> | undefined;

/**
 * The SSH library (ssh2 with its crypto, about 300 KB) loads on the first connection, not with the code that may
 * connect: the editor builds its SSH sessions at activation, and most CLI verbs and editor commands never dial.
 */
function loadSsh2(): Promise<typeof Ssh2> {
  ssh2 ??= import('ssh2').then((m) => (m as typeof Ssh2 & { default?: typeof Ssh2 }).default ?? m);
  return ssh2;
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

export class Connection {
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

/** A failed handshake: where it stopped, and `prompted` when the user accepted an unknown key during it. */
export class HandshakeError extends Error {
  constructor(
    override readonly cause: SshConnectError,
    readonly prompted: boolean,
    readonly failure: HandshakeFailure,
  ) {
    super(cause.message);
  }
}

export interface HandshakeSettings {
  hostKeys: HostKeyVerifier;
  connectTimeoutMs: number;
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
  maxChannelsPerConnection: number;
  keys: KeyRing;
  debug?: (message: string) => void;
}

/** Where a hop sits in its host's ProxyJump chain (1-based), for the failure's "at hop 1 of 2". */
export interface HopPlace {
  index: number;
  of: number;
}

/** Connects one hop (over `sock` when it is tunnelled through a jump host). */
export async function handshake(s: HandshakeSettings, hop: ResolvedHop, key: string, label: string, sock: NodeJS.ReadableStream | undefined, place?: HopPlace, timeoutOverrideMs?: number): Promise<Connection> {
  const { Client } = await loadSsh2();
  const hopLabel = hop.alias === label.split(' ')[0] ? label : `${label}: hop ${hop.alias}`;
  return new Promise<Connection>((resolve, reject) => {
    const client = new Client();
    const started = Date.now();
    let promptMs = 0;
    let decision: HostKeyDecision | undefined;
    let verifying = false;
    let verifyError: unknown;
    let settled = false;
    let stage: HandshakeStage = 'connect';
    let timedOut = false;
    let tcpUp = false;
    let methodsLeft: string[] | undefined;
    let agentError: string | undefined;
    const offers: KeyOffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const timeoutMs = timeoutOverrideMs ?? (hop.connectTimeoutSec ? hop.connectTimeoutSec * 1000 : s.connectTimeoutMs);
    const base = (): HandshakeFacts => ({
      hostname: hop.hostname, port: hop.port, user: hop.user, stage, timedOut, timeoutMs, tcpUp: tcpUp || sock !== undefined,
      keys: offers.map((o) => (o.source === 'agent' && agentError ? { ...o, state: 'agent-unavailable' as const, offered: false } : o)),
      ...(methodsLeft ? { methodsLeft } : {}), ...(agentError ? { agentError } : {}),
      ...(place && place.of > 1 ? { hop: { ...place, alias: hop.alias } } : {}),
    });
    const fail = (facts: HandshakeFacts) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      client.destroy();
      const failure = describeSshFailure(facts);
      const status = facts.hostKey?.status;
      const e = new SshConnectError(hopLabel, failure.cause, failure.group === 'sudo' ? 'auth' : failure.group, status, failure);
      const prompted = verifying || (decision?.check.status === 'unknown' && decision.accepted);
      reject(new HandshakeError(e, prompted, { stage, kind: e.kind, timedOut, retry: failure.retry, ...(facts.error?.code ? { code: facts.error.code } : {}) }));
    };
    const armTimer = (ms: number) => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        fail(base());
      }, ms);
    };
    armTimer(timeoutMs);
    client.on('connect', () => {
      tcpUp = true;
    });
    client.on('handshake', () => {
      stage = 'auth';
    });
    client.on('ready', () => {
      if (settled) return;
      settled = true;
      stage = 'ready';
      if (timer) clearTimeout(timer);
      const conn = new Connection(client, key, hop.alias, Date.now() - started - promptMs, decision, s.maxChannelsPerConnection);
      s.debug?.(`${hopLabel}: connected in ${conn.info.connectMs} ms`);
      resolve(conn);
    });
    client.on('error', (err: Error & { level?: string; code?: string }) => {
      // The agent could not be asked: the login goes on with the key files (ssh2 tries the next method).
      if (err.level === 'agent') {
        agentError = err.message;
        return;
      }
      const error = { message: err.message, ...(err.code ? { code: err.code } : {}), ...(err.level ? { level: err.level } : {}) };
      if (decision && !decision.accepted) {
        const c = decision.check;
        const status = c.status === 'trusted' ? 'error' : c.status;
        return fail({ ...base(), error, hostKey: { status, keyType: c.keyType, fingerprint: c.fingerprint, name: decision.name, ...(c.entry ? { file: c.entry.file, line: c.entry.line } : {}), ...(c.note ? { note: c.note } : {}) } });
      }
      if (verifyError) return fail({ ...base(), error: { message: errorMessage(verifyError) }, hostKey: { status: 'error' } });
      fail({ ...base(), error });
    });
    client.on('close', () => fail(base()));

    const methods = authMethods(s.keys, hop);
    const cfg: ConnectConfig = {
      port: hop.port,
      username: hop.user,
      readyTimeout: 0,
      keepaliveInterval: hop.serverAliveIntervalSec ? hop.serverAliveIntervalSec * 1000 : s.keepaliveIntervalMs,
      keepaliveCountMax: hop.serverAliveCountMax ?? s.keepaliveCountMax,
      hostVerifier: (hostKey: Buffer, verify: (ok: boolean) => void) => {
        const t0 = Date.now();
        verifying = true;
        stage = 'host-key';
        if (timer) clearTimeout(timer);
        s.hostKeys.verify(hop, hostKey).then(
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
      authHandler: (left: AuthenticationType[] | null, _partial: boolean | null, next: (m: unknown) => void) => {
        if (left) methodsLeft = [...left];
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
              offers.push(m.kind === 'agent' ? { source: 'agent', state: 'agent', socket: m.label, offered: Boolean(auth) } : { source: m.label, state: s.keys.state(m.label) ?? 'missing', offered: Boolean(auth) });
              if (!auth) return tryNext();
              next(auth);
            },
            () => {
              if (!settled) armTimer(timeoutMs);
              offers.push({ source: m.label, state: s.keys.state(m.label) ?? 'unreadable', offered: false });
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

interface AuthMethod {
  kind: 'agent' | 'key';
  /** The agent's socket, or the key file. */
  label: string;
  make: () => Promise<unknown>;
}

/** The agent's socket for a hop ('' for none): IdentityAgent, else the pool's, else SSH_AUTH_SOCK. */
export function agentSocketFor(keys: Pick<KeyRing, 'auth'>, hop: Pick<ResolvedHop, 'identityAgent'>): string {
  if (hop.identityAgent === 'none') return '';
  if (hop.identityAgent && hop.identityAgent !== 'SSH_AUTH_SOCK') return hop.identityAgent;
  return keys.auth?.agentSocket ?? process.env.SSH_AUTH_SOCK ?? '';
}

function authMethods(keys: KeyRing, hop: ResolvedHop): AuthMethod[] {
  const out: AuthMethod[] = [];
  const agent = agentSocketFor(keys, hop);
  if (agent && !(hop.identitiesOnly && hop.sources.IdentityFile !== 'default')) {
    out.push({ kind: 'agent', label: agent, make: async () => ({ type: 'agent', username: hop.user, agent }) });
  }
  for (const file of hop.identityFiles) {
    out.push({
      kind: 'key',
      label: file,
      make: async () => {
        const key = await keys.load(file);
        return key ? { type: 'publickey', username: hop.user, key } : undefined;
      },
    });
  }
  return out;
}

/** Identity files, each read and parsed (and its passphrase asked) once for the pool's life; how each stood is kept. */
export class KeyRing {
  private readonly keys = new Map<string, Promise<ParsedKey | undefined>>();
  private readonly states = new Map<string, KeyOffer['state']>();
  constructor(
    readonly auth: AuthCallbacks | undefined,
    private readonly readKeyFile?: (path: string) => Promise<Buffer | undefined>,
    private readonly debug?: (message: string) => void,
  ) {}

  load(file: string): Promise<ParsedKey | undefined> {
    let p = this.keys.get(file);
    if (!p) {
      p = this.loadNow(file);
      this.keys.set(file, p);
      // A file that is missing or not a key may be there on the next try (the user just made it): read it again then.
      void p.then((k) => {
        if (!k && !['encrypted', 'passphrase-refused'].includes(this.states.get(file) ?? '')) this.keys.delete(file);
      });
    }
    return p;
  }

  /** How the file stood when it was loaded (undefined before). */
  state(file: string): KeyOffer['state'] | undefined {
    return this.states.get(file);
  }

  private async read(file: string): Promise<Buffer | undefined> {
    if (this.readKeyFile) {
      const data = await this.readKeyFile(file);
      if (!data) this.states.set(file, 'missing');
      return data;
    }
    try {
      return await readRegular(file, { maxBytes: 1024 * 1024 });
    } catch (e) {
      this.states.set(file, (e as { code?: string }).code === 'ENOENT' ? 'missing' : 'unreadable');
      return undefined;
    }
  }

  private async loadNow(file: string): Promise<ParsedKey | undefined> {
    const data = await this.read(file);
    if (!data) return undefined;
    const { utils } = await loadSsh2();
    const first = (k: ParsedKey | ParsedKey[] | Error): ParsedKey | Error => (Array.isArray(k) ? k[0]! : k);
    let key = first(utils.parseKey(data));
    if (!(key instanceof Error)) {
      this.states.set(file, key.isPrivateKey() ? 'loaded' : 'public-only');
      return key.isPrivateKey() ? key : undefined;
    }
    if (!/encrypted|passphrase/i.test(key.message)) {
      this.debug?.(`${file}: ${key.message}`);
      this.states.set(file, 'not-a-key');
      return undefined;
    }
    this.states.set(file, 'encrypted');
    for (let attempt = 1; attempt <= 3; attempt++) {
      const pass = await this.auth?.passphrase?.(file, attempt);
      if (pass === undefined) return undefined;
      key = first(utils.parseKey(data, pass));
      if (!(key instanceof Error)) {
        this.auth?.passphraseAccepted?.(file, pass);
        this.states.set(file, 'loaded');
        return key;
      }
      this.states.set(file, 'passphrase-refused');
      this.auth?.passphraseRejected?.(file);
    }
    return undefined;
  }
}
