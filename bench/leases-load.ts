/**
 * Load generator for bench/leases.bench.ts (its own process, so its CPU is not the consumer's):
 *   setup  SERVER CERTDIR N           create N Ready Nodes and their Leases
 *   renew  SERVER CERTDIR N PERIOD_S  renew every lease once per PERIOD_S (N/PERIOD_S PATCHes per second);
 *                                     renewTime = the send time, so the consumer can measure end-to-end latency
 */
import { Agent, request } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [mode, server, certDir, nArg, periodArg] = process.argv.slice(2);
const N = Number(nArg);
const agent = new Agent({ keepAlive: true, maxSockets: 48, ca: readFileSync(join(certDir!, 'ca.crt')), cert: readFileSync(join(certDir!, 'admin.crt')), key: readFileSync(join(certDir!, 'admin.key')) });
const microTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
const name = (i: number) => `bench-node-${String(i).padStart(5, '0')}`;

function call(method: string, path: string, body: unknown, type = 'application/json', onBody?: (text: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(`${server}${path}`, { method, agent, headers: { 'Content-Type': type, 'Content-Length': Buffer.byteLength(data), Accept: 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => onBody && (text += d));
      res.on('end', () => {
        onBody?.(text);
        resolve(res.statusCode ?? 0);
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

async function pool(count: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await fn(next++);
  }));
}

async function setup(): Promise<void> {
  const t0 = Date.now();
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await pool(N, 32, async (i) => {
    const n = name(i);
    const s1 = await call('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: n, labels: { 'kubernetes.io/hostname': n } } });
    if (s1 !== 201 && s1 !== 409) throw new Error(`node ${n}: ${s1}`);
    await call('PATCH', `/api/v1/nodes/${n}/status`, { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: now, lastTransitionTime: now }], nodeInfo: { kubeletVersion: 'v1.34.12', kubeProxyVersion: '', machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: '', containerRuntimeVersion: '', operatingSystem: 'linux', architecture: 'amd64' } } }, 'application/merge-patch+json');
    const s2 = await call('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: n, namespace: 'kube-node-lease' }, spec: { holderIdentity: n, leaseDurationSeconds: 40, renewTime: microTime(Date.now()) } });
    if (s2 !== 201 && s2 !== 409) throw new Error(`lease ${n}: ${s2}`);
  });
  console.log(JSON.stringify({ setup: N, ms: Date.now() - t0 }));
}

async function renew(): Promise<void> {
  const period = Number(periodArg) * 1000;
  const tickMs = 20;
  const perTick = (N * tickMs) / period;
  let carry = 0;
  let i = 0;
  let sent = 0;
  let ok = 0;
  let inflight = 0;
  let dropped = 0;
  const t0 = Date.now();
  setInterval(() => {
    console.log(JSON.stringify({ sent, ok, dropped, inflight, rate: Math.round((ok * 1000) / (Date.now() - t0)) }));
  }, 5000);
  setInterval(() => {
    carry += perTick;
    while (carry >= 1) {
      carry--;
      if (inflight > 64) {
        dropped++; // the API server cannot keep up: skip rather than queue unboundedly
        continue;
      }
      const n = name(i++ % N);
      inflight++;
      sent++;
      const sentAt = Date.now();
      call('PATCH', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${n}`, { spec: { renewTime: microTime(sentAt) } }, 'application/merge-patch+json', (text) => {
        // The write is committed when the API server answers: `A name resourceVersion ackMs writeMs` lets the
        // consumer measure commit → tree latency, independent of how long the API server queued the write.
        try {
          const rv = (JSON.parse(text) as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
          if (rv) process.stdout.write(`A ${n} ${rv} ${Date.now()} ${Date.now() - sentAt}\n`);
        } catch {
          // not JSON: an error answer, counted as not ok
        }
      })
        .then((s) => s === 200 && ok++)
        .catch(() => undefined)
        .finally(() => inflight--);
    }
  }, tickMs);
}

(mode === 'setup' ? setup() : renew()).catch((e) => {
  console.error(e);
  process.exit(1);
});
