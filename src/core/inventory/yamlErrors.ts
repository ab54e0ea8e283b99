/**
 * YAML syntax errors as a person reads them: one finding per problem, at its place, in plain words.
 * After a structural error (an unclosed bracket, a bad indent) the parser reports every following token as
 * "unexpected" — 19 findings for one missing `[` — so only the first structural error is kept; problems that
 * stand on their own (a duplicate key, a tab, an unclosed quote) are each kept.
 */
import type { YAMLError } from 'yaml';
import { type Finding, type LineIndex } from '../findings';
import { t } from '../l10n';

/** Errors that are not caused by an earlier error and say something of their own. */
const INDEPENDENT = new Set(['DUPLICATE_KEY', 'TAB_AS_INDENT', 'BAD_ALIAS', 'BAD_DIRECTIVE', 'TAG_RESOLVE_FAILED', 'ALIAS_PROPS']);

export function plainYamlMessage(err: YAMLError): string {
  const raw = err.message.split('\n')[0]!.trim();
  const token = /token in YAML stream: "(.*)"$/.exec(raw)?.[1];
  switch (err.code) {
    case 'DUPLICATE_KEY':
      return t('This key appears twice in the same mapping; keep one.');
    case 'TAB_AS_INDENT':
      return t('A tab indents this line; YAML indentation must be spaces.');
    case 'BAD_INDENT':
      if (/Flow sequence/.test(raw)) return t('A list that opens with [ is not closed with ] (or the line after it is not indented enough).');
      if (/Flow map/.test(raw)) return t('A mapping that opens with { is not closed with } (or the line after it is not indented enough).');
      return t('This line is indented differently from the lines it belongs with.');
    case 'MISSING_CHAR':
      if (/quote/i.test(raw)) return t('A quoted value is not closed: its closing quote is missing.');
      if (/map values/.test(raw)) return t('A key here has no ":" after it.');
      return t('Something is missing here: {0}.', raw.replace(/\.$/, ''));
    case 'BLOCK_AS_IMPLICIT_KEY':
      if (/compact/.test(raw)) return t('Two "key:" on one line: put the inner mapping on its own, indented line, or quote the value.');
      return t('This line is indented differently from the lines it belongs with.');
    case 'MULTILINE_IMPLICIT_KEY':
      return t('A key runs over more than one line; a ":" or a closing bracket is probably missing before it.');
    case 'UNEXPECTED_TOKEN':
      if (token !== undefined) return t('Unexpected {0} here: a bracket, brace or quote before it is missing, or this one is extra.', JSON.stringify(token));
      return t('Unexpected text here: the line before it is probably not closed, or this line is indented wrongly.');
    case 'BAD_ALIAS':
    case 'ALIAS_PROPS':
      return t('This alias (*name) cannot be used here: {0}.', raw.replace(/\.$/, ''));
    default:
      return t('The YAML is malformed here: {0}.', raw.replace(/\.$/, ''));
  }
}

/** On the error's line, a closing bracket with no opening one says what is missing better than the parser. */
function unbalanced(line: string): string | undefined {
  const text = line.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '').replace(/\s#.*$/, '');
  const count = (c: string): number => text.split(c).length - 1;
  if (count(']') > count('[')) return t('A ] on this line closes a list that was never opened: is a [ missing?');
  if (count('[') > count(']')) return t('A [ on this line opens a list that is not closed: is a ] missing?');
  return undefined;
}

export function syntaxFindings(errors: readonly YAMLError[], lines: LineIndex): Finding[] {
  const out: Finding[] = [];
  let structural = false;
  for (const err of errors) {
    const independent = INDEPENDENT.has(err.code);
    if (!independent && structural) continue;
    if (!independent) structural = true;
    const [start, end] = err.pos;
    const range = lines.range(start, Math.max(end, start + 1));
    const lineText = lines.text.split('\n')[range.start.line] ?? '';
    const message = (!independent && unbalanced(lineText)) || plainYamlMessage(err);
    out.push({ rule: 'inventory/yaml-syntax', severity: 'error', message, range });
  }
  return out;
}
