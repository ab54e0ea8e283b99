/**
 * Benchmark (printed numbers, not a timed test): full lint and incremental re-lint of a 2,000-line
 * multi-document kubeadm file. Incremental = one document edited; only that document is reparsed and
 * re-walked (parse and structural results are memoised per document text).
 * Run: npm run bench:kubeadm   (goal here: ≤ 50 ms full, ≤ 10 ms incremental)
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseInventory } from '../src/core/inventory/parse';
import { lintKubeadm } from '../src/core/kubeadm/lint';
import { clearParseCache } from '../src/core/kubeadm/parse';
import { clearStructureCache } from '../src/core/kubeadm/structure';

const root = join(__dirname, '..');
const inventory = parseInventory(readFileSync(join(root, 'examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;
const example = readFileSync(join(root, 'examples/labs-k8s/kubeadm-config.yaml'), 'utf8');

// A realistic big file: the example, then many KubeletConfiguration/KubeProxyConfiguration-sized documents.
const kubelet = (i: number) => `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: systemd
maxPods: ${100 + i}
evictionHard:
  memory.available: 100Mi
  nodefs.available: 10%
systemReserved:
  cpu: 100m
  memory: 256Mi
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
featureGates:
  SomeGate: true
`;
const parts = [example.trimEnd()];
let lines = example.split('\n').length;
for (let i = 0; lines < 2000; i++) {
  parts.push(kubelet(i).trimEnd());
  lines += kubelet(i).split('\n').length;
}
const text = parts.join('\n---\n') + '\n';
const file = { path: 'kubeadm-config.yaml', text };

/** Wall-clock mean, median and minimum, and CPU time (user+system, includes GC threads) per run; on a shared, loaded machine the minimum and CPU time are the stable numbers. */
function measure(name: string, runs: number, fn: (i: number) => void): { median: number; cpu: number } {
  for (let i = 0; i < 3; i++) fn(-1 - i);
  const times: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn(i);
    times.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000 / runs;
  const mean = times.reduce((a, b) => a + b, 0) / runs;
  times.sort((a, b) => a - b);
  const median = times[runs >> 1]!;
  console.log(`${name.padEnd(44)} mean ${mean.toFixed(2).padStart(7)}  median ${median.toFixed(2).padStart(7)}  min ${times[0]!.toFixed(2).padStart(7)}  cpu ${cpuMs.toFixed(2).padStart(7)} ms/run  (${runs} runs)`);
  return { median, cpu: cpuMs };
}

console.log(`kubeadm file: ${text.split('\n').length} lines, ${parts.length} documents, ${text.length} bytes`);
const findings = lintKubeadm(file, { inventory });
console.log(`findings: ${findings.length} (${[...new Set(findings.map((f) => f.rule))].join(', ') || 'none'})`);
const full = measure('full lint (cold caches)', 30, () => {
  clearParseCache();
  clearStructureCache();
  lintKubeadm(file, { inventory });
});
const docs = text.split('\n---\n');
const incremental = measure('incremental re-lint (one document edited)', 200, (i) => {
  const k = 1 + (Math.abs(i) % (docs.length - 1));
  const edited = docs.map((d, j) => (j === k ? d.replace(/maxPods: \d+/, `maxPods: ${1000 + i}`) : d)).join('\n---\n');
  lintKubeadm({ path: file.path, text: edited }, { inventory });
});
const unchanged = measure('re-lint, nothing changed', 200, () => lintKubeadm(file, { inventory }));
const load = loadavg()[0]!.toFixed(1);
const verdict = (r: { median: number; cpu: number }, goal: number) => `median ${r.median <= goal ? 'met' : 'NOT met'}, cpu ${r.cpu <= goal ? 'met' : 'NOT met'}`;
console.log(`goal: full ≤ 50 ms (${verdict(full, 50)}), incremental ≤ 10 ms (${verdict(incremental, 10)}); unchanged ${unchanged.median.toFixed(2)} ms; load average ${load} on ${cpus().length} CPUs`);
