/**
 * How a request reaches the API server, independent of the host process.
 *
 * VS Code's proxy support (`http.proxySupport`, default `override`) wraps `https.request`: for any host other than
 * `localhost`/`127.0.0.1` it replaces the request's `agent` with its own proxy agent, which connects through
 * Node's global agent using only the request's own options. TLS material given to our agent alone (the client
 * certificate of kubeadm's admin.conf) is then dropped and every request is anonymous. Two defences, both here:
 *  1. requests are constructed with `http.ClientRequest` and our agent, not through the (patchable) module
 *     functions, so the route is ours in every host and every proxySupport mode;
 *  2. the TLS material and auth headers go into each request's options as well (see transport.ts), so even a
 *     replaced agent would still present them.
 * The route itself follows kubectl (core/live/proxy.ts): kubeconfig `proxy-url`, else HTTPS_PROXY minus NO_PROXY,
 * through an HTTP CONNECT tunnel.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as tls from 'node:tls';
import type { Duplex } from 'node:stream';
import type { ProxyDecision } from '../../core/live/proxy';
import { t } from '../../core/l10n';

type Oncreate = (err: Error | null, socket: Duplex) => void;
type ConnectArgs = http.ClientRequestArgs & tls.ConnectionOptions;

/**
 * Opens a CONNECT tunnel through `proxy` to host:port and hands the raw socket on. Credentials in the proxy URL
 * become a Proxy-Authorization header (Basic), like Go's transport does.
 */
export function connectTunnel(proxy: URL, host: string, port: number, timeoutMs: number, done: (err: Error | null, socket?: net.Socket) => void): void {
  const proxyPort = Number(proxy.port || (proxy.protocol === 'https:' ? 443 : 80));
  const proxyHost = proxy.hostname.replace(/^\[|\]$/g, '');
  const socket: net.Socket =
    proxy.protocol === 'https:' ? tls.connect({ host: proxyHost, port: proxyPort, servername: net.isIP(proxyHost) ? undefined : proxyHost }) : net.connect({ host: proxyHost, port: proxyPort });
  let settled = false;
  const finish = (err: Error | null) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    socket.removeListener('data', onData);
    if (err) {
      socket.destroy();
      done(err);
    } else done(null, socket);
  };
  const timer = setTimeout(() => finish(Object.assign(new Error(t('proxy {0} did not open a tunnel within {1} ms', proxy.host, timeoutMs)), { code: 'ETIMEDOUT' })), timeoutMs);
  const target = `${net.isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  const auth = proxy.username ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}\r\n` : '';
  socket.once(proxy.protocol === 'https:' ? 'secureConnect' : 'connect', () => socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth}\r\n`));
  let head = Buffer.alloc(0);
  const onData = (d: Buffer) => {
    head = Buffer.concat([head, d]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length > 16_384) finish(new Error(t('proxy {0} sent an oversized answer to CONNECT', proxy.host)));
      return;
    }
    const statusLine = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
    const rest = head.subarray(end + 4);
    if (!/^HTTP\/1\.[01] 2\d\d\b/.test(statusLine)) return finish(Object.assign(new Error(t('proxy {0} refused the tunnel to {1}: {2}', proxy.host, target, statusLine)), { code: 'EPROXY' }));
    if (rest.length) socket.unshift(rest);
    finish(null);
  };
  socket.on('data', onData);
  socket.once('error', (e) => finish(e));
  socket.once('close', () => finish(new Error(t('proxy {0} closed the connection before the tunnel opened', proxy.host))));
}

class TunnelHttpsAgent extends https.Agent {
  constructor(private readonly proxy: URL, opts: https.AgentOptions, private readonly timeoutMs: number) {
    super(opts);
  }

  override createConnection(options: ConnectArgs, oncreate?: Oncreate): Duplex | null | undefined {
    const host = String(options.host ?? options.hostname ?? 'localhost').replace(/^\[|\]$/g, '');
    connectTunnel(this.proxy, host, Number(options.port ?? 443), this.timeoutMs, (err, raw) => {
      if (err || !raw) return oncreate?.(err ?? new Error('no tunnel'), undefined as unknown as Duplex);
      const secure = tls.connect({ ...options, socket: raw, servername: options.servername ?? (net.isIP(host) ? undefined : host) } as tls.ConnectionOptions);
      oncreate?.(null, secure);
    });
    return undefined;
  }
}

class TunnelHttpAgent extends http.Agent {
  constructor(private readonly proxy: URL, opts: http.AgentOptions, private readonly timeoutMs: number) {
    super(opts);
  }

  override createConnection(options: ConnectArgs, oncreate?: Oncreate): Duplex | null | undefined {
    const host = String(options.host ?? options.hostname ?? 'localhost').replace(/^\[|\]$/g, '');
    connectTunnel(this.proxy, host, Number(options.port ?? 80), this.timeoutMs, (err, raw) => oncreate?.(err, raw as Duplex));
    return undefined;
  }
}

/** An agent for `server` along `route`: keep-alive pools for lists, an unbounded one for watches. */
export function routeAgent(secure: boolean, route: ProxyDecision, opts: http.AgentOptions, connectTimeoutMs: number): http.Agent {
  if (route.kind === 'proxy') return secure ? new TunnelHttpsAgent(route.url, opts, connectTimeoutMs) : new TunnelHttpAgent(route.url, opts, connectTimeoutMs);
  return secure ? new https.Agent(opts) : new http.Agent(opts);
}

/** A request on our agent that no patch of `https.request` can re-route. */
export function clientRequest(options: http.ClientRequestArgs & tls.ConnectionOptions): http.ClientRequest {
  return new http.ClientRequest(options);
}
