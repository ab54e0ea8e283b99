/**
 * The haproxy.cfg linter. Section-local rules (syntax, keywords, server and bind lines) are cached per section
 * text, so re-linting after a one-line edit re-checks only the edited section; the rules that span sections
 * (mode inheritance, backend references, the API frontend against the inventory, timeouts) run over the parsed
 * structure, which is cheap.
 */
import { textGuard } from '../lint/textGuard';
import { forBalancers } from '../lint/targets';
import type { Finding, Range } from '../findings';
import type { FileLinter, LintContext, SourceFile } from '../lint/types';
import { clearSectionCache, parseHaproxy } from './parse';
import type { Section } from './parse';
import { finding, fix, HAPROXY_RULES } from './rules';
import { lintStructure, type GlobalContext } from './apiRules';
import { lintSection, type LocalContext } from './localRules';
import { Model } from './model';
import { t } from '../l10n';
import { detectHaproxy } from './detect';

export { parseTime } from './places';

// ---------------------------------------------------------------------------------------------- entry points

/** A copy of a cached finding moved down by `by` lines (always a copy: callers may annotate findings). */
function shift(f: Finding, by: number): Finding {
  const r = (x: Range): Range => ({ start: { line: x.start.line + by, character: x.start.character }, end: { line: x.end.line + by, character: x.end.character } });
  const out: Finding = { ...f, range: r(f.range) };
  if (f.fixes) out.fixes = f.fixes.map((fx) => ({ ...fx, edits: fx.edits.map((e) => ({ range: r(e.range), newText: e.newText })) }));
  return out;
}

const NO_FINDINGS: Finding[] = [];

/** Section-local findings, kept with the section's cached parse (i.e. by its text) with lines relative to it. */
function localFindings(section: Section, ctx: LocalContext): Finding[] {
  const eol = ctx.eol;
  let findings = section.localFindings(eol);
  if (!findings) {
    findings = lintSection(section.placedAt(0), ctx);
    // most sections have none: one shared array for them in the cache
    if (findings.length === 0) findings = NO_FINDINGS;
    section.keepLocalFindings(eol, findings);
  }
  return findings.length ? findings.map((f) => shift(f, section.startLine)) : findings;
}

/** Drops every cache of the haproxy linter (parsed sections and section-local findings). */
export function clearHaproxyCaches(): void {
  clearSectionCache();
}

export function lintHaproxy(text: string, context: LintContext = {}): Finding[] {
  const guarded = textGuard(text, 'haproxy');
  if (guarded) return [guarded];
  const cfg = parseHaproxy(text);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const out: Finding[] = [];
  if (text.length > 0 && !text.endsWith('\n')) {
    const lastLine = cfg.lineCount - 1;
    const lastLen = text.length - text.lastIndexOf('\n') - 1;
    const end = { line: lastLine, character: lastLen };
    out.push(finding('haproxy/syntax', t('The last line has no line break; HAProxy 2.6 then refuses the file as possibly truncated.'), { start: { line: lastLine, character: 0 }, end }, [fix(t('Add a line break at the end'), { range: { start: end, end }, newText: eol })]));
  }
  const localCtx: LocalContext = { eol };
  for (const s of cfg.sections) {
    const local = localFindings(s, localCtx);
    for (let i = 0; i < local.length; i++) out.push(local[i]!);
  }
  const m = new Model(cfg);
  const ctx: GlobalContext = { eol, siblings: context.siblings ?? [] };
  if (context.inventory) ctx.inventory = context.inventory;
  lintStructure(cfg, m, ctx, out);
  out.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  return out;
}

export { detectHaproxy };


export const haproxyLinter: FileLinter = {
  kind: 'haproxy',
  rules: Object.values(HAPROXY_RULES),
  detect: detectHaproxy,
  // a haproxy.cfg for hosts that are not the balancers (a node-local proxy) is not compared with the balancers' settings
  scope: forBalancers,
  lint: (file: SourceFile, context: LintContext) => lintHaproxy(file.text, forBalancers(file, context)),
  crossFile: true,
};
