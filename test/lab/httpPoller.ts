/**
 * A client that polls URLs while a lab test disturbs the cluster, one request every 250 ms (each to the next URL of the
 * list, 2 s timeout), and counts what failed: a connection error, a timeout, a status other than 200 or a body
 * that does not match. Each failure is kept with the second it happened (from the start) and the URL, for the report.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface PollResult {
  polls: number;
  /** `+12.3 s URL: what went wrong` */
  failures: string[];
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

function once(url: string, o: PollOptions): Promise<string | undefined> {
  return new Promise((res) => {
    const u = new URL(url);
    const opts = { host: u.hostname, port: u.port, path: `${u.pathname}${u.search}`, timeout: 2000, ...(u.protocol === 'https:' ? { ca: o.ca, cert: o.cert, key: o.key } : {}) };
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(opts, (r) => {
      let body = '';
      r.setEncoding('utf8');
      r.on('data', (d: string) => (body += d));
      r.on('end', () => res(r.statusCode !== 200 ? `HTTP ${r.statusCode}: ${body.slice(0, 160).replace(/\s+/g, ' ')}` : o.expect && !o.expect.test(body) ? `unexpected body: ${body.slice(0, 160)}` : undefined));
      r.on('error', (e) => res(e.message));
    });
    req.on('timeout', () => req.destroy(new Error('timed out after 2 s')));
    req.on('error', (e) => res(e.message));
    req.end();
  });
}

export function pollHttp(urls: string[], o: PollOptions = {}): { stop(): Promise<PollResult> } {
  const t0 = Date.now();
  const failures: string[] = [];
  let polls = 0;
  let stopped = false;
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      const url = urls[i % urls.length]!;
      const problem = await once(url, o);
      polls++;
      if (problem) failures.push(`+${((Date.now() - t0) / 1000).toFixed(1)} s ${url}: ${problem}`);
      await sleep(o.everyMs ?? 250);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { polls, failures };
    },
  };
}
