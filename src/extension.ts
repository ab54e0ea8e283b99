/**
 * Composition root: builds the services, views and commands and hands their disposables to VS Code.
 * Nothing here parses, connects or computes; activation stays cheap (the inventory loads lazily
 * when a view first asks for it).
 */
import * as vscode from 'vscode';
import { registerCommands } from './commands/registrar';
import { ConfigDiagnostics } from './editor/configDiagnostics';
import { ConfigProviders } from './editor/configProviders';
import { InventoryWorkspace } from './editor/inventoryWorkspace';
import { ControlPlaneView } from './views/controlPlaneView';
import { EtcdMembersView } from './views/etcdMembersView';
import { InventoryView } from './views/inventoryView';
import { LeasesView } from './views/leasesView';
import { DiagnosticsPanel } from './webviews/diagnosticsPanel';

/** Returned from activate() for tests and for other extensions. */
export interface KubeadmWorkbenchApi {
  activationMs: number;
  inventory: InventoryWorkspace;
  /** Config-file diagnostics (the lint worker starts on the first config file, not here). */
  configDiagnostics: ConfigDiagnostics;
  /** The open Diagnostics webview, if any (for tests). */
  diagnosticsPanel: () => DiagnosticsPanel | undefined;
}

export function activate(context: vscode.ExtensionContext): KubeadmWorkbenchApi {
  const started = performance.now();
  const inventory = new InventoryWorkspace();
  const configDiagnostics = new ConfigDiagnostics(inventory, { workerFile: vscode.Uri.joinPath(context.extensionUri, 'dist', 'lintWorker.js').fsPath });
  context.subscriptions.push(
    inventory,
    configDiagnostics,
    new ConfigProviders(configDiagnostics, inventory),
    new InventoryView(inventory),
    new ControlPlaneView(),
    new LeasesView(),
    new EtcdMembersView(),
    ...registerCommands({ extension: context, inventory, configDiagnostics }),
  );
  return { activationMs: performance.now() - started, inventory, configDiagnostics, diagnosticsPanel: () => DiagnosticsPanel.instance };
}

export function deactivate(): void {
  // Everything is owned by context.subscriptions.
}
