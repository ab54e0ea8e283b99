/**
 * Opening one SSH connection (one hop): TCP, key exchange, the host key through the HostKeyVerifier (never
 * auto-accepted), then public-key login (agent, then identity files, an encrypted key's passphrase asked once).
 * A failure says at which stage it happened, so the pool retries only what the server refused before the host
 * key (see connectPolicy.ts).
 */
import { readRegular } from '../fs/safeFile';
import type * as Ssh2 from 'ssh2';
import type { AuthenticationType, Client, ConnectConfig, ParsedKey } from 'ssh2';
import type { ResolvedHop } from '../../core/ssh/config';
import type { HandshakeFailure, HandshakeStage } from '../../core/ssh/connectPolicy';
import { describeRejection, type HostKeyDecision, type HostKeyVerifier } from '../../core/ssh/hostKeyPolicy';
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

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
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

/** Connects one hop (over `sock` when it is tunnelled through a jump host). */
export async function handshake(s: HandshakeSettings, hop: ResolvedHop, key: string, label: string, sock: NodeJS.ReadableStream | undefined): Promise<Connection> {
  const { Client } = await loadSsh2();
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
    let stage: HandshakeStage = 'connect';
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const timeoutMs = hop.connectTimeoutSec ? hop.connectTimeoutSec * 1000 : s.connectTimeoutMs;
    const armTimer = (ms: number) => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        fail(new SshConnectError(hopLabel, `timed out connecting to ${hop.hostname}:${hop.port} after ${Math.round(ms / 1000)} s`, 'network'));
      }, ms);
    };
    const fail = (e: SshConnectError, code?: string) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      client.destroy();
      const prompted = verifying || (decision?.check.status === 'unknown' && decision.accepted);
      reject(new HandshakeError(e, prompted, { stage, kind: e.kind, timedOut, ...(code ? { code } : {}) }));
    };
    armTimer(timeoutMs);
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
      if (decision && !decision.accepted) return fail(new SshConnectError(hopLabel, describeRejection(decision), 'host-key', decision.check.status === 'trusted' ? 'error' : decision.check.status));
      if (verifyError) return fail(new SshConnectError(hopLabel, `host key check failed: ${errorMessage(verifyError)}`, 'host-key', 'error'));
      if (err.level === 'client-authentication') {
        return fail(new SshConnectError(hopLabel, `authentication failed for ${hop.user}@${hop.hostname}:${hop.port} (tried: ${triedAuth.join(', ') || 'nothing usable'})`, 'auth'));
      }
      fail(new SshConnectError(hopLabel, `cannot connect to ${hop.hostname}:${hop.port}: ${err.message}`, 'network'), err.code);
    });
    client.on('close', () => fail(new SshConnectError(hopLabel, `connection to ${hop.hostname}:${hop.port} closed during the handshake`, 'network')));

    const methods = authMethods(s.keys, hop);
    triedAuth = [];
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

interface AuthMethod {
  kind: 'agent' | 'key';
  label: string;
  make: () => Promise<unknown>;
}

function authMethods(keys: KeyRing, hop: ResolvedHop): AuthMethod[] {
  const out: AuthMethod[] = [];
  let agent = keys.auth?.agentSocket ?? process.env.SSH_AUTH_SOCK ?? '';
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
        const key = await keys.load(file);
        return key ? { type: 'publickey', username: hop.user, key } : undefined;
      },
    });
  }
  return out;
}

/** Identity files, each read and parsed (and its passphrase asked) once for the pool's life. */
export class KeyRing {
  private readonly keys = new Map<string, Promise<ParsedKey | undefined>>();
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
    }
    return p;
  }

  private async loadNow(file: string): Promise<ParsedKey | undefined> {
    const read = this.readKeyFile ?? (async (f: string) => readRegular(f, { maxBytes: 1024 * 1024 }).catch(() => undefined));
    const data = await read(file);
    if (!data) return undefined;
    const { utils } = await loadSsh2();
    const first = (k: ParsedKey | ParsedKey[] | Error): ParsedKey | Error => (Array.isArray(k) ? k[0]! : k);
    let key = first(utils.parseKey(data));
    if (!(key instanceof Error)) return key.isPrivateKey() ? key : undefined;
    if (!/encrypted|passphrase/i.test(key.message)) {
      this.debug?.(`${file}: ${key.message}`);
      return undefined;
    }
    for (let attempt = 1; attempt <= 3; attempt++) {
      const pass = await this.auth?.passphrase?.(file, attempt);
      if (pass === undefined) return undefined;
      key = first(utils.parseKey(data, pass));
      if (!(key instanceof Error)) {
        this.auth?.passphraseAccepted?.(file, pass);
        return key;
      }
      this.auth?.passphraseRejected?.(file);
    }
    return undefined;
  }
}
