/**
 * Section-local haproxy.cfg rules: keywords, arguments, log, stats, bind and server lines. They see one
 * section only, so ./lint.ts caches their findings per section text.
 */
import type { Finding } from '../findings';
import * as net from '../net';
import * as keywords from './keywords';
import * as parse from './parse';
import type { ParsedLine, Section, Token } from './parse';
import { finding, fix } from './rules';
import * as places from './places';
import type { Place } from './places';
import { ServerNames } from './serverNames';
import { KeywordIds } from './words';
import { t } from '../l10n';

/*
 * What these rules use, read once: in the CommonJS the tests and the benchmarks run in, each use of an imported
 * name is a call through a getter, and the rules look words up in these tables for every line.
 */
const { ARITY, BACKEND_ONLY, LOG_FACILITIES, LOG_LEVELS, OPTIONS_NO_ARGS, BALANCE_ALGORITHMS, BIND_KEYWORDS, didYouMean, GLOBAL_KEYWORDS, GLOBAL_PREFIXES, MODES, NOT_IN_DEFAULTS, OPTIONS, OTHER_SECTION_KEYWORDS, PROXY_KEYWORDS, REMOVED_KEYWORDS, REMOVED_OPTIONS, SERVER_KEYWORDS, TIMEOUTS } = keywords;
const { PROXY_SECTIONS } = parse;
const { isIPv4 } = net;

/** The keyword tables consulted for every line, by word id (./words.ts). */
const PROXY_KEYWORD_IDS = new KeywordIds(PROXY_KEYWORDS);
const NOT_IN_DEFAULTS_IDS = new KeywordIds(NOT_IN_DEFAULTS);
const BACKEND_ONLY_IDS = new KeywordIds(BACKEND_ONLY);
const MODE_IDS = new KeywordIds(MODES);
const TIMEOUT_IDS = new KeywordIds(TIMEOUTS);
const OPTION_IDS = new KeywordIds(OPTIONS);
const OPTION_NO_ARGS_IDS = new KeywordIds(OPTIONS_NO_ARGS);
const REMOVED_OPTION_IDS = new KeywordIds(REMOVED_OPTIONS.keys());
const SERVER_KEYWORD_IDS = new KeywordIds(SERVER_KEYWORDS);
const BIND_KEYWORD_IDS = new KeywordIds(BIND_KEYWORDS);
const { abs, deleteLine, digitsValue, lineRange, looksLikeIPv4, parseTime, replaceToken, splitHostPort, tokenRange, validPort, wordRange } = places;

// ---------------------------------------------------------------------------------------------- local rules

export interface LocalContext {
  eol: string;
}

/** Rules that look at one section only; their findings are cached by section text (relative lines). */
export function lintSection(section: Section, ctx: LocalContext): Finding[] {
  const out: Finding[] = [];
  const type = section.type;
  const isProxy = PROXY_SECTIONS.has(type);
  let serverNames: ServerNames | undefined;
  // one place and line cursor moved from line to line (the rules read them at once; lintServer keeps a copy)
  const line = section.cursor(0);
  const p: Place = { section, line };
  for (let rel = 0; rel < section.lineCount; rel++) {
    line.moveTo(rel);
    const error = line.error;
    if (error) {
      const r = tokenRange(p, undefined);
      r.start.character = error.column;
      const unmatched = error.unmatchedQuote === true;
      const q = unmatched ? (p.section.text.split('\n')[line.rel] ?? '')[error.column] : undefined;
      const at = { line: abs(p), character: line.length };
      out.push(finding('haproxy/syntax', t('Parse error: {0}.', error.message), r, q ? [fix(t('Close the quote at the end of the line'), { range: { start: at, end: at }, newText: q })] : undefined));
      continue;
    }
    const kw = line.word(0);
    if (kw === undefined) continue;
    if (line.rel === 0 && type !== '') {
      if ((type === 'frontend' || type === 'backend' || type === 'listen') && line.count < 2) {
        out.push(finding('haproxy/missing-name', t("'{0}' needs a name.", type), lineRange(p)));
      } else if (isProxy) {
        const first = type === 'defaults' && line.is(1, 'from') ? 1 : 2;
        const count = line.count;
        // a word after the name, other than 'from <defaults>' closing the line
        if (first < count && !(line.is(first, 'from') && first + 2 === count)) {
          const tok = line.tokens();
          const extra = tok[first]!;
          const last = tok[tok.length - 1]!;
          const keep = tok[first - 1]!.end;
          out.push(
            finding('haproxy/argument', t("'{0} {1}' takes only a name and 'from <defaults>'; put addresses on a 'bind' line (got '{2}').", type, tok[1]?.text ?? '', extra.text), { start: tokenRange(p, extra).start, end: tokenRange(p, last).end }, [
              fix(t('Remove the extra words'), { range: { start: { line: abs(p), character: keep }, end: tokenRange(p, last).end }, newText: '' }),
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
        ? [fix(t("Change to '{0}'", near), replaceToken(p, keywordToken(p), near))]
        : GLOBAL_KEYWORDS.has(kw) || GLOBAL_PREFIXES.some((x) => kw.startsWith(x))
          ? [fix(t("Open a 'global' section above it"), { range: { start: lineStart, end: lineStart }, newText: `global${ctx.eol}` })]
          : [fix(t('Remove the line'), deleteLine(p))];
      out.push(finding('haproxy/out-of-section', t("'{0}' is outside any section{1}", kw, near ? t("; did you mean '{0}'?", near) : t(' (add a section header above it).')), tokenRange(p, keywordToken(p)), fixes));
      continue;
    }
    if (type === 'global') {
      const removed = REMOVED_KEYWORDS.get(kw);
      if (removed) {
        out.push(finding('haproxy/removed-keyword', t("'{0}' is no longer supported by HAProxy 2.6; use '{1}'.", kw, removed), tokenRange(p, keywordToken(p)), kw === 'nbproc' ? [fix(t('Remove \'{0}\'', kw), deleteLine(p))] : undefined));
      } else if (!GLOBAL_KEYWORDS.has(kw) && !GLOBAL_PREFIXES.some((x) => kw.startsWith(x))) {
        unknown(out, p, keywordToken(p), 'global', GLOBAL_KEYWORDS);
      } else if (kw === 'log') {
        lintLog(out, p);
      } else if (kw === 'stats') {
        lintStats(out, p);
      } else {
        lintArity(out, p);
        const v = line.token(1);
        if ((kw === 'user' || kw === 'group') && v && v.text !== 'haproxy' && didYouMean(v.text, ['haproxy'])) {
          out.push(finding('haproxy/argument', t("{0} '{1}' does not exist on a Debian balancer; did you mean 'haproxy'?", kw, v.text), tokenRange(p, v), [fix(t("Change to 'haproxy'"), replaceToken(p, v, 'haproxy'))], 'warning'));
        }
        if (kw === 'nbthread') {
          const v = line.word(1) ?? '';
          if (!(digitsValue(v) >= 1 && digitsValue(v) <= 64)) out.push(finding('haproxy/argument', t("'nbthread' must be between 1 and 64 (got '{0}').", v), tokenRange(p, line.token(1) ?? keywordToken(p))));
        }
      }
      continue;
    }
    if (!isProxy) {
      const known = OTHER_SECTION_KEYWORDS[type];
      if (known && !known.has(kw)) unknown(out, p, keywordToken(p), type, known);
      continue;
    }
    // proxy sections (a removed keyword is not a proxy keyword: most lines are found in one lookup)
    const kwId = line.wordId(0);
    if (!PROXY_KEYWORD_IDS.has(kwId)) {
      const repl = REMOVED_KEYWORDS.get(kw);
      if (repl) out.push(finding('haproxy/removed-keyword', t("'{0}' is no longer supported by HAProxy 2.6; use '{1}'.", kw, repl), tokenRange(p, keywordToken(p)), [fix(t("Replace with '{0}'", repl), replaceToken(p, keywordToken(p), repl))]));
      else unknown(out, p, keywordToken(p), type, PROXY_KEYWORDS);
      continue;
    }
    if (type === 'defaults' && NOT_IN_DEFAULTS_IDS.has(kwId)) {
      out.push(finding('haproxy/keyword-not-allowed', t("'{0}' is not allowed in a 'defaults' section.", kw), tokenRange(p, keywordToken(p))));
      continue;
    }
    if (type === 'frontend' && BACKEND_ONLY_IDS.has(kwId)) {
      out.push(finding('haproxy/keyword-not-allowed', t("'{0}' is not allowed in a frontend: it has no backend capability.", kw), tokenRange(p, keywordToken(p))));
      continue;
    }
    switch (kw) {
      case 'option':
      case 'no': {
        if (kw === 'no' && !line.is(1, 'option')) {
          out.push(finding('haproxy/unknown-keyword', t("'no' must be followed by 'option'."), tokenRange(p, line.token(1) ?? keywordToken(p))));
          break;
        }
        const optAt = kw === 'no' ? 2 : 1;
        const opt = line.word(optAt);
        const hasExtra = line.count > optAt + 1;
        if (opt === undefined) {
          out.push(finding('haproxy/unknown-keyword', t("'option' needs an option name."), tokenRange(p, keywordToken(p))));
        } else if (hasExtra && (OPTION_NO_ARGS_IDS.has(line.wordId(optAt)) || kw === 'no' || (opt === 'httplog' && (!line.is(optAt + 1, 'clf') || line.count > 3)))) {
          const optTok = line.token(optAt)!;
          const extra = line.token(optAt + 1)!;
          const last = line.token(line.count - 1)!;
          const at = tokenRange(p, extra);
          out.push(finding('haproxy/argument', t("'option {0}' takes no argument '{1}'.", optTok.text, extra.text), { start: at.start, end: tokenRange(p, last).end }, [fix(t('Remove \'{0}\'', line.words(optAt + 1).join(' ')), { range: { start: { line: abs(p), character: optTok.end }, end: tokenRange(p, last).end }, newText: '' })]));
        } else if (REMOVED_OPTION_IDS.has(line.wordId(optAt))) {
          out.push(finding('haproxy/removed-keyword', t("option '{0}' is no longer supported by HAProxy 2.6.", opt), wordRange(p, optAt)));
        } else if (!OPTION_IDS.has(line.wordId(optAt))) {
          const near = didYouMean(opt, OPTIONS);
          const optTok = line.token(optAt)!;
          out.push(finding('haproxy/unknown-keyword', t("Unknown option '{0}'{1}", opt, near ? t("; did you mean '{0}'?", near) : '.'), tokenRange(p, optTok), near ? [fix(t("Change to '{0}'", near), replaceToken(p, optTok, near))] : undefined));
        }
        break;
      }
      case 'mode': {
        if (!MODE_IDS.has(line.wordId(1))) {
          const arg = line.token(1);
          const kwTok = keywordToken(p);
          const near = arg ? didYouMean(arg.text, MODES) : 'tcp';
          out.push(finding('haproxy/invalid-mode', t("Unknown proxy mode '{0}'; use tcp, http or health.", arg?.text ?? ''), tokenRange(p, arg ?? kwTok), near ? [fix(t("Change to 'mode {0}'", near), arg ? replaceToken(p, arg, near) : { range: tokenRange(p, kwTok), newText: `mode ${near}` })] : undefined));
        }
        break;
      }
      case 'timeout': {
        const name = line.word(1);
        if (!TIMEOUT_IDS.has(line.wordId(1))) {
          const near = name !== undefined ? didYouMean(name, TIMEOUTS) : undefined;
          out.push(finding('haproxy/timeout-invalid', t("Unknown timeout '{0}'{1}.", name ?? '', near ? t("; did you mean '{0}'?", near) : ''), wordRange(p, name !== undefined ? 1 : 0)));
          break;
        }
        const value = line.word(2);
        if (value === undefined || parseTime(value) === undefined) {
          out.push(finding('haproxy/timeout-invalid', t("'timeout {0}' needs a time such as 5s, 1m or 1h (got '{1}').", name, value ?? ''), wordRange(p, value !== undefined ? 2 : 1)));
        }
        break;
      }
      case 'balance':
        if (type !== 'frontend') {
          const algo = line.word(1) ?? '';
          const base = algo.indexOf('(') < 0 ? algo : algo.replace(/\(.*$/, '');
          if (!BALANCE_ALGORITHMS.includes(base) || ((base === 'hdr' || base === 'rdp-cookie') && algo !== base && !/^\w[\w-]*\(.*\)$/.test(algo))) {
            const arg = line.token(1);
            const kwTok = keywordToken(p);
            const near = didYouMean(base, BALANCE_ALGORITHMS) ?? 'roundrobin';
            out.push(finding('haproxy/balance', t("Unknown balance algorithm '{0}'; use roundrobin, leastconn, source... (did you mean '{1}'?).", algo, near), tokenRange(p, arg ?? kwTok), [fix(t("Change to 'balance {0}'", near), arg ? replaceToken(p, arg, near) : { range: tokenRange(p, kwTok), newText: `balance ${near}` })]));
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
        lintServer(out, p, (serverNames ??= new ServerNames(section)));
        break;
      case 'default-server':
        lintServerOptions(out, p, 1);
        break;
    }
  }
  return out;
}

/** The keyword's token, made only for a finding's range (most lines have none). */
function keywordToken(p: Place): Token {
  return p.line.token(0)!;
}

export function unknown(out: Finding[], p: Place, tok: Token, type: string, known: Iterable<string>): void {
  const near = didYouMean(tok.text, known);
  out.push(
    finding('haproxy/unknown-keyword', t("Unknown keyword '{0}' in '{1}' section{2}", tok.text, type, near ? t("; did you mean '{0}'?", near) : '.'), tokenRange(p, tok), near ? [fix(t("Change to '{0}'", near), replaceToken(p, tok, near))] : undefined),
  );
}

export function lintArity(out: Finding[], p: Place): void {
  const kw = p.line.word(0)!;
  const arity = ARITY[kw];
  if (!arity) return;
  const n = p.line.count - 1;
  if (n < arity[0]) {
    out.push(finding('haproxy/argument', `'${kw}' needs ${arity[0] === 1 ? t('an argument') : `${arity[0]} arguments`}.`, wordRange(p, 0)));
  } else if (n > arity[1]) {
    const first = p.line.token(arity[1] + 1)!;
    const last = p.line.token(p.line.count - 1)!;
    const keepEnd = p.line.end(arity[1]);
    out.push(
      finding('haproxy/argument', t("'{0}' takes {1}; '{2}' is one too many.", kw, arity[1] === 0 ? t('no argument') : t('at most {0}', arity[1]), first.text), { start: tokenRange(p, first).start, end: tokenRange(p, last).end }, [
        fix(t('Remove the extra arguments'), { range: { start: { line: abs(p), character: keepEnd }, end: tokenRange(p, last).end }, newText: '' }),
      ]),
    );
  }
}

/** `log global` or `log <address> [len N] [format F] [sample S] <facility> [max [min]]`. */
export function lintLog(out: Finding[], p: Place): void {
  const tok = p.line.tokens();
  if (tok[1]?.text === 'global' || (tok[1]?.text === 'stdout' && !tok[2])) {
    if (tok[1]?.text === 'global' && tok[2]) out.push(finding('haproxy/argument', t("'log global' takes no further argument ('{0}').", tok[2].text), tokenRange(p, tok[2]), [fix(t('Remove the extra arguments'), { range: { start: { line: abs(p), character: tok[1].end }, end: tokenRange(p, tok[tok.length - 1]).end }, newText: '' })]));
    return;
  }
  if (tok[1]?.text === 'stdout' || tok[1]?.text === 'stderr' || tok.length >= 3) {
    const a = tok[1]!.text;
    if (!a.startsWith('/') && !/^(stdout|stderr)$/.test(a) && !/^[a-z0-9]+@/.test(a)) {
      const { host, port } = splitHostPort(a);
      const okHost = looksLikeIPv4(host) ? isIPv4(host) : /^[A-Za-z0-9.-]+$/.test(host) || /^[0-9a-fA-F:.]+$/.test(host);
      if (!okHost || (port !== undefined && !validPort(port, false))) {
        out.push(finding('haproxy/argument', t("'log' address '{0}' is neither a socket path nor an address[:port].", a), tokenRange(p, tok[1])));
        return;
      }
    }
    let i = 2;
    while (tok[i] && ['len', 'format', 'sample'].includes(tok[i]!.text)) i += 2;
    const fac = tok[i];
    if (!fac) {
      out.push(finding('haproxy/argument', t("'log' needs an address and a facility (or 'global')."), lineRange(p)));
      return;
    }
    if (!LOG_FACILITIES.has(fac.text)) {
      const near = didYouMean(fac.text, LOG_FACILITIES);
      out.push(finding('haproxy/argument', t("Unknown log facility '{0}'{1}", fac.text, near ? t("; did you mean '{0}'?", near) : '.'), tokenRange(p, fac), near ? [fix(t("Change to '{0}'", near), replaceToken(p, fac, near))] : undefined));
      return;
    }
    for (let j = i + 1; j < tok.length; j++) {
      if (j > i + 2) {
        out.push(finding('haproxy/argument', t("'log' cannot handle the extra argument '{0}'.", tok[j]!.text), tokenRange(p, tok[j])));
        return;
      }
      if (!LOG_LEVELS.has(tok[j]!.text)) {
        const near = didYouMean(tok[j]!.text, LOG_LEVELS);
        out.push(finding('haproxy/argument', t("Unknown log level '{0}'{1}", tok[j]!.text, near ? t("; did you mean '{0}'?", near) : '.'), tokenRange(p, tok[j]), near ? [fix(t("Change to '{0}'", near), replaceToken(p, tok[j]!, near))] : undefined));
        return;
      }
    }
    return;
  }
  out.push(finding('haproxy/argument', t("'log' needs an address and a facility (or 'global')."), lineRange(p)));
}

export const STATS_LEVELS = ['user', 'operator', 'admin'];

/** `stats socket <path> [bind options]`, `stats timeout <time>`, `stats maxconn <n>` in the global section. */
export function lintStats(out: Finding[], p: Place): void {
  const tok = p.line.tokens();
  const sub = tok[1];
  const subs = ['socket', 'maxconn', 'bind-process', 'timeout'];
  if (!sub || !subs.includes(sub.text)) {
    const near = sub ? didYouMean(sub.text, subs) : undefined;
    out.push(finding('haproxy/argument', t("'stats' supports socket, maxconn, bind-process and timeout (got '{0}').", sub?.text ?? ''), tokenRange(p, sub ?? tok[0]), near && sub ? [fix(t("Change to '{0}'", near), replaceToken(p, sub, near))] : undefined));
    return;
  }
  if (sub.text === 'timeout') {
    if (!tok[2] || parseTime(tok[2].text) === undefined) out.push(finding('haproxy/argument', t("'stats timeout' needs a time (got '{0}').", tok[2]?.text ?? ''), tokenRange(p, tok[2] ?? sub)));
    return;
  }
  if (sub.text !== 'socket') return;
  const addr = tok[2];
  if (!addr) {
    out.push(finding('haproxy/argument', t("'stats socket' needs a path or address."), tokenRange(p, sub)));
    return;
  }
  if (!addr.text.startsWith('/') && !addr.text.includes('@')) {
    const { port } = splitHostPort(addr.text);
    if (port === undefined || !validPort(port, true)) out.push(finding('haproxy/argument', t("'stats socket' address '{0}' is neither a path nor address:port.", addr.text), tokenRange(p, addr)));
  }
  for (let i = 3; i < tok.length; i++) {
    const k = tok[i]!;
    const n = BIND_KEYWORDS.get(k.text);
    if (n === undefined) {
      const near = didYouMean(k.text, BIND_KEYWORDS.keys());
      out.push(finding('haproxy/argument', t("Unknown 'stats socket' option '{0}'{1}", k.text, near ? t("; did you mean '{0}'?", near) : '.'), tokenRange(p, k), near ? [fix(t("Change to '{0}'", near), replaceToken(p, k, near))] : undefined));
      return;
    }
    const v = tok[i + 1];
    if (n > 0 && !v) {
      out.push(finding('haproxy/argument', t("'{0}' needs a value.", k.text), tokenRange(p, k)));
      return;
    }
    if (k.text === 'mode' && v && !/^[0-7]{1,4}$/.test(v.text)) out.push(finding('haproxy/argument', t("'mode' needs an octal permission such as 660 (got '{0}').", v.text), tokenRange(p, v)));
    if (k.text === 'level' && v && !STATS_LEVELS.includes(v.text)) {
      const near = didYouMean(v.text, STATS_LEVELS) ?? 'admin';
      out.push(finding('haproxy/argument', t("'level' is user, operator or admin (got '{0}').", v.text), tokenRange(p, v), [fix(t("Change to '{0}'", near), replaceToken(p, v, near))]));
    }
    i += n;
  }
}

export function lintBind(out: Finding[], p: Place): void {
  const line = p.line;
  const addr = line.word(1);
  if (addr === undefined) {
    out.push(finding('haproxy/bind-address', t("'bind' needs an address:port."), wordRange(p, 0)));
    return;
  }
  for (const piece of addr.includes(',') ? addr.split(',') : [addr]) {
    if (piece.startsWith('/') || (piece.includes('@') && /^(unix|abns|fd|sockpair|uxst|uxdg)@/.test(piece))) continue;
    const { host, port } = splitHostPort(piece);
    if (port === undefined || port === '') {
      out.push(finding('haproxy/bind-address', t("'bind' address '{0}' has no port.", piece), wordRange(p, 1)));
    } else if (!validPort(port, true)) {
      out.push(finding('haproxy/bind-address', t("'bind' port '{0}' is not a valid port.", port), wordRange(p, 1)));
    } else if (looksLikeIPv4(host) && !isIPv4(host)) {
      out.push(finding('haproxy/bind-address', t("'bind' address '{0}' is not a valid IPv4 address.", host), wordRange(p, 1)));
    }
  }
  for (let i = 2; i < line.count; i++) {
    const n = BIND_KEYWORD_IDS.get(line.wordId(i));
    if (n === undefined) {
      const option = line.word(i)!;
      const near = didYouMean(option, BIND_KEYWORDS.keys());
      out.push(finding('haproxy/bind-keyword', t("Unknown bind option '{0}'{1}", option, near ? t("; did you mean '{0}'?", near) : '.'), wordRange(p, i), near ? [fix(t("Change to '{0}'", near), replaceToken(p, line.token(i)!, near))] : undefined));
      return;
    }
    i += n;
  }
}

export function lintServer(out: Finding[], p: Place, names: ServerNames): void {
  const line = p.line;
  const name = line.word(1);
  const addr = line.word(2);
  if (name === undefined || addr === undefined) {
    out.push(finding('haproxy/server-address', t("'server' needs a name and an address."), lineRange(p)));
    return;
  }
  const prevLine = names.get(name, line.rel);
  if (prevLine) {
    const prev: Place = { section: p.section, line: prevLine };
    const sameAddress = prevLine.word(2) === addr;
    let n = 2;
    while (names.get(`${name}-${n}`, line.rel)) n++;
    const f = sameAddress ? fix(t('Remove the duplicate server line'), deleteLine(p)) : fix(t("Rename to '{0}-{1}'", name, n), replaceToken(p, line.token(1)!, `${name}-${n}`));
    out.push(finding('haproxy/duplicate-server', t("Another server named '{0}' is defined at line {1}.", name, abs(prev) + 1), wordRange(p, 1), [f]));
  } else names.add(name, line);
  if (!(addr.startsWith('/') || (addr.includes('@') && /^(unix|abns|fd|sockpair)@/.test(addr)))) {
    const { host, port } = splitHostPort(addr);
    // what /^[+-]?\d{1,5}$/ and |Number(port)| <= 65535 accept
    const sign = port !== undefined && (port.charCodeAt(0) === 43 || port.charCodeAt(0) === 45) ? 1 : 0;
    if (port !== undefined && !(digitsValue(sign ? port.slice(1) : port, 5) <= 65535)) out.push(finding('haproxy/server-address', t("Server '{0}' has an invalid port '{1}'.", name, port), wordRange(p, 2)));
    if (looksLikeIPv4(host)) {
      if (!isIPv4(host)) out.push(finding('haproxy/server-address', t("Server '{0}' has an invalid IPv4 address '{1}'.", name, host), wordRange(p, 2)));
    } else if (!host.includes(':') && host !== '') {
      out.push(finding('haproxy/server-address', t("Server '{0}' uses the host name '{1}', which HAProxy resolves once at start-up; use the node's IP address.", name, host), wordRange(p, 2), undefined, 'warning'));
    }
  }
  lintServerOptions(out, p, 3);
}

/** True when the server line's first unknown option is a near miss of `name` (what lintServerOptions reports). */
export function misspeltOption(line: ParsedLine, name: string): boolean {
  for (let i = 3; i < line.count; i++) {
    const option = line.word(i)!;
    if (SERVER_KEYWORD_IDS.get(line.wordId(i)) === undefined) return didYouMean(option, SERVER_KEYWORDS.keys()) === name;
  }
  return false;
}

export function lintServerOptions(out: Finding[], p: Place, from: number): void {
  const line = p.line;
  const count = line.count;
  for (let i = from; i < count; i++) {
    const option = line.word(i)!;
    const n = SERVER_KEYWORD_IDS.get(line.wordId(i));
    if (n === undefined) {
      const near = didYouMean(option, SERVER_KEYWORDS.keys());
      out.push(finding('haproxy/server-keyword', t("Unknown server option '{0}'{1}", option, near ? t("; did you mean '{0}'?", near) : '.'), wordRange(p, i), near ? [fix(t("Change to '{0}'", near), replaceToken(p, line.token(i)!, near))] : undefined));
      return;
    }
    const v = line.word(i + 1);
    if (n > 0 && v === undefined) {
      out.push(finding('haproxy/server-keyword', t("'{0}' needs a value.", option), wordRange(p, i)));
      return;
    }
    if ((option === 'fall' || option === 'rise') && v !== undefined && !(digitsValue(v) > 0)) {
      out.push(finding('haproxy/server-keyword', t("'{0}' must be a number greater than 0 (got '{1}').", option, v), wordRange(p, i + 1), [fix(t('Set \'{0} {1}\'', option, option === 'fall' ? 3 : 2), replaceToken(p, line.token(i + 1)!, option === 'fall' ? '3' : '2'))]));
    } else if (option === 'weight' && v !== undefined && !(digitsValue(v) <= 256)) {
      out.push(finding('haproxy/server-keyword', t("'weight' must be between 0 and 256 (got '{0}').", v), wordRange(p, i + 1)));
    } else if ((option === 'inter' || option === 'fastinter' || option === 'downinter' || option === 'slowstart') && v !== undefined && parseTime(v) === undefined) {
      out.push(finding('haproxy/server-keyword', t("'{0}' needs a time such as 2s (got '{1}').", option, v), wordRange(p, i + 1)));
    } else if (option === 'port' && v !== undefined && !validPort(v, false)) {
      out.push(finding('haproxy/server-keyword', t("'port' must be a port number (got '{0}').", v), wordRange(p, i + 1)));
    }
    i += n;
    if (option === 'source') {
      while (line.is(i + 1, 'usesrc') || line.is(i + 1, 'interface')) i += 2;
    }
  }
}
