/**
 * A per-run pseudoterminal: shows the run's RunOutput stream (host-prefixed, already redacted lines — the same
 * lines the run log file gets), with the host prefix coloured per host and stderr dimmed. Closing the terminal
 * (or Ctrl+C in it) calls `onCancel`, which the engine wires to the run's AbortController. Over many hosts
 * (`summarise`) it shows run-level lines and errors only, under one status line rewritten in place with the
 * counts by state (see core/plan/hostProgress.ts); the run log keeps every host's lines.
 */
import * as vscode from 'vscode';
import { keepWhenSummarised } from '../core/plan/hostProgress';
import { formatRunLine, type RunLine, type RunOutput } from '../core/ssh/runLog';

const COLORS = [36, 33, 35, 32, 34, 91, 96, 93, 95, 92];

export class RunTerminal implements vscode.Disposable {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly closeEmitter = new vscode.EventEmitter<number | void>();
  private readonly hostColors = new Map<string, number>();
  private readonly backlog: string[] = [];
  private open = false;
  private finished = false;
  private statusLine = '';
  private readonly detach: () => void;
  readonly terminal: vscode.Terminal;

  constructor(
    name: string,
    output: RunOutput,
    private readonly onCancel?: () => void,
    private readonly summarise = false,
  ) {
    const pty: vscode.Pseudoterminal = {
      onDidWrite: this.writeEmitter.event,
      onDidClose: this.closeEmitter.event,
      open: () => {
        this.open = true;
        for (const t of this.backlog.splice(0)) this.writeEmitter.fire(t);
      },
      close: () => {
        this.open = false;
        if (!this.finished) this.onCancel?.();
      },
      handleInput: (data) => {
        if (data === '\x03' && !this.finished) {
          this.write('\r\n\x1b[33m^C — cancelling the run…\x1b[0m\r\n');
          this.onCancel?.();
        }
      },
    };
    this.terminal = vscode.window.createTerminal({ name, pty, iconPath: new vscode.ThemeIcon('server-process') });
    this.detach = output.addSink((line) => this.line(line));
  }

  show(preserveFocus = true): void {
    this.terminal.show(preserveFocus);
  }

  private color(host: string): number {
    let c = this.hostColors.get(host);
    if (c === undefined) {
      c = COLORS[this.hostColors.size % COLORS.length]!;
      this.hostColors.set(host, c);
    }
    return c;
  }

  private write(text: string): void {
    // A status line is on screen: clear it, write, and draw it again below.
    const framed = this.statusLine ? `\r\x1b[2K${text}${this.statusLine}` : text;
    if (this.open) this.writeEmitter.fire(framed);
    else this.backlog.push(framed);
  }

  /** Replaces the status line (summarised runs): counts by state, slowest and failed hosts. */
  status(text: string): void {
    const line = `\x1b[2m${text.replace(/[\x00-\x1f\x7f]/g, ' ')}\x1b[0m`;
    this.statusLine = '';
    this.write(`\r\x1b[2K${line}`);
    this.statusLine = line;
  }

  /** Renders one RunLine (text is already redacted by RunOutput). */
  line(l: RunLine): void {
    if (this.summarise && !keepWhenSummarised(l)) return;
    const text = formatRunLine({ ...l, host: undefined as never }).replace(/\x1b(?!\[[0-9;]*m)/g, '');
    const prefix = l.host ? `\x1b[${this.color(l.host)}m[${l.host}]\x1b[0m ` : '';
    const body = l.stream === 'stderr' ? `\x1b[2m${text}\x1b[0m` : l.stream === 'error' ? `\x1b[31m${text}\x1b[0m` : text;
    this.write(`${prefix}${body}\r\n`);
  }

  /** Marks the run finished (closing the terminal no longer cancels) and prints a last line. */
  finish(summary: string, ok: boolean): void {
    this.finished = true;
    if (this.statusLine) {
      // The last status stays on screen as a normal line.
      const last = this.statusLine;
      this.statusLine = '';
      this.write(`\r\x1b[2K${last}\r\n`);
    }
    this.write(`\r\n\x1b[${ok ? 32 : 31}m${summary}\x1b[0m\r\n`);
  }

  dispose(): void {
    this.detach();
    this.writeEmitter.dispose();
    this.closeEmitter.dispose();
  }
}
