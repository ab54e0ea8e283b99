/**
 * A client that polls URLs while a lab test disturbs the cluster, one request every 250 ms (each to the next URL of the
 * list, 2 s timeout), and counts what failed: a connection error, a timeout, any status outside 2xx (a 403 to an
 * authorised client is a failure like a 503) or a body that does not match. Each failure is kept with the moment it
 * happened (seconds from the start, and epoch milliseconds to lay it beside a run's ledger) and the URL.
 * Connections are kept alive, as a real client keeps them. A request written on a kept connection that the other end had
 * already closed (HAProxy's `shutdown sessions` while it sat idle), answered by nothing, is sent once more on a new
 * connection — as Go's transport does for an idempotent request, so kubectl and client-go never see it — and counted
 * apart (`retriedOnClosedIdle`); any other error, and any failure of the second try, is a failure.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface PollResult {
  polls: number;
  /** `+12.3 s URL: what went wrong` */
  failures: string[];
  /** The same failures with their epoch milliseconds. */
  failed: { at: number; url: string; problem: string }[];
  /** Polls per URL. */
  pollsByUrl: Record<string, number>;
  /** Requests sent again because their kept-alive connection had been closed before any answer (see above). */
  retriedOnClosedIdle: number;
  seconds: number;
}

export interface PollOptions {
  /** TLS: the cluster's CA and a client certificate (the admin's, for an authenticated API request). */
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** The body of a good answer. */
  expect?: RegExp;
  everyMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What `once` answers for a request on a kept connection closed before any answer: send it again. */
const CLOSED_IDLE = Symbol('closed idle connection');

function once(url: string, o: PollOptions): Promise<string | undefined | typeof CLOSED_IDLE> {
  return new Promise((res) => {
    let answered = false;
    const u = new URL(url);
    const opts = { host: u.hostname, port: u.port, path: `${u.pathname}${u.search}`, timeout: 2000, ...(u.protocol === 'https:' ? { ca: o.ca, cert: o.cert, key: o.key } : {}) };
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(opts, (r) => {
      answered = true;
      let body = '';
      r.setEncoding('utf8');
      r.on('data', (d: string) => (body += d));
      const ok = (r.statusCode ?? 0) >= 200 && (r.statusCode ?? 0) < 300;
      r.on('end', () => res(!ok ? `HTTP ${r.statusCode}: ${body.slice(0, 160).replace(/\s+/g, ' ')}` : o.expect && !o.expect.test(body) ? `unexpected body: ${body.slice(0, 160)}` : undefined));
      r.on('error', (e) => res(e.message));
    });
    req.on('timeout', () => req.destroy(new Error('timed out after 2 s')));
    req.on('error', (e: NodeJS.ErrnoException) => res(!answered && req.reusedSocket && (e.code === 'ECONNRESET' || e.message === 'socket hang up') ? CLOSED_IDLE : e.message));
    req.end();
  });
}

export function pollHttp(urls: string[], o: PollOptions = {}): { stop(): Promise<PollResult> } {
  const t0 = Date.now();
  const failures: string[] = [];
  const failed: PollResult['failed'] = [];
  const pollsByUrl: Record<string, number> = Object.fromEntries(urls.map((u) => [u, 0]));
  let polls = 0;
  let retriedOnClosedIdle = 0;
  let stopped = false;
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      const url = urls[i % urls.length]!;
      let problem = await once(url, o);
      if (problem === CLOSED_IDLE) {
        retriedOnClosedIdle++;
        problem = await once(url, o);
        if (problem === CLOSED_IDLE) problem = 'the connection was closed before any answer, twice';
      }
      polls++;
      pollsByUrl[url] = (pollsByUrl[url] ?? 0) + 1;
      if (problem) {
        failures.push(`+${((Date.now() - t0) / 1000).toFixed(1)} s ${url}: ${problem}`);
        failed.push({ at: Date.now(), url, problem });
      }
      await sleep(o.everyMs ?? 250);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { polls, failures, failed, pollsByUrl, retriedOnClosedIdle, seconds: (Date.now() - t0) / 1000 };
    },
  };
}

/**
 * An assertion message that carries the failures themselves (when, which URL, what went wrong): CI keeps only the
 * failing assertion's message, and "no request failed" alone said nothing of the one request that did.
 * `where` may place a failure in the run (the plan step or node it fell in).
 */
export function failuresMessage(p: PollResult, what: string, where?: (at: number) => string): string {
  const shown = p.failed.slice(0, 5).map((f) => `${new Date(f.at).toISOString().slice(11, 23)}${where ? ` (${where(f.at)})` : ''} ${f.url}: ${f.problem}`);
  return `${what}: ${p.failed.length} failed of ${p.polls} polls in ${p.seconds.toFixed(0)} s${shown.length ? ` — ${shown.join('; ')}${p.failed.length > shown.length ? '; …' : ''}` : ''}`;
}

/** The admin credentials of a kubeconfig, for an authenticated poller (base64 fields of the one user kubeadm writes). */
export function adminTls(kubeconfig: string): { ca: Buffer; cert: Buffer; key: Buffer } {
  const text = readFileSync(kubeconfig, 'utf8');
  const field = (k: string) => {
    const m = new RegExp(`${k}: (\\S+)`).exec(text);
    if (!m) throw new Error(`${kubeconfig} has no ${k}: the pollers need the admin's embedded credentials`);
    return Buffer.from(m[1]!, 'base64');
  };
  return { ca: field('certificate-authority-data'), cert: field('client-certificate-data'), key: field('client-key-data') };
}
