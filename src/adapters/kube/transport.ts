/**
 * The watch engine's transport over Node's https with the TLS material and auth headers a KubeConfig
 * yields. Lists are plain GETs (keep-alive agent); a watch is a GET with watch=true whose body is a
 * stream of newline-delimited JSON events. Counts requests and bytes (for the idle/bandwidth bench).
 *
 * Credentials are asked for per request (an exec plugin's token expires, a token file is rotated) and put into
 * the request's own options, never only into the agent: see route.ts for why a host may replace the agent.
 */
import type * as http from 'node:http';
import { ApiError, classifyError, httpError } from '../../core/live/errors';
import { decideProxy, type ProxyDecision } from '../../core/live/proxy';
import { clientRequest, routeAgent } from './route';
import type { KubeTransport, ListResult, Params, WatchEvent } from '../../core/live/watch';
import { errorMessage } from '../../core/errors';
import { t } from '../../core/l10n';

export interface TransportStats {
  requests: number;
  lists: number;
  watches: number;
  bytesIn: number;
}

export interface TlsOptions {
  ca?: Buffer | string | undefined;
  cert?: Buffer | string | undefined;
  key?: Buffer | string | undefined;
  rejectUnauthorized?: boolean | undefined;
  servername?: string | undefined;
  headers?: Record<string, string> | undefined;
  auth?: string | undefined;
}

/** Static TLS material, or a function giving the current credentials for each request. */
export type Credentials = TlsOptions | (() => Promise<TlsOptions>);

export interface TransportOptions {
  /** false: one connection per request (see the constructor). */
  keepAlive?: boolean;
  /** The kubeconfig cluster's proxy-url. */
  proxyUrl?: string | undefined;
  /** The environment the proxy variables come from (default process.env). */
  env?: Record<string, string | undefined>;
}

export class HttpsTransport implements KubeTransport {
  readonly stats: TransportStats = { requests: 0, lists: 0, watches: 0, bytesIn: 0 };
  private readonly agent: http.Agent;
  private readonly watchAgent: http.Agent;
  private readonly url: URL;
  private readonly credentials: () => Promise<TlsOptions>;
  /** How requests reach the server (direct, or which proxy and why). */
  readonly route: ProxyDecision;

  constructor(
    server: string,
    credentials: Credentials,
    private readonly timeouts = { connectMs: 10_000, requestMs: 30_000 },
    /**
     * keepAlive false: every request opens its own connection, like a kubectl invocation — what a probe
     * of the VIP needs to see each request balanced anew (the failure drill counts failed requests).
     */
    options: TransportOptions = {},
  ) {
    this.url = new URL(server);
    this.credentials = typeof credentials === 'function' ? credentials : () => Promise.resolve(credentials);
    this.route = decideProxy(server, options.proxyUrl, options.env ?? process.env);
    const secure = this.url.protocol === 'https:';
    const keepAlive = options.keepAlive ?? true;
    this.agent = routeAgent(secure, this.route, { keepAlive, maxSockets: 8 }, timeouts.connectMs);
    // Watches hold their socket for minutes: a separate pool so they never starve lists.
    this.watchAgent = routeAgent(secure, this.route, { keepAlive: false, maxSockets: Infinity }, timeouts.connectMs);
  }

  get server(): string {
    return this.url.origin;
  }

  private async open(path: string, params: Params, watch: boolean, method = 'GET', contentType?: string, cancelled?: () => boolean): Promise<{ req: http.ClientRequest; where: string } | undefined> {
    const qs = new URLSearchParams(watch ? { ...params, watch: 'true' } : params).toString();
    const fullPath = `${this.url.pathname.replace(/\/$/, '')}${path}${qs ? `?${qs}` : ''}`;
    const where = `${this.url.origin}${path}`;
    let creds: TlsOptions;
    try {
      creds = await this.credentials();
    } catch (e) {
      throw new ApiError('auth', where, t('cannot get credentials: {0}', errorMessage(e)));
    }
    // A watch released while the credentials were asked for is never sent.
    if (cancelled?.()) return undefined;
    this.stats.requests++;
    const req = clientRequest({
      protocol: this.url.protocol,
      hostname: this.url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(this.url.port) || (this.url.protocol === 'https:' ? 443 : 80),
      path: fullPath,
      method,
      agent: watch ? this.watchAgent : this.agent,
      // The TLS material on the request itself (not only on the agent): see route.ts.
      ...(creds.ca ? { ca: creds.ca } : {}),
      ...(creds.cert ? { cert: creds.cert } : {}),
      ...(creds.key ? { key: creds.key } : {}),
      ...(creds.servername ? { servername: creds.servername } : {}),
      rejectUnauthorized: creds.rejectUnauthorized ?? true,
      headers: { Accept: 'application/json', 'User-Agent': 'kubeadm-workbench', ...(contentType ? { 'Content-Type': contentType } : {}), ...(creds.headers ?? {}) },
      ...(creds.auth ? { auth: creds.auth } : {}),
    });
    return { req, where };
  }

  /** GET returning status and body (for /readyz, /version and lists). */
  get(path: string, params: Params = {}, timeoutMs = this.timeouts.requestMs): Promise<{ status: number; body: string }> {
    return this.send('GET', path, params, undefined, timeoutMs);
  }

  /** A write (POST/PATCH/DELETE) with a JSON body; answers status and body, the caller judges them. */
  send(method: string, path: string, params: Params = {}, body?: unknown, timeoutMs = this.timeouts.requestMs, contentType = 'application/json'): Promise<{ status: number; body: string }> {
    return this.open(path, params, false, method, body === undefined ? undefined : contentType).then((opened) => new Promise((resolve, reject) => {
      const { req, where } = opened!;
      const timer = setTimeout(() => req.destroy(new ApiError('timeout', where, t('no answer within {0} ms', timeoutMs))), timeoutMs);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => {
          this.stats.bytesIn += d.length;
          chunks.push(d);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', (e) => {
          clearTimeout(timer);
          reject(classifyError(e, where));
        });
      });
      req.on('error', (e) => {
        clearTimeout(timer);
        reject(classifyError(e, where));
      });
      req.end(body === undefined ? undefined : JSON.stringify(body));
    }));
  }

  async list(path: string, params: Params): Promise<ListResult> {
    this.stats.lists++;
    const where = `${this.url.origin}${path}`;
    const { status, body } = await this.get(path, params);
    if (status !== 200) throw httpError(status, where, body);
    try {
      const list = JSON.parse(body) as ListResult;
      for (const item of list.items ?? []) stripManagedFields(item as never);
      return list;
    } catch (e) {
      throw new ApiError('http', where, t('unparsable list: {0}', errorMessage(e)));
    }
  }

  watch(path: string, params: Params, onEvent: (event: WatchEvent) => void, onClose: (error?: ApiError) => void): () => void {
    this.stats.watches++;
    let done = false;
    let req: http.ClientRequest | undefined;
    let connectTimer: NodeJS.Timeout | undefined;
    const finish = (error?: ApiError) => {
      if (done) return;
      done = true;
      clearTimeout(connectTimer);
      onClose(error);
    };
    this.open(path, params, true, 'GET', undefined, () => done).then(
      (opened) => {
        if (!opened) return;
        req = opened.req;
        connectTimer = this.stream(opened.req, opened.where, (e) => !done && onEvent(e), finish);
      },
      (e: unknown) => finish(classifyError(e, `${this.url.origin}${path}`)),
    );
    return () => {
      done = true;
      clearTimeout(connectTimer);
      req?.destroy();
    };
  }

  /** Reads a watch response: newline-delimited JSON events until the server ends the stream. */
  private stream(req: http.ClientRequest, where: string, onEvent: (event: WatchEvent) => void, end: (error?: ApiError) => void): NodeJS.Timeout {
    const connectTimer = setTimeout(() => req.destroy(new ApiError('timeout', where, t('no answer within {0} ms', this.timeouts.connectMs))), this.timeouts.connectMs);
    req.on('response', (res) => {
      clearTimeout(connectTimer);
      if (res.statusCode !== 200) {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => end(httpError(res.statusCode ?? 0, where, body)));
        res.on('error', (e) => end(classifyError(e, where)));
        return;
      }
      let buffer = '';
      res.on('data', (d: Buffer) => {
        this.stats.bytesIn += d.length;
        buffer += d.toString('utf8');
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (!line) continue;
          let event: WatchEvent;
          try {
            event = JSON.parse(line) as WatchEvent;
          } catch {
            req.destroy();
            end(new ApiError('http', where, t('unparsable watch event: {0}', line.slice(0, 120))));
            return;
          }
          if (event.object) stripManagedFields(event.object as never);
          onEvent(event);
        }
      });
      res.on('end', () => end());
      res.on('aborted', () => end(new ApiError('unreachable', where, t('watch stream aborted'))));
      res.on('error', (e) => end(classifyError(e, where)));
    });
    req.on('error', (e) => end(classifyError(e, where)));
    req.end();
    return connectTimer;
  }

  dispose(): void {
    this.agent.destroy();
    this.watchAgent.destroy();
  }
}

/** managedFields are a large part of every object and no view reads them: dropped on arrival (heap). */
function stripManagedFields(o: { metadata?: { managedFields?: unknown } }): void {
  if (o.metadata?.managedFields) delete o.metadata.managedFields;
}
