/**
 * Lints the workspace's config files (kubeadm, HAProxy, Keepalived, containerd, sysctl, modules, CNI
 * manifests — whatever the registry detects by name and content) and publishes the findings as
 * diagnostics: on open, as you type (debounced), and again for every dependant when the inventory or a
 * sibling file changes. The rules run in a worker thread with a per-file time limit (src/engine/lintRunner.ts),
 * created on the first lint, so the extension host never blocks on a pathological file. After a reload the closed
 * files' findings come back from a cache (./findingsCacheStore.ts) when nothing they depend on changed.
 * inventory.yaml itself is published by InventoryWorkspace; here it is the context of every lint.
 */
import * as vscode from 'vscode';
import type { Finding } from '../core/findings';
import type { FileKind, LintContext } from '../core/lint/types';
import { LintRunner, RUNNER_RULES, type LintOutcome } from '../engine/lintRunner';
import { toDiagnostic } from './diagnostics';
import { capFindings } from '../core/lint/fixPlan';
import type { InventoryWorkspace } from './inventoryWorkspace';
import { setting, affects } from './settings';
import { log } from './log';
import { FolderEvents } from './folderEvents';
import { CONFIG_GLOB, CONFIG_NAME, contextFiles, detect, EXCLUDE_GLOB, EXCLUDED_FOLDERS, LANGUAGE_KINDS, MAX_SCAN_FILES, mergeTargets, readDisk, readDiskTexts, untrackedUri } from './configFiles';
import { FindingsCacheStore } from './findingsCacheStore';
import { lintRegistry, lintRegistryReadyFor, loadLintRegistry } from './lintRegistry';
import { setContextKey } from './contextKeys';

export const TYPING_DELAY_MS = 250;
const DEPENDANT_DELAY_MS = 400;
const DETECT_DELAY_MS = 500;

/** Why a file is linted: its text changed, it appeared, or a file it is checked against changed. */
type Reason = 'edit' | 'created' | 'dependant';

interface Tracked {
  uri: vscode.Uri;
  kind: FileKind;
  /** Workspace-relative path: what the rules see and what findings name. */
  path: string;
  /** Disk text of a file that is not open (open documents are read live). */
  diskText?: string;
}

interface Result {
  /** Document version the findings belong to (undefined for disk text). */
  version: number | undefined;
  findings: Finding[];
  /** Findings per target file (a cross-file finding may point into another file). */
  targets: Map<string, Finding[]>;
  ms: number;
  status: LintOutcome['status'];
}

export interface ConfigDiagnosticsOptions {
  /** dist/lintWorker.js of the installed extension. */
  workerFile?: string;
  /** Findings of closed files kept across reloads (the extension's workspace storage); none without a workspace. */
  cache?: { file: string; version: string };
}

/** What the startup scan did (for the tests and the log): files found, restored from the cache, left to lint. */
export interface StartupScan {
  files: number;
  fromCache: number;
  linted: number;
  /** From the scan's start until every file found has its findings published; doneAt is then (Date.now()). */
  ms?: number;
  doneAt?: number;
}

export class ConfigDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('kubeadm-config');
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** Fires after diagnostics changed (the Diagnostics webview listens). */
  readonly onDidChange = this.changeEmitter.event;
  private readonly disposables: vscode.Disposable[] = [this.collection, this.changeEmitter];
  private runner: LintRunner | undefined;
  private readonly tracked = new Map<string, Tracked>();
  /** Documents known not to be config files, by uri and version, so typing in them costs nothing. */
  private readonly notConfig = new Map<string, number>();
  private readonly results = new Map<string, Result>();
  /** Text of each file at its last lint, to tell an edit that changed something from a re-open. */
  private readonly lastText = new Map<string, string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly detectTimers = new Map<string, NodeJS.Timeout>();
  private readonly queue = new Map<string, Reason>();
  private pumping: Promise<void> | undefined;
  private scan: Promise<void> | undefined;
  /** Started with the workspace scan: the files of folders that appear or go at once (./folderEvents.ts). */
  private folders: FolderEvents | undefined;
  private idleWaiters: (() => void)[] = [];
  private disposed = false;
  private readonly saved: FindingsCacheStore | undefined;
  /** The scan that starts with the extension; undefined until it ran. */
  startupScan: StartupScan | undefined;

  constructor(
    private readonly inventory: InventoryWorkspace,
    private readonly options: ConfigDiagnosticsOptions = {},
  ) {
    this.saved = options.cache && new FindingsCacheStore({ ...options.cache, ...(options.workerFile ? { workerFile: options.workerFile } : {}) });
    const watcher = vscode.workspace.createFileSystemWatcher(CONFIG_GLOB);
    this.disposables.push(
      watcher,
      vscode.workspace.onDidOpenTextDocument((d) => this.onOpen(d)),
      vscode.workspace.onDidChangeTextDocument((e) => e.contentChanges.length && this.onEdit(e.document)),
      vscode.workspace.onDidCloseTextDocument((d) => this.onClose(d)),
      watcher.onDidChange((uri) => this.onDisk(uri)),
      watcher.onDidCreate((uri) => this.onDisk(uri)),
      watcher.onDidDelete((uri) => this.onDeleted(uri)),
      inventory.onDidChange(() => this.relintAll()),
      vscode.workspace.onDidChangeConfiguration((e) => affects(e, 'lintTimeoutMs') && this.relintAll()),
      vscode.window.onDidChangeActiveTextEditor((e) => this.updateContextKey(e)),
    );
    // Documents already open when the extension activates, after activate() returned.
    const initial = setTimeout(() => {
      for (const d of vscode.workspace.textDocuments) this.onOpen(d);
      this.updateContextKey(vscode.window.activeTextEditor);
      // After a reload the closed files' findings come back without waiting for a file to be opened: a bounded scan
      // (MAX_SCAN_FILES), the findings of unchanged files from the cache, the others linted in the worker.
      void this.lintWorkspace();
    }, 0);
    this.disposables.push({ dispose: () => clearTimeout(initial) });
  }

  /** The kind of a document or file, when it is a config file this service lints. */
  kindOf(uri: vscode.Uri): FileKind | undefined {
    return this.tracked.get(uri.toString())?.kind;
  }

  /** Findings currently shown for a file (merged from every source that points into it). */
  findingsFor(uri: vscode.Uri): Finding[] {
    return mergeTargets(this.results.values(), uri.toString());
  }

  /** Every file with findings, for the Diagnostics webview's workspace scope. */
  allFindings(): { uri: vscode.Uri; findings: Finding[] }[] {
    const keys = new Set<string>();
    for (const r of this.results.values()) for (const k of r.targets.keys()) keys.add(k);
    return [...keys].map((k) => ({ uri: vscode.Uri.parse(k), findings: mergeTargets(this.results.values(), k) })).filter((e) => e.findings.length > 0);
  }

  /** The last lint of a document, when it matches the document's current version. */
  currentFindings(document: vscode.TextDocument): Finding[] | undefined {
    const r = this.results.get(document.uri.toString());
    if (!r || r.version !== document.version) return undefined;
    return this.findingsFor(document.uri);
  }

  /** Lints every config file of the workspace (not only the open ones), once; later calls wait for it. */
  lintWorkspace(): Promise<void> {
    this.folders ??= new FolderEvents({
      include: CONFIG_GLOB,
      exclude: EXCLUDE_GLOB,
      excludedFolders: EXCLUDED_FOLDERS,
      maxFiles: MAX_SCAN_FILES,
      isWatchedFile: (uri) => CONFIG_NAME.test(uri.path),
      found: (uri) => this.onDisk(uri),
      deleted: (uri) => this.onFolderDeleted(uri),
    });
    this.scan ??= this.scanWorkspace();
    return this.scan.then(() => this.whenIdle());
  }

  /** Re-reads the workspace and lints everything again. */
  async refresh(): Promise<void> {
    this.scan = undefined;
    await this.lintWorkspace();
    this.relintAll();
    await this.whenIdle();
  }

  /** Writes the findings cache now instead of a moment after the lints settled (tests). */
  flushCache(): Promise<void> {
    return this.saved?.flush() ?? Promise.resolve();
  }

  /** Resolves when nothing is scheduled or running (tests and the webview use it). */
  whenIdle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  get busy(): boolean {
    return this.timers.size > 0 || this.queue.size > 0 || this.pumping !== undefined;
  }

  // ---- events -------------------------------------------------------------------------------------

  private onOpen(document: vscode.TextDocument): void {
    if (!lintRegistryReadyFor(document, () => !this.disposed && this.onOpen(document))) return;
    if (!this.track(document)) return;
    this.schedule(document.uri, 0, 'edit');
    if (vscode.window.activeTextEditor?.document === document) this.updateContextKey(vscode.window.activeTextEditor);
  }

  /** Typing costs one timer reset: detection and getText() wait for the pause (a 5 MB file stays cheap). */
  private onEdit(document: vscode.TextDocument): void {
    if (document.uri.scheme !== 'file' && document.uri.scheme !== 'untitled') return; // output channels, git, ...
    const key = document.uri.toString();
    if (this.tracked.has(key)) {
      this.schedule(document.uri, TYPING_DELAY_MS, 'edit');
      return;
    }
    // Not a config file (yet): look again once typing pauses, e.g. when `kind: InitConfiguration` was typed.
    const look = (): void => {
      if (!lintRegistryReadyFor(document, () => !this.disposed && look())) return;
      if (!document.isClosed && this.notConfig.get(key) !== document.version && this.track(document)) {
        this.schedule(document.uri, 0, 'edit');
        this.updateContextKey(vscode.window.activeTextEditor);
      }
    };
    clearTimeout(this.detectTimers.get(key));
    this.detectTimers.set(
      key,
      setTimeout(() => {
        this.detectTimers.delete(key);
        look();
      }, DETECT_DELAY_MS),
    );
  }

  private onClose(document: vscode.TextDocument): void {
    const key = document.uri.toString();
    clearTimeout(this.detectTimers.get(key));
    this.detectTimers.delete(key);
    this.notConfig.delete(key);
    const t = this.tracked.get(key);
    if (!t) return;
    if (document.uri.scheme === 'file' && this.scan) {
      // Still part of the workspace: go back to the disk text (unsaved edits are gone).
      this.scheduleDiskRead(document.uri);
    } else {
      this.forget(key);
    }
  }

  private onDisk(uri: vscode.Uri): void {
    if (this.isOpen(uri) || !this.scan) return;
    this.scheduleDiskRead(uri);
  }

  private onDeleted(uri: vscode.Uri): void {
    if (this.isOpen(uri)) return;
    const key = uri.toString();
    if (this.tracked.has(key)) {
      this.forget(key);
      this.scheduleDependants(key);
    } else this.onFolderDeleted(uri); // a folder named like a config file (site.conf/)
  }

  private onFolderDeleted(folder: vscode.Uri): void {
    const prefix = `${folder.toString()}/`;
    for (const [key, t] of [...this.tracked]) if (key.startsWith(prefix)) this.onDeleted(t.uri);
  }

  private scheduleDiskRead(uri: vscode.Uri): void {
    void Promise.all([readDisk(uri), loadLintRegistry()]).then(([text]) => {
      if (this.disposed || this.isOpen(uri)) return;
      const key = uri.toString();
      const known = this.tracked.has(key);
      if (text === undefined || !this.trackText(uri, text)) {
        this.forget(key);
        if (known) this.scheduleDependants(key);
        return;
      }
      this.schedule(uri, 0, known ? 'edit' : 'created');
    });
  }

  private relintAll(): void {
    for (const key of this.tracked.keys()) this.schedule(vscode.Uri.parse(key), 0, 'dependant');
  }

  private scheduleDependants(changed: string): void {
    for (const key of this.tracked.keys()) if (key !== changed) this.schedule(vscode.Uri.parse(key), DEPENDANT_DELAY_MS, 'dependant');
  }

  // ---- tracking -----------------------------------------------------------------------------------

  private isOpen(uri: vscode.Uri): vscode.TextDocument | undefined {
    const key = uri.toString();
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key && !d.isClosed);
  }

  /** Detects the document's kind; tracks it when it is a config file this service lints. */
  private track(document: vscode.TextDocument): boolean {
    if (document.uri.scheme !== 'file' && document.uri.scheme !== 'untitled') return false;
    const key = document.uri.toString();
    // The contributed languages count too: a file the user set to HAProxy or Keepalived is linted as one.
    const kind = detect(this.pathOf(document.uri), document.getText()) ?? LANGUAGE_KINDS[document.languageId];
    if (!kind) {
      this.notConfig.set(key, document.version);
      return false;
    }
    this.notConfig.delete(key);
    this.tracked.set(key, { uri: document.uri, kind, path: this.pathOf(document.uri) });
    return true;
  }

  private trackText(uri: vscode.Uri, text: string): boolean {
    const kind = detect(this.pathOf(uri), text);
    if (!kind) return false;
    this.tracked.set(uri.toString(), { uri, kind, path: this.pathOf(uri), diskText: text });
    return true;
  }

  private forget(key: string): void {
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.queue.delete(key);
    const path = this.tracked.get(key)?.path;
    if (path !== undefined) this.saved?.forget(path);
    this.tracked.delete(key);
    this.lastText.delete(key);
    const old = this.results.get(key);
    this.results.delete(key);
    if (old) this.publish(new Set(old.targets.keys()));
  }

  /** Workspace-relative; in a multi-root workspace prefixed with the folder name, so two folders stay two config sets. */
  private pathOf(uri: vscode.Uri): string {
    if (uri.scheme === 'untitled') return uri.path;
    return vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
  }

  private async scanWorkspace(): Promise<void> {
    const t0 = performance.now();
    // Detection and the cache's rule check take the linters (their own file, loaded here if nothing did yet).
    await loadLintRegistry();
    const isRule = (id: string): boolean => !!lintRegistry().ruleInfo(id) || RUNNER_RULES.some((r) => r.id === id);
    const [uris, cached] = await Promise.all([vscode.workspace.findFiles(CONFIG_GLOB, EXCLUDE_GLOB, MAX_SCAN_FILES), this.saved?.read(isRule)]);
    // Every file's text first (16 at a time), so that a file's siblings are known when its cache entry is checked.
    const closed = uris.filter((uri) => !this.isOpen(uri));
    const texts = await readDiskTexts(closed);
    const found = closed.filter((uri, i) => !this.disposed && !this.isOpen(uri) && texts[i] !== undefined && this.trackText(uri, texts[i]!));
    const scan: StartupScan = { files: found.length, fromCache: 0, linted: 0 };
    for (const uri of found) {
      if (this.disposed) return;
      if (cached && (await this.restore(uri))) scan.fromCache++;
      else {
        scan.linted++;
        this.schedule(uri, 0, 'dependant');
      }
    }
    if (this.startupScan) return;
    this.startupScan = scan;
    await this.whenIdle();
    scan.ms = Math.round(performance.now() - t0);
    scan.doneAt = Date.now();
    log.info(`workspace scan: ${scan.files} config file(s), ${scan.fromCache} from the cache, ${scan.linted} linted, in ${scan.ms} ms`);
  }

  /** Publishes a closed file's findings from the cache when its entry's key is this lint's key; false otherwise. */
  private async restore(uri: vscode.Uri): Promise<boolean> {
    const key = uri.toString();
    const t = this.tracked.get(key);
    const entry = t?.diskText !== undefined ? this.saved?.get(t.path) : undefined;
    if (!t || !entry) return false;
    const context = await this.context(key);
    if (this.saved?.keyOf(t.kind, { path: t.path, text: t.diskText! }, context) !== entry.key || this.tracked.get(key) !== t) return false;
    this.store(key, t, undefined, { status: 'ok', findings: entry.findings, ms: 0 });
    this.lastText.set(key, t.diskText!);
    return true;
  }

  // ---- linting ------------------------------------------------------------------------------------

  private schedule(uri: vscode.Uri, delayMs: number, reason: Reason): void {
    const key = uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        // An edit (or a new file) wins over a dependant re-lint of the same file.
        const queued = this.queue.get(key);
        if (!queued || queued === 'dependant') this.queue.set(key, reason);
        this.pumping ??= this.pump().finally(() => {
          this.pumping = undefined;
          this.notifyIdle();
        });
      }, delayMs),
    );
  }

  private notifyIdle(): void {
    if (this.busy) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private async pump(): Promise<void> {
    while (this.queue.size && !this.disposed) {
      // Open documents first, then the rest of the workspace.
      const keys = [...this.queue.keys()];
      const key = keys.find((k) => this.isOpen(vscode.Uri.parse(k))) ?? keys[0]!;
      const reason = this.queue.get(key)!;
      this.queue.delete(key);
      const t = this.tracked.get(key);
      if (!t) continue;
      const doc = this.isOpen(t.uri);
      const text = doc ? doc.getText() : t.diskText;
      if (text === undefined) continue;
      const version = doc?.version;
      if (doc && reason === 'edit') {
        // The content may have changed what the file is (or made it no config file at all).
        const kind = detect(t.path, text) ?? LANGUAGE_KINDS[doc.languageId];
        if (!kind) {
          this.notConfig.set(key, doc.version);
          this.forget(key);
          continue;
        }
        t.kind = kind;
      }
      const context = await this.context(key);
      const outcome = await this.runnerFor().lint({ path: t.path, text }, context, { kind: t.kind, timeoutMs: setting('lintTimeoutMs') });
      if (this.disposed) return;
      // Stale: the document changed while its lint ran; the newer version is already scheduled.
      if (doc && doc.version !== version) continue;
      if (!this.tracked.has(key)) continue;
      this.store(key, t, version, outcome);
      // A closed file's result is kept for the next session, keyed by everything it depends on.
      const cacheKey = !doc && outcome.status === 'ok' ? this.saved?.keyOf(t.kind, { path: t.path, text }, context) : undefined;
      if (cacheKey) this.saved!.remember(t.path, { key: cacheKey, findings: capFindings(outcome.findings) });
      else if (doc) this.saved?.forget(t.path);
      // The other files are checked against this one: when it changed (or is new), check them again. Re-lints of
      // dependants do not cascade.
      const previous = this.lastText.get(key);
      this.lastText.set(key, text);
      if (reason === 'created' || (reason === 'edit' && previous !== undefined && previous !== text)) this.scheduleDependants(key);
    }
  }

  private store(key: string, t: Tracked, version: number | undefined, outcome: LintOutcome): void {
    const targets = new Map<string, Finding[]>([[key, []]]);
    for (const f of capFindings(outcome.findings)) {
      const target = f.file && f.file !== t.path ? this.resolvePath(f.file, t.uri) : key;
      targets.set(target, [...(targets.get(target) ?? []), f]);
    }
    const old = this.results.get(key);
    // The worker stopped the file or failed on it: the file shows one finding; the log says what happened.
    if (outcome.status === 'timeout' || outcome.status === 'error') log.warn(`lint ${t.path}: ${outcome.status} after ${Math.round(outcome.ms)} ms${outcome.findings[0] ? ` (${outcome.findings[0].message})` : ''}`);
    this.results.set(key, { version, findings: outcome.findings, targets, ms: outcome.ms, status: outcome.status });
    const affected = new Set([...targets.keys(), ...(old?.targets.keys() ?? [])]);
    this.publish(affected);
  }

  /** A path named by a finding or fix: a tracked file's path, else relative to the source's workspace folder. */
  resolvePath(path: string, from: vscode.Uri): string {
    for (const [key, t] of this.tracked) if (t.path === path) return key;
    return untrackedUri(path, from);
  }

  private publish(targets: Set<string>): void {
    for (const target of targets) {
      const findings = mergeTargets(this.results.values(), target);
      const uri = vscode.Uri.parse(target);
      if (findings.length) this.collection.set(uri, findings.map(toDiagnostic));
      else this.collection.delete(uri);
    }
    this.changeEmitter.fire();
  }

  private async context(key: string): Promise<LintContext> {
    const loaded = this.inventory.current ?? (await this.inventory.get());
    const self = this.tracked.get(key);
    const hostNames = new Set(loaded?.inventory?.hosts.map((h) => h.name) ?? []);
    const candidates = [...this.tracked.entries()].filter(([k, t]) => k !== key && t.kind !== 'inventory').map(([, t]) => t);
    const { siblings, vrrpElsewhere } = contextFiles(self?.path, candidates, hostNames, (t) => this.isOpen(t.uri)?.getText() ?? t.diskText);
    return {
      ...(loaded?.inventory ? { inventory: loaded.inventory } : {}),
      ...(loaded ? { inventoryPath: this.pathOf(loaded.uri) } : {}),
      siblings,
      ...(vrrpElsewhere.length ? { vrrpElsewhere } : {}),
    };
  }

  private runnerFor(): LintRunner {
    this.runner ??= new LintRunner({ ...(this.options.workerFile ? { workerFile: this.options.workerFile } : {}), timeoutSeverity: 'warning' });
    return this.runner;
  }

  private updateContextKey(editor: vscode.TextEditor | undefined): void {
    const isConfig = !!editor && (this.tracked.has(editor.document.uri.toString()) || /(^|\/)inventory\.ya?ml$/.test(editor.document.uri.path));
    setContextKey('configFile', isConfig);
  }

  dispose(): void {
    this.disposed = true;
    for (const t of [...this.timers.values(), ...this.detectTimers.values()]) clearTimeout(t);
    this.timers.clear();
    this.detectTimers.clear();
    this.queue.clear();
    this.runner?.dispose();
    this.folders?.dispose();
    void this.saved?.flush().finally(() => this.saved?.dispose());
    for (const resolve of this.idleWaiters.splice(0)) resolve();
    vscode.Disposable.from(...this.disposables).dispose();
  }
}
