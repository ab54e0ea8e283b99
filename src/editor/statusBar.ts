/**
 * Status bar item: the cluster context and API health through the VIP (the kubeconfig's server, which
 * for a kubeadm HA cluster is the controlPlaneEndpoint). Health is a `/readyz` GET every 30 s while
 * connected and the window is focused, skipped while the views' watches are receiving events or bookmarks
 * (they prove the API answers) — so with a live view open there is no request besides the watches.
 */
import * as vscode from 'vscode';
import { CommandIds } from '../commands/ids';
import type { ClusterConnection, ConnectionState } from './clusterConnection';
import { serverMatchesEndpoint } from '../core/live/kubeconfig';

const PROBE_EVERY_MS = 30_000;

export class ClusterStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('kubeadm.cluster', vscode.StatusBarAlignment.Left, 40);
  private readonly disposables: vscode.Disposable[] = [this.item];
  private timer: NodeJS.Timeout | undefined;
  private lastProbe = 0;
  /** Probes sent (for the idle-requests measurement). */
  probes = 0;

  constructor(private readonly connection: ClusterConnection) {
    this.item.name = 'Kubeadm cluster';
    this.item.command = CommandIds.selectClusterContext;
    this.disposables.push(
      connection.onDidChangeState((s) => this.render(s)),
      vscode.window.onDidChangeWindowState((w) => w.focused && Date.now() - this.lastProbe > PROBE_EVERY_MS && void this.probe()),
    );
    this.render(connection.state);
  }

  private render(state: ConnectionState, health?: { ok: boolean; ms: number; why?: string }): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    switch (state.kind) {
      case 'idle':
        this.item.hide();
        return;
      case 'untrusted':
        this.item.text = '$(shield) Kubeadm: untrusted';
        this.item.tooltip = 'The workspace is not trusted: Kubeadm Workbench does not connect to the cluster.';
        this.item.backgroundColor = undefined;
        break;
      case 'connecting':
        this.item.text = '$(sync~spin) Kubeadm: connecting…';
        this.item.tooltip = undefined;
        break;
      case 'error':
        if (state.failure === 'config') {
          // No kubeconfig yet (e.g. before the cluster is brought up): informative, not alarming.
          this.item.text = '$(plug) Kubeadm: no kubeconfig';
          this.item.backgroundColor = undefined;
        } else {
          this.item.text = '$(error) Kubeadm: cluster unreachable';
          this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        }
        this.item.tooltip = new vscode.MarkdownString(`**Cannot connect**\n\n${state.message}\n\nClick to pick a kubeconfig context.`);
        break;
      case 'connected': {
        const h = health;
        const latency = h && Number.isFinite(h.ms) ? ` · ${Math.round(h.ms)} ms` : h?.ok ? ' · live' : '';
        this.item.text = `$(${h ? (h.ok ? 'pass' : 'error') : 'server'}) ${state.context}${h ? (h.ok ? latency : ' · API down') : ''}`;
        const md = new vscode.MarkdownString(`**${state.context}**\n\nAPI \`${state.server}\`\n\n`, true);
        md.appendMarkdown(h ? (h.ok ? (Number.isFinite(h.ms) ? `\`/readyz\` ok in ${Math.round(h.ms)} ms` : 'watches receiving events') : `\`/readyz\` failed: ${h.why ?? 'not ready'}`) : 'checking…');
        const endpoint = this.connection.inventoryEndpoint;
        if (endpoint && !serverMatchesEndpoint(state.server, endpoint)) md.appendMarkdown(`\n\n$(warning) The inventory's controlPlaneEndpoint is \`${endpoint}\`, this context's server is \`${state.server}\`: is it the same cluster?`);
        md.appendMarkdown('\n\nClick to select another context.');
        this.item.tooltip = md;
        this.item.backgroundColor = h && !h.ok ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
        if (!h) void this.probe();
        else this.timer = setTimeout(() => void this.probe(), PROBE_EVERY_MS);
        break;
      }
    }
    this.item.show();
  }

  private async probe(): Promise<void> {
    const conn = this.connection.connection;
    const state = this.connection.state;
    if (!conn || state.kind !== 'connected') return;
    if (!vscode.window.state.focused) {
      // Resume when the window regains focus (onDidChangeWindowState).
      return;
    }
    this.lastProbe = Date.now();
    // While views watch, their events and bookmarks prove the API answers through the endpoint: no request.
    const heard = conn.cluster.lastHeardAt();
    if (heard !== undefined && Date.now() - heard < PROBE_EVERY_MS) {
      this.render(state, { ok: true, ms: NaN });
      return;
    }
    this.probes++;
    const h = await conn.health(5000);
    if (this.connection.connection !== conn) return;
    this.render(state, { ok: h.ok, ms: h.ms, ...(h.error ? { why: h.error.describe() } : h.detail && !h.ok ? { why: h.detail } : {}) });
  }

  dispose(): void {
    clearTimeout(this.timer);
    vscode.Disposable.from(...this.disposables).dispose();
  }
}
