/**
 * What the engine needs from SSH, with no dependency on ssh2 or the editor: run a RemoteCommand on an inventory
 * host, stream its output, cancel it. Implemented by src/adapters/ssh/pool.ts (SshPool).
 */
import type { RemoteCommand } from './command';
import type { SshFailure } from './failures';
import { redact } from './redact';

export interface ExecOptions {
  /**
   * Written to the command's stdin after the command's own stdinPrefix (e.g. a sudo password); then EOF. A stream is
   * piped with backpressure (a large file is never held whole); an error reading it fails the command with that error.
   */
  stdin?: string | Buffer | NodeJS.ReadableStream;
  /**
   * The command's stdout as raw bytes, piped here with backpressure (binary-safe: a snapshot pulled as it is); stdout
   * is then neither decoded, nor passed to onStdout, nor captured. The caller ends the stream.
   */
  stdoutTo?: NodeJS.WritableStream;
  /** Raw (unredacted) output, decoded as UTF-8 across chunk boundaries. Redact before showing (RunOutput). */
  onStdout?: (chunk: string) => void;
  onStderr?: (chunk: string) => void;
  /** Aborting closes the channel and kills the remote process group. */
  signal?: AbortSignal;
  /** Exit codes that count as success (default [0]); others reject with RemoteCommandError. */
  okCodes?: number[];
  /** Abort after this many milliseconds. */
  timeoutMs?: number;
}

export interface ExecResult {
  /** Exit code, or null when the remote process died from a signal. */
  code: number | null;
  /** The signal name (`TERM`, `KILL`...) when killed by one. */
  signal: string | null;
  /** Captured output (raw, at most `MAX_CAPTURE` characters each; the start is dropped beyond). */
  stdout: string;
  stderr: string;
}

export const MAX_CAPTURE = 1024 * 1024;

/** `okCodes` for callers that judge every exit status themselves. */
export const ANY_EXIT_CODE: readonly number[] = Array.from({ length: 256 }, (_, i) => i);

export interface SshTransport {
  exec(host: string, command: RemoteCommand, opts?: ExecOptions): Promise<ExecResult>;
  /** Closes every connection. */
  close(): Promise<void>;
}

/** A command failed on a host: `labs-k8s-m02: \`systemctl restart kubelet\` exited 1: <last stderr line>`. */
export class RemoteCommandError extends Error {
  constructor(
    readonly host: string,
    readonly command: RemoteCommand,
    readonly result: ExecResult,
  ) {
    const how = result.signal ? `was killed by SIG${result.signal}` : `exited ${result.code}`;
    const last = lastLine(result.stderr) || lastLine(result.stdout);
    super(redact(`${host}: \`${command.display}\` ${how}${last ? `: ${last}` : ''}`, command.secrets));
    this.name = 'RemoteCommandError';
  }
}

/** The command was cancelled (AbortSignal or timeout); the remote process group was killed. */
export class RemoteCommandCancelled extends Error {
  constructor(
    readonly host: string,
    readonly command: RemoteCommand,
    /** Why, without the command: `timed out after 30000 ms`, `was cancelled before it started`. */
    readonly reason: string,
  ) {
    super(`${host}: \`${command.display}\` ${reason}`);
    this.name = 'RemoteCommandCancelled';
  }
}

/**
 * Could not connect or authenticate; names the host (and the hop, for jump chains). `failure` is the taxonomy's
 * answer (core/ssh/failures.ts): the cause in plain words (the message after the host) and the fix.
 */
export class SshConnectError extends Error {
  constructor(
    readonly host: string,
    message: string,
    readonly kind: 'auth' | 'host-key' | 'network' | 'config' | 'restricted',
    /** For kind `host-key`: why the key was refused. */
    readonly hostKeyStatus?: 'unknown' | 'changed' | 'revoked' | 'error',
    readonly failure?: SshFailure,
  ) {
    super(`${host}: ${message}`);
    this.name = 'SshConnectError';
  }
}

/** The taxonomy's answer carried by a thrown value (an SshConnectError, or anything with a `failure`), if any. */
export function sshFailureOf(e: unknown): SshFailure | undefined {
  const f = (e as { failure?: unknown } | null | undefined)?.failure;
  return f && typeof f === 'object' && typeof (f as SshFailure).kind === 'string' ? (f as SshFailure) : undefined;
}

function lastLine(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const l = lines[lines.length - 1] ?? '';
  return l.length > 300 ? `${l.slice(0, 300)}…` : l;
}
