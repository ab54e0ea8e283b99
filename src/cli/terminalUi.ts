/**
 * The workflows' Ui (engine/workflows/ui.ts) on a terminal. The command line chooses by its flags, so a workflow
 * never picks here; it confirms with `[y/N]` on stdin unless --yes; documents and the run's narration go to
 * stdout (to stderr under --json, where stdout carries only the result); Ctrl-C (SIGINT/SIGTERM) is the cancel.
 *
 * The sudo password: the workflow asks whenever a host is reached as a user other than root, as in the editor.
 * Here the question is put on the terminal with --ask-become-pass, or when stdin is a terminal (a person is
 * there to answer, as in the editor); otherwise — a script, cron, CI — the answer is "none" (sudo -n), said
 * on stderr, because a password cannot come from anywhere else safely (never an argument or the environment).
 */
import { formatRunLine, type RunOutput } from '../core/ssh/runLog';
import { keepWhenSummarised } from '../core/plan/hostProgress';
import type { PreflightReport, UnknownHostKey } from '../core/preflight/model';
import { renderPreflightTable } from '../core/preflight/render';
import type { ConfirmRequest, HostKeyReview, InputOptions, Level, MessageOptions, PickItem, ProgressReport, ProgressRequest, RunView, SecretRequest, Ui } from '../engine/workflows/ui';
import type { CliIo } from './io';
import { t } from '../core/l10n';
import type { Prompter } from './secretPrompt';

export interface TerminalUiOptions {
  io: CliIo;
  /** One reader for every question of the verb, so answers piped in are read in order. */
  prompter: Prompter;
  /** --yes: the first action of every confirmation is taken without asking. */
  yes: boolean;
  /** --ask-become-pass: always ask the sudo password when one may be needed. */
  askBecomePass: boolean;
  /** Whether a person is at the terminal (stdin is a TTY). */
  interactive: boolean;
  /** --json: stdout carries only the verb's result. */
  json?: boolean;
}

/** How often a run over many hosts prints its summary line. */
const SUMMARY_EVERY_MS = 5000;

export class TerminalUi implements Ui {
  constructor(private readonly o: TerminalUiOptions) {}

  /** Where what a person reads goes: stdout, or stderr under --json. */
  private say(text: string): void {
    (this.o.json ? this.o.io.stderr : this.o.io.stdout)(text);
  }

  pick<T>(title: string, _items: readonly PickItem<T>[]): Promise<T | undefined> {
    return Promise.reject(new Error(t('{0}: the command line takes this choice from its flags', title)));
  }

  pickMany<T>(title: string, _items: readonly PickItem<T>[]): Promise<T[] | undefined> {
    return Promise.reject(new Error(t('{0}: the command line takes this choice from its flags', title)));
  }

  async input(title: string, prompt: string, _value?: string, options: InputOptions = {}): Promise<string | undefined> {
    const question = prompt ? `${title} — ${prompt}: ` : `${title}: `;
    const answer = options.password ? await this.o.prompter.askSecret(question) : await this.o.prompter.ask(question);
    if (!answer?.trim()) return undefined;
    // The editor refuses while it is typed; a terminal says why once the line is in, and takes nothing.
    const refused = options.validate?.(answer);
    if (refused) {
      this.o.io.stderr(`${refused}\n`);
      return undefined;
    }
    return answer;
  }

  async confirm(request: ConfirmRequest): Promise<string | undefined> {
    if (request.detail) this.o.io.stderr(`${request.detail}\n`);
    const first = request.actions[0];
    if (this.o.yes) return first;
    const answer = await this.o.prompter.ask(`${request.message} [y/N] `);
    if (/^y(es)?$/i.test(answer.trim())) return first;
    this.o.io.stderr(`${request.declined ?? t('not confirmed; nothing was done (use --yes to run without asking).')}\n`);
    return undefined;
  }

  async secret(request: SecretRequest): Promise<string | undefined> {
    const ask = this.o.askBecomePass || this.o.interactive;
    if (request.kind === 'sudo-password') {
      const users = [...new Set(request.hosts.values())].join(', ');
      const hosts = [...request.hosts.keys()].join(', ');
      this.o.io.stderr(`${ask ? t('{0}: logged in as {1}, so every step runs through sudo', hosts, users) : t('{0}: logged in as {1}, so every step runs through sudo -n (add --ask-become-pass if sudo needs a password there)', hosts, users)}\n`);
    }
    if (!ask) return '';
    return this.o.prompter.askSecret(`${t('{0} (empty: none):', request.title)} `);
  }

  async show(_name: string, text: string): Promise<void> {
    this.say(text.endsWith('\n') ? text : `${text}\n`);
  }

  async message(level: Level, text: string, options: MessageOptions = {}): Promise<string | undefined> {
    // kubectl's words ("node/w02 cordoned") go where kubectl puts them: stdout; warnings and errors to stderr.
    const said = options.detail ? `${text}\n${options.detail}\n` : `${text}\n`;
    if (level === 'info') this.say(said);
    else this.o.io.stderr(said);
    return undefined;
  }

  async progress<T>(request: ProgressRequest, task: (report: ProgressReport, signal: AbortSignal) => Promise<T>): Promise<T> {
    const abort = new AbortController();
    // A narrated operation's steps are printed; others narrate through their run (openRun) and only the editor shows these.
    const report: ProgressReport = request.narrate ? (message) => message !== undefined && this.say(`${message}\n`) : () => undefined;
    if (!request.cancellable) return task(report, abort.signal);
    let cancels = 0;
    const onSignal = (signal: NodeJS.Signals): void => {
      request.onCancel?.(++cancels);
      abort.abort();
      if (cancels >= 2 && !request.cancelNeverExits) {
        // The second Ctrl-C: what the first one asked is not happening (a stuck channel); the default action ends us.
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      // The prompts are over: a reader left open would keep the process alive and take Ctrl-C from the signal.
      this.o.prompter.close();
      return await task(report, abort.signal);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }

  openRun(_name: string, output: RunOutput, _onCancel: () => void, options: { summarise?: boolean } = {}): RunView {
    // Over many hosts: run-level lines and errors only, and the summary line every few seconds; the run log keeps every line.
    const detach = output.addSink((line) => {
      if (!options.summarise || keepWhenSummarised(line)) this.say(`${formatRunLine(line)}\n`);
    });
    let status: string | undefined;
    const ticker = options.summarise ? setInterval(() => status && this.say(`.. ${status}\n`), SUMMARY_EVERY_MS) : undefined;
    ticker?.unref();
    return {
      plain: (text, stream) => (stream === 'stdout' && !this.o.json ? this.o.io.stdout : this.o.io.stderr)(`${text}\n`),
      status: (line) => void (status = line),
      finish: () => {
        if (ticker) clearInterval(ticker);
        if (status) this.say(`.. ${status}\n`);
        detach();
      },
    };
  }

  async openFile(path: string): Promise<void> {
    this.o.io.stderr(`${path}\n`);
  }

  /** The command line accepts a new host key only by its fingerprint given up front (--accept-new-host-key): none here. */
  async reviewHostKeys(_keys: readonly UnknownHostKey[]): Promise<HostKeyReview> {
    return { accepted: [], remember: false };
  }

  /** The table goes where a person reads (stderr under --json, where stdout carries the verb's result). */
  async showPreflight(report: PreflightReport): Promise<void> {
    this.say(renderPreflightTable(report));
  }
}
