/**
 * Kinds whose linters load together on the command line and in the lint worker (../../../engine/lintModules.ts): one
 * file of the build per family rather than per kind, because each file a run loads costs Node about 0.4 ms to find,
 * read and compile, and kinds of one family share their parsers anyway.
 */
import type { FactExtractor } from '../crossFile';
import type { FileKind, FileLinter } from '../types';

export interface KindFamily {
  linters: FileLinter[];
  facts: Partial<Record<FileKind, FactExtractor>>;
}
