/**
 * Redaction of secrets in everything the SSH layer shows or writes: run logs, the run pseudoterminal, errors.
 *
 * Redacted: kubeadm bootstrap tokens (`[a-z0-9]{6}.[a-z0-9]{16}`), certificate keys (64 hex digits, unless they
 * are a `sha256:` hash), the values of `--token`, `--certificate-key`, `--password` and of `token:`,
 * `certificateKey:`, `password:` settings, keepalived's `auth_pass`, a kubeconfig's `client-key-data`, etcdctl's
 * `ETCDCTL_PASSWORD=`, and every value passed to `secret()` (plus any extra value the caller registers, e.g. a sudo
 * password). Kept: `--discovery-token-ca-cert-hash sha256:...` (a public CA hash).
 *
 * Secrets we generate (the VRRP password, a captured join token or certificate key) are registered with
 * `registerSecret` the moment they exist: every Redactor of the process redacts them from then on, whichever run
 * output, log or message they reach.
 *
 * Streaming: `LineRedactor` buffers per line, so a secret split across two chunks is still redacted.
 */

export const MASK = '***';

const BOOTSTRAP_TOKEN = /(?<![A-Za-z0-9])[a-z0-9]{6}\.[a-z0-9]{16}(?![A-Za-z0-9])/g;
const CERT_KEY = /(?<![A-Za-z0-9:])[0-9a-fA-F]{64}(?![0-9A-Za-z])/g;
// --token X, --token=X, --certificate-key X, --password=X (quoted values too). Not --discovery-token-ca-cert-hash.
const SECRET_FLAG = /(--(?:token|certificate-key|password|passwd|bootstrap-token|join-token)(?:=|\s+))('[^']*'|"[^"]*"|[^\s'"]+)/gi;
// YAML / ini style: token: X, certificateKey: "X", password = X, client-key-data: X, ETCDCTL_PASSWORD=X
const SECRET_SETTING = /((?:^|[\s{,"'])(?:token|certificateKey|certificate-key|password|passwd|secret|client-key-data|ETCDCTL_PASSWORD)["']?\s*[:=]\s*)('[^']*'|"[^"]*"|[^\s,'"}]+)/gi;
// keepalived.conf: `auth_pass X` (a keyword and its word, separated by blanks).
const KEYWORD_SECRET = /((?:^|[\s{;])auth_pass[ \t]+)("[^"\n]*"|[^\s}]+)/g;

/** Secrets of this process (generated or captured), redacted by every Redactor from the moment they are registered. */
const registered = new Set<string>();

/** Registers a secret for every redactor of the process (values shorter than 4 characters are not: they would mask ordinary words). */
export function registerSecret(value: string): void {
  if (value.length >= 4) registered.add(value);
}

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
    for (const s of [...this.secrets, ...registered]) n = Math.max(n, s.length);
    return n;
  }

  /** Whether a registered literal secret occurs across position `cut` of `text`. */
  spans(text: string, cut: number): boolean {
    for (const s of [...this.secrets, ...registered]) {
      let i = text.indexOf(s, Math.max(0, cut - s.length + 1));
      while (i >= 0 && i < cut) {
        if (i + s.length > cut) return true;
        i = text.indexOf(s, i + 1);
      }
    }
    return false;
  }

  redact(text: string): string {
    let out = text;
    // Longest first, so a secret containing another is replaced whole.
    for (const s of [...this.secrets, ...registered].sort((a, b) => b.length - a.length)) {
      if (out.includes(s)) out = out.split(s).join(MASK);
    }
    out = out.replace(SECRET_FLAG, (_m, flag: string) => `${flag}${MASK}`);
    out = out.replace(SECRET_SETTING, (m, key: string, value: string) => (value === MASK ? m : `${key}${MASK}`));
    out = out.replace(KEYWORD_SECRET, (m, key: string, value: string) => (value === MASK ? m : `${key}${MASK}`));
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
const HARD_MAX_LINE = 4 * 1024 * 1024;
// A flag or key whose value follows: never cut right after one.
const VALUE_FOLLOWS = /(?:--[\w-]+(?:=|\s+)|[:=]\s*|\bauth_pass\s+)$/;

export class LineRedactor {
  private buf = '';
  private nextTry = 0;

  constructor(
    private readonly redactor: Redactor,
    private readonly maxLine = 64 * 1024,
  ) {}

  push(chunk: string): string {
    this.buf += chunk;
    // Only the new chunk can hold a new line end (keeps long lines linear).
    const inChunk = chunk.lastIndexOf('\n');
    const nl = inChunk < 0 ? -1 : this.buf.length - chunk.length + inChunk;
    let out = '';
    if (nl >= 0) {
      out = this.redactor.redact(this.buf.slice(0, nl + 1));
      this.buf = this.buf.slice(nl + 1);
    }
    if (this.buf.length > Math.max(this.maxLine, this.nextTry)) {
      // Emit early, cutting only where nothing secret can span the cut.
      const cut = this.safeCut(this.buf.length - Math.max(256, this.redactor.longest + 1));
      if (cut > 0) {
        out += this.redactor.redact(this.buf.slice(0, cut));
        this.buf = this.buf.slice(cut);
        this.nextTry = 0;
      } else if (this.buf.length <= HARD_MAX_LINE) {
        // No safe place yet (e.g. a long base64 run): look again once the line doubled (amortized linear).
        this.nextTry = Math.max(this.buf.length + this.maxLine, this.buf.length * 2);
      } else {
        this.nextTry = 0;
        out += this.redactor.redact(this.buf);
        this.buf = '';
      }
    }
    return out;
  }

  /** The last position <= target right after whitespace where no literal secret, pattern or flag value spans. */
  private safeCut(target: number): number {
    const floor = Math.max(0, target - 8192);
    for (let c = Math.min(target, this.buf.length - 1); c > floor; c--) {
      if (!/\s/.test(this.buf[c - 1]!) || /\s/.test(this.buf[c]!)) continue;
      if (VALUE_FOLLOWS.test(this.buf.slice(Math.max(0, c - 80), c))) continue;
      if (this.redactor.spans(this.buf, c)) continue;
      return c;
    }
    return -1;
  }

  end(): string {
    const out = this.redactor.redact(this.buf);
    this.buf = '';
    return out;
  }
}
