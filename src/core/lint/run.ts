/**
 * How one linter lints one file, the same whoever holds the linter — the registry, which holds every one
 * (./registry.ts), or the command line and the lint worker, which load those of the kinds present
 * (../../engine/lintModules.ts): the shared text guard first (./textGuard.ts), then the file's linter in the context its
 * `scope` gives, then — for linters that state cluster facts — the cross-file findings (./crossFile.ts). The inventory
 * is the exception to the guard: its loader refuses an oversized file itself, as an error, because every command
 * refuses such an inventory too (../inventory/parse.ts).
 */
import type { Finding } from '../findings';
import { crossFileFindingsFor } from './crossFile';
import { cachedLint } from './resultCache';
import { textGuard } from './textGuard';
import type { FileKind, FileLinter, LintContext, SourceFile } from './types';

/** Runs one linter on one file: guard, linter in its scope, cross-file findings. */
export function runLinter(linter: FileLinter, file: SourceFile, context: LintContext): Finding[] {
  if (linter.kind !== 'inventory') {
    const guarded = textGuard(file.text, linter.kind);
    if (guarded) return [guarded];
  }
  const scoped = linter.scope ? linter.scope(file, context) : context;
  const findings = linter.lint(file, scoped);
  return linter.crossFile ? [...findings, ...crossFileFindingsFor(linter.kind, file, scoped)] : findings;
}

/** Lints one file of `kind` with its linter; unchanged text in an unchanged context is answered from the result cache (./resultCache.ts). */
export function lintWith(linter: FileLinter, file: SourceFile, context: LintContext, kind: FileKind): Finding[] {
  return cachedLint(file, context, kind, () => runLinter(linter, file, context));
}
