/**
 * Redaction of secrets in everything the SSH layer shows or writes: run logs, the run pseudoterminal, errors.
 *
 * Redacted: kubeadm bootstrap tokens (`[a-z0-9]{6}.[a-z0-9]{16}`), certificate keys (64 hex digits, unless they
 * are a `sha256:` hash), the values of `--token`, `--certificate-key`, `--password` and of `token:`,
 * `certificateKey:`, `password:` settings, and every value passed to `secret()` (plus any extra value the caller
 * registers, e.g. a sudo password). Kept: `--discovery-token-ca-cert-hash sha256:...` (a public CA hash).
 *
 * Streaming: `LineRedactor` buffers per line, so a secret split across two chunks is still redacted.
 */

export const MASK = '***';

const BOOTSTRAP_TOKEN = /(?<![A-Za-z0-9])[a-z0-9]{6}\.[a-z0-9]{16}(?![A-Za-z0-9])/g;
const CERT_KEY = /(?<![A-Za-z0-9:])[0-9a-fA-F]{64}(?![0-9A-Za-z])/g;
// --token X, --token=X, --certificate-key X, --password=X (quoted values too). Not --discovery-token-ca-cert-hash.
const SECRET_FLAG = /(--(?:token|certificate-key|password|passwd|bootstrap-token|join-token)(?:=|\s+))('[^']*'|"[^"]*"|[^\s'"]+)/gi;
// YAML / ini style: token: X, certificateKey: "X", password = X
const SECRET_SETTING = /((?:^|[\s{,"'])(?:token|certificateKey|certificate-key|password|passwd|secret)["']?\s*[:=]\s*)('[^']*'|"[^"]*"|[^\s,'"}]+)/gi;

export class Redactor {
  private readonly secrets = new Set<string>();

  constructor(secrets: Iterable<string> = []) {
    this.add(secrets);
  }

  /** Registers more literal values to redact (e.g. the secrets of a RemoteCommand). */
  add(secrets: Iterable<string>): this {
    for (const s of secrets) if (s.length > 0) this.secrets.add(s);
    return this;
  }

  /** Length of the longest registered literal secret (for callers that keep a tail). */
  get longest(): number {
    let n = 0;
    for (const s of this.secrets) n = Math.max(n, s.length);
    return n;
  }

  redact(text: string): string {
    let out = text;
    // Longest first, so a secret containing another is replaced whole.
    for (const s of [...this.secrets].sort((a, b) => b.length - a.length)) {
      if (out.includes(s)) out = out.split(s).join(MASK);
    }
    out = out.replace(SECRET_FLAG, (_m, flag: string) => `${flag}${MASK}`);
    out = out.replace(SECRET_SETTING, (m, key: string, value: string) => (value === MASK ? m : `${key}${MASK}`));
    out = out.replace(BOOTSTRAP_TOKEN, MASK);
    out = out.replace(CERT_KEY, (m, offset: number, whole: string) => (/sha256:$/i.test(whole.slice(Math.max(0, offset - 7), offset)) ? m : MASK));
    return out;
  }
}

/** Redacts with the built-in patterns and the given literal secrets. */
export function redact(text: string, secrets: Iterable<string> = []): string {
  return new Redactor(secrets).redact(text);
}

/**
 * Streaming redaction: feed chunks, get back only complete, redacted lines (with their `\n`). Call `end()` for
 * the rest. A line longer than `maxLine` is emitted early, keeping a tail long enough that no registered secret
 * and no pattern can be split.
 */
export class LineRedactor {
  private buf = '';

  constructor(
    private readonly redactor: Redactor,
    private readonly maxLine = 64 * 1024,
  ) {}

  push(chunk: string): string {
    this.buf += chunk;
    const nl = this.buf.lastIndexOf('\n');
    let out = '';
    if (nl >= 0) {
      out = this.redactor.redact(this.buf.slice(0, nl + 1));
      this.buf = this.buf.slice(nl + 1);
    }
    if (this.buf.length > this.maxLine) {
      // Cut at whitespace so a flag and its value or a pattern stay together where possible.
      const keep = Math.max(256, this.redactor.longest + 1);
      let cut = this.buf.length - keep;
      const ws = this.buf.lastIndexOf(' ', cut);
      if (ws > cut - 1024 && ws > 0) cut = ws;
      out += this.redactor.redact(this.buf.slice(0, cut));
      this.buf = this.buf.slice(cut);
    }
    return out;
  }

  end(): string {
    const out = this.redactor.redact(this.buf);
    this.buf = '';
    return out;
  }
}
