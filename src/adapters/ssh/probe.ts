/**
 * The preflight's look at a host before any SSH login (engine/preflight.ts): does the name resolve, does the port
 * answer with an SSH greeting (a refused port, a silent one, a dead host and a service that is not SSH are each told
 * apart), and which keys would a login offer — each identity file read and parsed here (missing, unreadable, not a
 * key, passphrase-protected), the agent asked for its keys. Each answer comes with the taxonomy's cause and fix.
 */
import { lookup } from 'node:dns/promises';
import { connect, isIP } from 'node:net';
import { OpenSSHAgent, utils, type ParsedKey } from 'ssh2';
import { describeSshFailure, type KeyOffer, type SshFailure } from '../../core/ssh/failures';
import { fingerprint } from '../../core/ssh/knownHosts';
import { errorMessage } from '../../core/errors';
import { t } from '../../core/l10n';
import { readRegular } from '../fs/safeFile';

/** An identity file is small; a larger one is no key (and not read whole). */
const KEY_READ = { maxBytes: 1024 * 1024 };

export interface ProbeResult {
  ok: boolean;
  ms: number;
  /** What was found: the addresses, the server's greeting. */
  detail: string;
  failure?: SshFailure;
}

function within<T>(p: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => resolve(onTimeout()), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e: unknown) => (clearTimeout(t), reject(e)),
    );
  });
}

/** The name's addresses (an address is its own answer). */
export async function resolveName(name: string, timeoutMs: number): Promise<ProbeResult> {
  const t0 = Date.now();
  if (isIP(name)) return { ok: true, ms: 0, detail: t('{0} (an address)', name) };
  try {
    const found = await within(lookup(name, { all: true }), timeoutMs, () => {
      throw Object.assign(new Error(t('no answer within {0} ms', timeoutMs)), { code: 'EAI_AGAIN' });
    });
    return { ok: true, ms: Date.now() - t0, detail: `${name} → ${found.map((a) => a.address).join(', ')}` };
  } catch (e) {
    const code = (e as { code?: string }).code ?? 'ENOTFOUND';
    return { ok: false, ms: Date.now() - t0, detail: name, failure: describeSshFailure({ hostname: name, port: 22, user: '', stage: 'connect', error: { code, message: errorMessage(e) } }) };
  }
}

/**
 * Opens a TCP connection and reads the server's first line: `SSH-2.0-…` is an SSH server. Within `timeoutMs` in all;
 * a connection that opens but stays silent is a server that does not greet, not a dead host.
 */
export function reachSsh(hostname: string, port: number, timeoutMs: number): Promise<ProbeResult> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port });
    let tcpUp = false;
    let data = '';
    let done = false;
    const finish = (r: Omit<ProbeResult, 'ms'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...r, ms: Date.now() - t0 });
    };
    const failed = (error?: { code?: string; message?: string }, timedOut = false) =>
      finish({ ok: false, detail: `${hostname}:${port}`, failure: describeSshFailure({ hostname, port, user: '', stage: 'connect', tcpUp, timedOut, timeoutMs, ...(error ? { error } : {}) }) });
    const timer = setTimeout(() => failed(undefined, true), timeoutMs);
    socket.on('connect', () => (tcpUp = true));
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1');
      const nl = data.indexOf('\n');
      if (nl < 0 && data.length < 256) return;
      const line = (nl < 0 ? data : data.slice(0, nl)).replace(/\r$/, '');
      if (line.startsWith('SSH-')) return finish({ ok: true, detail: t('{0}:{1} answered ({2})', hostname, port, line.replace(/[^\x20-\x7e]/g, '?').slice(0, 80)) });
      finish({ ok: false, detail: `${hostname}:${port}`, failure: notSsh(hostname, port, line) });
    });
    socket.on('error', (e: Error & { code?: string }) => failed({ message: e.message, ...(e.code ? { code: e.code } : {}) }));
    socket.on('close', () => failed({ message: 'Connection lost before handshake' }));
  });
}

function notSsh(hostname: string, port: number, line: string): SshFailure {
  const said = line.replace(/[^\x20-\x7e]/g, '?').slice(0, 60);
  return {
    kind: 'closed', group: 'network', retry: 'no',
    cause: t('{0}:{1} is not an SSH server: it answered "{2}"', hostname, port, said),
    fix: t('set the port sshd listens on (ssh: { port: … } in inventory.yaml, or Port in your SSH config)'),
  };
}

export interface KeyFileState {
  file: string;
  state: KeyOffer['state'];
  keyType?: string;
  fingerprint?: string;
}

export interface AgentState {
  socket: string;
  /** The agent's key fingerprints, when it answered. */
  fingerprints?: string[];
  error?: string;
}

function described(k: ParsedKey): { keyType: string; fingerprint: string } {
  return { keyType: k.type, fingerprint: fingerprint(k.getPublicSSH() as Buffer) };
}

/** How one identity file stands: read and parsed here, never sent anywhere; a passphrase-protected key is not opened. */
export async function inspectKeyFile(file: string): Promise<KeyFileState> {
  let data: Buffer;
  try {
    data = await readRegular(file, KEY_READ);
  } catch (e) {
    return { file, state: (e as { code?: string }).code === 'ENOENT' ? 'missing' : 'unreadable' };
  }
  const parsed = utils.parseKey(data);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (key && !(key instanceof Error)) return { file, state: key.isPrivateKey() ? 'loaded' : 'public-only', ...described(key) };
  if (!/encrypted|passphrase/i.test(key?.message ?? '')) return { file, state: 'not-a-key' };
  // The public half beside it names the key an agent may hold.
  const pub = await readRegular(`${file}.pub`, KEY_READ).catch(() => undefined);
  const p = pub ? utils.parseKey(pub) : undefined;
  const pk = Array.isArray(p) ? p[0] : p;
  return { file, state: 'encrypted', ...(pk && !(pk instanceof Error) ? described(pk) : {}) };
}

/** The agent's keys, asked within `timeoutMs`. */
export function inspectAgent(socket: string, timeoutMs: number): Promise<AgentState> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ socket, error: t('no answer within {0} ms', timeoutMs) }), timeoutMs);
    try {
      new OpenSSHAgent(socket).getIdentities((err, keys) => {
        clearTimeout(timer);
        if (err || !keys) return resolve({ socket, error: err?.message ?? t('no keys') });
        // ssh2 hands out parsed keys; its types also allow a wrapper entry.
        const blob = (k: unknown): Buffer | undefined => (k as Partial<ParsedKey>).getPublicSSH?.() as Buffer | undefined;
        resolve({ socket, fingerprints: keys.flatMap((k) => (blob(k) ? [fingerprint(blob(k)!)] : [])) });
      });
    } catch (e) {
      clearTimeout(timer);
      resolve({ socket, error: errorMessage(e) });
    }
  });
}
