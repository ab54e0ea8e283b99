/**
 * The workflows' Ui (engine/workflows/ui.ts) in VS Code: quick picks, modal confirmations, a password box,
 * read-only documents beside the dialogs, notifications with a Cancel button, and a run terminal.
 * Messages without actions are not awaited: a refusal's modal must not hold the command open.
 */
import * as vscode from 'vscode';
import { log } from './log';
import { errorMessage } from '../core/errors';
import type { RunOutput } from '../core/ssh/runLog';
import type { ConfirmRequest, Level, PickItem, ProgressReport, ProgressRequest, RunView, SecretRequest, Ui } from '../engine/workflows/ui';
import type { ReportDocuments } from './reportDocuments';
import { RunTerminal } from './runTerminal';

export class VscodeUi implements Ui {
  constructor(private readonly reports: Pick<ReportDocuments, 'show'>) {}

  async pick<T>(title: string, items: readonly PickItem<T>[], placeHolder?: string): Promise<T | undefined> {
    const picked = await vscode.window.showQuickPick(items.map((i) => ({ ...quickItem(i), value: i.value })), { title, ...(placeHolder ? { placeHolder } : {}) });
    return picked?.value;
  }

  async pickMany<T>(title: string, items: readonly PickItem<T>[], placeHolder?: string): Promise<T[] | undefined> {
    const picked = await vscode.window.showQuickPick(items.map((i) => ({ ...quickItem(i), value: i.value })), { title, canPickMany: true, ignoreFocusOut: true, ...(placeHolder ? { placeHolder } : {}) });
    return picked?.map((p) => p.value);
  }

  input(title: string, prompt: string, value?: string): Promise<string | undefined> {
    return Promise.resolve(vscode.window.showInputBox({ title, prompt, ...(value !== undefined ? { value } : {}), ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : 'Nothing typed yet (Escape backs out)') }));
  }

  async confirm(request: ConfirmRequest): Promise<string | undefined> {
    return vscode.window.showWarningMessage(request.message, { modal: true, ...(request.detail ? { detail: request.detail } : {}) }, ...request.actions);
  }

  async secret(request: SecretRequest): Promise<string | undefined> {
    return vscode.window.showInputBox({ title: request.title, prompt: request.prompt, password: true, ignoreFocusOut: true });
  }

  async show(name: string, text: string, language?: 'markdown' | 'plaintext', options: { preview?: boolean } = {}): Promise<void> {
    const editor = await this.reports.show(name, text, language);
    // the built-in Markdown preview renders the report's tables beside its source (a webview of VS Code's own)
    if (options.preview && language === 'markdown') {
      await Promise.resolve(vscode.commands.executeCommand('markdown.showPreviewToSide', editor.document.uri)).catch((e: unknown) => log.warn(`the rendered view of ${name} did not open: ${errorMessage(e)}`));
    }
  }

  async message(level: Level, text: string, options: { modal?: boolean; actions?: readonly string[] } = {}): Promise<string | undefined> {
    const show = level === 'error' ? vscode.window.showErrorMessage : level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    const actions = options.actions ?? [];
    const shown = options.modal ? show(text, { modal: true }, ...actions) : show(text, ...actions);
    if (!actions.length) {
      void shown;
      return undefined;
    }
    return shown;
  }

  progress<T>(request: ProgressRequest, task: (report: ProgressReport, signal: AbortSignal) => Promise<T>): Promise<T> {
    return Promise.resolve(
      vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: request.title, cancellable: Boolean(request.cancellable) }, (progress, token) => {
        const abort = new AbortController();
        let cancels = 0;
        token.onCancellationRequested(() => {
          request.onCancel?.(++cancels);
          abort.abort();
        });
        return task((message, increment) => progress.report({ ...(message !== undefined ? { message } : {}), ...(increment ? { increment } : {}) }), abort.signal);
      }),
    );
  }

  openRun(name: string, output: RunOutput, onCancel: () => void, options: { summarise?: boolean } = {}): RunView {
    const terminal = new RunTerminal(name, output, onCancel, Boolean(options.summarise));
    terminal.show(true);
    let shownAt = 0;
    let pending: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    const show = (): void => {
      timer = undefined;
      if (pending === undefined) return;
      shownAt = Date.now();
      terminal.status(pending);
      pending = undefined;
    };
    return {
      // A run over hundreds of hosts ends steps many times a second: the status line is rewritten at most twice a
      // second, and the last line of a burst is shown when its half second is over (never a stale "running 1").
      status: (line) => {
        pending = line;
        const wait = SUMMARY_EVERY_MS - (Date.now() - shownAt);
        if (wait <= 0) show();
        else timer ??= setTimeout(show, wait);
      },
      // kubectl's lines join the run's narration; both streams, as the terminal shows one stream.
      plain: (text) => output.message(text, undefined, text.startsWith('error:') ? 'error' : 'info'),
      finish: (summary, ok) => {
        clearTimeout(timer);
        show();
        terminal.finish(summary, ok);
      },
    };
  }

  async openFile(path: string): Promise<void> {
    await vscode.window.showTextDocument(vscode.Uri.file(path));
  }
}

/** Least time between two summary lines in the run terminal. */
const SUMMARY_EVERY_MS = 500;

function quickItem<T>(i: PickItem<T>): vscode.QuickPickItem {
  return { label: i.label, ...(i.description ? { description: i.description } : {}), ...(i.detail ? { detail: i.detail } : {}), ...(i.picked !== undefined ? { picked: i.picked } : {}) };
}

let wrap: ((real: Ui) => Ui) | undefined;

/** The Ui the command handlers use: VS Code's, or what a test put in front of it (see the extension's API). */
export function editorUi(reports: Pick<ReportDocuments, 'show'>): Ui {
  const real = new VscodeUi(reports);
  return wrap ? wrap(real) : real;
}

/** For the extension-host tests: answer the questions with a script; undefined restores VS Code's own dialogs. */
export function wrapEditorUi(w: ((real: Ui) => Ui) | undefined): void {
  wrap = w;
}
