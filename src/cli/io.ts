/** What a CLI verb may touch; tests pass in-memory versions. */
import type { Finding } from '../core/findings';
import { MAX_INVENTORY_BYTES } from '../core/inventory/limits';
import { escapeControls, oneLine, shownPath } from '../core/text/terminal';
import { readRegularText, replaceFile } from '../adapters/fs/safeFile';

export interface ReadLimit {
  /** The largest file read, in bytes (from fstat, before reading): a larger one is refused unread. */
  maxBytes: number;
}

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** A regular file's text (a FIFO, device or socket is refused at once), at most `limit.maxBytes` (default 64 MiB). */
  readFile: (path: string, limit?: ReadLimit) => Promise<string>;
  /** Replaces a file (temp file and rename, its mode kept); never through a link. */
  writeFile: (path: string, text: string) => Promise<void>;
}

/** What any file a verb reads may be at most, unless the verb says less. */
export const DEFAULT_READ_BYTES = 64 * 1024 * 1024;
/** The inventory: refused unread above this (the README's promise). */
export const INVENTORY_READ: ReadLimit = { maxBytes: MAX_INVENTORY_BYTES };

/**
 * The process's io. Everything printed passes escapeControls: a line that came from a file, a host or a manifest
 * cannot move the cursor, retitle the terminal or reorder what is read (JSON output stays valid JSON: the escapes
 * are JSON's own).
 */
export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(escapeControls(text)),
  stderr: (text) => process.stderr.write(escapeControls(text)),
  readFile: (path, limit) => readRegularText(path, { maxBytes: limit?.maxBytes ?? DEFAULT_READ_BYTES }),
  writeFile: (path, text) => replaceFile(path, text, { mode: 'keep' }),
};

/** Exit codes shared by every verb: 0 ok, 1 findings/failure, 2 usage. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/**
 * `file:line:col: severity: message [rule]`, 1-based like compilers print. One finding is one line: a file name with a
 * newline or another control character is quoted, and the message's own are escaped, so nothing forges a finding.
 */
export function formatFinding(file: string, f: Finding): string {
  return `${shownPath(f.file ?? file)}:${f.range.start.line + 1}:${f.range.start.character + 1}: ${f.severity}: ${oneLine(f.message)} [${oneLine(f.rule)}]`;
}
