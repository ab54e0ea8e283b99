/**
 * Composition root: builds the services, views and commands and hands their disposables to VS Code.
 * Nothing here parses, connects or computes; activation stays cheap (the inventory loads lazily
 * when a view first asks for it).
 */
import * as vscode from 'vscode';
import { registerCommands } from './commands/registrar';
import { ConfigDiagnostics } from './editor/configDiagnostics';
import { ConfigProviders } from './editor/configProviders';
import { FieldDocsProviders } from './editor/fieldDocsProviders';
import { CertificateInspections } from './editor/certificateInspections';
import { EtcdBackups } from './editor/etcdBackups';
import { BackupsView } from './views/backupsView';
import { CertificateStatusBar } from './editor/certificateStatusBar';
import { ClusterConnection } from './editor/clusterConnection';
import { ConnectionContextKeys } from './editor/connectionContextKeys';
import { ClusterStatusBar } from './editor/statusBar';
import { BalancerWatch } from './editor/balancerWatch';
import { InventoryWorkspace } from './editor/inventoryWorkspace';
import { HostSessions, substituteHostSessions } from './editor/hostSessions';
import { ReportDocuments } from './editor/reportDocuments';
import { CertificatesView } from './views/certificatesView';
import { ControlPlaneView } from './views/controlPlaneView';
import { EtcdMembersView } from './views/etcdMembersView';
import { InventoryView } from './views/inventoryView';
import { LeasesView } from './views/leasesView';
import { DiagnosticsPanel } from './webviews/diagnosticsPanel';
import { PlanPanel } from './webviews/planPanel';
import { logDisposable } from './editor/log';
import { wrapEditorUi } from './editor/vscodeUi';
import { useEditorLanguage } from './editor/language';

/** Returned from activate() for tests and for other extensions. */
export interface KubeadmWorkbenchApi {
  activationMs: number;
  inventory: InventoryWorkspace;
  /** Config-file diagnostics (the lint worker starts on the first config file, not here). */
  configDiagnostics: ConfigDiagnostics;
  /** The open Diagnostics webview, if any (for tests). */
  diagnosticsPanel: () => DiagnosticsPanel | undefined;
  /** The open bring-up plan webview, if any (for tests). */
  planPanel: () => PlanPanel | undefined;
  /** The live cluster connection (connects when a live view is first shown). */
  connection: ClusterConnection;
  /** The cluster status bar item (for tests). */
  statusBar: ClusterStatusBar;
  /** The tree data providers (for tests). */
  views: { inventory: InventoryView; controlPlane: ControlPlaneView; leases: LeasesView; etcdMembers: EtcdMembersView };
  /** The Backups view (for tests). */
  backupsView: BackupsView;
  /**
   * For tests only: put a scripted Ui in front of VS Code's (its questions answered by a script); undefined restores
   * it. Present only when the extension host runs with KW_TEST_UI=1 (the test harness): another extension must never
   * be able to read the sudo password or answer a confirmation in the user's place.
   */
  wrapUi?: typeof wrapEditorUi;
  /** For tests only, under KW_TEST_UI=1 like wrapUi: hosts played below SSH in place of real connections. */
  substituteSsh?: typeof substituteHostSessions;
  /** For tests only, under KW_TEST_UI=1: the config diagnostics a reload builds (same cache file); the caller disposes it. */
  freshConfigDiagnostics?: () => ConfigDiagnostics;
}

export function activate(context: vscode.ExtensionContext): KubeadmWorkbenchApi {
  const started = performance.now();
  useEditorLanguage();
  const inventory = new InventoryWorkspace();
  const cacheFile = context.storageUri && vscode.Uri.joinPath(context.storageUri, 'lint-cache.json').fsPath;
  const lintOptions = {
    workerFile: vscode.Uri.joinPath(context.extensionUri, 'dist', 'lintWorker.js').fsPath,
    ...(cacheFile ? { cache: { file: cacheFile, version: String(context.extension.packageJSON.version) } } : {}),
  };
  const configDiagnostics = new ConfigDiagnostics(inventory, lintOptions);
  const sessions = new HostSessions(context);
  // Lazy: the kube adapter bundle loads on the first visible live view, never during activation.
  // SSH is the second source of the live views (etcd when the API is down, manifest drift).
  const remote = () => {
    const loaded = inventory.current;
    return sessions.remoteExec(loaded?.inventory, loaded && vscode.workspace.getWorkspaceFolder(loaded.uri)?.uri);
  };
  const connection = new ClusterConnection(context, inventory, remote);
  // The balancers over SSH while the Inventory view shows them; their state joins the health model.
  const balancers = new BalancerWatch(inventory, connection, remote);
  connection.attachBalancers(balancers);
  const views = {
    inventory: new InventoryView(inventory, connection, balancers),
    controlPlane: new ControlPlaneView(connection),
    leases: new LeasesView(connection),
    etcdMembers: new EtcdMembersView(connection),
  };
  const statusBar = new ClusterStatusBar(connection);
  const reports = new ReportDocuments();
  const certificates = new CertificateInspections(sessions);
  // A certificate under the warning threshold degrades the cluster's health, as in `status --ssh`.
  connection.attachProblems(certificates);
  // Scheduled snapshots that stopped degrade it too, once the Backups view has read them.
  const backups = new EtcdBackups(sessions);
  connection.attachProblems(backups);
  const backupsView = new BackupsView(backups);
  const certificatesView = new CertificatesView(certificates);
  const factDiagnostics = vscode.languages.createDiagnosticCollection('kubeadm-facts');
  context.subscriptions.push(
    logDisposable,
    sessions,
    balancers,
    reports,
    factDiagnostics,
    inventory,
    connection,
    statusBar,
    new ConnectionContextKeys(connection),
    certificates,
    certificatesView,
    backups,
    backupsView,
    new CertificateStatusBar(certificates),
    configDiagnostics,
    new ConfigProviders(configDiagnostics, inventory),
    new FieldDocsProviders(configDiagnostics, inventory),
    DiagnosticsPanel.registerSerializer(context.extensionUri, configDiagnostics, inventory),
    ...Object.values(views),
    ...registerCommands({ extension: context, inventory, configDiagnostics, connection, sessions, reports, factDiagnostics, certificates, backups }),
  );
  return { activationMs: performance.now() - started, inventory, configDiagnostics, diagnosticsPanel: () => DiagnosticsPanel.instance, planPanel: () => PlanPanel.instance, connection, statusBar, views, backupsView, ...(process.env.KW_TEST_UI === '1' ? { wrapUi: wrapEditorUi, substituteSsh: substituteHostSessions, freshConfigDiagnostics: () => new ConfigDiagnostics(inventory, lintOptions) } : {}) };
}

export function deactivate(): void {
  // Everything is owned by context.subscriptions.
}
