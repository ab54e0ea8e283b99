/**
 * Which proxy (if any) a request to the API server goes through, decided the way kubectl decides it and not
 * by whatever the host process patched into Node's https module:
 *  - the kubeconfig cluster's `proxy-url` wins when set;
 *  - else HTTPS_PROXY / https_proxy (HTTP_PROXY / http_proxy for an http:// server), unless NO_PROXY /
 *    no_proxy matches the server: `*`, an IP, a CIDR, a host name, or a domain (`example.com` and
 *    `.example.com` both match its subdomains), each optionally with `:port` — Go's httpproxy rules;
 *  - a loopback server is never proxied from the environment.
 */
import { t } from '../l10n';
import { isIP } from 'node:net';

export type ProxyDecision = { kind: 'direct'; why: string } | { kind: 'proxy'; url: URL; why: string };

export type ProxyEnv = Record<string, string | undefined>;

function envValue(env: ProxyEnv, name: string): string | undefined {
  const v = env[name.toUpperCase()] ?? env[name.toLowerCase()];
  return v?.trim() ? v.trim() : undefined;
}

function parseProxyUrl(text: string, source: string): URL {
  let url: URL;
  try {
    // Go accepts a bare host:port in the environment and takes it as http://.
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    throw new Error(t('{0}: "{1}" is not a proxy URL', source, text));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(t('{0}: {1} proxies are not supported (an HTTP CONNECT proxy, http:// or https://, is)', source, url.protocol.replace(/:$/, '')));
  }
  return url;
}

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

function ipv6ToBigInt(ip: string): bigint {
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((n, g) => (n << 16n) + BigInt(parseInt(g || '0', 16)), 0n);
}

function inCidr(ip: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  if (!base || !Number.isInteger(bits)) return false;
  const fam = isIP(base);
  if (fam !== isIP(ip) || fam === 0) return false;
  if (fam === 4) {
    if (bits < 0 || bits > 32) return false;
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    return ((ipv4ToInt(ip) & mask) >>> 0) === ((ipv4ToInt(base) & mask) >>> 0);
  }
  if (bits < 0 || bits > 128) return false;
  const shift = BigInt(128 - bits);
  return ipv6ToBigInt(ip) >> shift === ipv6ToBigInt(base) >> shift;
}

export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || (isIP(h) === 4 && h.startsWith('127.')) || h === '::1';
}

/** Does one NO_PROXY list match host:port? */
export function noProxyMatches(noProxy: string, host: string, port: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  for (let entry of noProxy.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean)) {
    if (entry === '*') return true;
    if (entry.includes('/')) {
      if (inCidr(h, entry)) return true;
      continue;
    }
    let entryPort: string | undefined;
    const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(entry);
    if (m && isIP(entry) !== 6) [entry, entryPort] = [m[1]!, m[2]!];
    entry = entry.replace(/^\[|\]$/g, '');
    if (entryPort && entryPort !== port) continue;
    if (isIP(entry)) {
      if (entry === h) return true;
      continue;
    }
    const domain = entry.replace(/^\*?\./, '');
    if (h === domain || h.endsWith(`.${domain}`)) return true;
  }
  return false;
}

/** The route to `server`: the kubeconfig's proxy-url, the environment's proxy, or direct. */
export function decideProxy(server: string, proxyUrl: string | undefined, env: ProxyEnv): ProxyDecision {
  const url = new URL(server);
  if (proxyUrl?.trim()) return { kind: 'proxy', url: parseProxyUrl(proxyUrl.trim(), 'kubeconfig proxy-url'), why: 'kubeconfig proxy-url' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (isLoopback(host)) return { kind: 'direct', why: t('loopback server') };
  const name = url.protocol === 'https:' ? 'https_proxy' : 'http_proxy';
  const fromEnv = envValue(env, name);
  if (!fromEnv) return { kind: 'direct', why: t('no proxy-url and no {0}', name.toUpperCase()) };
  const noProxy = envValue(env, 'no_proxy');
  if (noProxy && noProxyMatches(noProxy, host, port)) return { kind: 'direct', why: t('NO_PROXY matches the server') };
  return { kind: 'proxy', url: parseProxyUrl(fromEnv, name.toUpperCase()), why: name.toUpperCase() };
}
