/**
 * Composition root: builds the services, views and commands and hands their disposables to VS Code.
 * Nothing here parses, connects or computes; activation stays cheap (the inventory loads lazily
 * when a view first asks for it).
 */
import * as vscode from 'vscode';
import { registerCommands } from './commands/registrar';
import { ConfigDiagnostics } from './editor/configDiagnostics';
import { ConfigProviders } from './editor/configProviders';
import { CertificateInspections } from './editor/certificateInspections';
import { CertificateStatusBar } from './editor/certificateStatusBar';
import { ClusterConnection } from './editor/clusterConnection';
import { ClusterStatusBar } from './editor/statusBar';
import { InventoryWorkspace } from './editor/inventoryWorkspace';
import { HostSessions } from './editor/hostSessions';
import { ReportDocuments } from './editor/reportDocuments';
import { CertificatesView } from './views/certificatesView';
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
  /** The live cluster connection (connects when a live view is first shown). */
  connection: ClusterConnection;
  /** The tree data providers (for tests). */
  views: { inventory: InventoryView; controlPlane: ControlPlaneView; leases: LeasesView; etcdMembers: EtcdMembersView };
}

export function activate(context: vscode.ExtensionContext): KubeadmWorkbenchApi {
  const started = performance.now();
  const inventory = new InventoryWorkspace();
  const configDiagnostics = new ConfigDiagnostics(inventory, { workerFile: vscode.Uri.joinPath(context.extensionUri, 'dist', 'lintWorker.js').fsPath });
  const sessions = new HostSessions(context);
  // Lazy: the kube adapter bundle loads on the first visible live view, never during activation.
  // SSH is the second source of the live views (etcd when the API is down, manifest drift).
  const connection = new ClusterConnection(context, inventory, () => {
    const loaded = inventory.current;
    return sessions.remoteExec(loaded?.inventory, loaded && vscode.workspace.getWorkspaceFolder(loaded.uri)?.uri);
  });
  const views = {
    inventory: new InventoryView(inventory, connection),
    controlPlane: new ControlPlaneView(connection),
    leases: new LeasesView(connection),
    etcdMembers: new EtcdMembersView(connection),
  };
  const reports = new ReportDocuments();
  const certificates = new CertificateInspections(sessions);
  const certificatesView = new CertificatesView(certificates);
  const factDiagnostics = vscode.languages.createDiagnosticCollection('kubeadm-facts');
  context.subscriptions.push(
    sessions,
    reports,
    factDiagnostics,
    inventory,
    connection,
    new ClusterStatusBar(connection),
    certificates,
    certificatesView,
    new CertificateStatusBar(certificates),
    configDiagnostics,
    new ConfigProviders(configDiagnostics, inventory),
    DiagnosticsPanel.registerSerializer(context.extensionUri, configDiagnostics, inventory),
    ...Object.values(views),
    ...registerCommands({ extension: context, inventory, configDiagnostics, connection, sessions, reports, factDiagnostics, certificates }),
  );
  return { activationMs: performance.now() - started, inventory, configDiagnostics, diagnosticsPanel: () => DiagnosticsPanel.instance, connection, views };
}

export function deactivate(): void {
  // Everything is owned by context.subscriptions.
}
