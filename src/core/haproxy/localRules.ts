/**
 * Section-local haproxy.cfg rules: keywords, arguments, log, stats, bind and server lines. They see one
 * section only, so ./lint.ts caches their findings per section text.
 */
import type { Finding } from '../findings';
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
import { PROXY_SECTIONS } from './parse';
import type { ParsedLine, Section, Token } from './parse';
import { finding, fix } from './rules';
import { abs, deleteLine, lineRange, looksLikeIPv4, parseTime, type Place, replaceToken, splitHostPort, tokenRange, validPort } from './places';

// ---------------------------------------------------------------------------------------------- local rules

export interface LocalContext {
  eol: string;
}

/** Rules that look at one section only; their findings are cached by section text (relative lines). */
export function lintSection(section: Section, ctx: LocalContext): Finding[] {
  const out: Finding[] = [];
  const type = section.type;
  const isProxy = PROXY_SECTIONS.has(type);
  let serverNames: Map<string, Place> | undefined;
  // one place object moved from line to line (the rules read it at once; lintServer keeps a copy of its own)
  const p: Place = { section, line: section.lines[0]! };
  for (const line of section.lines) {
    p.line = line;
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
      const removed = REMOVED_KEYWORDS.get(kw);
      if (removed) {
        out.push(finding('haproxy/removed-keyword', `'${kw}' is no longer supported by HAProxy 2.6; use '${removed}'.`, tokenRange(p, kwTok), kw === 'nbproc' ? [fix(`Remove '${kw}'`, deleteLine(p))] : undefined));
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
    const repl = REMOVED_KEYWORDS.get(kw);
    if (repl) {
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
        } else if (REMOVED_OPTIONS.has(optTok.text)) {
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
        lintServer(out, p, (serverNames ??= new Map()));
        break;
      case 'default-server':
        lintServerOptions(out, p, 1);
        break;
    }
  }
  return out;
}

export function unknown(out: Finding[], p: Place, tok: Token, type: string, known: Iterable<string>): void {
  const near = didYouMean(tok.text, known);
  out.push(
    finding('haproxy/unknown-keyword', `Unknown keyword '${tok.text}' in '${type}' section${near ? `; did you mean '${near}'?` : '.'}`, tokenRange(p, tok), near ? [fix(`Change to '${near}'`, replaceToken(p, tok, near))] : undefined),
  );
}

export function lintArity(out: Finding[], p: Place): void {
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
export function lintLog(out: Finding[], p: Place): void {
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

export const STATS_LEVELS = ['user', 'operator', 'admin'];

/** `stats socket <path> [bind options]`, `stats timeout <time>`, `stats maxconn <n>` in the global section. */
export function lintStats(out: Finding[], p: Place): void {
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

export function lintBind(out: Finding[], p: Place): void {
  const addr = p.line.tokens[1];
  if (!addr) {
    out.push(finding('haproxy/bind-address', "'bind' needs an address:port.", tokenRange(p, p.line.tokens[0])));
    return;
  }
  for (const piece of addr.text.includes(',') ? addr.text.split(',') : [addr.text]) {
    if (piece.startsWith('/') || (piece.includes('@') && /^(unix|abns|fd|sockpair|uxst|uxdg)@/.test(piece))) continue;
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

export function lintServer(out: Finding[], p: Place, names: Map<string, Place>): void {
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
  } else names.set(name.text, { section: p.section, line: p.line });
  if (!(addr.text.startsWith('/') || (addr.text.includes('@') && /^(unix|abns|fd|sockpair)@/.test(addr.text)))) {
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
export function misspeltOption(line: ParsedLine, name: string): boolean {
  const unknownTok = line.tokens.slice(3).find((t) => SERVER_KEYWORDS.get(t.text) === undefined);
  return unknownTok !== undefined && didYouMean(unknownTok.text, SERVER_KEYWORDS.keys()) === name;
}

export function lintServerOptions(out: Finding[], p: Place, from: number): void {
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
