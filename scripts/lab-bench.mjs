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
const perNodeAny = (prefix) => Object.entries(b).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => `${k.slice(prefix.length)} ${s(v)}`).join(', ');
// The ratio compares uninterrupted runs: the palette bring-up (the engine inside VS Code) against the script.
lines.push(`  bring-up from bare nodes, uninterrupted (from VS Code's palette): engine ${s(b.uiBringUpSeconds)} vs reference script ${s(b.referenceClusterSeconds)} → ratio ${ratio(b.uiBringUpSeconds, b.referenceClusterSeconds)} (goal ≤ 0.9)`);
if (perNodeAny('uiBringUpPhaseSeconds@')) lines.push(`    its phases (spans from the ledger; phases side by side overlap): ${perNodeAny('uiBringUpPhaseSeconds@')}`);
if (b.engineUpFirstRunSeconds !== undefined) lines.push(`  bring-up killed in kubeadm init and, resumed, at m02's etcd join ${s(b.engineUpFirstRunSeconds)}, then resumed (cancelled at m03's, resumed to the end) ${s(b.engineUpResumeSeconds)}; init and both joins done twice, so no ratio`);
// Like for like only: the same Kubernetes version on both sides, else the time alone and why there is no ratio.
if (b.resumeRebuiltUpSeconds !== undefined) {
  const same = !b.resumeRebuiltUpVersion || b.resumeRebuiltUpVersion === b.referenceClusterVersion;
  lines.push(`  resumed up after \`lab reset\` (every host rebuilt, started over${b.resumeRebuiltUpVersion ? `, ${b.resumeRebuiltUpVersion}` : ''}): ${s(b.resumeRebuiltUpSeconds)}${same ? ` vs reference script ${s(b.referenceClusterSeconds)} → ratio ${ratio(b.resumeRebuiltUpSeconds, b.referenceClusterSeconds)}` : `; no ratio: the reference script built ${b.referenceClusterVersion ?? 'another version'} in this tier`}; lab reset ${s(b.labResetSeconds)}`);
}
lines.push(`  second up, everything already done: ${s(b.secondUpSeconds)}`);
lines.push(`  facts of ${b.factsHosts ?? 7} hosts in parallel: ${s(b.factsSeconds)}`);
lines.push(`  drain of a worker: ours ${s(b.drainOursSeconds)} vs kubectl drain ${s(b.drainKubectlSeconds)} → ratio ${ratio(b.drainOursSeconds, b.drainKubectlSeconds)}`);
if (b.joinSudoSeconds !== undefined) lines.push(`  join of a reset worker as a sudo user: ${s(b.joinSudoSeconds)}`);
const perNode = (prefix) => Object.entries(b).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => `${k.slice(prefix.length)} ${s(v)}`).join(', ') || 'not measured';
if (b.uiRenewSeconds !== undefined) lines.push(`  certificate renewal from the palette: ${s(b.uiRenewSeconds)}, per node ${perNode('uiRenewNodeSeconds@')}; API through the VIP ${b.uiRenewApiFailedPolls} failed of ${b.uiRenewApiPolls} polls (goal 0)`);
// Day-2 maintenance (test/lab/maintenance.test.ts): the rolling etcd defrag, the NOSPACE recovery, the reconfigure.
if (b.defragSeconds !== undefined) lines.push(`  etcd defrag, followers then the leader: ${s(b.defragSeconds)}, per member ${perNode('defragMemberSeconds@')}, given back ${Object.entries(b).filter(([k]) => k.startsWith('defragReclaimedBytes@')).map(([k, v]) => `${k.split('@')[1]} ${v} B`).join(', ')}; API through the VIP ${b.defragApiFailed} failed of ${b.defragApiPolls} polls (goal 0)`);
if (b.nospaceRecoverySeconds !== undefined || b.uiNospaceRecoverySeconds !== undefined) lines.push(`  etcd NOSPACE recovered after the alarm: CLI ${s(b.nospaceRecoverySeconds)}, palette ${s(b.uiNospaceRecoverySeconds)} (bound ${s(b.nospaceBoundSeconds)}: node-monitor-grace-period less a lease renewal)`);
if (b.kubeletConfFixSeconds !== undefined || b.uiKubeletConfFixSeconds !== undefined) lines.push(`  kubelet.conf fix of a worker (drain, point at the rotated file, kubelet restart, Ready, uncordon): CLI ${s(b.kubeletConfFixSeconds)}, palette ${s(b.uiKubeletConfFixSeconds)}`);
if (b.reconfigureSeconds !== undefined) lines.push(`  reconfigure of an API server flag: ${s(b.reconfigureSeconds)}, per node ${perNode('reconfigureNodeSeconds@')}; API through the VIP ${b.reconfigureApiFailed} failed of ${b.reconfigureApiPolls} polls (goal 0)`);
if (b.uiBackupSeconds !== undefined) lines.push(`  etcd backup from the palette: ${b.uiBackupBytes} bytes in ${s(b.uiBackupSeconds)} (palette to report ${s(b.uiBackupWallSeconds)})`);
if (b.uiEtcdAtRiskSeconds !== undefined || b.liveEtcdAtRiskSeconds !== undefined) lines.push(`  etcd "at risk" after a control-plane power-off: in the editor ${s(b.uiEtcdAtRiskSeconds)} after the power-off command returned (goal ≤ 5 s), in the live model ${s(b.liveEtcdAtRiskSeconds)} after the member's etcd port last answered (bound ${b.liveEtcdAtRiskBoundSeconds ?? '?'} s, from the live reader's settings); NotReady ${s(b.liveNodeNotReadySeconds)}; VIP on the BACKUP after HAProxy stopped ${s(b.liveVipMovedSeconds)}`);
// The kubectl run timeline's hops, cold image then warm, on the same node (test/lab/timeline.test.ts).
const hops = [...new Set(Object.keys(b).filter((k) => /^timeline(Cold|Warm)@/.test(k)).map((k) => k.split('@')[1]))];
if (hops.length) {
  lines.push(`  kubectl run timeline, same node, cold image then warm (CLI runs ${s(b.timelineColdSeconds)} and ${s(b.timelineWarmSeconds)}):`);
  const ms = (v) => (typeof v === 'number' ? `${v.toFixed(1)} ms` : '—');
  for (const h of hops) lines.push(`    ${h.padEnd(26)} cold ${ms(b[`timelineCold@${h}`]).padStart(10)}   warm ${ms(b[`timelineWarm@${h}`]).padStart(10)}`);
}
// The product's upgrade one minor up (test/lab/upgrade.test.ts: killed once in m02's kubeadm upgrade node and resumed)
// against the kubernetes.io steps by hand (test/lab/upgrade-reference.sh) — only when that reference ran in this tier,
// on this machine under the same load: a number from another day is no yardstick, so otherwise there is no ratio.
const upgradeVsReference = (seconds) => typeof b.upgradeReferenceSeconds === 'number'
  ? `vs reference script ${s(b.upgradeReferenceSeconds)} in this run → ratio ${ratio(seconds, b.upgradeReferenceSeconds)} (goal ≤ 1.2)`
  : 'no ratio: the reference upgrade (test/lab/upgrade-reference.sh, about ten minutes) did not run in this tier';
if (b.upgradeSeconds !== undefined) {
  lines.push(`  upgrade ${b.upgradeFrom ?? ''} → ${b.upgradeTo ?? ''} (CLI, killed in m02's upgrade node and resumed): ${s(b.upgradeSeconds)} (first run ${s(b.upgradeFirstRunSeconds)}, killed ${s(b.upgradeKillPointSeconds)} into m02's upgrade node; resumed ${s(b.upgradeResumeSeconds)}) ${upgradeVsReference(b.upgradeSeconds)}`);
  lines.push(`    per node: ${perNode('upgradeNodeSeconds@')}; reference per node: ${perNode('upgradeReferenceNodeSeconds@')}`);
  lines.push(`    API through the VIP: ${b.upgradeApiFailed} failed of ${b.upgradeApiPolls} requests (goal 0); Service (NodePort on every node): ${b.upgradeServiceFailed} failed of ${b.upgradeServicePolls}`);
  lines.push(`    refusals: two minors ahead ${s(b.upgradeRefusedSkipSeconds)}, image missing from the registry ${s(b.upgradeRefusedImageSeconds)}; --plan ${s(b.upgradePlanSeconds)}; engine's up at the old minor ${s(b.upgradeBringUpSeconds)}`);
} else if (b.upgradeReferenceSeconds !== undefined) lines.push(`  upgrade by the reference script: ${s(b.upgradeReferenceSeconds)}, per node ${perNode('upgradeReferenceNodeSeconds@')}`);
if (b.uiUpgradeSeconds !== undefined) {
  lines.push(`  upgrade from the palette (Upgrade Cluster…): ${s(b.uiUpgradeSeconds)} (preflight ${s(b.uiUpgradePreflightSeconds)}, run ${s(b.uiUpgradeRunSeconds)}) ${upgradeVsReference(b.uiUpgradeSeconds)}; API through the VIP: ${b.uiUpgradeApiFailed} failed of ${b.uiUpgradeApiPolls} (goal 0)`);
}
if (b.drillTcpCheckFailedDuringRecovery !== undefined) {
  lines.push(`  HAProxy's check while a stopped control plane comes back (same fault, m03): TCP check ${b.drillTcpCheckFailedDuringRecovery} failed of ${b.drillTcpCheckRequests} requests through the VIP, /readyz check ${b.drillReadyzCheckFailedDuringRecovery} of ${b.drillReadyzCheckRequests} (goal 0)`);
}
// The health-check comparison has its line above; the other drill numbers one each.
for (const [k, v] of Object.entries(b)) if (k.startsWith('drill') && !/^drill(Tcp|Readyz)Check/.test(k)) lines.push(`  ${k}: ${typeof v === 'number' ? v.toFixed(1) : v}`);
console.log(lines.join('\n'));
