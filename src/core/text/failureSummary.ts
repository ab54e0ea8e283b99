/**
 * A failure as a row or a notification shows it: a short cause in plain words, never the command that failed (a
 * certificate read is a 1,300-character shell script; shown as a row it hid the cause at its end), and the full
 * text apart for the log. Views and reports put `cause` in the row and offer "Show Log" for `detail`.
 */
import { errorMessage } from '../errors';
import { RemoteCommandCancelled, RemoteCommandError, SshConnectError } from '../ssh/transport';
import { plainWords } from './plainWords';
import { t } from '../l10n';

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

/** `timed out after 30000 ms` → `timed out after 30 s` (a reason of a shape cancelledCause does not know). */
function seconds(reason: string): string {
  return reason.replace(/(\d+) ms\b/g, (_, ms: string) => (Number(ms) >= 1000 ? `${Math.round(Number(ms) / 1000)} s` : `${ms} ms`));
}

/** `30000` → `30 s`, `500` → `500 ms`, in the display language. */
function duration(ms: number): string {
  return ms >= 1000 ? t('{0} s', Math.round(ms / 1000)) : t('{0} ms', ms);
}

/**
 * A cancelled command's cause from the SSH layer's reason (`was cancelled`, `timed out after 30000 ms`, either one
 * `before it started`, or `; the remote process group was killed` after it), in the display language; a reason
 * of another shape keeps its words.
 */
function cancelledCause(reason: string): string {
  const killed = reason.endsWith('; the remote process group was killed');
  const core = killed ? reason.slice(0, -'; the remote process group was killed'.length) : reason;
  const before = core.endsWith(' before it started');
  const what = before ? core.slice(0, -' before it started'.length) : core;
  const timedOut = /^timed out after (\d+) ms$/.exec(what);
  const cause = before
    ? what === 'was cancelled' ? t('was cancelled before the command started (waiting for the connection)')
      : timedOut ? t('timed out after {0} before the command started (waiting for the connection)', duration(Number(timedOut[1])))
      : t('{0} before the command started (waiting for the connection)', seconds(what))
    : what === 'was cancelled' ? t('the command was cancelled')
      : timedOut ? t('the command timed out after {0}', duration(Number(timedOut[1])))
      : t('the command {0}', seconds(what));
  return killed ? t('{0}; the remote process group was killed', cause) : cause;
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
    return { cause: clip(cancelledCause(e.reason)), detail };
  }
  if (e instanceof RemoteCommandError) {
    const last = lastLine(e.result.stderr) || lastLine(e.result.stdout);
    const how = e.result.signal ? t('the command was killed by SIG{0}', e.result.signal) : t('the command exited {0}', String(e.result.code));
    return { cause: clip(last ? `${how}: ${plainWords(last)}` : how), detail };
  }
  if (e instanceof SshConnectError) return { cause: clip(plainWords(withoutHost(detail, e.host)), MAX_SSH_CAUSE), detail };
  // Anything else: its message without code spans (which is where commands are quoted) and without the host.
  const bare = withoutHost(detail, host).replace(/`[^`\n]*`\s*/g, '');
  return { cause: clip(plainWords(bare) || t('failed without a message')), detail };
}
