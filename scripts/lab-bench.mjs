#!/usr/bin/env node
// Prints the lab tier's benchmarks (recorded by test/lab/*.test.ts in test-results/lab/bench.json) with ratios
// against their peers: the engine's bring-up against the lab's reference script, our drain against kubectl drain.
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-results', 'lab', 'bench.json');
let b;
try {
  b = JSON.parse(readFileSync(file, 'utf8'));
} catch {
  console.log('lab benchmarks: none recorded');
  process.exit(0);
}
const s = (v) => (typeof v === 'number' ? `${v.toFixed(1)} s` : 'not measured');
const ratio = (a, p) => (typeof a === 'number' && typeof p === 'number' && p > 0 ? (a / p).toFixed(2) : 'n/a');
const lines = ['lab benchmarks (this machine, this run):'];
// The ratio compares uninterrupted runs: the palette bring-up (the engine inside VS Code) against the script.
lines.push(`  bring-up from bare nodes, uninterrupted (from VS Code's palette): engine ${s(b.uiBringUpSeconds)} vs reference script ${s(b.referenceClusterSeconds)} → ratio ${ratio(b.uiBringUpSeconds, b.referenceClusterSeconds)} (goal ≤ 1.0)`);
if (b.engineUpFirstRunSeconds !== undefined) lines.push(`  bring-up killed in kubeadm init and, resumed, at m02's etcd join ${s(b.engineUpFirstRunSeconds)}, then resumed (cancelled at m03's, resumed to the end) ${s(b.engineUpResumeSeconds)}; init and both joins done twice, so no ratio`);
if (b.resumeRebuiltUpSeconds !== undefined) lines.push(`  resumed up after \`lab reset\` (every host rebuilt, started over): ${s(b.resumeRebuiltUpSeconds)} vs reference script ${s(b.referenceClusterSeconds)} → ratio ${ratio(b.resumeRebuiltUpSeconds, b.referenceClusterSeconds)}; lab reset ${s(b.labResetSeconds)}`);
lines.push(`  second up, everything already done: ${s(b.secondUpSeconds)}`);
lines.push(`  facts of ${b.factsHosts ?? 7} hosts in parallel: ${s(b.factsSeconds)}`);
lines.push(`  drain of a worker: ours ${s(b.drainOursSeconds)} vs kubectl drain ${s(b.drainKubectlSeconds)} → ratio ${ratio(b.drainOursSeconds, b.drainKubectlSeconds)}`);
if (b.joinSudoSeconds !== undefined) lines.push(`  join of a reset worker as a sudo user: ${s(b.joinSudoSeconds)}`);
const perNode = (prefix) => Object.entries(b).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => `${k.slice(prefix.length)} ${s(v)}`).join(', ') || 'not measured';
if (b.uiRenewSeconds !== undefined) lines.push(`  certificate renewal from the palette: ${s(b.uiRenewSeconds)}, per node ${perNode('uiRenewNodeSeconds@')}; API through the VIP ${b.uiRenewApiFailedPolls} failed of ${b.uiRenewApiPolls} polls (goal 0)`);
if (b.uiBackupSeconds !== undefined) lines.push(`  etcd backup from the palette: ${b.uiBackupBytes} bytes in ${s(b.uiBackupSeconds)} (palette to report ${s(b.uiBackupWallSeconds)})`);
if (b.uiEtcdAtRiskSeconds !== undefined || b.liveEtcdAtRiskSeconds !== undefined) lines.push(`  etcd "at risk" after a control-plane power-off: in the editor ${s(b.uiEtcdAtRiskSeconds)}, in the live model ${s(b.liveEtcdAtRiskSeconds)} (goal ≤ 5 s); NotReady ${s(b.liveNodeNotReadySeconds)}; VIP on the BACKUP after HAProxy stopped ${s(b.liveVipMovedSeconds)}`);
// The kubectl run timeline's hops, cold image then warm, on the same node (test/lab/timeline.test.ts).
const hops = [...new Set(Object.keys(b).filter((k) => /^timeline(Cold|Warm)@/.test(k)).map((k) => k.split('@')[1]))];
if (hops.length) {
  lines.push(`  kubectl run timeline, same node, cold image then warm (CLI runs ${s(b.timelineColdSeconds)} and ${s(b.timelineWarmSeconds)}):`);
  const ms = (v) => (typeof v === 'number' ? `${v.toFixed(1)} ms` : '—');
  for (const h of hops) lines.push(`    ${h.padEnd(26)} cold ${ms(b[`timelineCold@${h}`]).padStart(10)}   warm ${ms(b[`timelineWarm@${h}`]).padStart(10)}`);
}
for (const [k, v] of Object.entries(b)) if (k.startsWith('drill')) lines.push(`  ${k}: ${typeof v === 'number' ? v.toFixed(1) : v}`);
console.log(lines.join('\n'));
