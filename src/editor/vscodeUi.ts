/**
 * The workflows' Ui (engine/workflows/ui.ts) in VS Code: quick picks, modal confirmations, a password box,
 * read-only documents beside the dialogs, notifications with a Cancel button, and a run terminal.
 * Messages without actions are not awaited: a refusal's modal must not hold the command open. Every error message
 * goes to the log as well and carries "Show Log"; the preflight's table is a panel, its unknown host keys one
 * multiple choice (nothing ticked) and one confirmation.
 */
import * as vscode from 'vscode';
import type { PreflightReport, UnknownHostKey } from '../core/preflight/model';
import type { RunOutput } from '../core/ssh/runLog';
import type { ConfirmRequest, HostKeyReview, InputOptions, Level, MessageOptions, PickItem, PickOptions, ProgressReport, ProgressRequest, RunView, SecretRequest, Ui } from '../engine/workflows/ui';
import { log } from './log';
import { errorMessage } from '../core/errors';
import { presentPreflight } from './preflightView';
import type { ReportDocuments } from './reportDocuments';
import { RunTerminal } from './runTerminal';

/** The button every error message carries: the log holds what the message leaves out. */
export const SHOW_LOG = vscode.l10n.t('Show Log');
export const ACCEPT_SESSION = vscode.l10n.t('Accept for This Session');
export const ACCEPT_REMEMBER = vscode.l10n.t('Accept and Remember');

export class VscodeUi implements Ui {
  constructor(private readonly reports: Pick<ReportDocuments, 'show'>) {}

  async pick<T>(title: string, items: readonly PickItem<T>[], placeHolder?: string, options: PickOptions = {}): Promise<T | undefined> {
    const picked = await vscode.window.showQuickPick(items.map((i) => ({ ...quickItem(i), value: i.value })), {
      title,
      ...(placeHolder ? { placeHolder } : {}),
      ...(options.matchOnDescription ? { matchOnDescription: true } : {}),
      ...(options.ignoreFocusOut ? { ignoreFocusOut: true } : {}),
    });
    return picked?.value;
  }

  async pickMany<T>(title: string, items: readonly PickItem<T>[], placeHolder?: string, options: PickOptions = {}): Promise<T[] | undefined> {
    const picked = await vscode.window.showQuickPick(items.map((i) => ({ ...quickItem(i), value: i.value })), { title, canPickMany: true, ...(options.ignoreFocusOut === false ? {} : { ignoreFocusOut: true }), ...(placeHolder ? { placeHolder } : {}) });
    return picked?.map((p) => p.value);
  }

  input(title: string, prompt: string, value?: string, options: InputOptions = {}): Promise<string | undefined> {
    return Promise.resolve(vscode.window.showInputBox({
      ...(title ? { title } : {}),
      ...(prompt ? { prompt } : {}),
      ...(value !== undefined ? { value } : {}),
      ...(options.placeHolder ? { placeHolder: options.placeHolder } : {}),
      ...(options.password ? { password: true } : {}),
      ...(options.ignoreFocusOut === false ? {} : { ignoreFocusOut: true }),
      validateInput: options.validate ?? ((v) => (v.trim() ? undefined : vscode.l10n.t('Nothing typed yet (Escape backs out)'))),
    }));
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

  async message(level: Level, text: string, options: MessageOptions = {}): Promise<string | undefined> {
    const show = level === 'error' ? vscode.window.showErrorMessage : level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    const asked = options.actions ?? [];
    if (level === 'error') log.error(options.logText ?? text);
    const actions = level === 'error' ? [...asked, SHOW_LOG] : [...asked];
    const said = level === 'error' ? withoutCommands(text) : text;
    const how = options.modal || options.detail !== undefined ? { modal: Boolean(options.modal), ...(options.detail ? { detail: options.detail } : {}) } : undefined;
    const shown = Promise.resolve(how ? show(said, how, ...actions) : show(said, ...actions)).then((choice) => {
      if (choice === SHOW_LOG) {
        log.show();
        return undefined;
      }
      return choice;
    });
    if (!asked.length) {
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

  async reviewHostKeys(keys: readonly UnknownHostKey[]): Promise<HostKeyReview> {
    // How to read a key on its host: said once when it is the same for all (the detail line is narrow).
    const checks = [...new Set(keys.map((k) => k.check))];
    const items = keys.map((k) => ({
      label: `$(key) ${k.host}${k.alias !== k.host ? vscode.l10n.t(' (jump host {0})', k.alias) : ''}`,
      description: `${k.address} · ${k.keyType}`,
      detail: `${k.fingerprint}${checks.length > 1 ? vscode.l10n.t(' — on its console: {0}', k.check) : ''}${k.note ? ` (${k.note})` : ''}`,
      picked: false,
      key: k,
    }));
    const picked = await vscode.window.showQuickPick(items, {
      title: keys.length === 1 ? vscode.l10n.t('Unknown host keys of 1 host: tick those you compared with the host\'s own') : vscode.l10n.t('Unknown host keys of {0} hosts: tick those you compared with the host\'s own', keys.length),
      placeHolder: checks.length === 1 ? vscode.l10n.t('On each host\'s console: {0} — none is accepted unless ticked', checks[0]) : vscode.l10n.t('None is accepted unless ticked; Escape accepts none'),
      canPickMany: true,
      ignoreFocusOut: true,
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (!picked?.length) return { accepted: [], remember: false };
    const detail = [...picked.map((p) => `${p.key.host} (${p.key.address}): ${p.key.keyType} ${p.key.fingerprint}`), '', vscode.l10n.t('"{0}" adds them (hashed) to the extension\'s own known_hosts; "{1}" trusts them until the window closes.', ACCEPT_REMEMBER, ACCEPT_SESSION)].join('\n');
    const how = await vscode.window.showWarningMessage(picked.length === 1 ? vscode.l10n.t('Accept the host key of {0}?', picked[0]!.key.host) : vscode.l10n.t('Accept the host keys of {0}?', picked.map((p) => p.key.host).join(', ')), { modal: true, detail }, ACCEPT_SESSION, ACCEPT_REMEMBER);
    if (!how) return { accepted: [], remember: false };
    return { accepted: picked.map((p) => p.key), remember: how === ACCEPT_REMEMBER };
  }

  async showPreflight(report: PreflightReport, options: { refused?: string } = {}): Promise<void> {
    await presentPreflight(this.reports, report, options);
  }
}

/**
 * A toast shows a short cause, not a command: a quoted command (`…`, as RemoteCommandError quotes it) becomes "a
 * command (its text is in the log)" — the whole message went to the log first.
 */
export function withoutCommands(text: string): string {
  return text.replace(/`[^`\n]{40,}`/g, vscode.l10n.t('a command (its text is in the log)'));
}

/** Least time between two summary lines in the run terminal. */
const SUMMARY_EVERY_MS = 500;

function quickItem<T>(i: PickItem<T>): vscode.QuickPickItem {
  if (i.separator) return { label: i.label, kind: vscode.QuickPickItemKind.Separator };
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
