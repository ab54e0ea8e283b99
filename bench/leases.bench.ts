/**
 * Benchmark: the live model under a large cluster's node-heartbeat churn, against a real kube-apiserver + etcd
 * (test/integration/apiserver.ts). Prints numbers; goals: heap ≤ 150 MB, tree update latency p95 ≤ 1 s,
 * 0 requests at idle besides the open watches.
 *
 *   npm run bench:leases            (BENCH_NODES=5000 BENCH_PERIOD_S=10 BENCH_SECONDS=60 by default)
 *
 * 1. creates BENCH_NODES Ready Nodes with Leases (bench/leases-load.ts setup, its own process);
 * 2. this process watches nodes + node leases exactly as the Leases and Inventory views do (LiveCluster over the
 *    HTTPS transport of dist/kube.js) and, on every coalesced change (≤ 2/s), rebuilds the whole live model —
 *    what a view refresh does — recording for each lease update the delay from its renewTime (stamped by the load
 *    generator when it sent the PATCH) to the end of the model rebuild that includes it;
 * 3. the load generator renews every lease once per BENCH_PERIOD_S (5,000 / 10 s = 500 updates/s);
 * 4. heap (after GC), CPU of this process, bytes and requests per minute; then idle requests with the load stopped;
 * 5. the same state polled the way explorer extensions do: `kubectl get leases -o json` every 5 s.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadKubeAdapter } from '../src/adapters/kube/load';
import { parseTime, type Lease } from '../src/core/live/types';
import { findBinary, startTestCluster, waitFor } from '../test/integration/apiserver';

const N = Number(process.env.BENCH_NODES ?? 5000);
const PERIOD_S = Number(process.env.BENCH_PERIOD_S ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 30);
const gc = (globalThis as { gc?: () => void }).gc;

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

function runLoad(args: string[], onLine?: (l: string) => void): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'leases-load.ts'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      onLine?.(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
  return child;
}

async function main(): Promise<void> {
  const kubectl = findBinary('kubectl');
  console.log(`bench: ${N} nodes + leases, each renewed every ${PERIOD_S}s (${Math.round(N / PERIOD_S)}/s), ${SECONDS}s measured, ${IDLE_SECONDS}s idle`);
  // etcd's data on tmpfs: the bench measures the client, not the disk's fsync.
  const c = await startTestCluster({ tmpRoot: existsSync('/dev/shm') ? '/dev/shm' : undefined, extraApiserverArgs: ['--max-requests-inflight=800', '--max-mutating-requests-inflight=400'] });
  const load: ChildProcess[] = [];
  try {
    const t0 = Date.now();
    await new Promise<void>((resolve, reject) => runLoad(['setup', c.server, c.pki.dir, String(N)]).on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`setup exit ${code}`)))));
    console.log(`setup: ${N} nodes + ${N} leases in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const adapter = loadKubeAdapter();
    const conn = await adapter.connect({ kubeconfig: c.kubeconfig, live: { notifyIntervalMs: 500 } });
    const cluster = conn.cluster;
    const latencies: number[] = [];
    const builds: number[] = [];
    // commit → tree: per lease resourceVersion, when the API server acknowledged the write (from the generator)
    // and when the model that includes it was rebuilt; whichever is known second completes the sample.
    const acks = new Map<string, number>();
    const rebuilt = new Map<string, number>();
    const commitLatencies: number[] = [];
    const writeMs: number[] = [];
    const sample = (rv: string) => {
      const a = acks.get(rv);
      const d = rebuilt.get(rv);
      if (a === undefined || d === undefined) return;
      commitLatencies.push(Math.max(0, d - a));
      acks.delete(rv);
      rebuilt.delete(rv);
    };
    let measuring = false;
    let deliveries = 0;
    const seenRv = new Map<string, string>();
    cluster.onDidChange((keys) => {
      deliveries++;
      const b0 = performance.now();
      cluster.model(); // what a view refresh computes (controlPlane, leases, hosts)
      const done = Date.now();
      builds.push(performance.now() - b0);
      if (!measuring) return;
      for (const k of keys) {
        if (!k.startsWith('nodeLeases:')) continue;
        const lease = cluster.reflectors.nodeLeases.store.get(k.slice('nodeLeases:'.length)) as Lease | undefined;
        if (!lease) continue;
        const rv = lease.metadata.resourceVersion!;
        if (seenRv.get(k) === rv) continue;
        seenRv.set(k, rv);
        const renew = parseTime(lease.spec?.renewTime);
        if (renew !== undefined) latencies.push(done - renew);
        rebuilt.set(rv, done);
        sample(rv);
      }
    });
    gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const l0 = Date.now();
    const release = cluster.acquire(['nodes', 'nodeLeases']);
    await waitFor(() => cluster.synced(['nodes', 'nodeLeases']), 120_000, 'initial list');
    console.log(`initial list of ${cluster.reflectors.nodes.store.size} nodes + ${cluster.reflectors.nodeLeases.store.size} leases: ${Date.now() - l0} ms`);

    let lastLoad = '';
    load.push(
      runLoad(['renew', c.server, c.pki.dir, String(N), String(PERIOD_S)], (l) => {
        if (!l.startsWith('A ')) return void (lastLoad = l);
        if (!measuring) return;
        const [, , rv, ack, w] = l.split(' ');
        acks.set(rv!, Number(ack));
        writeMs.push(Number(w));
        sample(rv!);
      }),
    );
    await new Promise((r) => setTimeout(r, 5000)); // warm-up
    gc?.();
    const s = { ...conn.transport.stats };
    const cpu0 = process.cpuUsage();
    const w0 = performance.now();
    measuring = true;
    latencies.length = 0;
    builds.length = 0;
    commitLatencies.length = 0;
    writeMs.length = 0;
    deliveries = 0;
    let peakHeap = 0;
    const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 250);
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    measuring = false;
    clearInterval(sampler);
    const wall = performance.now() - w0;
    const cpu = process.cpuUsage(cpu0);
    const e = conn.transport.stats;
    gc?.();
    const heapAfterGc = process.memoryUsage().heapUsed;
    const loadStats = JSON.parse(lastLoad || '{}') as { rate?: number; dropped?: number };
    const perMin = (x: number) => Math.round((x * 60_000) / wall);
    console.log('\n--- watch-based model under load ---');
    console.log(`load achieved: ${loadStats.rate ?? '?'} lease updates/s (target ${Math.round(N / PERIOD_S)}; dropped by the generator when the API server lagged: ${loadStats.dropped ?? 0})`);
    console.log(`updates observed: ${latencies.length} in ${(wall / 1000).toFixed(0)} s; coalesced deliveries: ${deliveries} (${(deliveries / (wall / 1000)).toFixed(2)}/s)`);
    console.log(`tree update latency, write committed (API answer) → model rebuilt: p50 ${pct(commitLatencies, 50).toFixed(0)} ms, p95 ${pct(commitLatencies, 95).toFixed(0)} ms, p99 ${pct(commitLatencies, 99).toFixed(0)} ms (${commitLatencies.length} samples; goal p95 ≤ 1000 ms)`);
    console.log(`  including the API server's write time (renewTime stamped at send → model rebuilt): p50 ${pct(latencies, 50).toFixed(0)} ms, p95 ${pct(latencies, 95).toFixed(0)} ms; PATCH round trip p50 ${pct(writeMs, 50).toFixed(0)} ms, p95 ${pct(writeMs, 95).toFixed(0)} ms`);
    console.log(`model rebuild (${N} nodes + leases): p50 ${pct(builds, 50).toFixed(1)} ms, p95 ${pct(builds, 95).toFixed(1)} ms`);
    console.log(`heap: ${mb(heapAfterGc)} after GC, peak ${mb(peakHeap)} (goal ≤ 150 MB); of which the watched state and models ${mb(heapAfterGc - heapBefore)} (before the first list: ${mb(heapBefore)}); rss ${mb(process.memoryUsage().rss)}`);
    console.log(`CPU of this process: ${(((cpu.user + cpu.system) / 1000 / wall) * 100).toFixed(1)}% of one core (user ${(cpu.user / 1e6).toFixed(1)} s, system ${(cpu.system / 1e6).toFixed(1)} s)`);
    console.log(`network: ${perMin(e.requests - s.requests)} requests/min, ${mb((perMin(e.bytesIn - s.bytesIn)))}/min received (watch stream, uncompressed JSON)`);

    for (const p of load) p.kill();
    load.length = 0;
    await new Promise((r) => setTimeout(r, 2000));
    const i0 = { ...conn.transport.stats };
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const i1 = conn.transport.stats;
    const idleRequests = i1.requests - i0.requests;
    const idleBytes = i1.bytesIn - i0.bytesIn;
    console.log('\n--- idle (load stopped) ---');
    console.log(`requests in ${IDLE_SECONDS} s: ${i1.requests - i0.requests} (watches stay open; restarts only at the server timeout, 5–10 min); bytes ${i1.bytesIn - i0.bytesIn}; reflector states: ${Object.values(cluster.reflectors).filter((r) => r.running).map((r) => `${r.spec.key}=${r.state} (watches ${r.stats.watches}, bookmarks ${r.stats.bookmarks}, stall restarts ${r.stats.stallRestarts}, re-lists ${r.stats.relistsAfterGone})`).join(', ')}`);
    release();
    conn.dispose();

    console.log('\n--- polling like explorer extensions: kubectl get leases -n kube-node-lease -o json every 5 s ---');
    let bytes = 0;
    let runs = 0;
    let cpuMs = 0;
    const p0 = Date.now();
    while (Date.now() - p0 < 30_000) {
      const r0 = Date.now();
      const r = spawnSync(kubectl, ['--kubeconfig', c.kubeconfig, 'get', 'leases', '-n', 'kube-node-lease', '-o', 'json'], { maxBuffer: 1 << 30 });
      cpuMs += Date.now() - r0;
      bytes += r.stdout.length;
      runs++;
      await new Promise((res) => setTimeout(res, Math.max(0, 5000 - (Date.now() - r0))));
    }
    const pollMin = (x: number) => Math.round((x * 60_000) / (Date.now() - p0));
    console.log(`kubectl: ${pollMin(runs)} processes/min (≥ ${pollMin(runs)} list requests/min plus discovery), ${mb(pollMin(bytes))}/min of JSON, ${(cpuMs / runs).toFixed(0)} ms per run; staleness up to 5 s + run time`);
    console.log(`watch: ${perMin(e.requests - s.requests)} requests/min under ${loadStats.rate ?? '?'} updates/s, ${idleRequests} in ${IDLE_SECONDS} s idle; ${mb(perMin(e.bytesIn - s.bytesIn))}/min under load (every renewal is delivered), ${idleBytes} bytes idle (bookmarks)`);
  } finally {
    for (const p of load) p.kill();
    await c.stop();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
