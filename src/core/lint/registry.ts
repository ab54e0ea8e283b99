/**
 * All linters, in detection order (more specific first). Add a linter by importing it and adding
 * it to LINTERS; nothing else needs to change.
 *
 * `lintText` is the one way a file is linted: the shared text guard first (./textGuard.ts), then the file's
 * linter in the context its `scope` gives, then — for linters that state cluster facts — the cross-file
 * findings (./crossFile.ts). The inventory is the exception to the guard: its loader refuses an oversized
 * file itself, as an error, because every command refuses such an inventory too (../inventory/parse.ts).
 */
import type { Finding } from '../findings';
import { ANSIBLE_RULES } from '../inventory/ansibleRules';
import { cachedLint } from './resultCache';
import { CROSS_FILE_RULES, crossFileFindingsFor } from './crossFile';
import { inventoryLinter } from './inventoryLinter';
import { kubeadmLinter } from '../kubeadm/linter';
import { cniManifestLinter } from '../kubeadm/cniLinter';
import { containerdLinter } from '../containerd/linter';
import { sysctlLinter, modulesLinter } from '../sysctl/linter';
import { haproxyLinter } from '../haproxy/lint';
import { keepalivedLinter } from '../keepalived/lint';
import { ruleTable } from './ruleTable';
import { TEXT_GUARD_RULE, textGuard } from './textGuard';
import type { FileKind, FileLinter, LintContext, RuleInfo, SourceFile } from './types';
import { msg } from '../l10n';

export const LINTERS: FileLinter[] = [inventoryLinter, cniManifestLinter, kubeadmLinter, haproxyLinter, keepalivedLinter, containerdLinter, sysctlLinter, modulesLinter];

/** The cap the editor puts on one file's findings (editor/fixPlan.ts `capFindings`), declared here with the other shared rules. */
const CAP = ruleTable([
  {
    id: 'lint/too-many-findings',
    severity: 'info',
    title: msg('A file shows at most 500 findings in the editor.'),
    why: msg('A file edited into nonsense can give tens of thousands of findings; the first ones are the ones to fix, and the command line lists them all.'),
  },
]);

/** Rules the registry itself reports (the text guard, the cross-file comparison), the editor's cap, and the importer's — no file linter owns them. */
export const SHARED_RULES: RuleInfo[] = [TEXT_GUARD_RULE, ...CROSS_FILE_RULES, ...CAP.rules];
export const IMPORTER_RULES: RuleInfo[] = ANSIBLE_RULES;

export function detectKind(path: string, text: string): FileKind | undefined {
  return LINTERS.find((l) => l.detect(path, text))?.kind;
}

export function linterFor(kind: FileKind): FileLinter | undefined {
  return LINTERS.find((l) => l.kind === kind);
}

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

/** Lints one file; unchanged text in an unchanged context is answered from the result cache, which compares the whole text (./resultCache.ts). */
export function lintText(file: SourceFile, context: LintContext = {}, kind = detectKind(file.path, file.text)): Finding[] {
  const linter = kind && linterFor(kind);
  return linter && kind ? cachedLint(file, context, kind, () => runLinter(linter, file, context)) : [];
}

let declared: Map<string, RuleInfo> | undefined;

/** Every declared rule by id: the linters', the registry's own and the importer's, each once (built on first use). */
function declaredRules(): Map<string, RuleInfo> {
  if (!declared) {
    declared = new Map();
    for (const r of [...LINTERS.flatMap((l) => l.rules), ...SHARED_RULES, ...IMPORTER_RULES]) if (!declared.has(r.id)) declared.set(r.id, r);
  }
  return declared;
}

export function allRules(): RuleInfo[] {
  return [...declaredRules().values()];
}

export function ruleInfo(id: string): RuleInfo | undefined {
  return declaredRules().get(id);
}
