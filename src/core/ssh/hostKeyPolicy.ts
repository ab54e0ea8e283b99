/**
 * The host key policy: what happens when a host (every hop of a ProxyJump chain) presents its key.
 *
 * - trusted → connect.
 * - unknown → ask the HostKeyPrompt: accept once (this session only), accept and remember (appended, hashed, to
 *   the extension's own known_hosts file) or reject. Never accepted without asking — not in tests either.
 * - changed → the prompt is told (hard stop that explains the risk); the connection is refused — unless the user
 *   accepted exactly that new key for that host in this session (`acceptKey`: a re-imaged host, its key shown and
 *   typed back by the user in an operation's own question). Never written to a known_hosts file, never by default.
 * - revoked → refused, always (the prompt is told when it implements `revoked`).
 *
 * While a preflight gathers the keys of every host in scope (`deferUnknown`), an unknown key is not asked about one
 * host at a time: it is refused and kept, with its blob, so that all of them are reviewed together afterwards and
 * each accepted (for the session, or remembered) by the user's explicit action — or by a fingerprint the user gave
 * up front (the command line's --accept-new-host-key, the prompt's `preapproved`).
 */
import { checkHostKey, formatKnownHostsLine, loadKnownHosts, type HostKeyCheck, type KnownHostEntry, type KnownHostsProblem } from './knownHosts';
import { t } from '../l10n';

export type UnknownKeyAnswer = 'once' | 'remember' | 'reject';

export interface HostKeyDetails {
  /** The inventory host (or jump alias) this hop belongs to. */
  alias: string;
  /** Extra explanation from the check (cert-authority only, other key types on record...). */
  note?: string;
  /** For `changed` and `revoked`: the known_hosts file and line that holds the old / revoked key. */
  file?: string;
  line?: number;
}

export interface HostKeyPrompt {
  /** An unknown key the user already approved by its exact fingerprint (CLI --accept-new-host-key): accepted once without asking. */
  preapproved?(host: string, port: number, keyType: string, fingerprint: string, details: HostKeyDetails): boolean;
  unknown(host: string, port: number, keyType: string, fingerprint: string, details: HostKeyDetails): Promise<UnknownKeyAnswer>;
  /** A hard stop: explain, offer nothing to proceed. The connection is refused whatever this does. */
  changed(host: string, port: number, keyType: string, fingerprint: string, details: HostKeyDetails): Promise<void>;
  revoked?(host: string, port: number, keyType: string, fingerprint: string, details: HostKeyDetails): Promise<void>;
}

export interface KnownHostsStore {
  /** Files read, in order: ~/.ssh/known_hosts, the configured extra file, hop-specific UserKnownHostsFile, the own file. */
  files: string[];
  /** The extension's own known_hosts file, where "accept and remember" appends. */
  ownFile: string;
  read: (path: string) => Promise<string | undefined>;
  /** Appends a line, creating the file (and its directory) with 0600 when missing. */
  append: (path: string, text: string) => Promise<void>;
  /** Write hashed host names (default true). */
  hashed?: boolean;
}

export interface HostKeyHop {
  alias: string;
  hostname: string;
  port: number;
  hostKeyAlias?: string;
  userKnownHostsFiles?: string[];
}

export interface HostKeyDecision {
  accepted: boolean;
  check: HostKeyCheck;
  /** How an accepted key was accepted. */
  how?: 'known' | 'once' | 'remembered';
  /** The name used for the lookup (HostKeyAlias or hostname). */
  name: string;
  port: number;
}

export class HostKeyRejectedError extends Error {
  constructor(
    readonly decision: HostKeyDecision,
    readonly alias: string,
  ) {
    super(`${alias}: ${describeRejection(decision)}`);
    this.name = 'HostKeyRejectedError';
  }
}

/** Why a hop was refused, without the host prefix: `host key CHANGED for 10.3.60.51 — ...`. */
export function describeRejection(d: HostKeyDecision): string {
  const where = d.port === 22 ? d.name : `${d.name}:${d.port}`;
  const key = `${d.check.keyType} ${d.check.fingerprint}`;
  const at = d.check.entry ? `${d.check.entry.file}:${d.check.entry.line}` : 'known_hosts';
  switch (d.check.status) {
    case 'changed':
      return `host key CHANGED for ${where} — the server presented ${key}, but ${at} records a different ${d.check.keyType} key. Possible man-in-the-middle attack, or the host was reinstalled; connection refused`;
    case 'revoked':
      return `host key ${key} of ${where} is revoked (${at}); connection refused`;
    case 'unknown':
      return `host key ${key} of ${where} is unknown and was not accepted${d.check.note ? ` (${d.check.note})` : ''}`;
    default:
      return `host key ${key} of ${where} rejected`;
  }
}

/** A host key that was refused, with what a person needs to judge it. */
export interface RefusedHostKey {
  /** The inventory host (or jump alias). */
  alias: string;
  /** The name and port it was looked up under in known_hosts. */
  name: string;
  port: number;
  status: 'changed' | 'unknown' | 'revoked';
  keyType: string;
  fingerprint: string;
  /** For a changed key: the known_hosts file and line that hold the old one. */
  file?: string;
  line?: number;
  /** Why it is unknown, when it is not obvious (a host known only through a CA). */
  note?: string;
}

/** What an operation may do about a refused key, through its SSH transport (the editor's and the CLI's pools). */
export interface HostKeyAcceptance {
  /** The key `host` presented the last time it was refused, if it was. */
  refusedKey(host: string): RefusedHostKey | undefined;
  /** The user checked this key of `host` and accepts exactly it, for this session (a changed key too; never a revoked one). */
  acceptKey(host: string, fingerprint: string): void;
  /** The user checked this unknown key of `host` and wants it remembered: appended (hashed) to the own known_hosts. */
  rememberKey?(host: string, fingerprint: string): Promise<void>;
  /** Unknown keys are refused and kept for one review instead of asked about (the preflight gathers them). */
  deferUnknownKeys?(on: boolean): void;
}

export class HostKeyVerifier implements HostKeyAcceptance {
  /** Keys accepted "once" in this session: `name:port fingerprint`. */
  private readonly acceptedOnce = new Set<string>();
  /** Keys the user accepted through an operation's question: `alias fingerprint`. */
  private readonly acceptedByUser = new Set<string>();
  private readonly refused = new Map<string, RefusedHostKey>();
  /** The blob of each refused unknown key (`alias fingerprint`), to remember it once accepted. */
  private readonly refusedBlobs = new Map<string, Buffer>();
  private deferring = false;
  /** Serializes prompts and known_hosts writes. */
  private chain: Promise<unknown> = Promise.resolve();
  readonly problems: KnownHostsProblem[] = [];

  constructor(
    private readonly store: KnownHostsStore,
    private readonly prompt: HostKeyPrompt,
  ) {}

  refusedKey(host: string): RefusedHostKey | undefined {
    return this.refused.get(host);
  }

  acceptKey(host: string, fingerprint: string): void {
    this.acceptedByUser.add(`${host} ${fingerprint}`);
  }

  deferUnknownKeys(on: boolean): void {
    this.deferring = on;
  }

  async rememberKey(host: string, fingerprint: string): Promise<void> {
    const key = this.refused.get(host);
    const blob = this.refusedBlobs.get(`${host} ${fingerprint}`);
    if (!key || key.status !== 'unknown' || key.fingerprint !== fingerprint || !blob) throw new Error(t('{0}: no unknown host key {1} to remember', host, fingerprint));
    const line = formatKnownHostsLine(key.name, key.port, blob, { hashed: this.store.hashed !== false, comment: `added-by-kubeadm-workbench ${new Date().toISOString()}` });
    await this.store.append(this.store.ownFile, line);
    this.acceptedByUser.add(`${host} ${fingerprint}`);
  }

  private async entries(hop: HostKeyHop): Promise<KnownHostEntry[]> {
    const files = [...new Set([...this.store.files, ...(hop.userKnownHostsFiles ?? []), this.store.ownFile])];
    const { entries, problems } = await loadKnownHosts({ files, read: this.store.read });
    this.problems.splice(0, this.problems.length, ...problems);
    return entries;
  }

  /** Decides for one hop. Prompts for unknown keys; never throws for a rejection (see `accepted`). */
  verify(hop: HostKeyHop, key: Buffer): Promise<HostKeyDecision> {
    const run = this.chain.then(() => this.verifyNow(hop, key));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private refuse(alias: string, d: { check: HostKeyCheck; name: string; port: number }, details: HostKeyDetails, blob?: Buffer): void {
    if (d.check.status === 'trusted') return;
    this.refused.set(alias, { alias, name: d.name, port: d.port, status: d.check.status, keyType: d.check.keyType, fingerprint: d.check.fingerprint, ...(details.file ? { file: details.file } : {}), ...(details.line ? { line: details.line } : {}), ...(details.note ? { note: details.note } : {}) });
    if (blob) this.refusedBlobs.set(`${alias} ${d.check.fingerprint}`, blob);
  }

  private async verifyNow(hop: HostKeyHop, key: Buffer): Promise<HostKeyDecision> {
    const name = hop.hostKeyAlias ?? hop.hostname;
    const port = hop.port;
    const check = checkHostKey(await this.entries(hop), { host: name, port, key });
    const base = { check, name, port };
    const details: HostKeyDetails = {
      alias: hop.alias,
      ...(check.note ? { note: check.note } : {}),
      ...(check.entry ? { file: check.entry.file, line: check.entry.line } : {}),
    };
    switch (check.status) {
      case 'trusted':
        return { ...base, accepted: true, how: 'known' };
      case 'revoked':
        this.refuse(hop.alias, base, details);
        // While the preflight gathers, its table explains a refused key: no dialog per host.
        if (!this.deferring) await this.prompt.revoked?.(name, port, check.keyType, check.fingerprint, details);
        return { ...base, accepted: false };
      case 'changed':
        if (this.acceptedByUser.has(`${hop.alias} ${check.fingerprint}`)) return { ...base, accepted: true, how: 'once' };
        this.refuse(hop.alias, base, details);
        if (!this.deferring) await this.prompt.changed(name, port, check.keyType, check.fingerprint, details);
        return { ...base, accepted: false };
      case 'unknown': {
        const onceKey = `${name}:${port} ${check.fingerprint}`;
        if (this.acceptedOnce.has(onceKey) || this.acceptedByUser.has(`${hop.alias} ${check.fingerprint}`)) return { ...base, accepted: true, how: 'once' };
        if (this.prompt.preapproved?.(name, port, check.keyType, check.fingerprint, details)) {
          this.acceptedOnce.add(onceKey);
          return { ...base, accepted: true, how: 'once' };
        }
        if (this.deferring) {
          this.refuse(hop.alias, base, details, key);
          return { ...base, accepted: false };
        }
        const answer = await this.prompt.unknown(name, port, check.keyType, check.fingerprint, details);
        if (answer === 'once') {
          this.acceptedOnce.add(onceKey);
          return { ...base, accepted: true, how: 'once' };
        }
        if (answer === 'remember') {
          const line = formatKnownHostsLine(name, port, key, {
            hashed: this.store.hashed !== false,
            comment: `added-by-kubeadm-workbench ${new Date().toISOString()}`,
          });
          await this.store.append(this.store.ownFile, line);
          return { ...base, accepted: true, how: 'remembered' };
        }
        this.refuse(hop.alias, base, details, key);
        return { ...base, accepted: false };
      }
    }
  }
}

/**
 * The command line's prompt: refuses every unknown key unless its exact SHA256 fingerprint was given with
 * `--accept-new-host-key=FINGERPRINT` (accepted for this run only). Changed and revoked keys are reported.
 */
export class CliHostKeyPrompt implements HostKeyPrompt {
  readonly messages: string[] = [];

  constructor(
    private readonly acceptFingerprints: readonly string[],
    private readonly report: (line: string) => void = () => undefined,
  ) {}

  preapproved(host: string, port: number, keyType: string, fp: string, d: HostKeyDetails): boolean {
    if (!this.acceptFingerprints.includes(fp)) return false;
    this.say(t('{0}: accepting new host key {1} {2} for {3}:{4} (given with --accept-new-host-key)', d.alias, keyType, fp, host, port));
    return true;
  }

  async unknown(host: string, port: number, keyType: string, fp: string, d: HostKeyDetails): Promise<UnknownKeyAnswer> {
    if (this.acceptFingerprints.includes(fp)) {
      this.say(t('{0}: accepting new host key {1} {2} for {3}:{4} (given with --accept-new-host-key)', d.alias, keyType, fp, host, port));
      return 'once';
    }
    this.say(
      t('{0}: unknown host key {1} {2} for {3}:{4}{5}. Check it on the host (ssh-keygen -lf /etc/ssh/ssh_host_{6}_key.pub) and re-run with --accept-new-host-key={2}', d.alias, keyType, fp, host, port, d.note ? ` (${d.note})` : '', keyType.replace(/^ssh-|-sha2-nistp\d+$/g, '')),
    );
    return 'reject';
  }

  async changed(host: string, port: number, keyType: string, fp: string, d: HostKeyDetails): Promise<void> {
    this.say(
      t('{0}: HOST KEY CHANGED for {1}:{2}: it presented {3} {4}, which differs from {5}. Someone could be intercepting the connection (man-in-the-middle), or the host was reinstalled. If you verified the new key, remove the old one with: ssh-keygen -R \'{6}\' -f {7}', d.alias, host, port, keyType, fp, `${d.file ?? 'known_hosts'}${d.line ? `:${d.line}` : ''}`, port === 22 ? host : `[${host}]:${port}`, d.file ?? '~/.ssh/known_hosts'),
    );
  }

  async revoked(host: string, port: number, keyType: string, fp: string, d: HostKeyDetails): Promise<void> {
    this.say(t('{0}: host key {1} {2} of {3}:{4} is REVOKED ({5}); refusing to connect', d.alias, keyType, fp, host, port, `${d.file}:${d.line}`));
  }

  private say(line: string): void {
    this.messages.push(line);
    this.report(line);
  }
}
