/** What a CLI verb may touch; tests pass in-memory versions. */
import { promises as fs } from 'node:fs';
import type { Finding } from '../core/findings';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readFile: (path: string) => Promise<string>;
  writeFile: (path: string, text: string) => Promise<void>;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readFile: (path) => fs.readFile(path, 'utf8'),
  writeFile: (path, text) => fs.writeFile(path, text, 'utf8'),
};

/** Exit codes shared by every verb: 0 ok, 1 findings/failure, 2 usage. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** `file:line:col: severity: message [rule]`, 1-based like compilers print. */
export function formatFinding(file: string, f: Finding): string {
  return `${f.file ?? file}:${f.range.start.line + 1}:${f.range.start.character + 1}: ${f.severity}: ${f.message} [${f.rule}]`;
}
