/** The editor's long-lived services, built once by the composition root; commands, views and editor helpers take what they need from it. */
import type * as vscode from 'vscode';
import type { CertificateInspections } from './certificateInspections';
import type { ClusterConnection } from './clusterConnection';
import type { EtcdBackups } from './etcdBackups';
import type { ConfigDiagnostics } from './configDiagnostics';
import type { InventoryWorkspace } from './inventoryWorkspace';
import type { HostSessions } from './hostSessions';
import type { ReportDocuments } from './reportDocuments';

export interface EditorServices {
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
  /** The local etcd backups and the nodes' scheduled snapshots (Backups view). */
  backups: EtcdBackups;
}
