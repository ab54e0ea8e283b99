/**
 * The proxies of a parsed haproxy.cfg as the cross-section rules see them: frontends and backends with the
 * defaults each inherits, and the server options a backend's servers get from default-server.
 */
import type { Fix, TextEdit } from '../findings';
import { SERVER_KEYWORDS } from './keywords';
import { PROXY_SECTIONS } from './parse';
import type { HaproxyConfig, ParsedLine, Section, Token } from './parse';
import { fix } from './rules';
import * as places from './places';
import type { Place } from './places';
import { t } from '../l10n';

/*
 * What the model uses for every proxy, read once: in the CommonJS the tests and the benchmarks run in, each use of
 * an imported name is a call through a getter.
 */
const { abs, bodyIndent, header, insertAfter, lastPlace, lineRange, parseTime, placesOf } = places;

// ---------------------------------------------------------------------------------------------- structure

export interface Proxy {
  section: Section;
  /** For a defaults section: whether each timeout it sets has a valid time (every proxy that inherits it asks). */
  timeouts?: ReadonlyMap<string, boolean>;
  index: number;
  defaults?: Proxy;
}

export function frontendCapable(s: Section): boolean {
  return s.type === 'frontend' || s.type === 'listen';
}
export function backendCapable(s: Section): boolean {
  return s.type === 'backend' || s.type === 'listen';
}

const NO_PLACES: readonly Place[] = Object.freeze([]);

export class Model {
  readonly proxies: Proxy[] = [];
  readonly backends = new Map<string, Proxy>();

  constructor(readonly cfg: HaproxyConfig) {
    const namedDefaults = new Map<string, Proxy>();
    let current: Proxy | undefined;
    for (let index = 0; index < cfg.sections.length; index++) {
      const section = cfg.sections[index]!;
      if (!PROXY_SECTIONS.has(section.type)) continue;
      const proxy: Proxy = { section, index };
      const h = section.line(0);
      let fromAt = -1;
      for (let i = 1; i < h.count && fromAt < 0; i++) if (h.is(i, 'from')) fromAt = i;
      const fromName = fromAt >= 1 ? h.word(fromAt + 1) : undefined;
      const parent = fromName !== undefined ? namedDefaults.get(fromName) : current;
      if (parent && parent !== proxy) proxy.defaults = parent;
      this.proxies.push(proxy);
      if (section.type === 'defaults') {
        current = proxy;
        if (section.name && section.name !== 'from') namedDefaults.set(section.name, proxy);
      } else if (backendCapable(section) && section.name && !this.backends.has(section.name)) {
        this.backends.set(section.name, proxy);
      }
    }
  }

  /** The last line starting with `first` (and `second`) of the proxy, else of its defaults chain. */
  setting(proxy: Proxy, first: string, second?: string): Place | undefined {
    for (let p: Proxy | undefined = proxy, depth = 0; p && depth < 16; p = p.defaults, depth++) {
      const place = lastPlace(p.section, first, second);
      if (place) return place;
    }
    return undefined;
  }

  mode(proxy: Proxy): { mode: string; place?: Place } {
    const place = this.setting(proxy, 'mode');
    return { mode: place?.line.word(1) ?? 'tcp', ...(place ? { place } : {}) };
  }

  /** Whether an `option X` is in effect (a later `no option X` in the proxy or defaults cancels it). */
  option(proxy: Proxy, name: string): Place | undefined {
    for (let p: Proxy | undefined = proxy, depth = 0; p && depth < 16; p = p.defaults, depth++) {
      let found: Place | undefined;
      let seen = false;
      for (let rel = 0; rel < p.section.lineCount; rel++) {
        const line = p.section.line(rel);
        if (line.is(0, 'option') && line.is(1, name)) {
          found = { section: p.section, line };
          seen = true;
        } else if (line.is(0, 'no') && line.is(1, 'option') && line.is(2, name)) {
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
      if (p.section.has('http-check', 'expect')) return true;
    }
    return false;
  }

  /** Whether `timeout name` is in effect with a valid time: `timeout(proxy, name) !== undefined` without building places. */
  hasTimeout(proxy: Proxy, name: string): boolean {
    for (let p: Proxy | undefined = proxy, depth = 0; p && depth < 16; p = p.defaults, depth++) {
      if (p.section.type === 'defaults') {
        const valid = (p.timeouts ??= validTimeouts(p.section)).get(name);
        if (valid !== undefined) return valid;
        continue;
      }
      const line = p.section.last('timeout', name);
      if (line) return parseTime(line.word(2) ?? '') !== undefined;
    }
    return false;
  }

  timeout(proxy: Proxy, name: string): { ms: number; place: Place } | undefined {
    const place = this.setting(proxy, 'timeout', name);
    const ms = place ? parseTime(place.line.word(2) ?? '') : undefined;
    return place && ms !== undefined ? { ms, place } : undefined;
  }

  /** The default-server lines in effect for the proxy's servers, the defaults' first (most proxies have none). */
  defaultServer(proxy: Proxy): readonly Place[] {
    let out: Place[] | undefined;
    for (let p: Proxy | undefined = proxy, depth = 0; p && depth < 16; p = p.defaults, depth++) {
      if (p.section.has('default-server')) (out ??= []).unshift(...placesOf(p.section, 'default-server'));
    }
    return out ?? NO_PLACES;
  }
}

/** Whether each timeout a section sets (its last line for that timeout) has a valid time. */
function validTimeouts(section: Section): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const line = section.cursor(-1);
  while (section.advance(line, 'timeout')) {
    const name = line.word(1);
    if (name !== undefined) out.set(name, parseTime(line.word(2) ?? '') !== undefined);
  }
  return out;
}

/** Value of a server option on a server line, else from default-server lines (later wins). */
/**
 * The /readyz check as the generator writes it: `option httpchk GET /readyz` and `http-check expect status 200` in
 * place of the backend's own check option, and `check-ssl verify none` after each server's `check` (the apiserver
 * serves /readyz to anonymous clients over TLS; the check needs no client certificate). Only when the option is
 * the backend's own, so a check in defaults shared with other proxies is not rewritten.
 */
export function readyzFix(bs: Section, option: Place | undefined, servers: Place[], defaults: readonly Place[], eol: string): Fix[] | undefined {
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
  return [fix(t('Check HTTPS GET /readyz'), ...edits)];
}

export function serverOption(line: ParsedLine, defaults: readonly Place[], name: string, from = 3): { value?: string; tok?: Token; own: boolean } | undefined {
  const own = scanServerOption(line, from, name);
  if (own) return { ...own, own: true };
  for (let d = defaults.length - 1; d >= 0; d--) {
    const v = scanServerOption(defaults[d]!.line, 1, name);
    if (v) return { ...v, own: false };
  }
  return undefined;
}

/** The last `name` option of a server or default-server line from `start` (a later `no-name` cancels it). */
function scanServerOption(line: ParsedLine, start: number, name: string): { value?: string; tok?: Token } | undefined {
  // most lines do not name the option at all: one comparison per word before walking the keywords and their values
  if (line.indexOf(name, start) < 0) return undefined;
  const count = line.count;
  const negated = `no-${name}`;
  let at = -1;
  let withValue = false;
  for (let i = start; i < count; i++) {
    const k = line.word(i)!;
    const n = SERVER_KEYWORDS.get(k) ?? 0;
    if (k === name) {
      // the option's value is the next word (absent when the line ends there), a flag is the word itself
      at = n > 0 ? i + 1 : i;
      withValue = n > 0;
    } else if (k === negated) at = -1;
    i += n;
  }
  if (at < 0) return undefined;
  const tok = line.token(at);
  return withValue ? { value: tok?.text, tok } : { tok };
}
