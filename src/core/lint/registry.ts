/**
 * All linters, in detection order (more specific first), and every kind's cross-file facts. Add a linter by importing
 * it and adding it to LINTERS, its test to ./kinds.ts and its module to ../../engine/lintModules.ts (the command line
 * and the lint worker load a kind's module only when a file of that kind is there).
 *
 * `lintText` is the one way a file is linted (./run.ts): the shared text guard, the file's linter in its scope, the
 * cross-file findings.
 */
import type { Finding } from '../findings';
import { ANSIBLE_RULES } from '../inventory/ansibleRules';
import { CROSS_FILE_RULES, registerFactExtractors } from './crossFile';
import { detectKind as detectKindByTests } from './kinds';
import { lintWith } from './run';
import { inventoryLinter } from './inventoryLinter';
import { kubeadmLinter } from '../kubeadm/linter';
import { cniManifestLinter } from '../kubeadm/cniLinter';
import { containerdLinter } from '../containerd/linter';
import { sysctlLinter, modulesLinter } from '../sysctl/linter';
import { haproxyLinter } from '../haproxy/lint';
import { keepalivedLinter } from '../keepalived/lint';
import { KUBEADM_FACTS } from '../kubeadm/facts';
import { HAPROXY_FACTS } from '../haproxy/facts';
import { KEEPALIVED_FACTS } from '../keepalived/facts';
import { ruleTable } from './ruleTable';
import { TEXT_GUARD_RULE } from './textGuard';
import type { FileKind, FileLinter, LintContext, RuleInfo, SourceFile } from './types';
import { msg } from '../l10n';

export const LINTERS: FileLinter[] = [inventoryLinter, cniManifestLinter, kubeadmLinter, haproxyLinter, keepalivedLinter, containerdLinter, sysctlLinter, modulesLinter];
registerFactExtractors({ ...KUBEADM_FACTS, ...HAPROXY_FACTS, ...KEEPALIVED_FACTS });

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

/** The kind of a file (./kinds.ts: the same tests as LINTERS', in the same order). */
export function detectKind(path: string, text: string): FileKind | undefined {
  return detectKindByTests(path, text);
}

export function linterFor(kind: FileKind): FileLinter | undefined {
  return LINTERS.find((l) => l.kind === kind);
}

export { runLinter } from './run';

/** Lints one file; unchanged text in an unchanged context is answered from the result cache, which compares the whole text (./resultCache.ts). */
export function lintText(file: SourceFile, context: LintContext = {}, kind = detectKind(file.path, file.text)): Finding[] {
  const linter = kind && linterFor(kind);
  return linter && kind ? lintWith(linter, file, context, kind) : [];
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
