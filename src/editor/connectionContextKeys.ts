/**
 * Context keys that follow the cluster connection, for package.json `when` clauses:
 * - `kubeadm.clusterConnected`: Drain/Cordon/Uncordon are offered on host rows only then;
 * - `kubeadm.kubeconfigMissing`: no kubeconfig file exists where the connection would look, so the live views show
 *   their "no kubeconfig" welcome (Select kubeconfig file…, Bring Up Cluster…, Open Settings).
 */
import * as vscode from 'vscode';
import type { ClusterConnection } from './clusterConnection';
import { kubeconfigFound } from './contextPicker';
import { setContextKey } from './contextKeys';
import { affects } from './settings';

export class ConnectionContextKeys implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[];
  private values = new Map<'clusterConnected' | 'kubeconfigMissing', boolean>();

  constructor(private readonly connection: ClusterConnection) {
    this.disposables = [
      connection.onDidChangeState(() => this.update()),
      vscode.workspace.onDidChangeConfiguration((e) => affects(e, 'kubeconfig') && this.update()),
      // A kubeconfig written outside the editor (kubeadm's admin.conf copied over) counts when the user comes back.
      vscode.window.onDidChangeWindowState((w) => w.focused && this.update()),
    ];
    this.update();
  }

  /** True when no kubeconfig file exists (read by the live views too). */
  get kubeconfigMissing(): boolean {
    return this.values.get('kubeconfigMissing') ?? false;
  }

  update(): void {
    this.set('clusterConnected', this.connection.state.kind === 'connected');
    this.set('kubeconfigMissing', !kubeconfigFound());
  }

  private set(key: 'clusterConnected' | 'kubeconfigMissing', value: boolean): void {
    if (this.values.get(key) === value) return;
    this.values.set(key, value);
    setContextKey(key, value);
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }
}
