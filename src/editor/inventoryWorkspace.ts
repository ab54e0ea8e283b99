/**
 * Finds the workspace's inventory.yaml, keeps its parsed model current and publishes its findings
 * as diagnostics. Views and commands read the model from here and listen to `onDidChange`.
 */
import * as vscode from 'vscode';
import { MAX_INVENTORY_BYTES, unreadInventory } from '../core/inventory/limits';
import type { InventoryParseResult } from '../core/inventory/parse';
import { FileRefused, readRegularText } from '../adapters/fs/safeFile';
import { LintRunner } from '../engine/lintRunner';
import type { Inventory, InventoryLocations } from '../core/inventory/types';
import { toDiagnostic } from './diagnostics';
import { setting, affects } from './settings';
import { setContextKey } from './contextKeys';

export interface LoadedInventory {
  uri: vscode.Uri;
  inventory?: Inventory;
  locations: InventoryLocations;
  result: InventoryParseResult;
  /**
   * While the file has errors: the inventory of its last parse without errors (same file, this session), so the
   * tree keeps showing every host, marked stale, instead of losing the groups a syntax error cut off.
   */
  lastGood?: Inventory;
}

const REPARSE_DELAY_MS = 150;

export class InventoryWorkspace implements vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<LoadedInventory | undefined>();
  readonly onDidChange = this.changeEmitter.event;
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('kubeadm-inventory');
  /** The inventory is untrusted input: parsed in the lint worker with its time and memory limits, not on the extension host. */
  private readonly parser = new LintRunner({ timeoutSeverity: 'error', linters: false });
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter, this.diagnostics, { dispose: () => this.parser.dispose() }];
  private loaded: LoadedInventory | undefined;
  private pending: NodeJS.Timeout | undefined;
  private loading: Promise<LoadedInventory | undefined> | undefined;
  /**
   * Changes seen (edits, saves, reverts, file events) and the count the model and a load in flight were read at: a
   * command run right after an edit — a revert, then Join at once — must get the text it can see, not the model the
   * debounce has not replaced yet (the lab's palette test got the removed worker's inventory that way under load).
   */
  private changes = 0;
  private loadedAt = -1;
  private loadingAt = -1;
  private lastGood: { uri: string; inventory: Inventory } | undefined;

  constructor() {
    const watcher = vscode.workspace.createFileSystemWatcher('**/inventory.{yaml,yml}');
    this.disposables.push(
      watcher,
      watcher.onDidCreate(() => this.reloadSoon()),
      watcher.onDidDelete(() => this.reloadSoon()),
      watcher.onDidChange((uri) => this.isCurrent(uri) && this.reloadSoon()),
      // Parse unsaved edits too, so diagnostics follow typing.
      vscode.workspace.onDidChangeTextDocument((e) => this.isCurrent(e.document.uri) && this.reloadSoon()),
      vscode.workspace.onDidChangeConfiguration((e) => affects(e, 'inventoryFile') && this.reloadSoon()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.reloadSoon()),
    );
  }

  get current(): LoadedInventory | undefined {
    return this.loaded;
  }

  /** True once a load finished (found or not): until then a view shows "loading", not "no inventory.yaml". */
  get settled(): boolean {
    return this.loadedAt >= 0;
  }

  /** Loads on first use; later calls return the cached model unless something changed since it was read. */
  async get(): Promise<LoadedInventory | undefined> {
    if (this.loaded && this.loadedAt === this.changes) return this.loaded;
    return this.reload();
  }

  /** Parses what is there now; a load in flight that read older text is followed by one that reads this. */
  reload(): Promise<LoadedInventory | undefined> {
    clearTimeout(this.pending);
    this.pending = undefined;
    const at = this.changes;
    if (this.loading && this.loadingAt === at) return this.loading;
    const next: Promise<LoadedInventory | undefined> = (this.loading ?? Promise.resolve(undefined))
      .catch(() => undefined)
      .then(() => this.load(at))
      .finally(() => {
        if (this.loading === next) this.loading = undefined;
      });
    this.loading = next;
    this.loadingAt = at;
    return next;
  }

  private reloadSoon(): void {
    this.changes++;
    clearTimeout(this.pending);
    this.pending = setTimeout(() => void this.reload(), REPARSE_DELAY_MS);
  }

  private isCurrent(uri: vscode.Uri): boolean {
    return this.loaded?.uri.toString() === uri.toString() || /inventory\.ya?ml$/.test(uri.path);
  }

  private async load(at: number): Promise<LoadedInventory | undefined> {
    const uri = await findInventoryFile();
    if (!uri) {
      if (this.loaded) this.diagnostics.delete(this.loaded.uri);
      this.loaded = undefined;
      this.loadedAt = at;
      // The Inventory view's "No inventory.yaml" welcome shows only once a search found none (package.json).
      setContextKey('inventoryState', 'none');
      this.changeEmitter.fire(undefined);
      return undefined;
    }
    const read = await readText(uri);
    const timeoutMs = setting('lintTimeoutMs');
    const result = 'refused' in read ? unreadInventory(read.refused.reason, read.refused.kind === 'too-large') : await this.parser.parseInventory({ path: uri.fsPath, text: read.text }, timeoutMs);
    this.diagnostics.set(uri, result.findings.map(toDiagnostic));
    const broken = result.findings.some((f) => f.severity === 'error');
    if (!broken && result.inventory) this.lastGood = { uri: uri.toString(), inventory: result.inventory };
    else if (this.lastGood?.uri !== uri.toString()) this.lastGood = undefined;
    const lastGood = broken ? this.lastGood?.inventory : undefined;
    this.loaded = { uri, result, locations: result.locations, ...(result.inventory ? { inventory: result.inventory } : {}), ...(lastGood ? { lastGood } : {}) };
    this.loadedAt = at;
    setContextKey('hasInventory', true);
    setContextKey('inventoryState', 'found');
    this.changeEmitter.fire(this.loaded);
    return this.loaded;
  }

  dispose(): void {
    clearTimeout(this.pending);
    vscode.Disposable.from(...this.disposables).dispose();
  }
}

/**
 * The open editor's text wins over the file on disk, so the model follows unsaved edits. On disk it must be a regular
 * file of at most MAX_INVENTORY_BYTES: a FIFO named inventory.yaml would hang the read, a huge one the parse.
 */
async function readText(uri: vscode.Uri): Promise<{ text: string } | { refused: FileRefused }> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return { text: open.getText() };
  try {
    return { text: await readRegularText(uri.fsPath, { maxBytes: MAX_INVENTORY_BYTES }) };
  } catch (e) {
    if (e instanceof FileRefused) return { refused: e };
    throw e;
  }
}

export async function findInventoryFile(): Promise<vscode.Uri | undefined> {
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    const configured = setting('inventoryFile', folder);
    // In an untrusted workspace restricted settings fall back to their defaults (VS Code does that for us).
    const candidate = vscode.Uri.joinPath(folder.uri, configured);
    try {
      await vscode.workspace.fs.stat(candidate);
      return candidate;
    } catch {
      // not there: fall through to the search below
    }
  }
  const found = await vscode.workspace.findFiles('**/inventory.{yaml,yml}', '**/node_modules/**', 1);
  return found[0];
}

/** The model only when the inventory has no errors: plans, joins, facts and drills never act on one that has. */
export function usableInventory(loaded: LoadedInventory | undefined): Inventory | undefined {
  return loaded?.inventory && !loaded.result.findings.some((f) => f.severity === 'error') ? loaded.inventory : undefined;
}
