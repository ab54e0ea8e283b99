/**
 * Which workspace files ConfigDiagnostics looks at: the names a workspace scan reads, the folders it skips, and the
 * detection of a file's kind by name and content (inventory.yaml is InventoryWorkspace's, never one of these).
 */
import * as vscode from 'vscode';
import { readRegularText } from '../adapters/fs/safeFile';
import type { Finding } from '../core/findings';
import { findingKey } from '../core/lint/fixPlan';
import { siblingsOf, vrrpFilesElsewhere } from '../core/lint/siblings';
import type { FileKind, SourceFile } from '../core/lint/types';
import { lintRegistry } from './lintRegistry';

/** Files a workspace scan reads; open documents are detected whatever their name. */
const CONFIG_EXTENSIONS = ['cfg', 'conf', 'yaml', 'yml', 'toml', 'json'];
export const CONFIG_GLOB = `**/*.{${CONFIG_EXTENSIONS.join(',')}}`;
/** What CONFIG_GLOB matches, for a path the config watcher reports itself. */
export const CONFIG_NAME = new RegExp(`\\.(${CONFIG_EXTENSIONS.join('|')})$`);
export const EXCLUDED_FOLDERS = ['node_modules', '.git', 'dist', 'out', '.vscode-test'];
export const EXCLUDE_GLOB = `**/{${EXCLUDED_FOLDERS.join(',')}}/**`;
/** The bound of the workspace scan: at most this many files are read. */
export const MAX_SCAN_FILES = 500;
/** Larger files are not read by the workspace scan (an open document is linted whatever its size). */
export const MAX_SCAN_BYTES = 2 * 1024 * 1024;
/** Detection is meant to be cheap by name and content; it only sees the start of a huge file. */
const DETECT_CHARS = 64 * 1024;

/** Siblings are context for cross-file rules; huge ones are left out of every message to the worker. */
const MAX_SIBLING_CHARS = 1024 * 1024;

/** Language ids contributed by package.json whose documents are config files of one kind. */
export const LANGUAGE_KINDS: Partial<Record<string, FileKind>> = { haproxy: 'haproxy', keepalived: 'keepalived' };

/** The kind of a config file ConfigDiagnostics lints; inventory.yaml is InventoryWorkspace's. */
export function detect(path: string, text: string): FileKind | undefined {
  try {
    const kind = lintRegistry().detectKind(path, text.length > DETECT_CHARS ? text.slice(0, DETECT_CHARS) : text);
    return kind === 'inventory' ? undefined : kind;
  } catch {
    return undefined;
  }
}

/** A file's text, or undefined when it is gone, not a regular file or larger than MAX_SCAN_BYTES. */
export async function readDisk(uri: vscode.Uri): Promise<string | undefined> {
  try {
    // A regular file only (a FIFO would hang the scan), at most MAX_SCAN_BYTES by its size before reading. A binary
    // file still goes to detection: one named haproxy.cfg gets its linter's "not a text file".
    return await readRegularText(uri.fsPath, { maxBytes: MAX_SCAN_BYTES });
  } catch {
    return undefined;
  }
}

/** Every file's text (16 reads at a time), in the order given. */
export async function readDiskTexts(uris: readonly vscode.Uri[]): Promise<(string | undefined)[]> {
  const texts: (string | undefined)[] = [];
  for (let i = 0; i < uris.length; i += 16) texts.push(...(await Promise.all(uris.slice(i, i + 16).map(readDisk))));
  return texts;
}

/** The findings every lint result points into `target`, each once (a cross-file finding may come from two files), by position. */
export function mergeTargets(results: Iterable<{ targets: Map<string, Finding[]> }>, target: string): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const r of results) {
    for (const f of r.targets.get(target) ?? []) {
      const k = findingKey(f);
      if (!seen.has(k)) out.push(f);
      seen.add(k);
    }
  }
  return out.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
}

/** The URI (as a string) of a path a finding names that is no tracked file: a URI, an absolute path, else relative to `from`'s workspace folder. */
export function untrackedUri(path: string, from: vscode.Uri): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) && !/^[a-z]:[\\/]/i.test(path)) return vscode.Uri.parse(path).toString();
  if (path.startsWith('/') || /^[a-z]:[\\/]/i.test(path)) return vscode.Uri.file(path).toString();
  const folder = vscode.workspace.getWorkspaceFolder(from) ?? vscode.workspace.workspaceFolders?.[0];
  return folder ? vscode.Uri.joinPath(folder.uri, path).toString() : vscode.Uri.joinPath(from, '..', path).toString();
}

/**
 * The files a lint of `self` sees besides it: only those of the same config set (a generated/ copy is not compared
 * with the live files); a keepalived.conf is also paired by VRRP instance with the keepalived files of other config
 * sets (lb1/, lb2/). Without `self` (not tracked) every candidate is a sibling. Texts over MAX_SIBLING_CHARS are left out.
 */
export function contextFiles<T extends { path: string }>(self: string | undefined, candidates: T[], hostNames: ReadonlySet<string>, textOf: (t: T) => string | undefined): { siblings: SourceFile[]; vrrpElsewhere: SourceFile[] } {
  const texts = (ts: T[]): SourceFile[] => ts.flatMap((t) => {
    const text = textOf(t);
    return text !== undefined && text.length <= MAX_SIBLING_CHARS ? [{ path: t.path, text }] : [];
  });
  return { siblings: texts(self ? siblingsOf(self, candidates, hostNames) : candidates), vrrpElsewhere: texts(self ? vrrpFilesElsewhere(self, candidates, hostNames) : []) };
}
