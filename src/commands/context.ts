/** What every command handler may use; built once by the composition root. */
import type * as vscode from 'vscode';
import type { ClusterConnection } from '../editor/clusterConnection';
import type { ConfigDiagnostics } from '../editor/configDiagnostics';
import type { InventoryWorkspace } from '../editor/inventoryWorkspace';

export interface CommandContext {
  extension: vscode.ExtensionContext;
  inventory: InventoryWorkspace;
  /** Lints the workspace's config files (diagnostics, quick fixes, the Diagnostics webview). */
  configDiagnostics: ConfigDiagnostics;
  /** The cluster connection of the live views (connects lazily). */
  connection: ClusterConnection;
}

export type CommandHandler = (...args: any[]) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
