/**
 * Groups findings by file and rule for the Diagnostics webview. Pure (no `vscode`), unit-tested.
 */
import type { Finding, Severity } from '../core/findings';
import { plainWords } from '../core/text/plainWords';
import type { FileGroup, RuleGroup } from './protocol/diagnostics';

export interface RuleText {
  title?: string;
  why?: string;
  docs?: string;
}

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

export function worst(a: Severity, b: Severity): Severity {
  return RANK[a] <= RANK[b] ? a : b;
}

/**
 * Files sorted by path; inside a file, rules by worst severity then id; inside a rule, findings by line.
 * `describe` supplies the rule's title/why/docs when the findings lack them.
 */
export function groupFindings(files: { uri: string; path: string; findings: readonly Finding[] }[], describe: (rule: string) => RuleText | undefined = () => undefined): FileGroup[] {
  const out: FileGroup[] = [];
  for (const file of files) {
    if (!file.findings.length) continue;
    const rules = new Map<string, RuleGroup>();
    const counts = { error: 0, warning: 0, info: 0 };
    for (const f of file.findings) {
      counts[f.severity]++;
      let group = rules.get(f.rule);
      if (!group) {
        const info = describe(f.rule);
        const why = f.why ?? info?.why;
        const docs = f.docs ?? info?.docs;
        // The webview shows text as text: code spans become plain quotes.
        group = { rule: f.rule, severity: f.severity, ...(info?.title ? { title: plainWords(info.title) } : {}), ...(why ? { why: plainWords(why) } : {}), ...(docs ? { docs } : {}), findings: [] };
        rules.set(f.rule, group);
      }
      group.severity = worst(group.severity, f.severity);
      group.findings.push({
        line: f.range.start.line,
        character: f.range.start.character,
        endLine: f.range.end.line,
        endCharacter: f.range.end.character,
        severity: f.severity,
        message: plainWords(f.message),
        fixable: !!f.fixes?.length,
        ...(f.fixes?.[0] ? { fixTitle: plainWords(f.fixes[0].title) } : {}),
      });
    }
    for (const g of rules.values()) g.findings.sort((a, b) => a.line - b.line || a.character - b.character);
    out.push({
      uri: file.uri,
      path: file.path,
      counts,
      rules: [...rules.values()].sort((a, b) => RANK[a.severity] - RANK[b.severity] || a.rule.localeCompare(b.rule)),
    });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
