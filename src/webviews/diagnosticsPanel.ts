/**
 * Extension side of the Diagnostics webview: all findings of the open file or of the whole workspace,
 * grouped by file and rule, each with its why and a jump to its line. One panel at a time; it follows
 * the active editor and every re-lint. Messages are typed by ./protocol/diagnostics.ts.
 */
import * as vscode from 'vscode';
import type { Finding } from '../core/findings';
import type { ConfigDiagnostics } from '../editor/configDiagnostics';
import type { InventoryWorkspace } from '../editor/inventoryWorkspace';
import { planFix } from '../core/lint/fixPlan';
import { loadLintRegistry } from '../editor/lintRegistry';
import { RUNNER_RULES } from '../engine/lintRunner';
import { diagnosticsHtml, diagnosticsShellTexts } from './diagnosticsHtml';
import { createPanel, PanelHost, webviewOptions } from './panelHost';
import { groupFindings } from './diagnosticsModel';
import { parseWebviewMessage, type DiagnosticsStrings, type HostToWebview, type Scope, type WebviewToHost } from './protocol/diagnostics';

/** The Diagnostics webview's words in the display language (l10n/bundle.l10n.<language>.json), sent with each update. */
function diagnosticsStrings(): DiagnosticsStrings {
  return {
    errors: { one: vscode.l10n.t('1 error'), many: vscode.l10n.t('{0} errors') },
    warnings: { one: vscode.l10n.t('1 warning'), many: vscode.l10n.t('{0} warnings') },
    findings: { one: vscode.l10n.t('1 finding'), many: vscode.l10n.t('{0} findings') },
    files: { one: vscode.l10n.t('1 file'), many: vscode.l10n.t('{0} files') },
    info: vscode.l10n.t('{0} info'),
    noFindings: vscode.l10n.t('no findings'),
    checkingWorkspace: vscode.l10n.t('checking the workspace'),
    noWorkspaceFindings: vscode.l10n.t("No findings in the workspace's config files"),
    inWorkspace: vscode.l10n.t('{0} in {1} of the workspace'),
    noFileOpen: vscode.l10n.t('No config file open'),
    inFile: vscode.l10n.t('{0} in {1}'),
    noFindingsIn: vscode.l10n.t('No findings in {0}'),
    severities: { error: vscode.l10n.t('Error'), warning: vscode.l10n.t('Warning'), info: vscode.l10n.t('Info') },
    where: vscode.l10n.t('line {0}, column {1}'),
    findingLabel: vscode.l10n.t('{0} at {1}: {2}{3}'),
    quickFixNote: vscode.l10n.t(' (quick fix: {0})'),
    available: vscode.l10n.t('available'),
    applyFix: vscode.l10n.t('Apply fix'),
    quickFixAria: vscode.l10n.t('Quick fix: {0} (line {1})'),
    quickFix: vscode.l10n.t('Quick fix: {0}'),
    ruleLabel: vscode.l10n.t('Rule {0}, {1}{2}'),
    whyNote: vscode.l10n.t('. Why: {0}'),
    why: vscode.l10n.t('Why: {0}'),
    openDocs: vscode.l10n.t('Enter: open docs'),
    lintingPrefix: vscode.l10n.t('Linting… '),
    linting: vscode.l10n.t('Linting…'),
    openAFile: vscode.l10n.t('Open a kubeadm, HAProxy, Keepalived, containerd, sysctl or inventory file, or switch to Workspace.'),
    noFindingsAtAll: vscode.l10n.t('No findings.'),
  };
}

import { DIAGNOSTICS_VIEW_TYPE } from './viewTypes';

export class DiagnosticsPanel extends PanelHost<WebviewToHost, HostToWebview> {
  private static current: DiagnosticsPanel | undefined;
  private scope: Scope = 'file';
  /** The file the `file` scope shows: the last text editor that had focus (the webview takes focus). */
  private fileUri: vscode.Uri | undefined;
  private pending: NodeJS.Timeout | undefined;
  /** The last message sent, for the extension-host tests. */
  lastUpdate: HostToWebview | undefined;

  static show(extensionUri: vscode.Uri, config: ConfigDiagnostics, inventory: InventoryWorkspace, scope?: Scope): DiagnosticsPanel {
    const existing = DiagnosticsPanel.current;
    if (existing) {
      existing.panel.reveal(undefined, false);
      if (scope) existing.setScope(scope);
      return existing;
    }
    const panel = createPanel(DIAGNOSTICS_VIEW_TYPE, vscode.l10n.t('Config Diagnostics'), { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, extensionUri);
    DiagnosticsPanel.current = new DiagnosticsPanel(panel, extensionUri, config, inventory, scope);
    return DiagnosticsPanel.current;
  }

  /**
   * Takes over a panel VS Code restored after a reload (the extension's serializer calls this, loading this file
   * then): its HTML is rebuilt; the webview keeps its scope in its own state and asks for it again.
   */
  static restore(panel: vscode.WebviewPanel, state: unknown, extensionUri: vscode.Uri, config: ConfigDiagnostics, inventory: InventoryWorkspace): void {
    const scope = (state as { scope?: unknown } | undefined)?.scope;
    DiagnosticsPanel.current?.dispose();
    panel.webview.options = webviewOptions(extensionUri);
    DiagnosticsPanel.current = new DiagnosticsPanel(panel, extensionUri, config, inventory, scope === 'workspace' || scope === 'file' ? scope : undefined);
  }

  /** The open panel, if any (tests and the command use it). */
  static get instance(): DiagnosticsPanel | undefined {
    return DiagnosticsPanel.current;
  }

  private constructor(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly config: ConfigDiagnostics,
    private readonly inventory: InventoryWorkspace,
    scope: Scope | undefined,
  ) {
    super(panel, extensionUri, parseWebviewMessage);
    if (scope) this.scope = scope;
    this.fileUri = vscode.window.activeTextEditor?.document.uri;
    panel.webview.html = diagnosticsHtml({
      ...this.shell('diagnostics'),
      texts: diagnosticsShellTexts(vscode.env.language),
    });
    this.disposables.push(
      panel.onDidChangeViewState(() => panel.visible && this.updateSoon(0)),
      config.onDidChange(() => this.updateSoon()),
      inventory.onDidChange(() => this.updateSoon()),
      vscode.window.onDidChangeActiveTextEditor((e) => {
        if (!e || e.document.uri.scheme === 'output') return;
        this.fileUri = e.document.uri;
        if (this.scope === 'file') this.updateSoon();
      }),
    );
    if (this.scope === 'workspace') void config.lintWorkspace().then(() => this.updateSoon(0));
  }

  get currentScope(): Scope {
    return this.scope;
  }

  setScope(scope: Scope): void {
    this.scope = scope;
    if (scope === 'workspace') void this.config.lintWorkspace().then(() => this.updateSoon(0));
    this.updateSoon(0);
  }

  protected async onMessage(msg: WebviewToHost): Promise<void> {
    switch (msg.type) {
      case 'ready':
        this.updateSoon(0);
        return;
      case 'setScope':
        this.setScope(msg.scope);
        return;
      case 'refresh':
        this.updateSoon(0);
        await this.config.refresh();
        this.updateSoon(0);
        return;
      case 'openDocs':
        await vscode.env.openExternal(vscode.Uri.parse(msg.url));
        return;
      case 'applyFix':
        await this.applyFix(msg);
        return;
      case 'reveal': {
        const uri = vscode.Uri.parse(msg.uri);
        const selection = new vscode.Range(msg.line, msg.character, msg.endLine, msg.endCharacter);
        const column = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === msg.uri)?.viewColumn ?? vscode.ViewColumn.One;
        const editor = await vscode.window.showTextDocument(uri, { selection, viewColumn: column, preserveFocus: false, preview: true });
        editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
        return;
      }
    }
  }

  /** The button of a finding: its first fix as one WorkspaceEdit (the editor's quick fix does the same), then a re-lint follows. */
  async applyFix(msg: Extract<WebviewToHost, { type: 'applyFix' }>): Promise<boolean> {
    const uri = vscode.Uri.parse(msg.uri);
    const inv = this.inventory.current;
    const findings = [...this.config.findingsFor(uri), ...(inv?.uri.toString() === msg.uri ? inv.result.findings : [])];
    const finding = findings.find((f) => f.rule === msg.rule && f.range.start.line === msg.line && f.range.start.character === msg.character && f.fixes?.length);
    const documentPath = vscode.workspace.asRelativePath(uri, false);
    const plan = finding?.fixes?.[0] && planFix(finding.fixes[0], finding, documentPath);
    if (!plan) {
      void vscode.window.showWarningMessage(vscode.l10n.t('That finding changed since the list was drawn; it has no fix to apply now.'));
      this.updateSoon(0);
      return false;
    }
    const edit = new vscode.WorkspaceEdit();
    for (const file of plan.files) {
      const target = file.path === documentPath ? uri : vscode.Uri.parse(this.config.resolvePath(file.path, uri));
      for (const e of file.edits) edit.replace(target, new vscode.Range(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character), e.newText);
    }
    return vscode.workspace.applyEdit(edit);
  }

  private updateSoon(delayMs = 100): void {
    clearTimeout(this.pending);
    this.pending = setTimeout(() => void this.update(), delayMs);
  }

  /** Builds and sends the current findings (also called by tests). */
  async update(): Promise<HostToWebview> {
    const registry = await loadLintRegistry();
    const files: { uri: string; path: string; findings: readonly Finding[] }[] = [];
    const add = (uri: vscode.Uri, findings: readonly Finding[]): void => {
      const key = uri.toString();
      const existing = files.find((f) => f.uri === key);
      if (existing) existing.findings = [...existing.findings, ...findings];
      else files.push({ uri: key, path: vscode.workspace.asRelativePath(uri, false), findings });
    };
    const inv = this.inventory.current;
    let activeFile: string | undefined;
    if (this.scope === 'workspace') {
      for (const e of this.config.allFindings()) add(e.uri, e.findings);
      if (inv) add(inv.uri, inv.result.findings);
    } else if (this.fileUri) {
      const isInventory = inv?.uri.toString() === this.fileUri.toString();
      if (isInventory || this.config.kindOf(this.fileUri)) activeFile = vscode.workspace.asRelativePath(this.fileUri, false);
      add(this.fileUri, this.config.findingsFor(this.fileUri));
      if (isInventory && inv) add(inv.uri, inv.result.findings);
    }
    const message: HostToWebview = {
      type: 'update',
      strings: diagnosticsStrings(),
      scope: this.scope,
      ...(activeFile ? { activeFile } : {}),
      files: groupFindings(files, (rule) => registry.ruleInfo(rule) ?? RUNNER_RULES.find((r) => r.id === rule)),
      busy: this.config.busy,
    };
    this.lastUpdate = message;
    await this.post(message);
    return message;
  }

  protected override onDispose(): void {
    if (DiagnosticsPanel.current === this) DiagnosticsPanel.current = undefined;
    clearTimeout(this.pending);
  }
}
