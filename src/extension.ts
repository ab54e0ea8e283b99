/**
 * Composition root: builds the services, views and commands and hands their disposables to VS Code.
 * Nothing here parses, connects or computes; activation stays cheap (the inventory loads lazily
 * when a view first asks for it).
 *
 * What this file imports statically is what VS Code loads before activate() returns (dist/extension.js and the
 * files it requires at its top level; test/package holds it to a byte budget): the services and views the first
 * paint of the Inventory needs. Everything else is an `import()` where it is first needed — each command in the
 * registrar, the linters (editor/lintRegistry.ts), the SSH library, the engine behind the certificate, backup and
 * balancer services, the webviews — and the build gives each such import a file of its own (scripts/bundles.mjs).
 * A new command goes into the registrar as one more loader; a new provider that needs more than a few lines of code
 * goes behind `lazyProvider` (editor/lazy.ts), which imports its file on the first request.
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
import type { DiagnosticsPanel } from './webviews/diagnosticsPanel';
import type { PlanPanel } from './webviews/planPanel';
import { DIAGNOSTICS_VIEW_TYPE } from './webviews/viewTypes';
import { setPreflightPresenter } from './editor/preflightView';
import type { PreflightPanel } from './webviews/preflightPanel';
import { logDisposable } from './editor/log';
import { lazyProvider } from './editor/lazy';
import { wrapEditorUi } from './editor/vscodeUi';
import { useEditorLanguage } from './editor/language';

/** Returned from activate() for tests and for other extensions. */
export interface KubeadmWorkbenchApi {
  activationMs: number;
  inventory: InventoryWorkspace;
  /** Config-file diagnostics (the lint worker starts on the first config file, not here). */
  configDiagnostics: ConfigDiagnostics;
  /** The open Diagnostics webview, if any (for tests; its code loads on the first call if it has not yet). */
  diagnosticsPanel: () => Promise<DiagnosticsPanel | undefined>;
  /** The open bring-up plan webview, if any (for tests; as diagnosticsPanel). */
  planPanel: () => Promise<PlanPanel | undefined>;
  /** The open preflight webview, if any (for tests; as diagnosticsPanel). */
  preflightPanel: () => Promise<PreflightPanel | undefined>;
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
  /** For tests only, under KW_TEST_UI=1: the extension's files loaded when activate() returned (dist/…, in load order). */
  filesLoadedByActivation?: string[];
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
  // The workflows' preflight tables open as the panel (the editor layer below cannot import it).
  // The panel's code loads with the first preflight table shown.
  setPreflightPresenter({ show: async (report, options) => void (await import('./webviews/preflightPanel.js')).PreflightPanel.show(context.extensionUri, report, options) });
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
    // The Diagnostics webview VS Code restores after a reload: its code loads then.
    vscode.window.registerWebviewPanelSerializer(
      DIAGNOSTICS_VIEW_TYPE,
      lazyProvider(
        () => import('./webviews/diagnosticsPanel.js').then((m) => ({ deserializeWebviewPanel: (panel: vscode.WebviewPanel, state: unknown) => m.DiagnosticsPanel.restore(panel, state, context.extensionUri, configDiagnostics, inventory) })),
        ['deserializeWebviewPanel'],
      ),
    ),
    ...Object.values(views),
    ...registerCommands({ extension: context, inventory, configDiagnostics, connection, sessions, reports, factDiagnostics, certificates, backups }),
  );
  return { activationMs: performance.now() - started, inventory, configDiagnostics, diagnosticsPanel: async () => (await import('./webviews/diagnosticsPanel.js')).DiagnosticsPanel.instance, planPanel: async () => (await import('./webviews/planPanel.js')).PlanPanel.instance, preflightPanel: async () => (await import('./webviews/preflightPanel.js')).PreflightPanel.instance, connection, statusBar, views, backupsView, ...(process.env.KW_TEST_UI === '1' ? { wrapUi: wrapEditorUi, substituteSsh: substituteHostSessions, freshConfigDiagnostics: () => new ConfigDiagnostics(inventory, lintOptions), filesLoadedByActivation: loadedFiles(context) } : {}) };
}

/** The extension's own files in the module cache: what it has loaded so far. */
function loadedFiles(context: vscode.ExtensionContext): string[] {
  const dist = vscode.Uri.joinPath(context.extensionUri, 'dist').fsPath + '/';
  return Object.keys(require.cache).filter((f) => f.startsWith(dist)).map((f) => f.slice(dist.length));
}

export function deactivate(): void {
  // Everything is owned by context.subscriptions.
}
