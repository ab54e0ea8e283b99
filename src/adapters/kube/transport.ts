/**
 * The watch engine's transport over Node's https with the TLS material and auth headers a KubeConfig
 * yields. Lists are plain GETs (keep-alive agent); a watch is a GET with watch=true whose body is a
 * stream of newline-delimited JSON events. Counts requests and bytes (for the idle/bandwidth bench).
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { ApiError, classifyError, httpError } from '../../core/live/errors';
import type { KubeTransport, ListResult, Params, WatchEvent } from '../../core/live/watch';

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

export class HttpsTransport implements KubeTransport {
  readonly stats: TransportStats = { requests: 0, lists: 0, watches: 0, bytesIn: 0 };
  private readonly agent: http.Agent;
  private readonly watchAgent: http.Agent;
  private readonly url: URL;

  constructor(
    server: string,
    private readonly tls: TlsOptions,
    private readonly timeouts = { connectMs: 10_000, requestMs: 30_000 },
    /**
     * keepAlive false: every request opens its own connection, like a kubectl invocation — what a probe
     * of the VIP needs to see each request balanced anew (the failure drill counts failed requests).
     */
    options: { keepAlive?: boolean } = {},
  ) {
    this.url = new URL(server);
    const secure = this.url.protocol === 'https:';
    const keepAlive = options.keepAlive ?? true;
    const agentOpts = { keepAlive, maxSockets: 8, ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: tls.rejectUnauthorized ?? true, servername: tls.servername };
    this.agent = secure ? new https.Agent(agentOpts) : new http.Agent({ keepAlive });
    // Watches hold their socket for minutes: a separate pool so they never starve lists.
    this.watchAgent = secure ? new https.Agent({ ...agentOpts, keepAlive: false, maxSockets: Infinity }) : new http.Agent();
  }

  get server(): string {
    return this.url.origin;
  }

  private open(path: string, params: Params, watch: boolean, method = 'GET', contentType?: string): { req: http.ClientRequest; where: string } {
    const qs = new URLSearchParams(watch ? { ...params, watch: 'true' } : params).toString();
    const fullPath = `${this.url.pathname.replace(/\/$/, '')}${path}${qs ? `?${qs}` : ''}`;
    const where = `${this.url.origin}${path}`;
    const mod = this.url.protocol === 'https:' ? https : http;
    this.stats.requests++;
    const req = mod.request({
      protocol: this.url.protocol,
      hostname: this.url.hostname.replace(/^\[|\]$/g, ''),
      port: this.url.port || (this.url.protocol === 'https:' ? 443 : 80),
      path: fullPath,
      method,
      agent: watch ? this.watchAgent : this.agent,
      headers: { Accept: 'application/json', 'User-Agent': 'kubeadm-workbench', ...(contentType ? { 'Content-Type': contentType } : {}), ...(this.tls.headers ?? {}) },
      ...(this.tls.auth ? { auth: this.tls.auth } : {}),
    });
    return { req, where };
  }

  /** GET returning status and body (for /readyz, /version and lists). */
  get(path: string, params: Params = {}, timeoutMs = this.timeouts.requestMs): Promise<{ status: number; body: string }> {
    return this.send('GET', path, params, undefined, timeoutMs);
  }

  /** A write (POST/PATCH/DELETE) with a JSON body; answers status and body, the caller judges them. */
  send(method: string, path: string, params: Params = {}, body?: unknown, timeoutMs = this.timeouts.requestMs, contentType = 'application/json'): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const { req, where } = this.open(path, params, false, method, body === undefined ? undefined : contentType);
      const timer = setTimeout(() => req.destroy(new ApiError('timeout', where, `no answer within ${timeoutMs} ms`)), timeoutMs);
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
    });
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
      throw new ApiError('http', where, `unparsable list: ${(e as Error).message}`);
    }
  }

  watch(path: string, params: Params, onEvent: (event: WatchEvent) => void, onClose: (error?: ApiError) => void): () => void {
    this.stats.watches++;
    const { req, where } = this.open(path, params, true);
    let done = false;
    const finish = (error?: ApiError) => {
      if (done) return;
      done = true;
      clearTimeout(connectTimer);
      onClose(error);
    };
    const connectTimer = setTimeout(() => req.destroy(new ApiError('timeout', where, `no answer within ${this.timeouts.connectMs} ms`)), this.timeouts.connectMs);
    req.on('response', (res) => {
      clearTimeout(connectTimer);
      if (res.statusCode !== 200) {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => finish(httpError(res.statusCode ?? 0, where, body)));
        res.on('error', (e) => finish(classifyError(e, where)));
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
            finish(new ApiError('http', where, `unparsable watch event: ${line.slice(0, 120)}`));
            return;
          }
          if (event.object) stripManagedFields(event.object as never);
          if (!done) onEvent(event);
        }
      });
      res.on('end', () => finish());
      res.on('aborted', () => finish(new ApiError('unreachable', where, 'watch stream aborted')));
      res.on('error', (e) => finish(classifyError(e, where)));
    });
    req.on('error', (e) => finish(classifyError(e, where)));
    req.end();
    return () => {
      done = true;
      clearTimeout(connectTimer);
      req.destroy();
    };
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
