/**
 * The proxies of a parsed haproxy.cfg as the cross-section rules see them: frontends and backends with the
 * defaults each inherits, and the server options a backend's servers get from default-server.
 */
import type { Fix, TextEdit } from '../findings';
import { SERVER_KEYWORDS } from './keywords';
import { PROXY_SECTIONS } from './parse';
import type { HaproxyConfig, ParsedLine, Section, Token } from './parse';
import { fix } from './rules';
import { abs, bodyIndent, header, insertAfter, lastPlace, lineRange, parseTime, type Place, placesOf } from './places';

// ---------------------------------------------------------------------------------------------- structure

export interface Proxy {
  section: Section;
  index: number;
  defaults?: Proxy;
}

export function frontendCapable(s: Section): boolean {
  return s.type === 'frontend' || s.type === 'listen';
}
export function backendCapable(s: Section): boolean {
  return s.type === 'backend' || s.type === 'listen';
}

export class Model {
  readonly proxies: Proxy[] = [];
  readonly backends = new Map<string, Proxy>();

  constructor(readonly cfg: HaproxyConfig) {
    const namedDefaults = new Map<string, Proxy>();
    let current: Proxy | undefined;
    cfg.sections.forEach((section, index) => {
      if (!PROXY_SECTIONS.has(section.type)) return;
      const proxy: Proxy = { section, index };
      const h = section.lines[0]!.tokens;
      let fromAt = -1;
      for (let i = 1; i < h.length && fromAt < 0; i++) if (h[i]!.text === 'from') fromAt = i;
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

  /** Whether `timeout name` is in effect with a valid time: `timeout(proxy, name) !== undefined` without building places. */
  hasTimeout(proxy: Proxy, name: string): boolean {
    for (let p: Proxy | undefined = proxy, depth = 0; p && depth < 16; p = p.defaults, depth++) {
      const lines = p.section.index.get('timeout');
      if (!lines) continue;
      for (let i = lines.length - 1; i >= 0; i--) {
        const t = lines[i]!.tokens;
        if (t[1]?.text === name) return parseTime(t[2]?.text ?? '') !== undefined;
      }
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
export function readyzFix(bs: Section, option: Place | undefined, servers: Place[], defaults: Place[], eol: string): Fix[] | undefined {
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

export function serverOption(line: ParsedLine, defaults: Place[], name: string, from = 3): { value?: string; tok?: Token; own: boolean } | undefined {
  const own = scanServerOption(line.tokens, from, name);
  if (own) return { ...own, own: true };
  for (let d = defaults.length - 1; d >= 0; d--) {
    const v = scanServerOption(defaults[d]!.line.tokens, 1, name);
    if (v) return { ...v, own: false };
  }
  return undefined;
}

/** The last `name` option of a server or default-server line from `start` (a later `no-name` cancels it). */
function scanServerOption(tokens: Token[], start: number, name: string): { value?: string; tok?: Token } | undefined {
  // most lines do not name the option at all: one comparison per word before walking the keywords and their values
  let named = false;
  for (let i = start; i < tokens.length && !named; i++) named = tokens[i]!.text === name;
  if (!named) return undefined;
  const negated = `no-${name}`;
  let found: { value?: string; tok?: Token } | undefined;
  for (let i = start; i < tokens.length; i++) {
    const k = tokens[i]!.text;
    const n = SERVER_KEYWORDS.get(k) ?? 0;
    if (k === name) found = n > 0 ? { value: tokens[i + 1]?.text, tok: tokens[i + 1] } : { tok: tokens[i] };
    else if (k === negated) found = undefined;
    i += n;
  }
  return found;
}
