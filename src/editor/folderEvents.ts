/**
 * Folders that appear or go as a whole, for the config files inside them: a balancer pair's folder copied or unpacked
 * into the workspace (`mkdir -p lb && cp …`, `workspace.fs.writeFile` into a folder that did not exist), or removed.
 *
 * Why this exists: on Linux, VS Code's recursive watcher (parcel's inotify backend) starts watching a new folder only
 * once it has seen the folder appear, and never lists what the folder already holds by then. A file written into it
 * in that gap gets no event at all, nor does anything in a folder nested below it (parcel-bundler/watcher#243 and #97,
 * microsoft/vscode#142694, closed upstream). The new folder's own event does arrive, so each new folder is searched
 * once, the way the workspace scan searches the whole workspace; what it finds is handed on like a watcher event.
 * A deleted folder is reported once, as itself (VS Code folds its children's deletions into it), so it is handed on
 * for the caller to drop what it tracked below it.
 */
import * as vscode from 'vscode';

/** Created paths are collected this long, so a tree unpacked at once is searched once, from its top folder. */
const SETTLE_MS = 200;
/** Stats per batch at most: a `git checkout` of thousands of files costs no more than this. */
const MAX_STATS = 64;

export interface FolderEventsOptions {
  /** The files wanted, relative to each new folder (the workspace scan's glob). */
  include: string;
  /** Folders never searched (the workspace scan's exclude glob), and their names. */
  exclude: string;
  excludedFolders: readonly string[];
  /** At most this many files per new folder. */
  maxFiles: number;
  /** Paths the config watcher reports itself (they need no search). */
  isWatchedFile: (uri: vscode.Uri) => boolean;
  /** Called with every file found in a new folder. */
  found: (uri: vscode.Uri) => void;
  /** Called with every deleted path the config watcher does not report (a folder, or a file of no interest). */
  deleted: (uri: vscode.Uri) => void;
}

export class FolderEvents implements vscode.Disposable {
  // Changes to files are the config watcher's business.
  private readonly watcher = vscode.workspace.createFileSystemWatcher('**/*', false, true, false);
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(private readonly options: FolderEventsOptions) {
    this.watcher.onDidCreate((uri) => this.interesting(uri) && this.onCreated(uri));
    this.watcher.onDidDelete((uri) => this.interesting(uri) && this.options.deleted(uri));
  }

  private interesting(uri: vscode.Uri): boolean {
    return uri.scheme === 'file' && !this.options.isWatchedFile(uri) && !uri.path.split('/').some((segment) => this.options.excludedFolders.includes(segment));
  }

  private onCreated(uri: vscode.Uri): void {
    this.pending.add(uri.toString());
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.searchPending();
    }, SETTLE_MS);
  }

  private async searchPending(): Promise<void> {
    const created = [...this.pending].map((k) => vscode.Uri.parse(k));
    this.pending.clear();
    // A folder whose parent is new too is searched with its parent.
    const keys = new Set(created.map((u) => u.path));
    const tops = created.filter((u) => !hasAncestorIn(u.path, keys)).slice(0, MAX_STATS);
    for (const uri of tops) {
      if (this.disposed) return;
      if (!(await isFolder(uri))) continue;
      const files = await vscode.workspace.findFiles(new vscode.RelativePattern(uri, this.options.include), this.options.exclude, this.options.maxFiles);
      if (this.disposed) return;
      for (const file of files) this.options.found(file);
    }
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.watcher.dispose();
  }
}

function hasAncestorIn(path: string, paths: Set<string>): boolean {
  for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1)) if (paths.has(path.slice(0, i))) return true;
  return false;
}

async function isFolder(uri: vscode.Uri): Promise<boolean> {
  try {
    return ((await vscode.workspace.fs.stat(uri)).type & vscode.FileType.Directory) !== 0;
  } catch {
    return false; // gone again already
  }
}
