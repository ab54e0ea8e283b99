/**
 * Where ConfigDiagnostics keeps the findings of closed config files across reloads (core/lint/findingsCache.ts): a
 * JSON file in the extension's workspace storage, read once by the startup scan (validated entry by entry: it is
 * untrusted state) and written, 0600 through a temporary file and a rename, a moment after the lints settle.
 */
import { dirname } from 'node:path';
import { ensureRealFolder, lookAt, readRegularText, replaceFile } from '../adapters/fs/safeFile';
import { lintCacheKey, parseFindingsCache, serializeFindingsCache, type CachedLint, type FindingsCache } from '../core/lint/findingsCache';
import type { FileKind, LintContext, SourceFile } from '../core/lint/types';
import { errorMessage } from '../core/errors';
import { log } from './log';

const SAVE_DELAY_MS = 2_000;
/** A cache larger than this is not one we wrote (500 files of findings are well under it): ignored unread. */
const MAX_CACHE_BYTES = 32 * 1024 * 1024;

export interface FindingsCacheStoreOptions {
  /** The cache file (in the extension's workspace storage). */
  file: string;
  /** The extension's version; with the lint worker bundle's size and time it names the linter build. */
  version: string;
  /** dist/lintWorker.js: a new build of it is a miss for every file. */
  workerFile?: string;
}

export class FindingsCacheStore {
  private entries: FindingsCache = new Map();
  private linter: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;

  constructor(private readonly options: FindingsCacheStoreOptions) {}

  private async linterBuild(): Promise<string> {
    if (this.linter) return this.linter;
    let build = 'source';
    try {
      if (this.options.workerFile) {
        const st = await lookAt(this.options.workerFile);
        if (st) build = `${st.size}:${Math.round(st.mtimeMs)}`;
      }
    } catch {
      // no worker file to name: the version alone
    }
    this.linter = `${this.options.version}:${build}`;
    return this.linter;
  }

  /** The entries of the last session that validate; none when the file is missing, foreign or broken. */
  async read(isRule: (id: string) => boolean): Promise<FindingsCache> {
    const linter = await this.linterBuild();
    let text: string;
    try {
      // A symlink, a special file or another user's file where the cache belongs is not ours to read.
      text = await readRegularText(this.options.file, { maxBytes: MAX_CACHE_BYTES, noFollow: true, mine: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') log.warn(`lint cache ${this.options.file} not read: ${errorMessage(e)}`);
      return new Map();
    }
    const r = parseFindingsCache(text, linter, isRule);
    if (r.ignored) log.info(`lint cache ignored (${r.ignored}): every file is linted anew`);
    else if (r.dropped) log.warn(`lint cache: ${r.dropped} entr${r.dropped === 1 ? 'y' : 'ies'} did not validate and are linted anew`);
    this.entries = new Map(r.cache);
    return r.cache;
  }

  /** The key of a lint of these inputs (after read(), which names the linter build). */
  keyOf(kind: FileKind, file: SourceFile, context: LintContext): string | undefined {
    return this.linter === undefined ? undefined : lintCacheKey(this.linter, kind, file, context);
  }

  remember(path: string, entry: CachedLint): void {
    this.entries.set(path, entry);
    this.saveSoon();
  }

  /** A file that is gone or open (its disk text no longer what the editor shows) leaves the cache. */
  forget(path: string): void {
    if (this.entries.delete(path)) this.saveSoon();
  }

  get(path: string): CachedLint | undefined {
    return this.entries.get(path);
  }

  private saveSoon(): void {
    this.dirty = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), SAVE_DELAY_MS);
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.dirty || this.linter === undefined) return;
    this.dirty = false;
    const file = this.options.file;
    try {
      await ensureRealFolder(dirname(file), { mode: 0o700, recursive: true });
      await replaceFile(file, serializeFindingsCache(this.entries, this.linter), { mode: 0o600 });
    } catch (e) {
      log.warn(`lint cache ${file} not written: ${errorMessage(e)}`);
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
