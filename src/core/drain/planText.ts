/**
 * A drain plan as the person about to run it reads it (drainNode.ts builds the plan): every step, what happens to
 * each pod and why, the control-plane guard's verdict and the leases the node holds, in the catalogue's language.
 * kubectl's own refusal texts stay in the classification (the drain's output is compared with kubectl's line by
 * line); here they are worded by their kind.
 */
import type { DrainClassification, DrainPod, RefusalKind } from './classify';
import type { DrainPlan } from './drainNode';
import { EVICTION_RETRY_MS } from './evict';
import { t } from '../l10n';

const key = (p: DrainPod): string => `${p.namespace}/${p.name}`;

export function formatSeconds(s: number): string {
  return Number.isFinite(s) && s > 0 ? `${s}s` : t('none (waits forever)');
}

/**
 * Whether the plan can run to the end: no refused pod and (control-plane node) the guard agrees. kubectl's refusals
 * (`cannot delete …: ns/a, ns/b`) in the catalogue's language; `classification.errors` keeps kubectl's English.
 */
export function planBlockers(plan: DrainPlan): string[] {
  return [...(plan.guard && !plan.guard.ok ? plan.guard.reasons : []), ...refusalLines(plan.classification)];
}

/** The plan as text: every step, what happens to each pod, the guard's verdict and the leases the node holds. */
export function renderDrainPlan(plan: DrainPlan): string {
  const { node, classification: c, options: o } = plan;
  const role = node.controlPlane ? t('control-plane') : t('worker');
  const lines: string[] = [];
  const state = [role, node.ready ? 'Ready' : 'NotReady', node.unschedulable ? t('already cordoned') : t('schedulable')].join(', ');
  lines.push(o.dryRun !== 'none' ? t('Drain plan for node {0} ({1}) — dry run ({2})', node.name, state, o.dryRun) : t('Drain plan for node {0} ({1})', node.name, state));
  const flags = [o.ignoreDaemonSets && '--ignore-daemonsets', o.deleteEmptyDirData && '--delete-emptydir-data', o.force && '--force'].filter(Boolean).join(' ') || t('(none)');
  lines.push(t('options: {0}; eviction timeout {1}; grace period {2}', flags, formatSeconds(o.timeoutSeconds), o.gracePeriodSeconds < 0 ? t("each pod's own") : `${o.gracePeriodSeconds}s`));
  lines.push('');
  if (plan.guard) {
    if (plan.guard.ok) lines.push(plan.guard.warnings.length ? t('Control-plane guard: OK — {0}', plan.guard.warnings.join(' ')) : t('Control-plane guard: OK — etcd keeps its quorum and the other control-plane nodes are healthy.'));
    else lines.push(t('Control-plane guard: REFUSED — nothing will be done:'), ...plan.guard.reasons.map((r) => `  - ${r}`));
    lines.push(
      plan.guard.heldLeases.length
        ? t('Leader leases held by {0} (they move to another node when it goes down): {1}', node.name, plan.guard.heldLeases.map((l) => `${l.namespace}/${l.name}`).join(', '))
        : t('Leader leases held by {0}: none', node.name),
    );
    lines.push('');
  }
  let step = 1;
  lines.push(node.unschedulable ? t('{0}. cordon node/{1} (spec.unschedulable = true) — already cordoned', step++, node.name) : t('{0}. cordon node/{1} (spec.unschedulable = true)', step++, node.name));
  const width = Math.max(10, ...c.pods.map((p) => key(p.pod).length));
  const label = { evict: t('evict'), keep: t('keep'), refuse: t('refuse') };
  const labelWidth = Math.max(7, ...Object.values(label).map((l) => l.length + 1));
  const row = (what: keyof typeof label, p: DrainPod, why: string) => `     ${label[what].padEnd(labelWidth)} ${key(p).padEnd(width)}  ${why}`;
  const evict = c.pods.filter((p) => p.verdict.action === 'evict');
  const kept = c.pods.filter((p) => p.verdict.action === 'keep');
  const refused = c.pods.filter((p) => p.verdict.action === 'refuse');
  lines.push(t('{0}. evict {1} pod(s) through the Eviction API (PodDisruptionBudgets respected: 429 is retried every {2}s), waiting for each to be gone by UID:', step++, evict.length, EVICTION_RETRY_MS / 1000));
  for (const { pod, verdict } of evict) lines.push(row('evict', pod, [ownerText(pod), pod.hasEmptyDir ? t('its emptyDir data is deleted') : '', verdict.action === 'evict' && verdict.warning ? unmanagedWarning() : ''].filter(Boolean).join('; ')));
  if (!evict.length) lines.push(`     ${t('(nothing to evict)')}`);
  if (kept.length) {
    lines.push(`   ${t('kept on the node:')}`);
    for (const { pod, verdict } of kept) lines.push(row('keep', pod, verdict.action === 'keep' ? keepText(verdict.reason) : ''));
  }
  if (refused.length) {
    lines.push(`   ${t('REFUSED — the drain stops after cordoning, before evicting anything (as kubectl drain does):')}`);
    for (const { pod, verdict } of refused) lines.push(row('refuse', pod, verdict.action === 'refuse' ? refusalText(verdict.kind, verdict.reason) : ''));
  }
  if (plan.maintenance) {
    lines.push(t('{0}. run on host {1} over SSH: {2}', step++, plan.maintenance.host, plan.maintenance.display));
    lines.push(
      plan.maintenance.expectReboot
        ? t('{0}. wait until node/{1} is Ready again with a new boot ID and its kubelet heartbeats (timeout {2})', step++, node.name, formatSeconds(o.readyTimeoutSeconds))
        : t('{0}. wait until node/{1} is Ready again and its kubelet heartbeats (timeout {2})', step++, node.name, formatSeconds(o.readyTimeoutSeconds)),
    );
  }
  if (o.uncordonAfter) lines.push(t('{0}. uncordon node/{1}', step++, node.name));
  else lines.push(`   ${t('node/{0} stays cordoned afterwards (uncordon it with `uncordon {0}`).', node.name)}`);
  const blockers = planBlockers(plan);
  if (blockers.length) lines.push('', t('This drain cannot complete as planned:'), ...blockers.map((b) => `  - ${b}`));
  return lines.join('\n') + '\n';
}

/** An evicted pod's one warning (classify.ts): it has no controller, and --force deletes it. */
function unmanagedWarning(): string {
  return t('deleting Pods that declare no controller');
}

function keepText(reason: 'mirror' | 'daemonset' | 'deleting'): string {
  if (reason === 'mirror') return t('mirror pod of a static pod (the kubelet owns it)');
  if (reason === 'daemonset') return t('DaemonSet-managed (--ignore-daemonsets)');
  return t('already deleting longer than --skip-wait-for-delete-timeout');
}

/**
 * kubectl's refusal in the active language, by its kind (the classification keeps kubectl's English, which the
 * drain's output and `--json` carry); a failed DaemonSet lookup is the API's own message.
 */
function refusalText(kind: RefusalKind, reason: string): string {
  if (kind === 'daemonset') return t('DaemonSet-managed Pods (use --ignore-daemonsets to ignore)');
  if (kind === 'local-storage') return t('Pods with local storage (use --delete-emptydir-data to override)');
  if (kind === 'unmanaged') return t('Pods that declare no controller (use --force to override)');
  return reason;
}

/** The classification's errors as the plan words them: `cannot delete <refusal>: ns/a, ns/b`, in kubectl's order. */
function refusalLines(c: DrainClassification): string[] {
  const byText = new Map<string, string[]>();
  for (const { pod, verdict } of c.pods) {
    if (verdict.action !== 'refuse') continue;
    const text = t('cannot delete {0}', refusalText(verdict.kind, verdict.reason));
    byText.set(text, [...(byText.get(text) ?? []), key(pod)]);
  }
  return [...byText].map(([text, pods]) => `${text}: ${pods.join(', ')}`);
}

function ownerText(p: DrainPod): string {
  return p.controller ? `${p.controller.kind} ${p.controller.name}` : t('no controller');
}
