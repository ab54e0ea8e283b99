/** What every command handler may use; built once by the composition root. */
import type * as vscode from 'vscode';
import type { CertificateInspections } from '../editor/certificateInspections';
import type { ClusterConnection } from '../editor/clusterConnection';
import type { ConfigDiagnostics } from '../editor/configDiagnostics';
import type { InventoryWorkspace } from '../editor/inventoryWorkspace';
import type { HostSessions } from '../editor/hostSessions';
import type { ReportDocuments } from '../editor/reportDocuments';

export interface CommandContext {
  extension: vscode.ExtensionContext;
  inventory: InventoryWorkspace;
  /** Lints the workspace's config files (diagnostics, quick fixes, the Diagnostics webview). */
  configDiagnostics: ConfigDiagnostics;
  /** The cluster connection of the live views (connects lazily). */
  connection: ClusterConnection;
  /** SSH to the inventory's hosts (trust-gated, modal host-key prompts). */
  sessions: HostSessions;
  /** Read-only documents for plans and reports. */
  reports: ReportDocuments;
  /** Host-fact findings, shown on the hosts' lines in inventory.yaml. */
  factDiagnostics: vscode.DiagnosticCollection;
  /** The last certificate inspection (Certificates view, status-bar warning). */
  certificates: CertificateInspections;
}

export type CommandHandler = (...args: any[]) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
