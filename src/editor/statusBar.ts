/**
 * Status bar item: the cluster context and its health as the one health model (core/live/health.ts) judges it —
 * healthy, degraded (which component, which node), unauthorised (who we are, what we may not do), unreachable —
 * the same words the views and `kubeadm-workbench status` use. Neutral ("Kubeadm: no cluster") until a connection
 * was tried, and when there is no kubeconfig to try; "trust the workspace to connect" (click: Manage Workspace Trust)
 * in Restricted Mode; red only after a real failure, with its classified reason.
 * The probing (a /readyz only when the watches are silent) lives in ClusterConnection. Its texts go through
 * vscode.l10n.t (l10n/bundle.l10n.<language>.json); the English ones are the keys, unchanged.
 */
import * as vscode from 'vscode';
import { CommandIds } from './commandIds';
import type { ClusterConnection, ConnectionState } from './clusterConnection';
import { serverMatchesEndpoint } from '../core/live/kubeconfig';
import type { ClusterHealth } from '../core/live/health';
import { untrustedMessage } from './trust';

const TRUST_COMMAND = 'workbench.trust.manage';

const STATE_ICON: Record<ClusterHealth['state'], string> = { healthy: 'pass', degraded: 'warning', unauthorised: 'error', unreachable: 'error' };

/** Plain text for a tooltip line: Markdown's special characters escaped (messages come from servers). */
function plain(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, (c) => `\\${c}`);
}

export class ClusterStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('kubeadm.cluster', vscode.StatusBarAlignment.Left, 40);
  private readonly disposables: vscode.Disposable[] = [this.item];

  constructor(private readonly connection: ClusterConnection) {
    this.item.name = vscode.l10n.t('Kubeadm cluster');
    this.item.command = CommandIds.selectClusterContext;
    this.disposables.push(
      connection.onDidChangeState(() => this.render()),
      connection.onDidChangeHealth(() => this.render()),
    );
    this.render();
  }

  /** What the item shows now (for tests). */
  get text(): string {
    return this.item.text;
  }

  get tooltipText(): string {
    const t = this.item.tooltip;
    return typeof t === 'string' ? t : (t?.value ?? '');
  }

  get background(): string | undefined {
    return (this.item.backgroundColor as { id?: string } | undefined)?.id;
  }

  private render(): void {
    const state: ConnectionState = this.connection.state;
    this.item.backgroundColor = undefined;
    this.item.command = CommandIds.selectClusterContext;
    switch (state.kind) {
      case 'idle':
        this.item.text = `$(plug) ${vscode.l10n.t('Kubeadm: no cluster')}`;
        this.item.tooltip = vscode.l10n.t('Not connected yet: the live views connect when shown. Click to select a cluster context.');
        break;
      case 'untrusted':
        // Only trust is missing (a kubeconfig and a cluster may be there): say so, and the click is the Trust action.
        this.item.text = `$(shield) ${vscode.l10n.t('Kubeadm: trust the workspace to connect')}`;
        this.item.tooltip = new vscode.MarkdownString(
          vscode.l10n.t(
            "**Restricted Mode**\n\n{0} Trusting the workspace lets it read the cluster's live state (the kubeconfig), reach the inventory's hosts over SSH and run commands there.\n\nClick to manage workspace trust.",
            untrustedMessage(),
          ),
        );
        this.item.command = TRUST_COMMAND;
        break;
      case 'connecting':
        this.item.text = `$(sync~spin) ${vscode.l10n.t('Kubeadm: connecting…')}`;
        this.item.tooltip = undefined;
        break;
      case 'error':
        if (state.failure === 'config') {
          // No kubeconfig yet (e.g. before the cluster is brought up): nothing failed, nothing to alarm about.
          this.item.text = `$(plug) ${vscode.l10n.t('Kubeadm: no cluster')}`;
          this.item.tooltip = new vscode.MarkdownString(vscode.l10n.t('**No cluster to connect to**\n\n{0}\n\nClick to select a cluster context or a kubeconfig file.', plain(state.message)));
        } else {
          this.item.text = `$(error) ${vscode.l10n.t('Kubeadm: {0}', failureWords(state.failure))}`;
          this.item.tooltip = new vscode.MarkdownString(vscode.l10n.t('**Cannot connect**\n\n{0}\n\nClick to select another cluster context.', plain(state.message)));
          this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        }
        break;
      case 'connected':
        this.renderConnected(state, this.connection.health);
        break;
    }
    this.item.show();
  }

  private renderConnected(state: Extract<ConnectionState, { kind: 'connected' }>, h: ClusterHealth | undefined): void {
    const md = new vscode.MarkdownString(`**${plain(state.context)}** · API ${plain(state.server)}\n\n`, true);
    if (!h) {
      this.item.text = `$(sync~spin) ${state.context}`;
      md.appendMarkdown(vscode.l10n.t('checking…'));
    } else {
      const latency = h.state === 'healthy' && h.latencyMs !== undefined && Number.isFinite(h.latencyMs) ? ` · ${Math.round(h.latencyMs)} ms` : '';
      this.item.text = `$(${STATE_ICON[h.state]}) ${state.context} · ${stateWord(h.state)}${latency}`;
      md.appendMarkdown(`**${plain(h.headline)}**\n\n`);
      for (const r of h.reasons.slice(0, 8)) md.appendMarkdown(`- ${plain(r)}\n`);
      if (h.reasons.length > 8) md.appendMarkdown(`- … ${vscode.l10n.t('{0} more', h.reasons.length - 8)}\n`);
      if (h.identity && h.state !== 'unauthorised') md.appendMarkdown(`\n${vscode.l10n.t('Signed in as {0}', plain(h.identity.username))}\n`);
      if (h.state === 'unauthorised' || h.state === 'unreachable') this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
      else if (h.state === 'degraded') this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    }
    const endpoint = this.connection.inventoryEndpoint;
    if (endpoint && !serverMatchesEndpoint(state.server, endpoint)) {
      md.appendMarkdown(`\n\n$(warning) ${vscode.l10n.t("The inventory's controlPlaneEndpoint is {0}, this context's server is {1}: is it the same cluster?", plain(endpoint), plain(state.server))}`);
    }
    md.appendMarkdown(`\n\n${vscode.l10n.t('Click to select another context.')}`);
    this.item.tooltip = md;
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }
}

/** The health state's word in the status bar's text (`healthy`, `degraded`, …), in the display language. */
function stateWord(state: ClusterHealth['state']): string {
  switch (state) {
    case 'healthy':
      return vscode.l10n.t('healthy');
    case 'degraded':
      return vscode.l10n.t('degraded');
    case 'unauthorised':
      return vscode.l10n.t('unauthorised');
    case 'unreachable':
      return vscode.l10n.t('unreachable');
  }
}

function failureWords(kind: string | undefined): string {
  switch (kind) {
    case 'dns':
      return vscode.l10n.t('API name not found');
    case 'tls':
      return vscode.l10n.t('TLS failed');
    case 'auth':
      return vscode.l10n.t('credentials rejected');
    case 'forbidden':
      return vscode.l10n.t('unauthorised');
    case 'timeout':
      return vscode.l10n.t('API not answering');
    case 'refused':
      return vscode.l10n.t('connection refused');
    case 'unreachable':
      return vscode.l10n.t('API unreachable');
    default:
      return vscode.l10n.t('cannot connect');
  }
}
