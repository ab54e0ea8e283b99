/**
 * All linters, in detection order (more specific first). Add a linter by importing it and adding
 * it to LINTERS; nothing else needs to change.
 */
import type { Finding } from '../findings';
import { cachedLint } from './resultCache';
import { inventoryLinter } from './inventoryLinter';
import { kubeadmLinter } from '../kubeadm/linter';
import { cniManifestLinter } from '../kubeadm/cniLinter';
import { containerdLinter } from '../containerd/linter';
import { sysctlLinter, modulesLinter } from '../sysctl/linter';
import { haproxyLinter } from '../haproxy/lint';
import { keepalivedLinter } from '../keepalived/lint';
import type { FileKind, FileLinter, LintContext, RuleInfo, SourceFile } from './types';

export const LINTERS: FileLinter[] = [inventoryLinter, cniManifestLinter, kubeadmLinter, haproxyLinter, keepalivedLinter, containerdLinter, sysctlLinter, modulesLinter];

export function detectKind(path: string, text: string): FileKind | undefined {
  return LINTERS.find((l) => l.detect(path, text))?.kind;
}

export function linterFor(kind: FileKind): FileLinter | undefined {
  return LINTERS.find((l) => l.kind === kind);
}

/** Lints one file; unchanged text in an unchanged context is answered from the content-hash cache (./resultCache.ts). */
export function lintText(file: SourceFile, context: LintContext = {}, kind = detectKind(file.path, file.text)): Finding[] {
  const linter = kind && linterFor(kind);
  return linter && kind ? cachedLint(file, context, kind, () => linter.lint(file, context)) : [];
}

export function allRules(): RuleInfo[] {
  return LINTERS.flatMap((l) => l.rules);
}

export function ruleInfo(id: string): RuleInfo | undefined {
  return allRules().find((r) => r.id === id);
}
