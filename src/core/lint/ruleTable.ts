/**
 * The one shape of a rule table: every linter declares its rules here (id, severity, what, why, docs, fix kinds)
 * and gets back a finding constructor typed by those ids, so emitting an undeclared id is a type error rather
 * than a finding without why, docs or SARIF metadata.
 *
 * A rule's title and why are English messages marked with `msg()` (a plain string does not compile): the tables
 * are built when their module loads, before the language is known, so they are translated each time they are read.
 */
import type { Finding, Fix, Range, Severity } from '../findings';
import { t, type Message } from '../l10n';
import type { FixKind, RuleInfo } from './types';

/** A declared rule, as a table row: the id is the full `linter/name` id. */
export interface RuleRow<Id extends string = string> {
  id: Id;
  severity: Severity;
  title: Message;
  why: Message;
  docs?: string;
  /** What kind of repair its findings can carry; none when absent. */
  fixes?: readonly FixKind[];
}

/** What a finding may say beyond its rule, message and range. */
export interface FindingExtras {
  fixes?: Fix[] | undefined;
  /** Only where the table's severity depends on the case (a rule reported as warning or error by context). */
  severity?: Severity | undefined;
  /** A more specific why than the table's, for this occurrence (already translated: a `t()`). */
  why?: string | undefined;
  file?: string | undefined;
}

export interface RuleTable<Id extends string> {
  readonly rules: RuleInfo[];
  readonly ids: ReadonlySet<string>;
  info(id: Id): RuleInfo;
  finding(id: Id, message: string, range: Range, extras?: FindingExtras): Finding;
}

/** The rule as hovers, the Diagnostics webview and SARIF read it: title and why in the language active when read. */
export function toRuleInfo(row: RuleRow): RuleInfo {
  const info: RuleInfo = {
    id: row.id,
    severity: row.severity,
    get title() {
      return t(row.title);
    },
    get why() {
      return t(row.why);
    },
  };
  if (row.docs) info.docs = row.docs;
  if (row.fixes?.length) {
    info.fixable = true;
    info.fixKinds = [...row.fixes];
  }
  return info;
}

/** Builds a table from its rows; a row id given twice is a programming error and throws at load. */
export function ruleTable<const Id extends string>(rows: readonly RuleRow<Id>[]): RuleTable<Id> {
  const byId = new Map<string, RuleInfo>();
  for (const row of rows) {
    if (byId.has(row.id)) throw new Error(`rule ${row.id} is declared twice`);
    byId.set(row.id, toRuleInfo(row));
  }
  const info = (id: Id): RuleInfo => {
    const found = byId.get(id);
    // unreachable from typed code; a cast that smuggles an id in gets a message naming it, not a TypeError
    if (!found) throw new Error(`rule ${id} is not declared in its table`);
    return found;
  };
  return {
    rules: [...byId.values()],
    ids: new Set(byId.keys()),
    info,
    finding(id, message, range, extras = {}) {
      const r = info(id);
      const f: Finding = { rule: r.id, severity: extras.severity ?? r.severity, message, why: extras.why ?? r.why, range };
      if (r.docs) f.docs = r.docs;
      if (extras.file !== undefined) f.file = extras.file;
      if (extras.fixes?.length) f.fixes = extras.fixes;
      return f;
    },
  };
}
