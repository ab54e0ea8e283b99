/**
 * The output of one run: every host's stdout/stderr and the engine's own messages, as host-prefixed lines
 * (`[labs-k8s-m01] ...`), redacted, fanned out to sinks — the run log file and the run pseudoterminal
 * (src/editor/runTerminal.ts) get the same lines.
 *
 * Redaction is per line (LineRedactor per host and stream), so a secret split across chunks is still redacted,
 * and two hosts' partial lines never interleave inside one line. Control characters are escaped before any sink
 * sees a line. The log file sink is src/engine/state/runLogFile.ts.
 */
import type { RemoteCommand } from './command';
import { LineRedactor, Redactor } from './redact';
import { escapeControls } from '../text/terminal';

export type RunStream = 'stdout' | 'stderr' | 'info' | 'error';

export interface RunLine {
  /** Host name, or undefined for run-level messages. */
  host?: string;
  stream: RunStream;
  /** One redacted line without its newline. */
  text: string;
  time: Date;
}

export type RunSink = (line: RunLine) => void;

/** `[host] text`; stderr lines are marked with `!` after the prefix only when `markStderr` is set. */
export function formatRunLine(l: RunLine, opts: { timestamps?: boolean; markStderr?: boolean } = {}): string {
  const ts = opts.timestamps ? `${l.time.toISOString()} ` : '';
  const prefix = l.host ? `[${l.host}] ` : '';
  const mark = opts.markStderr && l.stream === 'stderr' ? '! ' : l.stream === 'error' ? 'ERROR ' : '';
  return `${ts}${prefix}${mark}${l.text}`;
}

export interface HostStreams {
  onStdout: (chunk: string) => void;
  onStderr: (chunk: string) => void;
  /** Flushes partial lines (call when the command ends). */
  end: () => void;
}

export class RunOutput {
  readonly redactor: Redactor;
  private readonly sinks: RunSink[] = [];

  constructor(secrets: Iterable<string> = []) {
    this.redactor = new Redactor(secrets);
  }

  addSink(sink: RunSink): () => void {
    this.sinks.push(sink);
    return () => {
      const i = this.sinks.indexOf(sink);
      if (i >= 0) this.sinks.splice(i, 1);
    };
  }

  /** Registers values to redact from now on (sudo passwords, tokens read from a host...). */
  addSecrets(secrets: Iterable<string>): void {
    this.redactor.add(secrets);
  }

  /**
   * One RunLine per line of `redactedText`. A lone carriage return ends a line too (a progress meter's updates become
   * lines, instead of overwriting the host prefix on a terminal), and every other control character is shown
   * escaped: what a host prints must not move the cursor, retitle the terminal or forge a line of ours.
   */
  private emit(host: string | undefined, stream: RunStream, redactedText: string): void {
    const lines = escapeControls(redactedText.replace(/\r\n?/g, '\n')).split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const time = new Date();
    for (const text of lines) {
      const line: RunLine = { ...(host !== undefined ? { host } : {}), stream, text, time };
      for (const s of this.sinks) s(line);
    }
  }

  /** A run-level or host-level message (redacted like everything else). */
  message(text: string, host?: string, stream: 'info' | 'error' = 'info'): void {
    this.emit(host, stream, this.redactor.redact(text.endsWith('\n') ? text : `${text}\n`));
  }

  /** Stream callbacks for one command on one host; the command's secrets are registered for redaction. */
  forCommand(host: string, cmd?: RemoteCommand): HostStreams {
    if (cmd) this.addSecrets(cmd.secrets);
    const out = new LineRedactor(this.redactor);
    const err = new LineRedactor(this.redactor);
    return {
      onStdout: (chunk) => {
        const t = out.push(chunk);
        if (t) this.emit(host, 'stdout', t);
      },
      onStderr: (chunk) => {
        const t = err.push(chunk);
        if (t) this.emit(host, 'stderr', t);
      },
      end: () => {
        const a = out.end();
        if (a) this.emit(host, 'stdout', a);
        const b = err.end();
        if (b) this.emit(host, 'stderr', b);
      },
    };
  }
}
