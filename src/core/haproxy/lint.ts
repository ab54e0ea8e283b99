/**
 * The haproxy.cfg linter. Section-local rules (syntax, keywords, server and bind lines) are cached per section
 * text, so re-linting after a one-line edit re-checks only the edited section; the rules that span sections
 * (mode inheritance, backend references, the API frontend against the inventory, timeouts) run over the parsed
 * structure, which is cheap.
 */
import { textGuard } from '../lint/textGuard';
import { forBalancers } from '../lint/targets';
import type { Finding, Fix, Range, TextEdit } from '../findings';
import { hostsWithRole, splitEndpoint } from '../inventory/types';
import type { HostSpec, Inventory } from '../inventory/types';
import type { FileLinter, LintContext, SourceFile } from '../lint/types';
import { isIPv4 } from '../net';
import {
  ARITY,
  BACKEND_ONLY,
  LOG_FACILITIES,
  LOG_LEVELS,
  OPTIONS_NO_ARGS,
  BALANCE_ALGORITHMS,
  BIND_KEYWORDS,
  didYouMean,
  GLOBAL_KEYWORDS,
  GLOBAL_PREFIXES,
  MODES,
  NOT_IN_DEFAULTS,
  OPTIONS,
  OTHER_SECTION_KEYWORDS,
  PROXY_KEYWORDS,
  REMOVED_KEYWORDS,
  REMOVED_OPTIONS,
  SERVER_KEYWORDS,
  TIMEOUTS,
} from './keywords';
import { clearSectionCache, findLines, parseHaproxy, PROXY_SECTIONS } from './parse';
import type { HaproxyConfig, ParsedLine, Section, Token } from './parse';
import { finding, fix, HAPROXY_RULES } from './rules';

// ---------------------------------------------------------------------------------------------- helpers

/** Parses an HAProxy time (`5s`, `1h`, `300` = ms); undefined when malformed. */
export function parseTime(value: string): number | undefined {
  const m = /^(\d+)(us|ms|s|m|h|d)?$/.exec(value);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2] ?? 'ms';
  const factor = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit]!;
  return n * factor;
}

function formatMs(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

interface Place {
  section: Section;
  line: ParsedLine;
}

function abs(p: Place): number {
  return p.section.startLine + p.line.rel;
}

function tokenRange(p: Place, t: Token | undefined): Range {
  const line = abs(p);
  if (!t) return { start: { line, character: p.line.indent }, end: { line, character: p.line.length } };
  return { start: { line, character: t.start }, end: { line, character: t.end } };
}

function lineRange(p: Place): Range {
  const line = abs(p);
  const last = p.line.tokens[p.line.tokens.length - 1];
  return { start: { line, character: p.line.indent }, end: { line, character: last ? last.end : p.line.length } };
}

function replaceToken(p: Place, t: Token, text: string): TextEdit {
  return { range: tokenRange(p, t), newText: text };
}

function bodyIndent(section: Section): string {
  const first = section.lines.find((l) => l.rel > 0 && l.tokens.length > 0);
  return ' '.repeat(first && first.indent > 0 ? first.indent : 4);
}

/** Inserts lines right after a line of a section (at the end of that line, so no trailing-line edge case). */
function insertAfter(p: Place, lines: string[], eol: string): TextEdit {
  const line = abs(p);
  const indent = bodyIndent(p.section);
  return { range: { start: { line, character: p.line.length }, end: { line, character: p.line.length } }, newText: lines.map((l) => eol + indent + l).join('') };
}

function deleteLine(p: Place): TextEdit {
  const line = abs(p);
  return { range: { start: { line, character: 0 }, end: { line: line + 1, character: 0 } }, newText: '' };
}

function header(section: Section): Place {
  return { section, line: section.lines[0]! };
}

function placesOf(section: Section, ...words: string[]): Place[] {
  return findLines(section, ...words).map((line) => ({ section, line }));
}

function lastPlace(section: Section, ...words: string[]): Place | undefined {
  const byKeyword = section.index.get(words[0] ?? '');
  if (!byKeyword) return undefined;
  for (let i = byKeyword.length - 1; i >= 0; i--) {
    const line = byKeyword[i]!;
    let ok = true;
    for (let w = 1; w < words.length && ok; w++) ok = line.tokens[w]?.text === words[w];
    if (ok) return { section, line };
  }
  return undefined;
}

/** Splits `host:port` (IPv6 in brackets or with several colons); port undefined when absent. */
export function splitHostPort(text: string): { host: string; port?: string } {
  let addr = text;
  const at = addr.indexOf('@');
  if (at >= 0) addr = addr.slice(at + 1);
  if (addr.startsWith('[')) {
    const close = addr.indexOf(']');
    if (close > 0) {
      const rest = addr.slice(close + 1);
      return rest.startsWith(':') ? { host: addr.slice(1, close), port: rest.slice(1) } : { host: addr.slice(1, close) };
    }
  }
  const colons = addr.split(':').length - 1;
  if (colons === 0) return { host: addr };
  if (colons === 1) {
    const i = addr.indexOf(':');
    return { host: addr.slice(0, i), port: addr.slice(i + 1) };
  }
  // bare IPv6: the last group is the port only when haproxy would read it so (ipv6@ or ends with ':port')
  const i = addr.lastIndexOf(':');
  return { host: addr.slice(0, i), port: addr.slice(i + 1) };
}

/** Digits and dots only, with at least one dot: meant as an IPv4 address (then isIPv4 decides). */
function looksLikeIPv4(s: string): boolean {
  let dot = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) dot = true;
    else if (c < 48 || c > 57) return false;
  }
  return dot;
}
const WILDCARDS = new Set(['', '*', '0.0.0.0', '::']);

function validPort(p: string, allowRange: boolean): boolean {
  const parts = allowRange ? p.split('-') : [p];
  if (parts.length > 2) return false;
  return parts.every((x) => /^\d{1,5}$/.test(x) && Number(x) <= 65535);
}

// ---------------------------------------------------------------------------------------------- local rules

interface LocalContext {
  eol: string;
}

/** Rules that look at one section only; their findings are cached by section text (relative lines). */
function lintSection(section: Section, ctx: LocalContext): Finding[] {
  const out: Finding[] = [];
  const type = section.type;
  const isProxy = PROXY_SECTIONS.has(type);
  const serverNames = new Map<string, Place>();
  for (const line of section.lines) {
    const p: Place = { section, line };
    if (line.error) {
      const r = tokenRange(p, undefined);
      r.start.character = line.error.column;
      const unmatched = line.error.message.startsWith('unmatched quote');
      const q = unmatched ? (p.section.text.split('\n')[line.rel] ?? '')[line.error.column] : undefined;
      const at = { line: abs(p), character: line.length };
      out.push(finding('haproxy/syntax', `Parse error: ${line.error.message}.`, r, q ? [fix('Close the quote at the end of the line', { range: { start: at, end: at }, newText: q })] : undefined));
      continue;
    }
    const kwTok = line.tokens[0];
    if (!kwTok) continue;
    const kw = kwTok.text;
    if (line.rel === 0 && type !== '') {
      if ((type === 'frontend' || type === 'backend' || type === 'listen') && !line.tokens[1]) {
        out.push(finding('haproxy/missing-name', `'${type}' needs a name.`, lineRange(p)));
      } else if (isProxy) {
        const t = line.tokens;
        const first = type === 'defaults' && t[1]?.text === 'from' ? 1 : 2;
        const extra = t[first] && !(t[first]!.text === 'from' && t[first + 1] && !t[first + 2]) ? t[first] : undefined;
        if (extra) {
          const last = t[t.length - 1]!;
          const keep = t[first - 1]!.end;
          out.push(
            finding('haproxy/argument', `'${type} ${t[1]?.text ?? ''}' takes only a name and 'from <defaults>'; put addresses on a 'bind' line (got '${extra.text}').`, { start: tokenRange(p, extra).start, end: tokenRange(p, last).end }, [
              fix('Remove the extra words', { range: { start: { line: abs(p), character: keep }, end: tokenRange(p, last).end }, newText: '' }),
            ]),
          );
        }
      }
      continue;
    }
    if (type === '') {
      const near = didYouMean(kw, [...PROXY_SECTIONS, 'global']);
      const lineStart = { line: abs(p), character: 0 };
      const fixes = near
        ? [fix(`Change to '${near}'`, replaceToken(p, kwTok, near))]
        : GLOBAL_KEYWORDS.has(kw) || GLOBAL_PREFIXES.some((x) => kw.startsWith(x))
          ? [fix("Open a 'global' section above it", { range: { start: lineStart, end: lineStart }, newText: `global${ctx.eol}` })]
          : [fix('Remove the line', deleteLine(p))];
      out.push(finding('haproxy/out-of-section', `'${kw}' is outside any section${near ? `; did you mean '${near}'?` : ' (add a section header above it).'}`, tokenRange(p, kwTok), fixes));
      continue;
    }
    if (type === 'global') {
      if (REMOVED_KEYWORDS[kw]) {
        out.push(finding('haproxy/removed-keyword', `'${kw}' is no longer supported by HAProxy 2.6; use '${REMOVED_KEYWORDS[kw]}'.`, tokenRange(p, kwTok), kw === 'nbproc' ? [fix(`Remove '${kw}'`, deleteLine(p))] : undefined));
      } else if (!GLOBAL_KEYWORDS.has(kw) && !GLOBAL_PREFIXES.some((x) => kw.startsWith(x))) {
        unknown(out, p, kwTok, 'global', GLOBAL_KEYWORDS);
      } else if (kw === 'log') {
        lintLog(out, p);
      } else if (kw === 'stats') {
        lintStats(out, p);
      } else {
        lintArity(out, p);
        const v = line.tokens[1];
        if ((kw === 'user' || kw === 'group') && v && v.text !== 'haproxy' && didYouMean(v.text, ['haproxy'])) {
          out.push(finding('haproxy/argument', `${kw} '${v.text}' does not exist on a Debian balancer; did you mean 'haproxy'?`, tokenRange(p, v), [fix("Change to 'haproxy'", replaceToken(p, v, 'haproxy'))], 'warning'));
        }
        if (kw === 'nbthread') {
          const v = line.tokens[1]?.text ?? '';
          if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 64) out.push(finding('haproxy/argument', `'nbthread' must be between 1 and 64 (got '${v}').`, tokenRange(p, line.tokens[1] ?? kwTok)));
        }
      }
      continue;
    }
    if (!isProxy) {
      const known = OTHER_SECTION_KEYWORDS[type];
      if (known && !known.has(kw)) unknown(out, p, kwTok, type, known);
      continue;
    }
    // proxy sections
    if (REMOVED_KEYWORDS[kw]) {
      const repl = REMOVED_KEYWORDS[kw]!;
      out.push(finding('haproxy/removed-keyword', `'${kw}' is no longer supported by HAProxy 2.6; use '${repl}'.`, tokenRange(p, kwTok), [fix(`Replace with '${repl}'`, replaceToken(p, kwTok, repl))]));
      continue;
    }
    if (!PROXY_KEYWORDS.has(kw)) {
      unknown(out, p, kwTok, type, PROXY_KEYWORDS);
      continue;
    }
    if (type === 'defaults' && NOT_IN_DEFAULTS.has(kw)) {
      out.push(finding('haproxy/keyword-not-allowed', `'${kw}' is not allowed in a 'defaults' section.`, tokenRange(p, kwTok)));
      continue;
    }
    if (type === 'frontend' && BACKEND_ONLY.has(kw)) {
      out.push(finding('haproxy/keyword-not-allowed', `'${kw}' is not allowed in a frontend: it has no backend capability.`, tokenRange(p, kwTok)));
      continue;
    }
    const arg = line.tokens[1];
    switch (kw) {
      case 'option':
      case 'no': {
        let optTok = arg;
        if (kw === 'no') {
          if (arg?.text !== 'option') {
            out.push(finding('haproxy/unknown-keyword', `'no' must be followed by 'option'.`, tokenRange(p, arg ?? kwTok)));
            break;
          }
          optTok = line.tokens[2];
        }
        const extra = line.tokens[kw === 'no' ? 3 : 2];
        if (!optTok) {
          out.push(finding('haproxy/unknown-keyword', `'option' needs an option name.`, tokenRange(p, kwTok)));
        } else if (extra && (OPTIONS_NO_ARGS.has(optTok.text) || kw === 'no' || (optTok.text === 'httplog' && (extra.text !== 'clf' || line.tokens[3])))) {
          const last = line.tokens[line.tokens.length - 1]!;
          const at = tokenRange(p, extra);
          out.push(finding('haproxy/argument', `'option ${optTok.text}' takes no argument '${extra.text}'.`, { start: at.start, end: tokenRange(p, last).end }, [fix(`Remove '${line.tokens.slice(line.tokens.indexOf(extra)).map((t) => t.text).join(' ')}'`, { range: { start: { line: abs(p), character: optTok.end }, end: tokenRange(p, last).end }, newText: '' })]));
        } else if (REMOVED_OPTIONS[optTok.text]) {
          out.push(finding('haproxy/removed-keyword', `option '${optTok.text}' is no longer supported by HAProxy 2.6.`, tokenRange(p, optTok)));
        } else if (!OPTIONS.has(optTok.text)) {
          const near = didYouMean(optTok.text, OPTIONS);
          out.push(finding('haproxy/unknown-keyword', `Unknown option '${optTok.text}'${near ? `; did you mean '${near}'?` : '.'}`, tokenRange(p, optTok), near ? [fix(`Change to '${near}'`, replaceToken(p, optTok, near))] : undefined));
        }
        break;
      }
      case 'mode':
        if (!arg || !MODES.has(arg.text)) {
          const near = arg ? didYouMean(arg.text, MODES) : 'tcp';
          out.push(finding('haproxy/invalid-mode', `Unknown proxy mode '${arg?.text ?? ''}'; use tcp, http or health.`, tokenRange(p, arg ?? kwTok), near ? [fix(`Change to 'mode ${near}'`, arg ? replaceToken(p, arg, near) : { range: tokenRange(p, kwTok), newText: `mode ${near}` })] : undefined));
        }
        break;
      case 'timeout': {
        if (!arg || !TIMEOUTS.has(arg.text)) {
          const near = arg ? didYouMean(arg.text, TIMEOUTS) : undefined;
          out.push(finding('haproxy/timeout-invalid', `Unknown timeout '${arg?.text ?? ''}'${near ? `; did you mean '${near}'?` : ''}.`, tokenRange(p, arg ?? kwTok)));
          break;
        }
        const value = line.tokens[2];
        if (!value || parseTime(value.text) === undefined) {
          out.push(finding('haproxy/timeout-invalid', `'timeout ${arg.text}' needs a time such as 5s, 1m or 1h (got '${value?.text ?? ''}').`, tokenRange(p, value ?? arg)));
        }
        break;
      }
      case 'balance':
        if (type !== 'frontend') {
          const algo = arg?.text ?? '';
          const base = algo.replace(/\(.*$/, '');
          if (!BALANCE_ALGORITHMS.includes(base) || ((base === 'hdr' || base === 'rdp-cookie') && algo !== base && !/^\w[\w-]*\(.*\)$/.test(algo))) {
            const near = didYouMean(base, BALANCE_ALGORITHMS) ?? 'roundrobin';
            out.push(finding('haproxy/balance', `Unknown balance algorithm '${algo}'; use roundrobin, leastconn, source... (did you mean '${near}'?).`, tokenRange(p, arg ?? kwTok), [fix(`Change to 'balance ${near}'`, arg ? replaceToken(p, arg, near) : { range: tokenRange(p, kwTok), newText: `balance ${near}` })]));
          }
        }
        break;
      case 'bind':
        lintBind(out, p);
        break;
      case 'log':
        lintLog(out, p);
        break;
      case 'default_backend':
      case 'fullconn':
      case 'hash-type':
        lintArity(out, p);
        break;
      case 'server':
        lintServer(out, p, serverNames);
        break;
      case 'default-server':
        lintServerOptions(out, p, 1);
        break;
    }
  }
  return out;
}

function unknown(out: Finding[], p: Place, tok: Token, type: string, known: Iterable<string>): void {
  const near = didYouMean(tok.text, known);
  out.push(
    finding('haproxy/unknown-keyword', `Unknown keyword '${tok.text}' in '${type}' section${near ? `; did you mean '${near}'?` : '.'}`, tokenRange(p, tok), near ? [fix(`Change to '${near}'`, replaceToken(p, tok, near))] : undefined),
  );
}

function lintArity(out: Finding[], p: Place): void {
  const kw = p.line.tokens[0]!;
  const arity = ARITY[kw.text];
  if (!arity) return;
  const n = p.line.tokens.length - 1;
  if (n < arity[0]) {
    out.push(finding('haproxy/argument', `'${kw.text}' needs ${arity[0] === 1 ? 'an argument' : `${arity[0]} arguments`}.`, tokenRange(p, kw)));
  } else if (n > arity[1]) {
    const first = p.line.tokens[arity[1] + 1]!;
    const last = p.line.tokens[p.line.tokens.length - 1]!;
    const keepEnd = p.line.tokens[arity[1]]!.end;
    out.push(
      finding('haproxy/argument', `'${kw.text}' takes ${arity[1] === 0 ? 'no argument' : `at most ${arity[1]}`}; '${first.text}' is one too many.`, { start: tokenRange(p, first).start, end: tokenRange(p, last).end }, [
        fix('Remove the extra arguments', { range: { start: { line: abs(p), character: keepEnd }, end: tokenRange(p, last).end }, newText: '' }),
      ]),
    );
  }
}

/** `log global` or `log <address> [len N] [format F] [sample S] <facility> [max [min]]`. */
function lintLog(out: Finding[], p: Place): void {
  const t = p.line.tokens;
  if (t[1]?.text === 'global' || (t[1]?.text === 'stdout' && !t[2])) {
    if (t[1]?.text === 'global' && t[2]) out.push(finding('haproxy/argument', `'log global' takes no further argument ('${t[2].text}').`, tokenRange(p, t[2]), [fix('Remove the extra arguments', { range: { start: { line: abs(p), character: t[1].end }, end: tokenRange(p, t[t.length - 1]).end }, newText: '' })]));
    return;
  }
  if (t[1]?.text === 'stdout' || t[1]?.text === 'stderr' || t.length >= 3) {
    const a = t[1]!.text;
    if (!a.startsWith('/') && !/^(stdout|stderr)$/.test(a) && !/^[a-z0-9]+@/.test(a)) {
      const { host, port } = splitHostPort(a);
      const okHost = looksLikeIPv4(host) ? isIPv4(host) : /^[A-Za-z0-9.-]+$/.test(host) || /^[0-9a-fA-F:.]+$/.test(host);
      if (!okHost || (port !== undefined && !validPort(port, false))) {
        out.push(finding('haproxy/argument', `'log' address '${a}' is neither a socket path nor an address[:port].`, tokenRange(p, t[1])));
        return;
      }
    }
    let i = 2;
    while (t[i] && ['len', 'format', 'sample'].includes(t[i]!.text)) i += 2;
    const fac = t[i];
    if (!fac) {
      out.push(finding('haproxy/argument', "'log' needs an address and a facility (or 'global').", lineRange(p)));
      return;
    }
    if (!LOG_FACILITIES.has(fac.text)) {
      const near = didYouMean(fac.text, LOG_FACILITIES);
      out.push(finding('haproxy/argument', `Unknown log facility '${fac.text}'${near ? `; did you mean '${near}'?` : '.'}`, tokenRange(p, fac), near ? [fix(`Change to '${near}'`, replaceToken(p, fac, near))] : undefined));
      return;
    }
    for (let j = i + 1; j < t.length; j++) {
      if (j > i + 2) {
        out.push(finding('haproxy/argument', `'log' cannot handle the extra argument '${t[j]!.text}'.`, tokenRange(p, t[j])));
        return;
      }
      if (!LOG_LEVELS.has(t[j]!.text)) {
        const near = didYouMean(t[j]!.text, LOG_LEVELS);
        out.push(finding('haproxy/argument', `Unknown log level '${t[j]!.text}'${near ? `; did you mean '${near}'?` : '.'}`, tokenRange(p, t[j]), near ? [fix(`Change to '${near}'`, replaceToken(p, t[j]!, near))] : undefined));
        return;
      }
    }
    return;
  }
  out.push(finding('haproxy/argument', "'log' needs an address and a facility (or 'global').", lineRange(p)));
}

const STATS_LEVELS = ['user', 'operator', 'admin'];

/** `stats socket <path> [bind options]`, `stats timeout <time>`, `stats maxconn <n>` in the global section. */
function lintStats(out: Finding[], p: Place): void {
  const t = p.line.tokens;
  const sub = t[1];
  const subs = ['socket', 'maxconn', 'bind-process', 'timeout'];
  if (!sub || !subs.includes(sub.text)) {
    const near = sub ? didYouMean(sub.text, subs) : undefined;
    out.push(finding('haproxy/argument', `'stats' supports socket, maxconn, bind-process and timeout (got '${sub?.text ?? ''}').`, tokenRange(p, sub ?? t[0]), near && sub ? [fix(`Change to '${near}'`, replaceToken(p, sub, near))] : undefined));
    return;
  }
  if (sub.text === 'timeout') {
    if (!t[2] || parseTime(t[2].text) === undefined) out.push(finding('haproxy/argument', `'stats timeout' needs a time (got '${t[2]?.text ?? ''}').`, tokenRange(p, t[2] ?? sub)));
    return;
  }
  if (sub.text !== 'socket') return;
  const addr = t[2];
  if (!addr) {
    out.push(finding('haproxy/argument', "'stats socket' needs a path or address.", tokenRange(p, sub)));
    return;
  }
  if (!addr.text.startsWith('/') && !addr.text.includes('@')) {
    const { port } = splitHostPort(addr.text);
    if (port === undefined || !validPort(port, true)) out.push(finding('haproxy/argument', `'stats socket' address '${addr.text}' is neither a path nor address:port.`, tokenRange(p, addr)));
  }
  for (let i = 3; i < t.length; i++) {
    const k = t[i]!;
    const n = BIND_KEYWORDS.get(k.text);
    if (n === undefined) {
      const near = didYouMean(k.text, BIND_KEYWORDS.keys());
      out.push(finding('haproxy/argument', `Unknown 'stats socket' option '${k.text}'${near ? `; did you mean '${near}'?` : '.'}`, tokenRange(p, k), near ? [fix(`Change to '${near}'`, replaceToken(p, k, near))] : undefined));
      return;
    }
    const v = t[i + 1];
    if (n > 0 && !v) {
      out.push(finding('haproxy/argument', `'${k.text}' needs a value.`, tokenRange(p, k)));
      return;
    }
    if (k.text === 'mode' && v && !/^[0-7]{1,4}$/.test(v.text)) out.push(finding('haproxy/argument', `'mode' needs an octal permission such as 660 (got '${v.text}').`, tokenRange(p, v)));
    if (k.text === 'level' && v && !STATS_LEVELS.includes(v.text)) {
      const near = didYouMean(v.text, STATS_LEVELS) ?? 'admin';
      out.push(finding('haproxy/argument', `'level' is user, operator or admin (got '${v.text}').`, tokenRange(p, v), [fix(`Change to '${near}'`, replaceToken(p, v, near))]));
    }
    i += n;
  }
}

function lintBind(out: Finding[], p: Place): void {
  const addr = p.line.tokens[1];
  if (!addr) {
    out.push(finding('haproxy/bind-address', "'bind' needs an address:port.", tokenRange(p, p.line.tokens[0])));
    return;
  }
  for (const piece of addr.text.split(',')) {
    if (piece.startsWith('/') || /^(unix|abns|fd|sockpair|uxst|uxdg)@/.test(piece)) continue;
    const { host, port } = splitHostPort(piece);
    if (port === undefined || port === '') {
      out.push(finding('haproxy/bind-address', `'bind' address '${piece}' has no port.`, tokenRange(p, addr)));
    } else if (!validPort(port, true)) {
      out.push(finding('haproxy/bind-address', `'bind' port '${port}' is not a valid port.`, tokenRange(p, addr)));
    } else if (looksLikeIPv4(host) && !isIPv4(host)) {
      out.push(finding('haproxy/bind-address', `'bind' address '${host}' is not a valid IPv4 address.`, tokenRange(p, addr)));
    }
  }
  const toks = p.line.tokens;
  for (let i = 2; i < toks.length; i++) {
    const t = toks[i]!;
    const n = BIND_KEYWORDS.get(t.text);
    if (n === undefined) {
      const near = didYouMean(t.text, BIND_KEYWORDS.keys());
      out.push(finding('haproxy/bind-keyword', `Unknown bind option '${t.text}'${near ? `; did you mean '${near}'?` : '.'}`, tokenRange(p, t), near ? [fix(`Change to '${near}'`, replaceToken(p, t, near))] : undefined));
      return;
    }
    i += n;
  }
}

function lintServer(out: Finding[], p: Place, names: Map<string, Place>): void {
  const toks = p.line.tokens;
  const name = toks[1];
  const addr = toks[2];
  if (!name || !addr) {
    out.push(finding('haproxy/server-address', "'server' needs a name and an address.", lineRange(p)));
    return;
  }
  const prev = names.get(name.text);
  if (prev) {
    const sameAddress = prev.line.tokens[2]?.text === addr.text;
    let n = 2;
    while (names.has(`${name.text}-${n}`)) n++;
    const f = sameAddress ? fix('Remove the duplicate server line', deleteLine(p)) : fix(`Rename to '${name.text}-${n}'`, replaceToken(p, name, `${name.text}-${n}`));
    out.push(finding('haproxy/duplicate-server', `Another server named '${name.text}' is defined at line ${abs(prev) + 1}.`, tokenRange(p, name), [f]));
  } else names.set(name.text, p);
  if (!(addr.text.startsWith('/') || /^(unix|abns|fd|sockpair)@/.test(addr.text))) {
    const { host, port } = splitHostPort(addr.text);
    if (port !== undefined && !/^[+-]?\d{1,5}$/.test(port)) out.push(finding('haproxy/server-address', `Server '${name.text}' has an invalid port '${port}'.`, tokenRange(p, addr)));
    else if (port !== undefined && Math.abs(Number(port)) > 65535) out.push(finding('haproxy/server-address', `Server '${name.text}' has an invalid port '${port}'.`, tokenRange(p, addr)));
    if (looksLikeIPv4(host)) {
      if (!isIPv4(host)) out.push(finding('haproxy/server-address', `Server '${name.text}' has an invalid IPv4 address '${host}'.`, tokenRange(p, addr)));
    } else if (!host.includes(':') && host !== '') {
      out.push(
        finding('haproxy/server-address', `Server '${name.text}' uses the host name '${host}', which HAProxy resolves once at start-up; use the node's IP address.`, tokenRange(p, addr), undefined, 'warning'),
      );
    }
  }
  lintServerOptions(out, p, 3);
}

/** True when the server line's first unknown option is a near miss of `name` (what lintServerOptions reports). */
function misspeltOption(line: ParsedLine, name: string): boolean {
  const unknownTok = line.tokens.slice(3).find((t) => SERVER_KEYWORDS.get(t.text) === undefined);
  return unknownTok !== undefined && didYouMean(unknownTok.text, SERVER_KEYWORDS.keys()) === name;
}

function lintServerOptions(out: Finding[], p: Place, from: number): void {
  const toks = p.line.tokens;
  for (let i = from; i < toks.length; i++) {
    const t = toks[i]!;
    const n = SERVER_KEYWORDS.get(t.text);
    if (n === undefined) {
      const near = didYouMean(t.text, SERVER_KEYWORDS.keys());
      out.push(finding('haproxy/server-keyword', `Unknown server option '${t.text}'${near ? `; did you mean '${near}'?` : '.'}`, tokenRange(p, t), near ? [fix(`Change to '${near}'`, replaceToken(p, t, near))] : undefined));
      return;
    }
    const v = toks[i + 1];
    if (n > 0 && !v) {
      out.push(finding('haproxy/server-keyword', `'${t.text}' needs a value.`, tokenRange(p, t)));
      return;
    }
    if ((t.text === 'fall' || t.text === 'rise') && v && !(/^\d+$/.test(v.text) && Number(v.text) > 0)) {
      out.push(finding('haproxy/server-keyword', `'${t.text}' must be a number greater than 0 (got '${v.text}').`, tokenRange(p, v), [fix(`Set '${t.text} ${t.text === 'fall' ? 3 : 2}'`, replaceToken(p, v, t.text === 'fall' ? '3' : '2'))]));
    } else if (t.text === 'weight' && v && !(/^\d+$/.test(v.text) && Number(v.text) <= 256)) {
      out.push(finding('haproxy/server-keyword', `'weight' must be between 0 and 256 (got '${v.text}').`, tokenRange(p, v)));
    } else if ((t.text === 'inter' || t.text === 'fastinter' || t.text === 'downinter' || t.text === 'slowstart') && v && parseTime(v.text) === undefined) {
      out.push(finding('haproxy/server-keyword', `'${t.text}' needs a time such as 2s (got '${v.text}').`, tokenRange(p, v)));
    } else if (t.text === 'port' && v && !validPort(v.text, false)) {
      out.push(finding('haproxy/server-keyword', `'port' must be a port number (got '${v.text}').`, tokenRange(p, v)));
    }
    i += n;
    if (t.text === 'source') {
      while (toks[i + 1] && (toks[i + 1]!.text === 'usesrc' || toks[i + 1]!.text === 'interface')) i += 2;
    }
  }
}

// ---------------------------------------------------------------------------------------------- structure

interface Proxy {
  section: Section;
  index: number;
  defaults?: Proxy;
}

function frontendCapable(s: Section): boolean {
  return s.type === 'frontend' || s.type === 'listen';
}
function backendCapable(s: Section): boolean {
  return s.type === 'backend' || s.type === 'listen';
}

class Model {
  readonly proxies: Proxy[] = [];
  readonly backends = new Map<string, Proxy>();

  constructor(readonly cfg: HaproxyConfig) {
    const namedDefaults = new Map<string, Proxy>();
    let current: Proxy | undefined;
    cfg.sections.forEach((section, index) => {
      if (!PROXY_SECTIONS.has(section.type)) return;
      const proxy: Proxy = { section, index };
      const h = section.lines[0]!.tokens;
      const fromAt = h.findIndex((t, i) => i >= 1 && t.text === 'from');
      const fromName = fromAt >= 1 ? h[fromAt + 1]?.text : undefined;
      const parent = fromName !== undefined ? namedDefaults.get(fromName) : current;
      if (parent && parent !== proxy) proxy.defaults = parent;
      this.proxies.push(proxy);
      if (section.type === 'defaults') {
        current = proxy;
        if (section.name && section.name !== 'from') namedDefaults.set(section.name, proxy);
      } else if (backendCapable(section) && section.name && !this.backends.has(section.name)) {
        this.backends.set(section.name, proxy);
      }
    });
  }

  /** The last line `words...` of the proxy, else of its defaults chain. */
  setting(proxy: Proxy, ...words: string[]): Place | undefined {
    for (let p: Proxy | undefined = proxy, depth = 0; p && depth < 16; p = p.defaults, depth++) {
      const place = lastPlace(p.section, ...words);
      if (place) return place;
    }
    return undefined;
  }

  mode(proxy: Proxy): { mode: string; place?: Place } {
    const place = this.setting(proxy, 'mode');
    return { mode: place?.line.tokens[1]?.text ?? 'tcp', ...(place ? { place } : {}) };
  }

  /** Whether an `option X` is in effect (a later `no option X` in the proxy or defaults cancels it). */
  option(proxy: Proxy, name: string): Place | undefined {
    for (let p: Proxy | undefined = proxy, depth = 0; p && depth < 16; p = p.defaults, depth++) {
      let found: Place | undefined;
      let seen = false;
      for (const line of p.section.lines) {
        const t = line.tokens;
        if (t[0]?.text === 'option' && t[1]?.text === name) {
          found = { section: p.section, line };
          seen = true;
        } else if (t[0]?.text === 'no' && t[1]?.text === 'option' && t[2]?.text === name) {
          found = undefined;
          seen = true;
        }
      }
      if (seen) return found;
    }
    return undefined;
  }

  /** Whether the proxy (or its defaults) has an `http-check expect` rule. */
  httpCheckExpect(proxy: Proxy): boolean {
    for (let p: Proxy | undefined = proxy, depth = 0; p && depth < 16; p = p.defaults, depth++) {
      if (p.section.lines.some((l) => l.tokens[0]?.text === 'http-check' && l.tokens[1]?.text === 'expect')) return true;
    }
    return false;
  }

  timeout(proxy: Proxy, name: string): { ms: number; place: Place } | undefined {
    const place = this.setting(proxy, 'timeout', name);
    const ms = place ? parseTime(place.line.tokens[2]?.text ?? '') : undefined;
    return place && ms !== undefined ? { ms, place } : undefined;
  }

  defaultServer(proxy: Proxy): Place[] {
    const out: Place[] = [];
    for (let p: Proxy | undefined = proxy, depth = 0; p && depth < 16; p = p.defaults, depth++) out.unshift(...placesOf(p.section, 'default-server'));
    return out;
  }
}

/** Value of a server option on a server line, else from default-server lines (later wins). */
/**
 * The /readyz check as the generator writes it: `option httpchk GET /readyz` and `http-check expect status 200` in
 * place of the backend's own check option, and `check-ssl verify none` after each server's `check` (the apiserver
 * serves /readyz to anonymous clients over TLS; the check needs no client certificate). Only when the option is
 * the backend's own, so a check in defaults shared with other proxies is not rewritten.
 */
function readyzFix(bs: Section, option: Place | undefined, servers: Place[], defaults: Place[], eol: string): Fix[] | undefined {
  if (option && option.section !== bs) return undefined;
  const indent = bodyIndent(bs);
  const lines = ['option httpchk GET /readyz', 'http-check expect status 200'];
  const anchor = lastPlace(bs, 'balance') ?? lastPlace(bs, 'mode') ?? header(bs);
  const edits: TextEdit[] = [option ? { range: lineRange(option), newText: lines.join(eol + indent) } : insertAfter(anchor, lines, eol)];
  for (const s of servers) {
    const check = serverOption(s.line, defaults, 'check');
    if (!check?.own || !check.tok || serverOption(s.line, defaults, 'check-ssl')) continue;
    const hasVerify = !!serverOption(s.line, defaults, 'verify');
    edits.push({ range: { start: { line: abs(s), character: check.tok.end }, end: { line: abs(s), character: check.tok.end } }, newText: hasVerify ? ' check-ssl' : ' check-ssl verify none' });
  }
  return [fix('Check HTTPS GET /readyz', ...edits)];
}

function serverOption(line: ParsedLine, defaults: Place[], name: string, from = 3): { value?: string; tok?: Token; own: boolean } | undefined {
  const scan = (tokens: Token[], start: number) => {
    let found: { value?: string; tok?: Token } | undefined;
    for (let i = start; i < tokens.length; i++) {
      const k = tokens[i]!.text;
      const n = SERVER_KEYWORDS.get(k) ?? 0;
      if (k === name) found = n > 0 ? { value: tokens[i + 1]?.text, tok: tokens[i + 1] } : { tok: tokens[i] };
      else if (k === `no-${name}`) found = undefined;
      i += n;
    }
    return found;
  };
  const own = scan(line.tokens, from);
  if (own) return { ...own, own: true };
  for (let d = defaults.length - 1; d >= 0; d--) {
    const v = scan(defaults[d]!.line.tokens, 1);
    if (v) return { ...v, own: false };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------- global rules

const MIN_STREAM_MS = 10 * 60_000;

interface GlobalContext {
  eol: string;
  inventory?: Inventory;
  siblings: SourceFile[];
}

function lintStructure(cfg: HaproxyConfig, m: Model, ctx: GlobalContext, out: Finding[]): void {
  // duplicate proxy names
  const fe = new Map<string, Proxy>();
  const be = new Map<string, Proxy>();
  for (const p of m.proxies) {
    const s = p.section;
    if (s.type === 'defaults' || !s.name) continue;
    const clash = (frontendCapable(s) && fe.get(s.name)) || (backendCapable(s) && be.get(s.name));
    if (clash) {
      out.push(finding('haproxy/duplicate-section', `${s.type} '${s.name}' has the same name as the ${clash.section.type} at line ${clash.section.startLine + 1}.`, tokenRange(header(s), s.lines[0]!.tokens[1])));
      continue;
    }
    if (frontendCapable(s)) fe.set(s.name, p);
    if (backendCapable(s)) be.set(s.name, p);
  }

  // backend references
  for (const p of m.proxies) {
    for (const kw of ['default_backend', 'use_backend']) {
      for (const place of placesOf(p.section, kw)) {
        const t = place.line.tokens[1];
        if (!t || t.text.includes('%[')) continue;
        if (!m.backends.has(t.text)) {
          const near = didYouMean(t.text, m.backends.keys());
          out.push(finding('haproxy/missing-backend', `${kw} names '${t.text}', but no backend of that name exists${near ? `; did you mean '${near}'?` : '.'}`, tokenRange(place, t), near ? [fix(`Change to '${near}'`, replaceToken(place, t, near))] : undefined));
        }
      }
    }
  }

  // missing timeouts (haproxy -c only warns)
  for (const p of m.proxies) {
    const s = p.section;
    if (s.type === 'defaults') continue;
    const needed: [string, string][] = [];
    if (backendCapable(s) && !m.timeout(p, 'connect')) needed.push(['connect', '5s']);
    if (frontendCapable(s) && !m.timeout(p, 'client')) needed.push(['client', '1h']);
    if (backendCapable(s) && !m.timeout(p, 'server')) needed.push(['server', '1h']);
    if (needed.length) {
      out.push(
        finding('haproxy/timeout-missing', `${s.type} '${s.name ?? ''}' has no ${needed.map(([n]) => `'timeout ${n}'`).join(', ')} (not here, not in its defaults).`, tokenRange(header(s), s.lines[0]!.tokens[0]), [
          fix(`Add ${needed.map(([n]) => `timeout ${n}`).join(', ')}`, insertAfter(header(s), needed.map(([n, v]) => `timeout ${n} ${v}`), ctx.eol)),
        ]),
      );
    }
  }

  // TLS servers need verify/ca-file unless the global section disables server verification
  const globalVerifyNone = cfg.sections.some((sec) => sec.type === 'global' && findLines(sec, 'ssl-server-verify').some((l) => l.tokens[1]?.text === 'none'));
  if (!globalVerifyNone) {
    for (const p of m.proxies) {
      if (!backendCapable(p.section)) continue;
      const defaults = m.defaultServer(p);
      for (const s of placesOf(p.section, 'server')) {
        const tls = serverOption(s.line, defaults, 'ssl') ?? serverOption(s.line, defaults, 'check-ssl');
        if (!tls || serverOption(s.line, defaults, 'verify') || serverOption(s.line, defaults, 'ca-file')) continue;
        const last = s.line.tokens[s.line.tokens.length - 1]!;
        const at = { line: abs(s), character: last.end };
        out.push(
          finding('haproxy/server-verify', `server '${s.line.tokens[1]?.text ?? ''}' uses TLS without 'verify' or 'ca-file'; HAProxy refuses to start.`, lineRange(s), [fix("Add 'verify none' (the check only needs the TLS handshake)", { range: { start: at, end: at }, newText: ' verify none' })]),
        );
      }
    }
  }

  lintApi(cfg, m, ctx, out);
}

function isSysctlPath(path: string): boolean {
  return /(^|[\\/])sysctl(\.d[\\/][^\\/]+\.conf|\.conf)$/.test(path) || /sysctl[^\\/]*\.conf$/.test(path);
}

function lintApi(cfg: HaproxyConfig, m: Model, ctx: GlobalContext, out: Finding[]): void {
  const inv = ctx.inventory;
  const endpoint = inv ? splitEndpoint(inv.cluster.controlPlaneEndpoint) : undefined;
  const apiPort = endpoint?.port ?? 6443;
  const vip = endpoint?.host;

  // the API frontend binds the API port; failing that, one that binds the VIP on another port (a wrong port)
  const bindsWhere = (p: Proxy, match: (host: string, port: string | undefined) => boolean) =>
    frontendCapable(p.section) &&
    placesOf(p.section, 'bind').some((b) =>
      (b.line.tokens[1]?.text ?? '').split(',').some((piece) => {
        const { host, port } = splitHostPort(piece);
        return match(host, port);
      }),
    );
  let apiFrontends = m.proxies.filter((p) => bindsWhere(p, (_host, port) => port === String(apiPort)));
  if (apiFrontends.length === 0 && vip !== undefined) apiFrontends = m.proxies.filter((p) => bindsWhere(p, (host) => host === vip)).slice(0, 1);
  if (apiFrontends.length === 0) {
    if (inv && endpoint && !cfg.binary) {
      const last = cfg.sections[cfg.sections.length - 1];
      const lastLine = last ? last.startLine + last.lines.length - 1 : 0;
      const lastLen = last ? last.lines[last.lines.length - 1]!.length : 0;
      const block = apiBlock(inv, ctx.eol);
      out.push(
        finding('haproxy/api-frontend', `No frontend binds the cluster endpoint ${inv.cluster.controlPlaneEndpoint}.`, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, [
          fix('Add the Kubernetes API frontend and backend', { range: { start: { line: lastLine, character: lastLen }, end: { line: lastLine, character: lastLen } }, newText: block }),
        ]),
      );
    }
    return;
  }

  const reported = new Set<string>();
  const once = (key: string) => (reported.has(key) ? false : (reported.add(key), true));

  for (const fp of apiFrontends) {
    const fs = fp.section;
    const fh = header(fs);
    const fmode = m.mode(fp);
    const ownMode = lastPlace(fs, 'mode');
    if (fmode.mode !== 'tcp') {
      const f =
        ownMode && ownMode.line.tokens[1]
          ? fix("Set 'mode tcp'", replaceToken(ownMode, ownMode.line.tokens[1], 'tcp'))
          : fix("Add 'mode tcp' to the frontend", insertAfter(fh, ['mode tcp'], ctx.eol));
      out.push(finding('haproxy/frontend-mode-tcp', `${fs.type} '${fs.name ?? ''}' serves the Kubernetes API in mode ${fmode.mode}${ownMode ? '' : ' (inherited from defaults)'}; it must be mode tcp.`, ownMode ? lineRange(ownMode) : tokenRange(fh, fh.line.tokens[0]), [f]));
    } else if (!fmode.place) {
      out.push(finding('haproxy/mode-implicit', `${fs.type} '${fs.name ?? ''}' relies on HAProxy's built-in mode; say 'mode tcp'.`, tokenRange(fh, fh.line.tokens[0]), [fix("Add 'mode tcp'", insertAfter(fh, ['mode tcp'], ctx.eol))]));
    }

    // bind the VIP
    const binds = placesOf(fs, 'bind');
    if (vip && endpoint) {
      let exact: Place | undefined;
      let wildcard: Place | undefined;
      for (const b of binds) {
        for (const piece of (b.line.tokens[1]?.text ?? '').split(',')) {
          const { host, port } = splitHostPort(piece);
          if (port !== String(apiPort)) continue;
          if (host === vip) exact = b;
          else if (WILDCARDS.has(host)) wildcard = b;
        }
      }
      const target = `${vip}:${apiPort}`;
      if (!exact) {
        const b = wildcard ?? binds.find((x) => x.line.tokens[1]) ?? binds[0];
        if (b && b.line.tokens[1]) {
          const t = b.line.tokens[1];
          out.push(
            finding('haproxy/bind-vip', wildcard ? `${fs.type} '${fs.name ?? ''}' binds ${t.text} (every address); bind the VIP ${target} only.` : `${fs.type} '${fs.name ?? ''}' binds ${t.text}, not the cluster endpoint ${target}.`, tokenRange(b, t), [fix(`Bind ${target}`, replaceToken(b, t, target))], wildcard ? 'warning' : 'error'),
          );
        }
      } else {
        lintNonlocalBind(exact, vip, inv!, ctx, out);
      }
    }

    // backends behind the frontend
    const targets: Proxy[] = [];
    if (fs.type === 'listen') targets.push(fp);
    for (const kw of ['default_backend', 'use_backend']) {
      for (const place of placesOf(fs, kw)) {
        const b = m.backends.get(place.line.tokens[1]?.text ?? '');
        if (b && !targets.includes(b)) targets.push(b);
      }
    }
    if (!placesOf(fs, 'default_backend').length && fs.type === 'frontend') {
      const dflt = m.setting(fp, 'default_backend');
      const b = dflt && m.backends.get(dflt.line.tokens[1]?.text ?? '');
      if (b && !targets.includes(b)) targets.push(b);
    }
    for (const bp of targets) {
      if (!once(`backend:${bp.index}`)) continue;
      lintApiBackend(fp, bp, m, ctx, apiPort, out, fmode.mode);
    }

    // stream timeouts: tunnel supersedes client/server in TCP mode
    const tunnel = m.timeout(fp, 'tunnel');
    const checkShort = (t: { ms: number; place: Place } | undefined, what: string) => {
      if (!t || t.ms >= MIN_STREAM_MS) return;
      const key = `${t.place.section.startLine}:${t.place.line.rel}`;
      if (!once(`timeout:${key}`)) return;
      const v = t.place.line.tokens[2]!;
      out.push(finding('haproxy/timeout-short', `'timeout ${what} ${v.text}' cuts idle API streams (watch, logs -f, exec) after ${formatMs(t.ms)}; use at least 10m (the seed uses 1h).`, tokenRange(t.place, v), [fix(`Set 'timeout ${what} 1h'`, replaceToken(t.place, v, '1h'))]));
    };
    if (tunnel) checkShort(tunnel, 'tunnel');
    else {
      checkShort(m.timeout(fp, 'client'), 'client');
      for (const bp of targets) checkShort(m.timeout(bp, 'server'), 'server');
    }
  }
}

function lintNonlocalBind(bind: Place, vip: string, inv: Inventory, ctx: GlobalContext, out: Finding[]): void {
  // only a VIP that is not one of the hosts' own addresses needs a non-local bind
  if (inv.hosts.some((h) => h.address === vip)) return;
  const sysctls = ctx.siblings.filter((s) => isSysctlPath(s.path));
  if (sysctls.length === 0) return;
  const balancerNames = hostsWithRole(inv, 'loadbalancer').map((h) => h.name);
  const forBalancer = (path: string) => /haproxy|vip|balancer|(^|[^a-z])lb([^a-z]|$)|nonlocal/i.test(path) || balancerNames.some((n) => path.includes(n));
  let value: string | undefined;
  for (const s of sysctls) {
    for (const raw of s.text.split('\n')) {
      const m = /^\s*-?\s*net[./]ipv4[./]ip_nonlocal_bind\s*=\s*(\S+)/.exec(raw);
      if (m) value = m[1];
    }
  }
  if (value === '1') return;
  // Nothing says where the balancer's own sysctl file is unless one is named for it: stay quiet then
  // (the sysctl rules check the balancer's files); speak when it is explicitly wrong or a balancer file lacks it.
  if (value === undefined && !sysctls.some((s) => forBalancer(s.path))) return;
  const t = bind.line.tokens[1];
  out.push(
    finding('haproxy/nonlocal-bind', value === undefined ? `The balancer's sysctl files do not set net.ipv4.ip_nonlocal_bind = 1, which binding the VIP ${vip} needs.` : `net.ipv4.ip_nonlocal_bind is ${value} in the sysctl files, but binding the VIP ${vip} needs 1.`, tokenRange(bind, t)),
  );
}

function lintApiBackend(fp: Proxy, bp: Proxy, m: Model, ctx: GlobalContext, apiPort: number, out: Finding[], frontendMode: string): void {
  const bs = bp.section;
  const bh = header(bs);
  const inv = ctx.inventory;
  if (bp !== fp) {
    const bmode = m.mode(bp);
    const own = lastPlace(bs, 'mode');
    if (bmode.mode !== 'tcp' && frontendMode === 'tcp') {
      const f = own && own.line.tokens[1] ? fix("Set 'mode tcp'", replaceToken(own, own.line.tokens[1], 'tcp')) : fix("Add 'mode tcp' to the backend", insertAfter(bh, ['mode tcp'], ctx.eol));
      out.push(finding('haproxy/backend-mode-tcp', `backend '${bs.name ?? ''}' behind the tcp frontend '${fp.section.name ?? ''}' runs in mode ${bmode.mode}${own ? '' : ' (inherited from defaults)'}; it must be mode tcp.`, own ? lineRange(own) : tokenRange(bh, bh.line.tokens[0]), [f]));
    } else if (bmode.mode === 'tcp' && !bmode.place) {
      out.push(finding('haproxy/mode-implicit', `backend '${bs.name ?? ''}' relies on HAProxy's built-in mode; say 'mode tcp'.`, tokenRange(bh, bh.line.tokens[0]), [fix("Add 'mode tcp'", insertAfter(bh, ['mode tcp'], ctx.eol))]));
    }
  }

  const servers = placesOf(bs, 'server');
  const defaults = m.defaultServer(bp);

  // health check
  const tcpCheck = m.option(bp, 'tcp-check');
  const httpchk = m.option(bp, 'httpchk');
  const sslHello = m.option(bp, 'ssl-hello-chk');
  if (httpchk && !tcpCheck) {
    const overTls = servers.length > 0 && servers.every((s) => serverOption(s.line, defaults, 'check-ssl'));
    const path = httpchk.line.tokens.slice(2).map((t) => t.text).join(' ');
    if (!overTls && !sslHello) {
      out.push(finding('haproxy/health-check', "'option httpchk' sends plain HTTP to the apiserver's TLS port, so every check fails; add 'check-ssl verify none' to the servers or use 'option tcp-check'.", lineRange(httpchk), [fix("Use 'option tcp-check'", { range: lineRange(httpchk), newText: 'option tcp-check' })], 'error'));
    } else if (overTls && !/\/(healthz|livez|readyz)\b/.test(path)) {
      out.push(finding('haproxy/health-check', "'option httpchk' should check GET /healthz (or /livez, /readyz) on the apiserver.", lineRange(httpchk), [fix("Check 'GET /healthz'", { range: lineRange(httpchk), newText: 'option httpchk GET /healthz' })]));
    }
    if (overTls && (!/\/readyz\b/.test(path) || !m.httpCheckExpect(bp))) {
      out.push(finding('haproxy/readyz-check', `the health check ${/\/readyz\b/.test(path) ? "has no 'http-check expect status 200'" : `asks ${path || 'GET /'}`}; check that the apiserver is ready to serve with GET /readyz and expect status 200.`, lineRange(httpchk), readyzFix(bs, httpchk, servers, defaults, ctx.eol)));
    }
  } else if (tcpCheck && !sslHello) {
    // the lab drill: a TCP check marks a restarting apiserver UP as soon as its port accepts, before it can serve
    out.push(finding('haproxy/readyz-check', "'option tcp-check' marks a restarting apiserver UP as soon as its port accepts, before it can serve; check HTTPS GET /readyz instead.", lineRange(tcpCheck), readyzFix(bs, tcpCheck, servers, defaults, ctx.eol)));
  } else if (!tcpCheck && !sslHello) {
    out.push(finding('haproxy/health-check', `backend '${bs.name ?? ''}' has no active health check; add the HTTPS GET /readyz check.`, tokenRange(bh, bh.line.tokens[0]), readyzFix(bs, undefined, servers, defaults, ctx.eol)));
  }

  // each server: TLS passthrough, check, fall/rise
  for (const s of servers) {
    const ssl = serverOption(s.line, defaults, 'ssl');
    if (ssl?.own && ssl.tok) {
      const t = ssl.tok;
      out.push(finding('haproxy/server-ssl', `server '${s.line.tokens[1]?.text ?? ''}' re-encrypts with 'ssl'; the API needs TLS passthrough.`, tokenRange(s, t), [fix("Remove 'ssl'", { range: { start: { line: abs(s), character: t.start - 1 }, end: { line: abs(s), character: t.end } }, newText: '' })]));
    } else if (ssl) {
      out.push(finding('haproxy/server-ssl', `server '${s.line.tokens[1]?.text ?? ''}' inherits 'ssl' from default-server; the API needs TLS passthrough.`, lineRange(s)));
    }
  }
  for (const s of servers) {
    const check = serverOption(s.line, defaults, 'check');
    if (!check) {
      // A misspelt 'check' (che1k) already has its own finding with the fix; one typo, one finding.
      if (misspeltOption(s.line, 'check')) continue;
      const last = s.line.tokens[s.line.tokens.length - 1]!;
      out.push(finding('haproxy/server-check', `server '${s.line.tokens[1]?.text ?? ''}' has no 'check', so HAProxy never notices its apiserver is down.`, lineRange(s), [fix("Add 'check'", { range: { start: { line: abs(s), character: last.end }, end: { line: abs(s), character: last.end } }, newText: ' check' })]));
      continue;
    }
    // failover time: fall consecutive failed checks, inter apart
    const inter = serverOption(s.line, defaults, 'inter');
    const interMs = inter?.value !== undefined ? parseTime(inter.value) : 2000;
    const fallOpt = serverOption(s.line, defaults, 'fall');
    const fallN = fallOpt?.value !== undefined && /^\d+$/.test(fallOpt.value) ? Number(fallOpt.value) : 3;
    if (interMs !== undefined && fallN >= 2 && fallN <= 10 && interMs * fallN > 30_000) {
      const where = inter?.own && inter.tok ? tokenRange(s, inter.tok) : lineRange(s);
      const f = inter?.own && inter.tok ? fix("Set 'inter 2s'", replaceToken(s, inter.tok, '2s')) : undefined;
      out.push(finding('haproxy/fall-rise', `server '${s.line.tokens[1]?.text ?? ''}' is marked down only after ${formatMs(interMs * fallN)} (fall ${fallN} × inter ${formatMs(interMs)}); keep it within 30s.`, where, f ? [f] : undefined));
    }
    for (const [name, dflt, good] of [
      ['fall', 3, 3],
      ['rise', 2, 2],
    ] as const) {
      const o = serverOption(s.line, defaults, name);
      const v = o?.value !== undefined ? Number(o.value) : dflt;
      if (!Number.isFinite(v) || v <= 0) continue; // reported by server-keyword
      if (v < 2 || v > 10) {
        const where = o?.own && o.tok ? tokenRange(s, o.tok) : lineRange(s);
        const f = o?.own && o.tok ? fix(`Set '${name} ${good}'`, replaceToken(s, o.tok, String(good))) : undefined;
        out.push(finding('haproxy/fall-rise', v < 2 ? `'${name} ${v}' on server '${s.line.tokens[1]?.text ?? ''}' reacts to a single check, which makes the node flap; use ${name} ${good}.` : `'${name} ${v}' on server '${s.line.tokens[1]?.text ?? ''}' delays failover by ${v} checks; use ${name} ${good}.`, where, f ? [f] : undefined));
      }
    }
  }

  // inventory control-plane nodes
  if (!inv) return;
  const cps = hostsWithRole(inv, 'control-plane');
  if (cps.length === 0) return;
  const matched = new Set<HostSpec>();
  for (const s of servers) {
    const addrTok = s.line.tokens[2];
    if (!addrTok) continue;
    const { host, port } = splitHostPort(addrTok.text);
    const cp = cps.find((h) => h.address === host || h.name === host);
    const name = s.line.tokens[1]!.text;
    if (!cp) {
      out.push(finding('haproxy/backend-servers', `server '${name}' (${addrTok.text}) is not a control-plane node of the inventory.`, lineRange(s), [fix(`Remove server '${name}'`, deleteLine(s))]));
      continue;
    }
    if (matched.has(cp)) continue; // duplicates are reported by duplicate-server or are harmless aliases
    matched.add(cp);
    if (port !== String(apiPort)) {
      out.push(finding('haproxy/backend-servers', `server '${name}' points at port ${port ?? '(none: the client port)'}; the apiserver of ${cp.name} listens on ${apiPort}.`, tokenRange(s, addrTok), [fix(`Use ${cp.address}:${apiPort}`, replaceToken(s, addrTok, `${cp.address}:${apiPort}`))]));
    }
  }
  const missing = cps.filter((h) => !matched.has(h));
  if (missing.length) {
    const anchor = servers[servers.length - 1] ?? lastPlace(bs, 'option') ?? lastPlace(bs, 'balance') ?? bh;
    const names = new Set(servers.map((s) => s.line.tokens[1]!.text));
    // the new lines take the check options of the backend's last server (the generator's when there is none)
    const options = servers.length ? servers[servers.length - 1]!.line.tokens.slice(3).map((t) => t.text).join(' ') : 'check check-ssl verify none fall 3 rise 2';
    out.push(
      finding('haproxy/backend-servers', `backend '${bs.name ?? ''}' lacks the control-plane node${missing.length > 1 ? 's' : ''} ${missing.map((h) => `${h.name} (${h.address})`).join(', ')}.`, tokenRange(bh, bh.line.tokens[1] ?? bh.line.tokens[0]), [
        fix(
          `Add server line${missing.length > 1 ? 's' : ''} for ${missing.map((h) => h.name).join(', ')}`,
          insertAfter(
            anchor,
            missing.map((h) => `server ${names.has(h.name) ? `${h.name}-${apiPort}` : h.name} ${h.address}:${apiPort} ${options}`),
            ctx.eol,
          ),
        ),
      ]),
    );
  }
}

function apiBlock(inv: Inventory, eol: string): string {
  const ep = splitEndpoint(inv.cluster.controlPlaneEndpoint)!;
  const lines = [
    '',
    'frontend kubernetes-api',
    `    bind ${ep.host}:${ep.port}`,
    '    mode tcp',
    '    option tcplog',
    '    timeout client 1h',
    '    default_backend kubernetes-master-nodes',
    '',
    'backend kubernetes-master-nodes',
    '    mode tcp',
    '    balance roundrobin',
    '    option httpchk GET /readyz',
    '    http-check expect status 200',
    '    timeout connect 5s',
    '    timeout server 1h',
    ...hostsWithRole(inv, 'control-plane').map((h) => `    server ${h.name} ${h.address}:${ep.port} check check-ssl verify none fall 3 rise 2`),
  ];
  return lines.join(eol);
}

// ---------------------------------------------------------------------------------------------- entry points

/** Section-local findings (relative lines) keyed by the cached parse of the section, i.e. by its text. */
let localCache = new WeakMap<readonly ParsedLine[], { eol: string; findings: Finding[] }>();

/** A copy of a cached finding moved down by `by` lines (always a copy: callers may annotate findings). */
function shift(f: Finding, by: number): Finding {
  const r = (x: Range): Range => ({ start: { line: x.start.line + by, character: x.start.character }, end: { line: x.end.line + by, character: x.end.character } });
  const out: Finding = { ...f, range: r(f.range) };
  if (f.fixes) out.fixes = f.fixes.map((fx) => ({ ...fx, edits: fx.edits.map((e) => ({ range: r(e.range), newText: e.newText })) }));
  return out;
}

function localFindings(section: Section, eol: string): Finding[] {
  let hit = localCache.get(section.lines);
  if (!hit || hit.eol !== eol) {
    hit = { eol, findings: lintSection({ ...section, startLine: 0 }, { eol }) };
    localCache.set(section.lines, hit);
  }
  return hit.findings.length ? hit.findings.map((f) => shift(f, section.startLine)) : hit.findings;
}

/** Drops every cache of the haproxy linter (parsed sections and section-local findings). */
export function clearHaproxyCaches(): void {
  localCache = new WeakMap();
  clearSectionCache();
}

export function lintHaproxy(text: string, context: LintContext = {}): Finding[] {
  const guarded = textGuard(text, 'an HAProxy configuration');
  if (guarded) return [guarded];
  const cfg = parseHaproxy(text);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const out: Finding[] = [];
  if (text.length > 0 && !text.endsWith('\n')) {
    const lastLine = cfg.lineCount - 1;
    const lastLen = text.length - text.lastIndexOf('\n') - 1;
    const end = { line: lastLine, character: lastLen };
    out.push(finding('haproxy/syntax', 'The last line has no line break; HAProxy 2.6 then refuses the file as possibly truncated.', { start: { line: lastLine, character: 0 }, end }, [fix('Add a line break at the end', { range: { start: end, end }, newText: eol })]));
  }
  for (const s of cfg.sections) {
    const local = localFindings(s, eol);
    for (const f of local) out.push(f);
  }
  const m = new Model(cfg);
  const ctx: GlobalContext = { eol, siblings: context.siblings ?? [] };
  if (context.inventory) ctx.inventory = context.inventory;
  lintStructure(cfg, m, ctx, out);
  out.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  return out;
}

/** haproxy.cfg by name, or a `.cfg` whose content opens HAProxy sections. */
export function detectHaproxy(path: string, text: string): boolean {
  const base = path.split(/[\\/]/).pop() ?? path;
  if (/^haproxy.*\.cfg$/i.test(base)) return true;
  if (!/\.cfg$/i.test(base) && !/haproxy/i.test(path)) return false;
  const head = text.slice(0, 20_000);
  return /^\s*(global|defaults|frontend|backend|listen)\b/m.test(head) && /^\s*(bind|server|mode|timeout|default_backend|balance)\s/m.test(head);
}

export const haproxyLinter: FileLinter = {
  kind: 'haproxy',
  rules: Object.values(HAPROXY_RULES),
  detect: detectHaproxy,
  // a haproxy.cfg for hosts that are not the balancers (a node-local proxy) is not compared with the balancers' settings
  scope: forBalancers,
  lint: (file: SourceFile, context: LintContext) => lintHaproxy(file.text, forBalancers(file, context)),
  crossFile: true,
};
