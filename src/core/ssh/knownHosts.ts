/**
 * OpenSSH known_hosts: parsing, lookup and the trust decision for one (host, port, key).
 *
 * Supported: plain and comma-separated host patterns with `*`, `?` and `!` negation, `[host]:port` for
 * non-standard ports, hashed entries (`|1|base64(salt)|base64(HMAC-SHA1(salt, name))`), comments and blank
 * lines, the `@revoked` and `@cert-authority` markers. Several files are read (the user's ~/.ssh/known_hosts, a
 * configured extra file, the extension's own); entries keep their file and line for messages.
 *
 * Decision (`checkHostKey`):
 * - `revoked`: the key (or, for a host certificate, its signing CA key) is on any `@revoked` line — whatever
 *   host pattern that line has: a revoked key is never accepted.
 * - `trusted`: an unmarked entry for the host has exactly this key; or the key is an OpenSSH host certificate
 *   whose signature verifies against a CA key on an `@cert-authority` line for the host, that lists the host
 *   among its principals and is inside its validity window.
 * - `changed`: no entry has this key, but an entry for the host has a different key of the same type.
 * - `unknown`: otherwise. When only a `@cert-authority` line matches but the server presented a plain key, the
 *   result is `unknown` with a note: ssh2 (the client library) does not negotiate host certificates, so a host
 *   known only through its CA is treated as unknown.
 */
import { createHash, createHmac, createPublicKey, randomBytes, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { errorMessage } from '../errors';
import { t } from '../l10n';

export type KnownHostsMarker = 'revoked' | 'cert-authority';

export interface KnownHostEntry {
  marker?: KnownHostsMarker;
  /** Patterns of a plain entry (possibly `!negated`, `[host]:port`), or a hashed name. */
  hosts: { patterns: string[] } | { salt: Buffer; hash: Buffer };
  keyType: string;
  /** The public key blob (SSH wire format). */
  key: Buffer;
  comment?: string;
  file: string;
  line: number;
}

export interface KnownHostsProblem {
  file: string;
  line: number;
  message: string;
}

export type HostKeyStatus = 'trusted' | 'unknown' | 'changed' | 'revoked';

export interface HostKeyCheck {
  status: HostKeyStatus;
  keyType: string;
  fingerprint: string;
  /** The entry that decided: the matching key (trusted), the old key (changed), the revoked line. */
  entry?: KnownHostEntry;
  /** Why, when it is not obvious (cert-authority only, other key types on record, certificate problems). */
  note?: string;
}

/** `SHA256:` + unpadded base64 of SHA-256 of the key blob, exactly as `ssh-keygen -lf` prints it. */
export function fingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** Reads SSH wire-format strings/uint32/uint64 from a buffer. */
class WireReader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  uint32(): number {
    if (this.pos + 4 > this.buf.length) throw new Error(t('truncated key blob'));
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  uint64(): bigint {
    if (this.pos + 8 > this.buf.length) throw new Error(t('truncated key blob'));
    const v = this.buf.readBigUInt64BE(this.pos);
    this.pos += 8;
    return v;
  }
  bytes(): Buffer {
    const n = this.uint32();
    if (this.pos + n > this.buf.length) throw new Error(t('truncated key blob'));
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }
  string(): string {
    return this.bytes().toString('utf8');
  }
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
}

/** The key type named inside a key blob (`ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-ed25519-cert-v01@openssh.com`...). */
export function keyTypeOf(keyBlob: Buffer): string {
  try {
    return new WireReader(keyBlob).string();
  } catch {
    return 'unknown';
  }
}

/** The plain key type a certificate type wraps (`ssh-ed25519-cert-v01@openssh.com` → `ssh-ed25519`). */
export function baseKeyType(keyType: string): string {
  return keyType.replace(/-cert-v0[01]@openssh\.com$/, '');
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing

export function parseKnownHosts(text: string, file: string): { entries: KnownHostEntry[]; problems: KnownHostsProblem[] } {
  const entries: KnownHostEntry[] = [];
  const problems: KnownHostsProblem[] = [];
  text.split(/\r?\n/).forEach((rawLine, i) => {
    const line = i + 1;
    const trimmed = rawLine.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const fields = trimmed.split(/[ \t]+/);
    let marker: KnownHostsMarker | undefined;
    if (fields[0]!.startsWith('@')) {
      const m = fields.shift()!;
      if (m === '@revoked') marker = 'revoked';
      else if (m === '@cert-authority') marker = 'cert-authority';
      else {
        problems.push({ file, line, message: t('unknown marker {0}', m) });
        return;
      }
    }
    if (fields.length < 3) {
      problems.push({ file, line, message: t('expected "[marker] hosts keytype base64-key [comment]"') });
      return;
    }
    const [hostField, keyType, b64, ...rest] = fields as [string, string, string, ...string[]];
    const key = Buffer.from(b64, 'base64');
    if (key.length === 0 || key.toString('base64').replace(/=+$/, '') !== b64.replace(/=+$/, '')) {
      problems.push({ file, line, message: t('the key is not valid base64') });
      return;
    }
    if (keyTypeOf(key) !== keyType) {
      problems.push({ file, line, message: t('the key blob is a {0} key, not {1}', keyTypeOf(key), keyType) });
      return;
    }
    let hosts: KnownHostEntry['hosts'];
    if (hostField.startsWith('|1|')) {
      const parts = hostField.split('|');
      if (parts.length !== 4) {
        problems.push({ file, line, message: t('malformed hashed host name') });
        return;
      }
      hosts = { salt: Buffer.from(parts[2]!, 'base64'), hash: Buffer.from(parts[3]!, 'base64') };
      if (hosts.salt.length !== 20 || hosts.hash.length !== 20) {
        problems.push({ file, line, message: t('malformed hashed host name (salt and hash must be 20 bytes)') });
        return;
      }
    } else {
      hosts = { patterns: hostField.split(',').filter((p) => p !== '') };
    }
    entries.push({
      ...(marker ? { marker } : {}),
      hosts,
      keyType,
      key,
      ...(rest.length ? { comment: rest.join(' ') } : {}),
      file,
      line,
    });
  });
  return { entries, problems };
}

// ---------------------------------------------------------------------------------------------------------------
// Matching

/** OpenSSH's wildcard match (`*` any run, `?` one character), case-insensitive for host names. */
export function wildcardMatch(text: string, pattern: string): boolean {
  const t = text.toLowerCase();
  const p = pattern.toLowerCase();
  // Iterative glob with backtracking over the last `*`.
  let ti = 0;
  let pi = 0;
  let star = -1;
  let mark = 0;
  while (ti < t.length) {
    if (pi < p.length && (p[pi] === '?' || p[pi] === t[ti])) {
      ti++;
      pi++;
    } else if (pi < p.length && p[pi] === '*') {
      star = pi++;
      mark = ti;
    } else if (star >= 0) {
      pi = star + 1;
      ti = ++mark;
    } else return false;
  }
  while (pi < p.length && p[pi] === '*') pi++;
  return pi === p.length;
}

/**
 * A comma-separated pattern list as OpenSSH evaluates it: a matching negated pattern rejects the whole list;
 * otherwise any matching positive pattern accepts.
 */
export function matchPatternList(text: string, patterns: readonly string[]): boolean {
  let matched = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const p = negated ? raw.slice(1) : raw;
    if (wildcardMatch(text, p)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/** The name known_hosts records for a host: `host` on port 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

export function entryMatchesHost(entry: KnownHostEntry, host: string, port: number): boolean {
  const name = knownHostsName(host, port);
  if ('salt' in entry.hosts) {
    const { salt, hash } = entry.hosts;
    return createHmac('sha1', salt).update(name).digest().equals(hash);
  }
  return matchPatternList(name, entry.hosts.patterns);
}

// ---------------------------------------------------------------------------------------------------------------
// OpenSSH host certificates (PROTOCOL.certkeys)

export interface HostCertificate {
  certType: string;
  /** The certified public key as a plain blob. */
  publicKey: Buffer;
  serial: bigint;
  /** 1 user, 2 host. */
  type: number;
  keyId: string;
  principals: string[];
  validAfter: bigint;
  validBefore: bigint;
  criticalOptions: Buffer;
  signatureKey: Buffer;
  signature: { algorithm: string; blob: Buffer };
  /** The bytes the signature covers. */
  signed: Buffer;
}

export function parseCertificate(blob: Buffer): HostCertificate | undefined {
  const r = new WireReader(blob);
  const certType = r.string();
  if (!/-cert-v01@openssh\.com$/.test(certType)) return undefined;
  const base = baseKeyType(certType);
  r.bytes(); // nonce
  const keyParts: Buffer[] = [];
  if (base === 'ssh-ed25519') keyParts.push(r.bytes());
  else if (base === 'ssh-rsa') keyParts.push(r.bytes(), r.bytes()); // e, n
  else if (base.startsWith('ecdsa-sha2-')) keyParts.push(r.bytes(), r.bytes()); // curve, Q
  else if (base === 'ssh-dss') keyParts.push(r.bytes(), r.bytes(), r.bytes(), r.bytes());
  else return undefined;
  const publicKey = Buffer.concat([wireString(Buffer.from(base)), ...keyParts.map(wireString)]);
  const serial = r.uint64();
  const type = r.uint32();
  const keyId = r.string();
  const pr = new WireReader(r.bytes());
  const principals: string[] = [];
  while (!pr.done) principals.push(pr.string());
  const validAfter = r.uint64();
  const validBefore = r.uint64();
  const criticalOptions = r.bytes();
  r.bytes(); // extensions
  r.bytes(); // reserved
  const signatureKey = r.bytes();
  const signed = blob.subarray(0, r.pos);
  const sr = new WireReader(r.bytes());
  const signature = { algorithm: sr.string(), blob: sr.bytes() };
  return { certType, publicKey, serial, type, keyId, principals, validAfter, validBefore, criticalOptions, signatureKey, signature, signed };
}

function wireString(b: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
}

function b64url(b: Buffer): string {
  return b.toString('base64url');
}

function unsignedInt(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return b.subarray(i);
}

const CURVES: Record<string, { crv: string; size: number; hash: string }> = {
  nistp256: { crv: 'P-256', size: 32, hash: 'sha256' },
  nistp384: { crv: 'P-384', size: 48, hash: 'sha384' },
  nistp521: { crv: 'P-521', size: 66, hash: 'sha512' },
};

function publicKeyObject(blob: Buffer): KeyObject {
  const r = new WireReader(blob);
  const type = r.string();
  if (type === 'ssh-ed25519') return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64url(r.bytes()) }, format: 'jwk' });
  if (type === 'ssh-rsa') {
    const e = unsignedInt(r.bytes());
    const n = unsignedInt(r.bytes());
    return createPublicKey({ key: { kty: 'RSA', e: b64url(e), n: b64url(n) }, format: 'jwk' });
  }
  if (type.startsWith('ecdsa-sha2-')) {
    const curve = CURVES[r.string()];
    const q = r.bytes();
    if (!curve || q[0] !== 4) throw new Error(t('unsupported ECDSA key'));
    const x = q.subarray(1, 1 + curve.size);
    const y = q.subarray(1 + curve.size);
    return createPublicKey({ key: { kty: 'EC', crv: curve.crv, x: b64url(x), y: b64url(y) }, format: 'jwk' });
  }
  throw new Error(t('unsupported CA key type {0}', type));
}

/** Verifies an SSH signature blob (`algorithm`, raw signature) over `data` with the SSH public key `keyBlob`. */
export function verifySshSignature(keyBlob: Buffer, data: Buffer, sig: { algorithm: string; blob: Buffer }): boolean {
  const key = publicKeyObject(keyBlob);
  const keyType = keyTypeOf(keyBlob);
  switch (sig.algorithm) {
    case 'ssh-ed25519':
      return keyType === 'ssh-ed25519' && cryptoVerify(null, data, key, sig.blob);
    case 'rsa-sha2-256':
    case 'rsa-sha2-512':
    case 'ssh-rsa': {
      if (keyType !== 'ssh-rsa') return false;
      const hash = sig.algorithm === 'rsa-sha2-512' ? 'sha512' : sig.algorithm === 'rsa-sha2-256' ? 'sha256' : 'sha1';
      return cryptoVerify(hash, data, key, sig.blob);
    }
    default: {
      const m = /^ecdsa-sha2-(nistp\d+)$/.exec(sig.algorithm);
      const curve = m ? CURVES[m[1]!] : undefined;
      if (!curve || keyType !== sig.algorithm) return false;
      const sr = new WireReader(sig.blob);
      const pad = (b: Buffer) => {
        const u = unsignedInt(b);
        return Buffer.concat([Buffer.alloc(Math.max(0, curve.size - u.length)), u]);
      };
      const p1363 = Buffer.concat([pad(sr.bytes()), pad(sr.bytes())]);
      return cryptoVerify(curve.hash, data, { key, dsaEncoding: 'ieee-p1363' }, p1363);
    }
  }
}

/** Why a host certificate is not acceptable for `host`, or undefined when it is (signature checked). */
export function certificateProblem(cert: HostCertificate, host: string, now: Date = new Date()): string | undefined {
  if (cert.type !== 2) return t('it is a user certificate, not a host certificate');
  if (cert.principals.length > 0 && !cert.principals.some((p) => p.toLowerCase() === host.toLowerCase())) {
    return t('it is valid for {0}, not {1}', cert.principals.join(', '), host);
  }
  const seconds = BigInt(Math.floor(now.getTime() / 1000));
  if (seconds < cert.validAfter) return t('it is not valid yet');
  if (seconds >= cert.validBefore) return t('it has expired');
  if (cert.criticalOptions.length > 0) return t('it has critical options (not allowed on host certificates)');
  let ok = false;
  try {
    ok = verifySshSignature(cert.signatureKey, cert.signed, cert.signature);
  } catch (e) {
    return t('its signature cannot be checked: {0}', errorMessage(e));
  }
  return ok ? undefined : t('its CA signature does not verify');
}

// ---------------------------------------------------------------------------------------------------------------
// Decision

export interface HostKeyQuery {
  /** The name the host is known by: the resolved HostName (or HostKeyAlias). */
  host: string;
  port: number;
  /** The key blob the server presented (plain key, or an OpenSSH host certificate). */
  key: Buffer;
  now?: Date;
}

export function checkHostKey(entries: readonly KnownHostEntry[], q: HostKeyQuery): HostKeyCheck {
  const presentedType = keyTypeOf(q.key);
  const cert = /-cert-v01@openssh\.com$/.test(presentedType) ? safeParseCert(q.key) : undefined;
  const plainKey = cert ? cert.publicKey : q.key;
  const keyType = baseKeyType(presentedType);
  const fp = fingerprint(plainKey);
  const base = { keyType, fingerprint: fp };

  const revoked = entries.find((e) => e.marker === 'revoked' && (e.key.equals(plainKey) || (cert !== undefined && e.key.equals(cert.signatureKey))));
  if (revoked) return { ...base, status: 'revoked', entry: revoked, note: t('the key is listed as @revoked in {0}:{1}', revoked.file, revoked.line) };

  const forHost = entries.filter((e) => entryMatchesHost(e, q.host, q.port));
  const plain = forHost.filter((e) => e.marker === undefined);
  const cas = forHost.filter((e) => e.marker === 'cert-authority');

  let certNote: string | undefined;
  if (cert) {
    const ca = cas.find((e) => e.key.equals(cert.signatureKey));
    if (ca) {
      const problem = certificateProblem(cert, q.host, q.now);
      if (!problem) return { ...base, status: 'trusted', entry: ca, note: t('host certificate "{0}" signed by a trusted CA', cert.keyId) };
      certNote = t('the host certificate is signed by a trusted CA but {0}', problem);
    } else {
      certNote = t('the host certificate is not signed by a CA trusted for this host');
    }
  }

  const same = plain.find((e) => e.key.equals(plainKey));
  if (same) return { ...base, status: 'trusted', entry: same };
  const sameType = plain.find((e) => e.keyType === keyType);
  if (sameType) return { ...base, status: 'changed', entry: sameType, ...(certNote ? { note: certNote } : {}) };
  if (certNote) return { ...base, status: 'unknown', note: certNote };
  if (cas.length > 0) {
    return {
      ...base,
      status: 'unknown',
      note: t('the host is vouched for only by a @cert-authority line, but it presented a plain key (host certificates are not negotiated by the SSH client library), so it is treated as unknown'),
    };
  }
  if (plain.length > 0) {
    return { ...base, status: 'unknown', note: t('keys of other types are on record for this host ({0})', [...new Set(plain.map((e) => e.keyType))].join(', ')) };
  }
  return { ...base, status: 'unknown' };
}

function safeParseCert(blob: Buffer): HostCertificate | undefined {
  try {
    return parseCertificate(blob);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

/** `|1|salt|hash` for a host name, as `ssh-keygen -H` and HashKnownHosts write it. */
export function hashHostName(name: string, salt: Buffer = randomBytes(20)): string {
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
}

/**
 * One known_hosts line for (host, port, key). Hashed by default (what the extension writes to its own file):
 * the file then does not list which hosts the user connects to.
 */
export function formatKnownHostsLine(host: string, port: number, keyBlob: Buffer, opts: { hashed?: boolean; comment?: string } = {}): string {
  const name = knownHostsName(host, port);
  const hostField = opts.hashed === false ? name : hashHostName(name);
  const comment = opts.comment ? ` ${opts.comment.replace(/[\r\n]/g, ' ')}` : '';
  return `${hostField} ${keyTypeOf(keyBlob)} ${keyBlob.toString('base64')}${comment}\n`;
}

/** Where known_hosts files are read from; `read` returns undefined for a missing file. */
export interface KnownHostsSource {
  files: string[];
  read: (path: string) => Promise<string | undefined>;
}

export async function loadKnownHosts(src: KnownHostsSource): Promise<{ entries: KnownHostEntry[]; problems: KnownHostsProblem[] }> {
  const entries: KnownHostEntry[] = [];
  const problems: KnownHostsProblem[] = [];
  for (const file of src.files) {
    const text = await src.read(file);
    if (text === undefined) continue;
    const r = parseKnownHosts(text, file);
    entries.push(...r.entries);
    problems.push(...r.problems);
  }
  return { entries, problems };
}
