/**
 * One command on one pooled connection: an exec channel whose command first reports its process group (so a
 * cancel can kill the whole group from a second channel), output decoded as UTF-8 and capped, the exit code
 * mapped to ExecResult or a RemoteCommandError.
 */
import { StringDecoder } from 'node:string_decoder';
import { sh, type RemoteCommand } from '../../core/ssh/command';
import { redact } from '../../core/ssh/redact';
import { MAX_CAPTURE, RemoteCommandCancelled, RemoteCommandError, SshConnectError, type ExecOptions, type ExecResult } from '../../core/ssh/transport';
import type { Connection } from './connection';

/** The channel could not be opened, so the command did not start (safe to try on a new connection). */
export class ChannelOpenError extends Error {}

const PGID_MARK = /^\x1ekw-pgid:(\d+)\n/;

function isStream(v: ExecOptions['stdin']): v is NodeJS.ReadableStream {
  return typeof v === 'object' && v !== null && typeof (v as NodeJS.ReadableStream).pipe === 'function';
}

export function runOnChannel(conn: Connection, host: string, command: RemoteCommand, opts: ExecOptions, signal: AbortSignal, debug?: (message: string) => void): Promise<ExecResult> {
  const wrapped = `printf '\\036kw-pgid:%s\\n' "$$" >&2; ${command.text}`;
  return new Promise<ExecResult>((resolve, reject) => {
    conn.client.exec(wrapped, (err, ch) => {
      if (err) return reject(new ChannelOpenError(err.message));
      const result: ExecResult = { code: null, signal: null, stdout: '', stderr: '' };
      const outDec = new StringDecoder('utf8');
      const errDec = new StringDecoder('utf8');
      let head = '';
      let headDone = false;
      let pgid: number | undefined;
      let cancelled: string | undefined;
      let killed = false;
      const input = isStream(opts.stdin) ? opts.stdin : undefined;
      let stdinError: Error | undefined;
      const capture = (k: 'stdout' | 'stderr', s: string) => {
        result[k] += s;
        if (result[k].length > MAX_CAPTURE * 1.25) result[k] = result[k].slice(-MAX_CAPTURE);
      };
      const emitErr = (s: string) => {
        if (!s) return;
        capture('stderr', s);
        opts.onStderr?.(s);
      };
      const killGroup = () => {
        if (killed || pgid === undefined || conn.closed) return;
        killed = true;
        const g = String(pgid);
        const kill = sh`kill -TERM -- -${g} 2>/dev/null; i=0; while kill -0 -- -${g} 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done; kill -KILL -- -${g} 2>/dev/null; true`;
        conn.client.exec(kill.text, (e, kc) => {
          if (e) return;
          kc.on('data', () => undefined).on('error', () => undefined).on('close', () => undefined);
          kc.stderr.on('data', () => undefined);
        });
      };
      const onAbort = () => {
        const reason = signal.reason instanceof Error && /timed out/.test(signal.reason.message) ? signal.reason.message : 'was cancelled';
        cancelled = reason;
        try {
          ch.signal('TERM');
        } catch {
          /* the server may not support signals */
        }
        killGroup();
        setTimeout(() => ch.close(), 300).unref();
        // A server that stops answering never confirms the close: give up waiting after 5 s.
        setTimeout(() => finish(), 5000).unref();
      };
      ch.on('error', (e: Error) => debug?.(`${host}: channel error: ${e.message}`));
      if (opts.stdoutTo) ch.pipe(opts.stdoutTo, { end: false });
      else {
        ch.on('data', (d: Buffer) => {
          const s = outDec.write(d);
          if (!s) return;
          capture('stdout', s);
          opts.onStdout?.(s);
        });
      }
      ch.stderr.on('data', (d: Buffer) => {
        const s = errDec.write(d);
        if (headDone) return emitErr(s);
        head += s;
        const m = PGID_MARK.exec(head);
        if (m) {
          pgid = Number(m[1]);
          headDone = true;
          emitErr(head.slice(m[0].length));
          if (cancelled) killGroup();
        } else if (head.includes('\n') || head.length > 40) {
          headDone = true;
          emitErr(head);
        }
      });
      ch.on('exit', (code: number | null, sig?: string) => {
        if (typeof code === 'number') result.code = code;
        else {
          result.code = null;
          result.signal = sig ? sig.replace(/^SIG/, '') : null;
        }
      });
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        signal.removeEventListener('abort', onAbort);
        const restOut = outDec.end();
        if (restOut) {
          capture('stdout', restOut);
          opts.onStdout?.(restOut);
        }
        if (!headDone) emitErr(head);
        emitErr(errDec.end());
        if (input) input.unpipe(ch);
        if (stdinError) return reject(stdinError);
        if (cancelled) return reject(new RemoteCommandCancelled(host, command, `${cancelled}; the remote process group was killed`));
        if (result.code === null && result.signal === null) {
          return reject(new SshConnectError(host, redact(`connection lost while running \`${command.display}\``, command.secrets), 'network'));
        }
        const ok = opts.okCodes ?? [0];
        if (result.code !== null && ok.includes(result.code)) return resolve(result);
        reject(new RemoteCommandError(host, command, result));
      };
      ch.on('close', finish);
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
      if (command.stdinPrefix) ch.write(command.stdinPrefix);
      if (input) {
        // A file that cannot be read ends the command: the remote side sees a short input and the caller this error.
        input.once('error', (e: Error) => {
          stdinError = e;
          killGroup();
          ch.close();
        });
        input.pipe(ch);
      } else {
        if (opts.stdin !== undefined && opts.stdin !== '') ch.write(opts.stdin as string | Buffer);
        ch.end();
      }
    });
  });
}
