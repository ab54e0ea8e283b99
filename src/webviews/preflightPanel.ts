/**
 * The preflight as a webview (the model is core/preflight/model.ts, the same `ssh-check --json` prints): a row per
 * host with its checks, each failure's cause and fix with the fix's command to copy, the unknown host keys, the
 * cluster's checks. One panel at a time; a new report replaces the table. "Run Again" runs "Kubeadm: Run Preflight
 * Checks", whose report lands here — a host whose cause was fixed turns green. Nothing in it changes a host.
 */
import * as vscode from 'vscode';
import { checkTitles, summaryLine, type PreflightReport } from '../core/preflight/model';
import { CommandIds } from '../editor/commandIds';
import { createPanel, PanelHost } from './panelHost';
import { preflightHtml, preflightShellTexts } from './preflightHtml';
import { parseWebviewMessage, type HostToWebview, type PreflightStrings, type WebviewToHost } from './protocol/preflight';

/** The preflight webview's words in the display language (l10n/bundle.l10n.<language>.json), sent with the report. */
function preflightStrings(): PreflightStrings {
  return {
    checks: checkTitles(),
    states: { ok: vscode.l10n.t('✓ ok'), warn: vscode.l10n.t('⚠ warn'), fail: vscode.l10n.t('✗ FAIL'), skipped: vscode.l10n.t('– not checked') },
    openLine: vscode.l10n.t('Open {0}\'s line in inventory.yaml'),
    via: vscode.l10n.t(' via {0}'),
    ms: vscode.l10n.t('{0} ms'),
    causeTitle: vscode.l10n.t('{0} · {1}: {2}'),
    failed: vscode.l10n.t('failed'),
    warning: vscode.l10n.t('warning'),
    fix: vscode.l10n.t('Fix: '),
    copy: vscode.l10n.t('Copy'),
    copyFix: vscode.l10n.t('Copy the fix for {0}'),
    openInInventory: vscode.l10n.t('Open in inventory.yaml'),
    openSettings: vscode.l10n.t('Open Settings'),
    openKubeconfigSetting: vscode.l10n.t('Open the kubeconfig setting'),
    title: vscode.l10n.t('Preflight for {0} ({1})'),
    standaloneTitle: vscode.l10n.t('Preflight ({0})'),
    checkedOne: vscode.l10n.t('1 host checked in {0} s{1}'),
    checkedMany: vscode.l10n.t('{0} hosts checked in {1} s{2}'),
    runningAgain: vscode.l10n.t(' — running again…'),
    didNotStart: vscode.l10n.t('{0} did not start: '),
    host: vscode.l10n.t('host'),
    connectsTo: vscode.l10n.t('connects to'),
    took: vscode.l10n.t('took'),
    causes: vscode.l10n.t('Causes and fixes'),
    unknownKeys: vscode.l10n.t('Unknown host keys'),
    compareKeys: vscode.l10n.t('Compare each fingerprint with the one the host itself shows (on its console) before accepting it; the operation asks about all of them at once.'),
    address: vscode.l10n.t('address'),
    type: vscode.l10n.t('type'),
    fingerprint: vscode.l10n.t('fingerprint'),
    readOnHost: vscode.l10n.t('read it on the host'),
    jumpHost: vscode.l10n.t('{0} (jump host {1})'),
    cluster: vscode.l10n.t('Cluster'),
    clusterWho: vscode.l10n.t('cluster'),
  };
}

export class PreflightPanel extends PanelHost<WebviewToHost, HostToWebview> {
  static readonly viewType = 'kubeadm.preflight';
  private static current: PreflightPanel | undefined;
  private running = false;
  /** The last command copied (for the tests; a browser client's clipboard is not readable there). */
  lastCopied: string | undefined;

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
    super(createPanel(PreflightPanel.viewType, vscode.l10n.t('Preflight'), vscode.ViewColumn.Active, extensionUri), extensionUri, parseWebviewMessage);
    this.panel.webview.html = preflightHtml({ ...this.shell('preflight'), title: report.standalone ? vscode.l10n.t('Preflight') : vscode.l10n.t('Preflight for {0}', report.operation), texts: preflightShellTexts(vscode.env.language) });
    this.setTitle();
  }

  get current(): PreflightReport {
    return this.report;
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
    // on its own (Run Preflight Checks) the preflight names no operation: not "Preflight: Run Preflight Checks"
    this.panel.title = this.report.standalone ? vscode.l10n.t('Preflight') : vscode.l10n.t('Preflight: {0}', this.report.operation);
  }

  private postReport(): void {
    this.post({ type: 'report', report: this.report, summary: summaryLine(this.report), running: this.running, strings: preflightStrings(), ...(this.refused ? { refused: this.refused } : {}) });
  }

  protected async onMessage(msg: WebviewToHost): Promise<void> {
    switch (msg.type) {
      case 'ready':
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
        this.post({ type: 'status', text: vscode.l10n.t('Copied the command to the clipboard.') });
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

  protected override onDispose(): void {
    if (PreflightPanel.current === this) PreflightPanel.current = undefined;
  }
}
