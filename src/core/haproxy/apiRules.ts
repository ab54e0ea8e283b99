/**
 * Rules that span sections: mode inheritance, backend references and timeouts, and the Kubernetes API path
 * (frontend on the VIP, backend of the control-plane nodes, health checks) against the inventory.
 */
import type { Finding } from '../findings';
import { hostsWithRole, splitEndpoint } from '../inventory/types';
import type { HostSpec, Inventory } from '../inventory/types';
import type { SourceFile } from '../lint/types';
import { didYouMean } from './keywords';
import type { HaproxyConfig, ParsedLine } from './parse';
import { COMMON_WORDS } from './words';
import { finding, fix } from './rules';
import { misspeltOption } from './localRules';
import * as model from './model';
import type { Model, Proxy } from './model';
import * as places from './places';
import type { Place } from './places';
import { t } from '../l10n';

/*
 * What these rules use for every proxy, read once: in the CommonJS the tests and the benchmarks run in, each use of
 * an imported name is a call through a getter.
 */
const { backendCapable, frontendCapable, readyzFix, serverOption } = model;
const { abs, deleteLine, formatMs, header, insertAfter, lastPlace, lineRange, parseTime, placesOf, replaceToken, splitHostPort, tokenRange, WILDCARDS, wordRange } = places;

// ---------------------------------------------------------------------------------------------- global rules

export const MIN_STREAM_MS = 10 * 60_000;
const BACKEND_REFERENCES = ['default_backend', 'use_backend'];

export interface GlobalContext {
  eol: string;
  inventory?: Inventory;
  siblings: SourceFile[];
}

export function lintStructure(cfg: HaproxyConfig, m: Model, ctx: GlobalContext, out: Finding[]): void {
  // duplicate proxy names
  const fe = new Map<string, Proxy>();
  const be = new Map<string, Proxy>();
  for (const p of m.proxies) {
    const s = p.section;
    if (s.type === 'defaults' || !s.name) continue;
    const clash = (frontendCapable(s) && fe.get(s.name)) || (backendCapable(s) && be.get(s.name));
    if (clash) {
      out.push(finding('haproxy/duplicate-section', t("{0} '{1}' has the same name as the {2} at line {3}.", s.type, s.name, clash.section.type, clash.section.startLine + 1), wordRange(header(s), 1)));
      continue;
    }
    if (frontendCapable(s)) fe.set(s.name, p);
    if (backendCapable(s)) be.set(s.name, p);
  }

  // each check of a proxy is a function: called for every proxy, it is optimized within the first lint
  const globalVerifyNone = cfg.sections.some((sec) => sec.type === 'global' && sec.has('ssl-server-verify', 'none'));
  for (const p of m.proxies) lintBackendReferences(p, m, out);
  for (const p of m.proxies) lintTimeoutsMissing(p, m, ctx, out);
  if (!globalVerifyNone) for (const p of m.proxies) lintServerVerify(p, m, out);

  lintApi(cfg, m, ctx, out);
}

/** default_backend and use_backend name a backend that exists. */
function lintBackendReferences(p: Proxy, m: Model, out: Finding[]): void {
  for (let k = 0; k < BACKEND_REFERENCES.length; k++) {
    const kw = BACKEND_REFERENCES[k]!;
    const line = p.section.cursor(-1);
    while (p.section.advance(line, kw)) {
      const name = line.word(1);
      if (name === undefined || name.includes('%[') || m.backends.has(name)) continue;
      const place: Place = { section: p.section, line: line.lasting() };
      const tok = line.token(1)!;
      const near = didYouMean(tok.text, m.backends.keys());
      out.push(finding('haproxy/missing-backend', t("{0} names '{1}', but no backend of that name exists{2}", kw, tok.text, near ? t("; did you mean '{0}'?", near) : '.'), tokenRange(place, tok), near ? [fix(t("Change to '{0}'", near), replaceToken(place, tok, near))] : undefined));
    }
  }
}

/** The proxy has timeout connect, client and server, here or in its defaults (haproxy -c only warns). */
function lintTimeoutsMissing(p: Proxy, m: Model, ctx: GlobalContext, out: Finding[]): void {
  const s = p.section;
  if (s.type === 'defaults') return;
  let needed: [string, string][] | undefined;
  if (backendCapable(s) && !m.hasTimeout(p, 'connect')) (needed ??= []).push(['connect', '5s']);
  if (frontendCapable(s) && !m.hasTimeout(p, 'client')) (needed ??= []).push(['client', '1h']);
  if (backendCapable(s) && !m.hasTimeout(p, 'server')) (needed ??= []).push(['server', '1h']);
  if (needed) {
    out.push(
      finding('haproxy/timeout-missing', t("{0} '{1}' has no {2} (not here, not in its defaults).", s.type, s.name ?? '', needed.map(([n]) => `'timeout ${n}'`).join(', ')), wordRange(header(s), 0), [
        fix(t('Add {0}', needed.map(([n]) => `timeout ${n}`).join(', ')), insertAfter(header(s), needed.map(([n, v]) => `timeout ${n} ${v}`), ctx.eol)),
      ]),
    );
  }
}

/** TLS servers need verify or ca-file (unless the global section disables server verification: not called then). */
function lintServerVerify(p: Proxy, m: Model, out: Finding[]): void {
  if (!backendCapable(p.section)) return;
  const defaults = m.defaultServer(p);
  // most servers use no TLS, and say nothing of it on their line or a default-server line: one look at the word
  // ids of a line tells them, where serverOption looks for each option in turn
  let defaultsMention = false;
  for (let d = 0; d < defaults.length && !defaultsMention; d++) defaultsMention = mentionsTls(defaults[d]!.line, 1);
  const section = p.section;
  const line = section.cursor(-1);
  while (section.advance(line, 'server')) {
    if (!defaultsMention && !mentionsTls(line, 3)) continue;
    const tls = serverOption(line, defaults, 'ssl') ?? serverOption(line, defaults, 'check-ssl');
    if (!tls || serverOption(line, defaults, 'verify') || serverOption(line, defaults, 'ca-file')) continue;
    const s: Place = { section, line: line.lasting() };
    const at = { line: abs(s), character: s.line.end(s.line.count - 1) };
    out.push(
      finding('haproxy/server-verify', t("server '{0}' uses TLS without 'verify' or 'ca-file'; HAProxy refuses to start.", s.line.word(1) ?? ''), lineRange(s), [fix(t("Add 'verify none' (the check only needs the TLS handshake)"), { range: { start: at, end: at }, newText: ' verify none' })]),
    );
  }
}

// (were either not interned, its id would be -1, that of every word that is not: each line would be looked at in full)
const SSL_ID = COMMON_WORDS.id('ssl');
const CHECK_SSL_ID = COMMON_WORDS.id('check-ssl');

/** Whether a word of the line from word `from` on is `ssl` or `check-ssl` (both interned: a word equal to one has its id). */
function mentionsTls(line: ParsedLine, from: number): boolean {
  for (let i = from, count = line.count; i < count; i++) {
    const id = line.wordId(i);
    if (id === SSL_ID || id === CHECK_SSL_ID) return true;
  }
  return false;
}

export function isSysctlPath(path: string): boolean {
  return /(^|[\\/])sysctl(\.d[\\/][^\\/]+\.conf|\.conf)$/.test(path) || /sysctl[^\\/]*\.conf$/.test(path);
}

export function lintApi(cfg: HaproxyConfig, m: Model, ctx: GlobalContext, out: Finding[]): void {
  const inv = ctx.inventory;
  const endpoint = inv ? splitEndpoint(inv.cluster.controlPlaneEndpoint) : undefined;
  const apiPort = endpoint?.port ?? 6443;
  const vip = endpoint?.host;

  // the API frontend binds the API port; failing that, one that binds the VIP on another port (a wrong port)
  const apiPortText = String(apiPort);
  const onApiPort = (_host: string, port: string | undefined) => port === apiPortText;
  let apiFrontends = m.proxies.filter((p) => bindsWhere(p, onApiPort));
  if (apiFrontends.length === 0 && vip !== undefined) apiFrontends = m.proxies.filter((p) => bindsWhere(p, (host) => host === vip)).slice(0, 1);
  if (apiFrontends.length === 0) {
    if (inv && endpoint && !cfg.binary) {
      const last = cfg.sections[cfg.sections.length - 1];
      const lastLine = last ? last.startLine + last.lineCount - 1 : 0;
      const lastLen = last ? last.line(last.lineCount - 1).length : 0;
      const block = apiBlock(inv, ctx.eol);
      out.push(
        finding('haproxy/api-frontend', t('No frontend binds the cluster endpoint {0}.', inv.cluster.controlPlaneEndpoint), { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, [
          fix(t('Add the Kubernetes API frontend and backend'), { range: { start: { line: lastLine, character: lastLen }, end: { line: lastLine, character: lastLen } }, newText: block }),
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
        ownMode && ownMode.line.count > 1
          ? fix(t("Set 'mode tcp'"), replaceToken(ownMode, ownMode.line.token(1)!, 'tcp'))
          : fix(t("Add 'mode tcp' to the frontend"), insertAfter(fh, ['mode tcp'], ctx.eol));
      out.push(finding('haproxy/frontend-mode-tcp', t("{0} '{1}' serves the Kubernetes API in mode {2}{3}; it must be mode tcp.", fs.type, fs.name ?? '', fmode.mode, ownMode ? '' : t(' (inherited from defaults)')), ownMode ? lineRange(ownMode) : wordRange(fh, 0), [f]));
    } else if (!fmode.place) {
      out.push(finding('haproxy/mode-implicit', t("{0} '{1}' relies on HAProxy's built-in mode; say 'mode tcp'.", fs.type, fs.name ?? ''), wordRange(fh, 0), [fix(t("Add 'mode tcp'"), insertAfter(fh, ['mode tcp'], ctx.eol))]));
    }

    // bind the VIP
    const binds = placesOf(fs, 'bind');
    if (vip && endpoint) {
      let exact: Place | undefined;
      let wildcard: Place | undefined;
      for (const b of binds) {
        for (const piece of (b.line.word(1) ?? '').split(',')) {
          const { host, port } = splitHostPort(piece);
          if (port !== String(apiPort)) continue;
          if (host === vip) exact = b;
          else if (WILDCARDS.has(host)) wildcard = b;
        }
      }
      const target = `${vip}:${apiPort}`;
      if (!exact) {
        const b = wildcard ?? binds.find((x) => x.line.count > 1) ?? binds[0];
        const tok = b?.line.token(1);
        if (b && tok) {
          out.push(
            finding('haproxy/bind-vip', wildcard ? t("{0} '{1}' binds {2} (every address); bind the VIP {3} only.", fs.type, fs.name ?? '', tok.text, target) : t("{0} '{1}' binds {2}, not the cluster endpoint {3}.", fs.type, fs.name ?? '', tok.text, target), tokenRange(b, tok), [fix(t('Bind {0}', target), replaceToken(b, tok, target))], wildcard ? 'warning' : 'error'),
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
        const b = m.backends.get(place.line.word(1) ?? '');
        if (b && !targets.includes(b)) targets.push(b);
      }
    }
    if (!placesOf(fs, 'default_backend').length && fs.type === 'frontend') {
      const dflt = m.setting(fp, 'default_backend');
      const b = dflt && m.backends.get(dflt.line.word(1) ?? '');
      if (b && !targets.includes(b)) targets.push(b);
    }
    for (const bp of targets) {
      if (!once(`backend:${bp.index}`)) continue;
      lintApiBackend(fp, bp, m, ctx, apiPort, out, fmode.mode);
    }

    // stream timeouts: tunnel supersedes client/server in TCP mode
    const tunnel = m.timeout(fp, 'tunnel');
    const checkShort = (tok: { ms: number; place: Place } | undefined, what: string) => {
      if (!tok || tok.ms >= MIN_STREAM_MS) return;
      const key = `${tok.place.section.startLine}:${tok.place.line.rel}`;
      if (!once(`timeout:${key}`)) return;
      const v = tok.place.line.token(2)!;
      out.push(finding('haproxy/timeout-short', t("'timeout {0} {1}' cuts idle API streams (watch, logs -f, exec) after {2}; use at least 10m (the seed uses 1h).", what, v.text, formatMs(tok.ms)), tokenRange(tok.place, v), [fix(t("Set 'timeout {0} 1h'", what), replaceToken(tok.place, v, '1h'))]));
    };
    if (tunnel) checkShort(tunnel, 'tunnel');
    else {
      checkShort(m.timeout(fp, 'client'), 'client');
      for (const bp of targets) checkShort(m.timeout(bp, 'server'), 'server');
    }
  }
}

/** Whether the proxy is a frontend with a bind address (one of a comma-separated list) that `match` accepts. */
function bindsWhere(p: Proxy, match: (host: string, port: string | undefined) => boolean): boolean {
  const s = p.section;
  if (!frontendCapable(s)) return false;
  for (let line = s.findAfter(-1, 'bind'); line; line = s.findAfter(line.rel, 'bind')) {
    const addr = line.word(1) ?? '';
    const pieces = addr.includes(',') ? addr.split(',') : undefined;
    if (!pieces) {
      const { host, port } = splitHostPort(addr);
      if (match(host, port)) return true;
      continue;
    }
    for (const piece of pieces) {
      const { host, port } = splitHostPort(piece);
      if (match(host, port)) return true;
    }
  }
  return false;
}

export function lintNonlocalBind(bind: Place, vip: string, inv: Inventory, ctx: GlobalContext, out: Finding[]): void {
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
  const tok = bind.line.token(1);
  out.push(
    finding('haproxy/nonlocal-bind', value === undefined ? t("The balancer's sysctl files do not set net.ipv4.ip_nonlocal_bind = 1, which binding the VIP {0} needs.", vip) : t('net.ipv4.ip_nonlocal_bind is {0} in the sysctl files, but binding the VIP {1} needs 1.', value, vip), tokenRange(bind, tok)),
  );
}

export function lintApiBackend(fp: Proxy, bp: Proxy, m: Model, ctx: GlobalContext, apiPort: number, out: Finding[], frontendMode: string): void {
  const bs = bp.section;
  const bh = header(bs);
  const inv = ctx.inventory;
  if (bp !== fp) {
    const bmode = m.mode(bp);
    const own = lastPlace(bs, 'mode');
    if (bmode.mode !== 'tcp' && frontendMode === 'tcp') {
      const f = own && own.line.count > 1 ? fix(t("Set 'mode tcp'"), replaceToken(own, own.line.token(1)!, 'tcp')) : fix(t("Add 'mode tcp' to the backend"), insertAfter(bh, ['mode tcp'], ctx.eol));
      out.push(finding('haproxy/backend-mode-tcp', t("backend '{0}' behind the tcp frontend '{1}' runs in mode {2}{3}; it must be mode tcp.", bs.name ?? '', fp.section.name ?? '', bmode.mode, own ? '' : t(' (inherited from defaults)')), own ? lineRange(own) : wordRange(bh, 0), [f]));
    } else if (bmode.mode === 'tcp' && !bmode.place) {
      out.push(finding('haproxy/mode-implicit', t("backend '{0}' relies on HAProxy's built-in mode; say 'mode tcp'.", bs.name ?? ''), wordRange(bh, 0), [fix(t("Add 'mode tcp'"), insertAfter(bh, ['mode tcp'], ctx.eol))]));
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
    const path = httpchk.line.words(2).join(' ');
    if (!overTls && !sslHello) {
      out.push(finding('haproxy/health-check', t("'option httpchk' sends plain HTTP to the apiserver's TLS port, so every check fails; add 'check-ssl verify none' to the servers or use 'option tcp-check'."), lineRange(httpchk), [fix(t("Use 'option tcp-check'"), { range: lineRange(httpchk), newText: 'option tcp-check' })], 'error'));
    } else if (overTls && !/\/(healthz|livez|readyz)\b/.test(path)) {
      out.push(finding('haproxy/health-check', t("'option httpchk' should check GET /healthz (or /livez, /readyz) on the apiserver."), lineRange(httpchk), [fix(t("Check 'GET /healthz'"), { range: lineRange(httpchk), newText: 'option httpchk GET /healthz' })]));
    }
    if (overTls && (!/\/readyz\b/.test(path) || !m.httpCheckExpect(bp))) {
      out.push(finding('haproxy/readyz-check', t('the health check {0}; check that the apiserver is ready to serve with GET /readyz and expect status 200.', /\/readyz\b/.test(path) ? t("has no 'http-check expect status 200'") : `asks ${path || 'GET /'}`), lineRange(httpchk), readyzFix(bs, httpchk, servers, defaults, ctx.eol)));
    }
  } else if (tcpCheck && !sslHello) {
    // the lab drill: a TCP check marks a restarting apiserver UP as soon as its port accepts, before it can serve
    out.push(finding('haproxy/readyz-check', t("'option tcp-check' marks a restarting apiserver UP as soon as its port accepts, before it can serve; check HTTPS GET /readyz instead."), lineRange(tcpCheck), readyzFix(bs, tcpCheck, servers, defaults, ctx.eol)));
  } else if (!tcpCheck && !sslHello) {
    out.push(finding('haproxy/health-check', t("backend '{0}' has no active health check; add the HTTPS GET /readyz check.", bs.name ?? ''), wordRange(bh, 0), readyzFix(bs, undefined, servers, defaults, ctx.eol)));
  }

  // each server: TLS passthrough, check, fall/rise
  for (const s of servers) {
    const ssl = serverOption(s.line, defaults, 'ssl');
    if (ssl?.own && ssl.tok) {
      const tok = ssl.tok;
      out.push(finding('haproxy/server-ssl', t("server '{0}' re-encrypts with 'ssl'; the API needs TLS passthrough.", s.line.word(1) ?? ''), tokenRange(s, tok), [fix(t("Remove 'ssl'"), { range: { start: { line: abs(s), character: tok.start - 1 }, end: { line: abs(s), character: tok.end } }, newText: '' })]));
    } else if (ssl) {
      out.push(finding('haproxy/server-ssl', t("server '{0}' inherits 'ssl' from default-server; the API needs TLS passthrough.", s.line.word(1) ?? ''), lineRange(s)));
    }
  }
  for (const s of servers) {
    const check = serverOption(s.line, defaults, 'check');
    if (!check) {
      // A misspelt 'check' (che1k) already has its own finding with the fix; one typo, one finding.
      if (misspeltOption(s.line, 'check')) continue;
      const last = s.line.token(s.line.count - 1)!;
      out.push(finding('haproxy/server-check', t("server '{0}' has no 'check', so HAProxy never notices its apiserver is down.", s.line.word(1) ?? ''), lineRange(s), [fix(t("Add 'check'"), { range: { start: { line: abs(s), character: last.end }, end: { line: abs(s), character: last.end } }, newText: ' check' })]));
      continue;
    }
    // failover time: fall consecutive failed checks, inter apart
    const inter = serverOption(s.line, defaults, 'inter');
    const interMs = inter?.value !== undefined ? parseTime(inter.value) : 2000;
    const fallOpt = serverOption(s.line, defaults, 'fall');
    const fallN = fallOpt?.value !== undefined && /^\d+$/.test(fallOpt.value) ? Number(fallOpt.value) : 3;
    if (interMs !== undefined && fallN >= 2 && fallN <= 10 && interMs * fallN > 30_000) {
      const where = inter?.own && inter.tok ? tokenRange(s, inter.tok) : lineRange(s);
      const f = inter?.own && inter.tok ? fix(t("Set 'inter 2s'"), replaceToken(s, inter.tok, '2s')) : undefined;
      out.push(finding('haproxy/fall-rise', t("server '{0}' is marked down only after {1} (fall {2} × inter {3}); keep it within 30s.", s.line.word(1) ?? '', formatMs(interMs * fallN), fallN, formatMs(interMs)), where, f ? [f] : undefined));
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
        const f = o?.own && o.tok ? fix(t('Set \'{0} {1}\'', name, good), replaceToken(s, o.tok, String(good))) : undefined;
        out.push(finding('haproxy/fall-rise', v < 2 ? t("'{0} {1}' on server '{2}' reacts to a single check, which makes the node flap; use {0} {3}.", name, v, s.line.word(1) ?? '', good) : t("'{0} {1}' on server '{2}' delays failover by {1} checks; use {0} {3}.", name, v, s.line.word(1) ?? '', good), where, f ? [f] : undefined));
      }
    }
  }

  // inventory control-plane nodes
  if (!inv) return;
  const cps = hostsWithRole(inv, 'control-plane');
  if (cps.length === 0) return;
  const matched = new Set<HostSpec>();
  for (const s of servers) {
    const addrTok = s.line.token(2);
    if (!addrTok) continue;
    const { host, port } = splitHostPort(addrTok.text);
    const cp = cps.find((h) => h.address === host || h.name === host);
    const name = s.line.word(1)!;
    if (!cp) {
      out.push(finding('haproxy/backend-servers', t("server '{0}' ({1}) is not a control-plane node of the inventory.", name, addrTok.text), lineRange(s), [fix(t("Remove server '{0}'", name), deleteLine(s))]));
      continue;
    }
    if (matched.has(cp)) continue; // duplicates are reported by duplicate-server or are harmless aliases
    matched.add(cp);
    if (port !== String(apiPort)) {
      out.push(finding('haproxy/backend-servers', t("server '{0}' points at port {1}; the apiserver of {2} listens on {3}.", name, port ?? t('(none: the client port)'), cp.name, apiPort), tokenRange(s, addrTok), [fix(t('Use {0}:{1}', cp.address, apiPort), replaceToken(s, addrTok, `${cp.address}:${apiPort}`))]));
    }
  }
  const missing = cps.filter((h) => !matched.has(h));
  if (missing.length) {
    const anchor = servers[servers.length - 1] ?? lastPlace(bs, 'option') ?? lastPlace(bs, 'balance') ?? bh;
    const names = new Set(servers.map((s) => s.line.word(1)!));
    // the new lines take the check options of the backend's last server (the generator's when there is none)
    const options = servers.length ? servers[servers.length - 1]!.line.words(3).join(' ') : 'check check-ssl verify none fall 3 rise 2';
    out.push(
      finding('haproxy/backend-servers', missing.length > 1
        ? t("backend '{0}' lacks the control-plane nodes {1}.", bs.name ?? '', missing.map((h) => `${h.name} (${h.address})`).join(', '))
        : t("backend '{0}' lacks the control-plane node {1}.", bs.name ?? '', `${missing[0]!.name} (${missing[0]!.address})`), wordRange(bh, bh.line.count > 1 ? 1 : 0), [
        fix(
          missing.length > 1 ? t('Add server lines for {0}', missing.map((h) => h.name).join(', ')) : t('Add server line for {0}', missing[0]!.name),
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

export function apiBlock(inv: Inventory, eol: string): string {
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
