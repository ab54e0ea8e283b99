/**
 * Reading an INI inventory into Ansible's model: sections, host lines with key=value variables (split the way
 * Ansible's shlex does), host ranges like node[01:03].
 */
import { parseDocument } from 'yaml';
import { type Loc, Model, Reporter, type Var } from './ansibleModel';
import { t } from '../l10n';

// ---------------------------------------------------------------------------------------------
// INI

export interface Token {
  text: string;
  start: number;
  end: number;
}

/** POSIX shell-like splitting as Ansible does on host lines (shlex, comments=True), with positions. */
export function shellSplit(line: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < line.length) {
    while (i < line.length && /\s/.test(line[i]!)) i++;
    if (i >= line.length || line[i] === '#') break;
    const start = i;
    let text = '';
    while (i < line.length && !/\s/.test(line[i]!)) {
      const c = line[i]!;
      if (c === '#') break;
      if (c === "'") {
        const close = line.indexOf("'", i + 1);
        const end = close < 0 ? line.length : close;
        text += line.slice(i + 1, end);
        i = end + 1;
      } else if (c === '"') {
        i++;
        while (i < line.length && line[i] !== '"') {
          if (line[i] === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) i++;
          text += line[i]!;
          i++;
        }
        i++;
      } else if (c === '\\' && i + 1 < line.length) {
        text += line[i + 1]!;
        i += 2;
      } else {
        text += c;
        i++;
      }
    }
    tokens.push({ text, start, end: Math.min(i, line.length) });
    if (line[i] === '#') break;
  }
  return tokens;
}

/** Ansible's `_parse_value`: Python literals become values, everything else stays a string. */
export function iniValue(raw: string): unknown {
  const v = raw.trim();
  if (v.length >= 2 && (v[0] === '"' || v[0] === "'") && v[v.length - 1] === v[0]) return v.slice(1, -1);
  if (/^[-+]?\d+$/.test(v)) return Number(v);
  if (/^[-+]?\d+\.\d+$/.test(v)) return Number(v);
  if (v === 'True') return true;
  if (v === 'False') return false;
  if (v === 'None') return null;
  if (/^[[{]/.test(v)) {
    const doc = parseDocument(v.replace(/\bTrue\b/g, 'true').replace(/\bFalse\b/g, 'false').replace(/\bNone\b/g, 'null'));
    if (!doc.errors.length) return doc.toJSON();
  }
  return v;
}

export function readIni(text: string, file: string, model: Model, rep: Reporter): void {
  const lines = text.split('\n');
  let group = 'ungrouped';
  let kind: 'hosts' | 'vars' | 'children' = 'hosts';
  lines.forEach((rawLine, lineNo) => {
    const line = rawLine.replace(/\r$/, '');
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#') || trimmed.startsWith(';')) return;
    const indent = line.length - line.trimStart().length;
    const loc = (start: number, end: number): Loc => ({ file, range: { start: { line: lineNo, character: start }, end: { line: lineNo, character: end } } });
    const lineLoc = loc(indent, indent + trimmed.length);

    const header = /^\[([^\]]+)\]\s*(?:[#;].*)?$/.exec(trimmed);
    if (header) {
      const [name, type, ...extra] = header[1]!.trim().split(':');
      if (!name || extra.length || (type !== undefined && type !== 'vars' && type !== 'children')) {
        rep.add('ini-section', 'error', t('Section [{0}] has an unknown type; use [group], [group:vars] or [group:children].', header[1]), lineLoc, file);
        group = '';
        return;
      }
      group = name;
      kind = type === 'vars' ? 'vars' : type === 'children' ? 'children' : 'hosts';
      model.group(group, loc(indent + 1, indent + 1 + name.length));
      return;
    }
    if (!group) return; // inside a broken section: already reported

    if (kind === 'vars') {
      const content = stripIniComment(line);
      const eq = content.indexOf('=');
      if (eq < 0) {
        rep.add('ini-syntax', 'error', t('Expected key=value in [{0}:vars], got "{1}".', group, content.trim()), lineLoc, file);
        return;
      }
      const key = content.slice(0, eq).trim();
      const value = iniValue(content.slice(eq + 1));
      const g = model.group(group);
      g.vars.set(key, { key, value, loc: loc(indent, content.trimEnd().length), inInventory: true });
      return;
    }

    const tokens = shellSplit(line);
    if (!tokens.length) return;
    const first = tokens[0]!;
    if (kind === 'children') {
      if (tokens.length > 1) rep.add('ini-syntax', 'warning', t('Only a group name is expected in [{0}:children]; the rest of the line is ignored.', group), lineLoc, file);
      model.addChild(group, first.text, loc(first.start, first.end));
      return;
    }

    // A host line: pattern[:port] key=value ...
    const patternLoc = loc(first.start, first.end);
    const m = /^((?:[^:[\]]|\[[^\]]*\])+)(?::([^:[\]]*))?$/.exec(first.text);
    if (!m) {
      rep.add('ini-syntax', 'error', t('"{0}" is not a host name or range.', first.text), patternLoc, file);
      return;
    }
    const names = expandHostPattern(m[1]!, patternLoc, rep);
    const vars: Var[] = [];
    if (m[2] !== undefined) vars.push({ key: 'ansible_port', value: /^\d+$/.test(m[2]) ? Number(m[2]) : m[2], loc: patternLoc, inInventory: true });
    for (const tok of tokens.slice(1)) {
      const eq = tok.text.indexOf('=');
      if (eq <= 0) {
        rep.add('ini-syntax', 'error', t('Expected key=value after the host name, got "{0}".', tok.text), loc(tok.start, tok.end), file);
        continue;
      }
      vars.push({ key: tok.text.slice(0, eq), value: iniValue(tok.text.slice(eq + 1)), loc: loc(tok.start, tok.end), inInventory: true });
    }
    for (const name of names) {
      const host = model.host(name, patternLoc);
      for (const v of vars) host.vars.set(v.key, v);
      model.addHostToGroup(group, name);
    }
  });
}

export function stripIniComment(line: string): string {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if ((c === '#' || c === ';') && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

/** Expands `node[01:03]`, `web[a:c]`, `db[1:10:2]` like Ansible; a pattern without brackets is itself. */
export function expandHostPattern(pattern: string, loc: Loc | undefined, rep: Reporter | undefined): string[] {
  const m = /^(.*?)\[([^\]]+)\](.*)$/.exec(pattern);
  if (!m) return [pattern];
  const [, head, body, tail] = m as unknown as [string, string, string, string];
  const parts = body.split(':');
  const fail = (why: string): string[] => {
    rep?.add('host-range', 'error', t('Host range "{0}": {1}', pattern, why), loc, loc?.file ?? '');
    return [];
  };
  if (parts.length < 2 || parts.length > 3) return fail(t('expected [start:end] or [start:end:step].'));
  const [beg, end, stepText] = parts as [string, string, string?];
  const step = stepText === undefined ? 1 : Number(stepText);
  if (!Number.isInteger(step) || step < 1) return fail(t('step "{0}" is not a positive integer.', stepText));
  const out: string[] = [];
  if (/^\d+$/.test(beg) && /^\d+$/.test(end)) {
    const a = Number(beg);
    const b = Number(end);
    if (a > b) return fail(t('the start is after the end.'));
    if (b - a > 10000) return fail(t('more than 10000 hosts.'));
    const width = beg.length > 1 && beg.startsWith('0') ? beg.length : 0;
    for (let n = a; n <= b; n += step) out.push(String(n).padStart(width, '0'));
  } else if (/^[a-z]$/i.test(beg) && /^[a-z]$/i.test(end)) {
    const a = beg.charCodeAt(0);
    const b = end.charCodeAt(0);
    if (a > b) return fail(t('the start is after the end.'));
    for (let c = a; c <= b; c += step) out.push(String.fromCharCode(c));
  } else {
    return fail(t('the bounds must be two numbers or two letters.'));
  }
  return out.flatMap((mid) => expandHostPattern(`${head}${mid}${tail}`, loc, rep));
}
