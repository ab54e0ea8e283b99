/**
 * The workflows' Ui answered from a script, for the unit tests of each workflow and for the extension-host suites
 * (which put it in front of the real VS Code Ui through the extension's API, so that documents and run terminals
 * stay real while the questions are answered here). It records what the user would have seen.
 */
import type { ConfirmRequest, HostKeyReview, Level, PickItem, ProgressReport, ProgressRequest, RunView, SecretRequest, Ui } from '../../../src/engine/workflows/ui';
import type { PreflightReport, UnknownHostKey } from '../../../src/core/preflight/model';
import type { RunOutput } from '../../../src/core/ssh/runLog';

export interface Script {
  /** The item to take from a single choice (default: none — the user backs out). */
  pick?: (title: string, items: readonly PickItem<unknown>[]) => PickItem<unknown> | undefined;
  /** The items to take from a multiple choice (default: the preselected ones). */
  pickMany?: (title: string, items: readonly PickItem<unknown>[]) => readonly PickItem<unknown>[] | undefined;
  input?: (title: string, value: string | undefined) => string | undefined;
  /** The action to choose (default: none — not confirmed). */
  confirm?: (request: ConfirmRequest) => string | undefined;
  /** The secret to type (default: backs out). */
  secret?: (request: SecretRequest) => string | undefined;
  /** The action to choose on a message that offers some. */
  message?: (level: Level, text: string, actions: readonly string[]) => string | undefined;
  /** Presses a cancellable progress's Cancel as soon as this turns true (polled every 20 ms). */
  cancelWhen?: () => boolean;
  /** The unknown host keys to accept in the review (default: none), and whether to remember them. */
  reviewHostKeys?: (keys: readonly UnknownHostKey[]) => HostKeyReview;
}

export interface RunRecord {
  name: string;
  lines: string[];
  finished?: { summary: string; ok: boolean };
  status?: string;
}

export class ScriptedUi implements Ui {
  /** In order: `pick: TITLE`, `confirm: MESSAGE`, `secret: TITLE`, `error: TEXT` (`error (modal): TEXT`), `show: NAME`, `progress: TITLE`, `cancel: TITLE`. */
  readonly transcript: string[] = [];
  readonly confirms: ConfirmRequest[] = [];
  readonly secrets: SecretRequest[] = [];
  readonly documents = new Map<string, string>();
  readonly runs: RunRecord[] = [];
  /** Every message a progress notification showed, in order. */
  readonly progressMessages: string[] = [];
  /** The preflight tables shown, in order. */
  readonly preflights: { report: PreflightReport; refused?: string }[] = [];
  /** The host-key reviews, each with the keys it showed. */
  readonly reviews: (readonly UnknownHostKey[])[] = [];
  /** Every increment a progress bar was given, by the progress's title. */
  readonly progressIncrements = new Map<string, number[]>();

  constructor(
    private readonly script: Script = {},
    /** Where documents and runs go as well (the real Ui in the extension host). */
    private inner?: Ui,
  ) {}

  /** This script in front of `inner` (for the extension's wrapUi: `api.wrapUi((real) => ui.over(real))`). */
  over(inner: Ui): this {
    this.inner = inner;
    return this;
  }

  /** The messages at a level, or all as `level: text`. */
  messages(level?: Level): string[] {
    return this.transcript.flatMap((t) => {
      const m = /^(info|warning|error)(?: \(modal\))?: ([\s\S]*)$/.exec(t);
      if (!m) return [];
      return level ? (m[1] === level ? [m[2]!] : []) : [`${m[1]}: ${m[2]}`];
    });
  }

  async pick<T>(title: string, items: readonly PickItem<T>[]): Promise<T | undefined> {
    this.transcript.push(`pick: ${title}`);
    return (this.script.pick?.(title, items) as PickItem<T> | undefined)?.value;
  }

  async pickMany<T>(title: string, items: readonly PickItem<T>[]): Promise<T[] | undefined> {
    this.transcript.push(`pick: ${title}`);
    const chosen = this.script.pickMany ? this.script.pickMany(title, items) : items.filter((i) => i.picked);
    return (chosen as readonly PickItem<T>[] | undefined)?.map((i) => i.value);
  }

  async input(title: string, _prompt: string, value?: string): Promise<string | undefined> {
    this.transcript.push(`input: ${title}`);
    return this.script.input?.(title, value);
  }

  async confirm(request: ConfirmRequest): Promise<string | undefined> {
    this.transcript.push(`confirm: ${request.message}`);
    this.confirms.push(request);
    return this.script.confirm?.(request);
  }

  async secret(request: SecretRequest): Promise<string | undefined> {
    this.transcript.push(`secret: ${request.title}`);
    this.secrets.push(request);
    return this.script.secret?.(request);
  }

  async show(name: string, text: string, language?: 'markdown' | 'plaintext'): Promise<void> {
    this.transcript.push(`show: ${name}`);
    this.documents.set(name, text);
    await this.inner?.show(name, text, language);
  }

  async message(level: Level, text: string, options: { modal?: boolean; actions?: readonly string[] } = {}): Promise<string | undefined> {
    this.transcript.push(`${level}${options.modal ? ' (modal)' : ''}: ${text}`);
    return options.actions?.length ? this.script.message?.(level, text, options.actions) : undefined;
  }

  async progress<T>(request: ProgressRequest, task: (report: ProgressReport, signal: AbortSignal) => Promise<T>): Promise<T> {
    this.transcript.push(`progress: ${request.title}`);
    // Nothing to press: the real notification (in the extension host) shows it.
    if (this.inner && !(request.cancellable && this.script.cancelWhen)) return this.inner.progress(request, task);
    const abort = new AbortController();
    const when = this.script.cancelWhen;
    const timer = request.cancellable && when
      ? setInterval(() => {
        if (abort.signal.aborted || !when()) return;
        this.transcript.push(`cancel: ${request.title}`);
        request.onCancel?.(1);
        abort.abort();
      }, 20)
      : undefined;
    try {
      const increments: number[] = [];
      this.progressIncrements.set(request.title, increments);
      return await task((message, increment) => {
        if (message !== undefined) this.progressMessages.push(message);
        if (increment !== undefined) increments.push(increment);
      }, abort.signal);
    } finally {
      if (timer) clearInterval(timer);
    }
  }

  openRun(name: string, output: RunOutput, onCancel: () => void, options?: { summarise?: boolean }): RunView {
    const record: RunRecord = { name, lines: [] };
    this.runs.push(record);
    const detach = output.addSink((l) => record.lines.push(`${l.host ? `[${l.host}] ` : ''}${l.text}`));
    const inner = this.inner?.openRun(name, output, onCancel, options);
    return {
      plain: (text, stream) => (inner ? inner.plain(text, stream) : output.message(text)),
      status: (line) => {
        record.status = line;
        inner?.status(line);
      },
      finish: (summary, ok) => {
        record.finished = { summary, ok };
        detach();
        inner?.finish(summary, ok);
      },
    };
  }

  async openFile(path: string): Promise<void> {
    this.transcript.push(`open: ${path}`);
    await this.inner?.openFile(path);
  }

  async reviewHostKeys(keys: readonly UnknownHostKey[]): Promise<HostKeyReview> {
    this.transcript.push(`review host keys: ${keys.map((k) => k.host).join(', ')}`);
    this.reviews.push(keys);
    return this.script.reviewHostKeys?.(keys) ?? { accepted: [], remember: false };
  }

  async showPreflight(report: PreflightReport, options: { refused?: string } = {}): Promise<void> {
    this.transcript.push(`preflight: ${report.operation}${options.refused ? ' (refused)' : ''}`);
    this.preflights.push({ report, ...options });
    await this.inner?.showPreflight(report, options);
  }
}
