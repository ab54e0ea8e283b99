/**
 * The preflight as a webview (the model is core/preflight/model.ts, the same `ssh-check --json` prints): a row per
 * host with its checks, each failure's cause and fix with the fix's command to copy, the unknown host keys, the
 * cluster's checks. One panel at a time; a new report replaces the table. "Run Again" runs "Kubeadm: Run Preflight
 * Checks", whose report lands here — a host whose cause was fixed turns green. Nothing in it changes a host.
 */
import * as vscode from 'vscode';
import type { PreflightReport } from '../core/preflight/model';
import { CommandIds } from '../editor/commandIds';
import { makeNonce } from './csp';
import { preflightHtml } from './preflightHtml';
import { parseWebviewMessage, type HostToWebview } from './protocol/preflight';

export class PreflightPanel implements vscode.Disposable {
  static readonly viewType = 'kubeadm.preflight';
  private static current: PreflightPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  private running = false;
  /** The last command copied (for the tests; a browser client's clipboard is not readable there). */
  lastCopied: string | undefined;
  readonly panel: vscode.WebviewPanel;

  static show(extensionUri: vscode.Uri, report: PreflightReport, options: { refused?: string } = {}): PreflightPanel {
    const existing = PreflightPanel.current;
    if (existing) {
      existing.setReport(report, options.refused);
      existing.panel.reveal(undefined, false);
      return existing;
    }
    PreflightPanel.current = new PreflightPanel(extensionUri, report, options.refused);
    return PreflightPanel.current;
  }

  /** The open panel, if any. */
  static get instance(): PreflightPanel | undefined {
    return PreflightPanel.current;
  }

  private constructor(
    extensionUri: vscode.Uri,
    private report: PreflightReport,
    private refused: string | undefined,
  ) {
    this.panel = vscode.window.createWebviewPanel(PreflightPanel.viewType, 'Preflight', vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webviews')],
      retainContextWhenHidden: false,
    });
    this.panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'kubeadm.svg');
    const webview = this.panel.webview;
    webview.html = preflightHtml({ cspSource: webview.cspSource, scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webviews', 'preflight.js')).toString(), nonce: makeNonce(), title: `Preflight for ${report.operation}` });
    this.disposables.push(
      this.panel.onDidDispose(() => this.dispose()),
      webview.onDidReceiveMessage((raw) => void this.onMessage(raw)),
      // retainContextWhenHidden is off: the webview reloads when shown again and says ready again.
      this.panel.onDidChangeViewState(() => !this.panel.visible && (this.ready = false)),
    );
    this.setTitle();
  }

  get current(): PreflightReport {
    return this.report;
  }

  get isReady(): boolean {
    return this.ready;
  }

  setReport(report: PreflightReport, refused?: string): void {
    this.report = report;
    this.refused = refused;
    this.running = false;
    this.setTitle();
    this.postReport();
  }

  /** The checks run again: the table stays, marked as being checked. */
  setRunning(running: boolean): void {
    this.running = running;
    this.postReport();
  }

  private setTitle(): void {
    this.panel.title = `Preflight: ${this.report.operation}`;
  }

  private postReport(): void {
    this.post({ type: 'report', report: this.report, running: this.running, ...(this.refused ? { refused: this.refused } : {}) });
  }

  private post(message: HostToWebview): void {
    if (this.ready) void this.panel.webview.postMessage(message);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const msg = parseWebviewMessage(raw);
    if (!msg) return;
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        this.postReport();
        return;
      case 'rerun':
        await vscode.commands.executeCommand(CommandIds.runPreflight);
        return;
      case 'copy': {
        // Only a fix this report shows: the webview is not trusted to put anything else on the clipboard.
        const all = [...this.report.hosts.flatMap((h) => h.checks), ...this.report.clusterChecks].map((c) => c.command);
        if (!all.includes(msg.command)) return;
        await vscode.env.clipboard.writeText(msg.command);
        this.lastCopied = msg.command;
        this.post({ type: 'status', text: 'Copied the command to the clipboard.' });
        return;
      }
      case 'reveal':
        if (this.report.hosts.some((h) => h.host === msg.host)) await vscode.commands.executeCommand(CommandIds.revealHost, msg.host);
        return;
      case 'settings':
        await vscode.commands.executeCommand(CommandIds.openKubeconfigSetting);
        return;
    }
  }

  dispose(): void {
    if (PreflightPanel.current === this) PreflightPanel.current = undefined;
    vscode.Disposable.from(...this.disposables).dispose();
    this.disposables.length = 0;
    this.panel.dispose();
  }
}
