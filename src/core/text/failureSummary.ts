/**
 * A failure as a row or a notification shows it: a short cause in plain words, never the command that failed (a
 * certificate read is a 1,300-character shell script; shown as a row it hid the cause at its end), and the full
 * text apart for the log. Views and reports put `cause` in the row and offer "Show Log" for `detail`.
 */
import { errorMessage } from '../errors';
import { RemoteCommandCancelled, RemoteCommandError, SshConnectError } from '../ssh/transport';
import { plainWords } from './plainWords';

export interface FailureSummary {
  /** At most MAX_CAUSE characters (MAX_SSH_CAUSE for a connection failure), no command text, no host prefix. */
  cause: string;
  /** Everything the error said (for the log; already redacted by the SSH layer). */
  detail: string;
}

export const MAX_CAUSE = 160;
/**
 * A connection failure's own message is already plain words, and its end is the next step: a changed host key names
 * the known_hosts file and line to fix, which a 160-character cut lost (the key's fingerprint and a path fill it).
 */
export const MAX_SSH_CAUSE = 400;

function clip(text: string, max = MAX_CAUSE): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** `timed out after 30000 ms` → `timed out after 30 s`. */
function seconds(reason: string): string {
  return reason.replace(/(\d+) ms\b/g, (_, ms: string) => (Number(ms) >= 1000 ? `${Math.round(Number(ms) / 1000)} s` : `${ms} ms`));
}

function lastLine(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines[lines.length - 1] ?? '';
}

/** Drops a leading `host: ` the SSH layer puts on its messages (the row or sentence already names the host). */
function withoutHost(message: string, host: string | undefined): string {
  return host && message.startsWith(`${host}: `) ? message.slice(host.length + 2) : message;
}

export function summarizeFailure(e: unknown, host?: string): FailureSummary {
  const detail = errorMessage(e);
  if (e instanceof RemoteCommandCancelled) {
    const reason = seconds(e.reason);
    const cause = /before it started/.test(reason) ? `${reason.replace(/ before it started$/, '')} before the command started (waiting for the connection)` : `the command ${reason}`;
    return { cause: clip(cause), detail };
  }
  if (e instanceof RemoteCommandError) {
    const how = e.result.signal ? `was killed by SIG${e.result.signal}` : `exited ${e.result.code}`;
    const last = lastLine(e.result.stderr) || lastLine(e.result.stdout);
    return { cause: clip(`the command ${how}${last ? `: ${plainWords(last)}` : ''}`), detail };
  }
  if (e instanceof SshConnectError) return { cause: clip(plainWords(withoutHost(detail, e.host)), MAX_SSH_CAUSE), detail };
  // Anything else: its message without code spans (which is where commands are quoted) and without the host.
  const bare = withoutHost(detail, host).replace(/`[^`\n]*`\s*/g, '');
  return { cause: clip(plainWords(bare) || 'failed without a message'), detail };
}
