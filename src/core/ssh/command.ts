/**
 * Remote commands are built only from the `sh` tagged template: every interpolated value becomes exactly one
 * POSIX-shell word (single-quoted), secrets are remembered for redaction, and the only way to splice raw shell
 * text is `raw()`, reserved for constant strings written in this code base (never for data from the inventory,
 * the user or a host).
 *
 *   sh`kubeadm join ${endpoint} --token ${secret(token)} --discovery-token-ca-cert-hash ${hash}`
 *
 * The rendered `text` goes to the remote shell (`$SHELL -c text`, POSIX sh on Debian); `display` is the same text
 * with secrets replaced by `***`, and is what plans, errors and logs show.
 */

import { posix } from 'node:path';
import { registerSecret } from './redact';
import { t } from '../l10n';

const SECRET = Symbol('kw-secret');
const RAW = Symbol('kw-raw');

/** A value to be quoted like any other, and redacted wherever it is shown. */
export interface Secret {
  readonly [SECRET]: true;
  readonly value: string;
}

/** Constant shell text spliced as-is. Never pass data through raw(). */
export interface Raw {
  readonly [RAW]: true;
  readonly text: string;
}

export interface RemoteCommand {
  /** The exact shell text sent to the host. Contains secrets: never log it, log `display`. */
  readonly text: string;
  /** `text` with every secret replaced by `***`. */
  readonly display: string;
  /** Values to redact from anything this command prints (its output, logs, errors). */
  readonly secrets: readonly string[];
  /** Bytes to write to the command's stdin before anything else (e.g. a sudo password line). Secret. */
  readonly stdinPrefix?: string;
  toString(): string;
}

/** What `sh` accepts in `${}`: each value becomes one shell word; arrays become one word per element. */
export type ShellValue = string | number | bigint | boolean | Secret | Raw | RemoteCommand | readonly ShellValue[];

export function secret(value: string | number): Secret {
  registerSecret(String(value));
  return { [SECRET]: true, value: String(value) };
}

/**
 * Constant shell syntax (operators, redirections, a fixed script). It must be a string literal in the source —
 * the type refuses a plain `string` (a variable, a parameter, a template with a `${}`) at compile time: anything
 * that depends on input goes through `${}` of `sh`.
 */
// `{} extends Record<T, 1>` holds for `string` and for a template type such as `x ${string}` (an index signature), and
// not for literal text (a required key).
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export function raw<T extends string>(text: {} extends Record<T, 1> ? never : T): Raw {
  return { [RAW]: true, text };
}

/**
 * Text already built as a shell command elsewhere and replayed as it is: the tests run a built command's text on a
 * local shell (with paths swapped for a temp folder). Never in src/: test/unit/state/secretsAndShell.test.ts fails on
 * a use there, as input would then reach the shell unquoted.
 */
export function replayedShellText(text: string): Raw {
  return { [RAW]: true, text };
}

export function isSecret(v: unknown): v is Secret {
  return typeof v === 'object' && v !== null && (v as Secret)[SECRET] === true;
}

function isRaw(v: unknown): v is Raw {
  return typeof v === 'object' && v !== null && (v as Raw)[RAW] === true;
}

function isCommand(v: unknown): v is RemoteCommand {
  return typeof v === 'object' && v !== null && typeof (v as RemoteCommand).text === 'string' && Array.isArray((v as RemoteCommand).secrets);
}

export class CommandBuildError extends Error {}

/**
 * POSIX single-quote escaping: `'` + value with each `'` turned into `'\''` + `'`. Inside single quotes nothing
 * is special (no `$`, backtick, backslash or newline handling), so the value arrives as exactly one argument.
 * A NUL byte cannot be part of an argument at all, so it is refused rather than silently truncated.
 */
export function quote(value: string): string {
  if (value.includes('\0')) throw new CommandBuildError(t('a shell argument cannot contain a NUL byte'));
  // A lone UTF-16 surrogate has no UTF-8 form: it would silently arrive as U+FFFD, i.e. as a different value.
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(value)) {
    throw new CommandBuildError(t('a shell argument cannot contain a lone UTF-16 surrogate'));
  }
  if (value !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) && !value.startsWith('-') && !value.startsWith('=')) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function render(v: ShellValue, secrets: string[]): { text: string; display: string } {
  if (Array.isArray(v)) {
    const parts = (v as readonly ShellValue[]).map((x) => render(x, secrets));
    return { text: parts.map((p) => p.text).join(' '), display: parts.map((p) => p.display).join(' ') };
  }
  if (isSecret(v)) {
    if (v.value !== '') secrets.push(v.value);
    return { text: quote(v.value), display: '***' };
  }
  if (isRaw(v)) return { text: v.text, display: v.text };
  if (isCommand(v)) {
    secrets.push(...v.secrets);
    return { text: v.text, display: v.display };
  }
  if (typeof v === 'string') return { text: quote(v), display: quote(v) };
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') {
    const s = String(v);
    return { text: quote(s), display: quote(s) };
  }
  throw new CommandBuildError(t('cannot put a {0} into a shell command', typeof v));
}

function makeCommand(text: string, display: string, secrets: string[], stdinPrefix?: string): RemoteCommand {
  const uniq = [...new Set(secrets)].filter((s) => s.length > 0);
  return {
    text,
    display,
    secrets: uniq,
    ...(stdinPrefix !== undefined ? { stdinPrefix } : {}),
    toString: () => display,
  };
}

/** The tagged template. Literal parts are constant source text; every `${}` is quoted (see ShellValue). */
export function sh(strings: TemplateStringsArray, ...values: ShellValue[]): RemoteCommand {
  if (!Array.isArray(strings) || !Array.isArray((strings as TemplateStringsArray).raw)) {
    throw new CommandBuildError('sh must be used as a tagged template');
  }
  const secrets: string[] = [];
  let text = strings[0]!;
  let display = strings[0]!;
  values.forEach((v, i) => {
    const r = render(v, secrets);
    text += r.text + strings[i + 1]!;
    display += r.display + strings[i + 1]!;
  });
  return makeCommand(text, display, secrets);
}

/** Joins commands with `&&` (each already built from templates). */
export function and(...cmds: RemoteCommand[]): RemoteCommand {
  return makeCommand(
    cmds.map((c) => c.text).join(' && '),
    cmds.map((c) => c.display).join(' && '),
    cmds.flatMap((c) => [...c.secrets]),
  );
}

/** Runs commands one after another whatever each exits with (`;`). */
export function seq(...cmds: RemoteCommand[]): RemoteCommand {
  return makeCommand(
    cmds.map((c) => c.text).join('; '),
    cmds.map((c) => c.display).join('; '),
    cmds.flatMap((c) => [...c.secrets]),
  );
}

/**
 * A command line shown for a person to type again (never run by us): each word as sh reads it back — quoted like the
 * `sh` tag quotes it, except that an option's leading dash stays bare (`--inventory`, not `'--inventory'`).
 */
export function commandLine(argv: readonly string[]): string {
  return argv.map((a) => (a !== '' && /^-[A-Za-z0-9_@%+=:,./-]*$/.test(a) ? a : quote(a))).join(' ');
}

export interface SudoOptions {
  /**
   * The sudo password. Sent as the first line of stdin to `sudo -S -p ''` (never on the command line) and
   * redacted. Without it `sudo -n` is used, which fails instead of prompting when a password is needed.
   * With a password the command's own stdin follows the password line: do not combine with commands that
   * read stdin on hosts whose sudoers rule is NOPASSWD (sudo would not consume the line).
   */
  password?: string;
  /** Run as this user instead of root. */
  user?: string;
}

/**
 * Runs `cmd` as root (or `user`) through `sudo ... -- sh -c TEXT`. `-k` makes sudo ignore a cached credential so
 * the password line is always consumed when one is sent.
 */
export function sudo(cmd: RemoteCommand, opts: SudoOptions = {}): RemoteCommand {
  const userArgs = opts.user ? sh`-u ${opts.user} ` : sh``;
  if (opts.password !== undefined) {
    if (/[\r\n]/.test(opts.password)) throw new CommandBuildError(t('a sudo password cannot contain a newline'));
    const c = sh`sudo -S -k -p '' ${userArgs}-- sh -c ${cmd.text}`;
    const display = `sudo -S -k -p '' ${userArgs.display}-- sh -c ${quote(cmd.display)}`;
    return makeCommand(c.text, display, [...cmd.secrets, opts.password], `${opts.password}\n`);
  }
  const c = sh`sudo -n ${userArgs}-- sh -c ${cmd.text}`;
  return makeCommand(c.text, `sudo -n ${userArgs.display}-- sh -c ${quote(cmd.display)}`, [...cmd.secrets]);
}

export interface WriteFileOptions {
  /** File mode, default 0o644 (use 0o600 for keys and kubeconfigs). */
  mode?: number;
  /** `user[:group]` to chown the file to. */
  owner?: string;
  /** Create the parent directory (mkdir -p) first. */
  mkdir?: boolean;
}

/**
 * A command that writes its stdin to `path` atomically: into a temp file next to it (created under umask 077),
 * chmod/chown, then rename over the target. Run it with `{ stdin: content }`; content never appears in the
 * command text.
 */
export function writeFileCommand(path: string, opts: WriteFileOptions = {}): RemoteCommand {
  if (!posix.isAbsolute(path)) throw new CommandBuildError(t('remote path must be absolute: {0}', path));
  const mode = (opts.mode ?? 0o644).toString(8).padStart(4, '0');
  const tmp = `${path}.kw-tmp`;
  const mk = opts.mkdir ? sh`mkdir -p -- ${posix.dirname(path)} && ` : sh``;
  const own = opts.owner ? sh` && chown -- ${opts.owner} ${tmp}` : sh``;
  return sh`${mk}(umask 077 && cat > ${tmp}) && chmod ${mode} -- ${tmp}${own} && mv -f -- ${tmp} ${path}`;
}
