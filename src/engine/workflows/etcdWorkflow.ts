/**
 * etcd maintenance as the user meets it, written once for the editor (the etcd Members view's title bar and the
 * palette) and the CLI (`etcd defrag`, `etcd alarms --disarm`): the members read (narrated), a refusal in one message
 * before anything changes, the plan (what it expects to give back), the run through the plan-run workflow (resumable,
 * cancellable), and per member how long its defragmentation took and what it gave back.
 */
import { t } from '../../core/l10n';
import { leaderTransferee } from '../../core/etcd/defragPlan';
import { formatBytes } from '../../core/live/format';
import { describeError } from '../../core/live/errors';
import { renderPlan } from '../../core/plan/types';
import { hostsWith } from '../../core/inventory/types';
import { sudoUnlessRoot } from '../become';
import { prepareDefrag, prepareNospaceRecovery, type EtcdDeps, type GuardVerdict, type MaintenancePreparation } from '../etcdMaintenance';
import { planRunWorkflow, type PlanRunInput, type PlanRunOutcome } from './planRunWorkflow';
import { preflightStep } from './preflightStep';
import type { Ui } from './ui';

export interface EtcdWorkflowInput {
  deps: Omit<EtcdDeps, 'become' | 'say' | 'stateDir'>;
  loginUser: (host: string) => string;
  /** Show the plan and stop (CLI --plan). */
  planOnly?: boolean;
  run: Omit<PlanRunInput, 'inventory' | 'plan' | 'command' | 'title' | 'planDocument' | 'password' | 'onEvent' | 'onNarration'>;
}

/** One member as the run met it, in the order its defragmentation ran. */
export interface MemberReport {
  host: string;
  name: string;
  /** The member led when the run was prepared. */
  leader: boolean;
  /** `etcdctl defrag` itself, seconds (undefined: skipped or not reached). */
  defragSeconds?: number;
  skipped: boolean;
  dbSizeBefore?: number;
  dbSizeAfter?: number;
  reclaimedBytes?: number;
  /** Epoch ms when its `etcdctl defrag` step started and ended: one member at a time, the next after the last ended. */
  defragStartedAt?: number;
  defragEndedAt?: number;
  /** The quorum guard's reading that let this member go (undefined: the guard did not run in this process). */
  guard?: GuardVerdict;
  /** The leader only: the member its leadership was handed to before its defragmentation (in this process). */
  leadershipTo?: string;
}

export type EtcdOutcome =
  | { kind: 'failed-to-read' | 'refused'; message: string }
  | { kind: 'planned' | 'nothing' }
  | (PlanRunOutcome & { members: MemberReport[]; seconds: number });

type Kind = 'defrag' | 'nospace';

const WORDS: Record<Kind, { title: (c: string) => string; command: string; reading: (c: string) => string }> = {
  defrag: { title: (c) => t('etcd defragmentation of {0}', c), command: 'etcd-defrag', reading: (c) => t('Reading the etcd members of {0}…', c) },
  nospace: { title: (c) => t('etcd NOSPACE recovery of {0}', c), command: 'etcd-nospace', reading: (c) => t('Reading the etcd members and alarms of {0}…', c) },
};

export function etcdDefragWorkflow(ui: Ui, input: EtcdWorkflowInput): Promise<EtcdOutcome> {
  return maintenanceWorkflow(ui, input, 'defrag');
}

export function etcdNospaceWorkflow(ui: Ui, input: EtcdWorkflowInput): Promise<EtcdOutcome> {
  return maintenanceWorkflow(ui, input, 'nospace');
}

async function maintenanceWorkflow(ui: Ui, input: EtcdWorkflowInput, kind: Kind): Promise<EtcdOutcome> {
  const inv = input.deps.inventory;
  const words = WORDS[kind];
  const title = words.title(inv.cluster.name);
  // The reads use sudo -n until the run has asked the password, then it (the guards run inside the plan).
  let password: string | undefined;
  const become = (h: string) => sudoUnlessRoot(input.loginUser, password)(h);
  let prep: MaintenancePreparation;
  let say: (line: string) => void = () => undefined;
  // The shared preflight before the first read: every member, and the balancers a defragmentation takes its API servers out of.
  const pre = await preflightStep(ui, { ssh: input.run.ssh, inventory: inv, operation: title, hosts: kind === 'defrag' ? hostsWith(inv, 'control-plane', 'loadbalancer') : hostsWith(inv, 'control-plane'), sudoPasswordAsked: true });
  if (!pre.ok) return { kind: 'refused', message: pre.message };
  try {
    prep = await ui.progress({ title: words.reading(inv.cluster.name), narrate: true }, async (progress) => {
      const deps = { ...input.deps, become, stateDir: input.run.stateDir, say: (line: string) => say(line) };
      const p = kind === 'defrag' ? await prepareDefrag(deps) : await prepareNospaceRecovery(deps);
      progress(`   etcd: ${p.before.quorumLine}`);
      return p;
    });
  } catch (e) {
    const message = t('{0}: cannot read etcd: {1}', title, describeError(e));
    await ui.message('error', message);
    return { kind: 'failed-to-read', message };
  }
  if (kind === 'nospace' && !prep.before.members.some((m) => m.alarms.includes('NOSPACE')) && !prep.refusals.length) {
    await ui.message('info', t('{0}: no NOSPACE alarm is on; nothing to recover (a defragmentation alone is "Defragment etcd…", `etcd defrag`).', inv.cluster.name));
    return { kind: 'nothing' };
  }
  if (prep.refusals.length) {
    const message = t('{0} refused; nothing was done: {1}', title, prep.refusals.join(' '));
    await ui.message('error', message, { modal: true });
    return { kind: 'refused', message };
  }
  if (input.planOnly) {
    await ui.show(`${words.command}-plan.txt`, renderPlan(prep.plan));
    return { kind: 'planned' };
  }
  const leader = new Set(prep.order.filter((m) => m.isLeader).map((m) => m.host!));
  const ran: MemberReport[] = [];
  const handedTo = new Map<string, string>();
  let started = 0;
  const outcome = await planRunWorkflow(ui, {
    ...input.run,
    inventory: inv, plan: prep.plan, command: words.command, title, planDocument: `${words.command}-plan.txt`,
    password: (p) => (password = p),
    onEvent: (e) => {
      if (e.type === 'step-start' && !started) started = Date.now();
      if (e.type === 'output' || e.type === 'phase') return;
      if (e.type === 'step-end' && e.step.id.endsWith('/move-leader') && e.state === 'done') {
        const to = leaderTransferee(prep.order, prep.order.findIndex((x) => x.host === e.step.host));
        if (to) handedTo.set(e.step.host, to.name);
      }
      if (e.type === 'step-end' && e.step.id.endsWith('/defrag')) {
        const m = prep.order.find((x) => x.host === e.step.host);
        const ended = Date.now();
        const to = handedTo.get(e.step.host);
        ran.push({ host: e.step.host, name: m?.name ?? e.step.host, leader: leader.has(e.step.host), skipped: e.state === 'skipped', ...(e.state === 'done' ? { defragSeconds: e.ms / 1000, defragStartedAt: ended - e.ms, defragEndedAt: ended } : {}), ...(to ? { leadershipTo: to } : {}) });
      }
    },
    onDone: (took) => t('{0} done (took {1}): {2}', title, took, summary(prep, ran)),
    onNarration: (narrate) => (say = (line) => narrate(line)),
  });
  say = () => undefined;
  for (const r of ran) {
    const measured = prep.results.get(r.host);
    if (measured?.before.dbSize !== undefined) r.dbSizeBefore = measured.before.dbSize;
    if (measured?.after?.dbSize !== undefined) r.dbSizeAfter = measured.after.dbSize;
    if (r.dbSizeBefore !== undefined && r.dbSizeAfter !== undefined) r.reclaimedBytes = r.dbSizeBefore - r.dbSizeAfter;
    if (measured?.guard) r.guard = measured.guard;
  }
  return { ...outcome, members: ran, seconds: started ? (Date.now() - started) / 1000 : 0 };
}

function summary(prep: MaintenancePreparation, ran: readonly MemberReport[]): string {
  const parts = ran.map((r) => {
    const m = prep.results.get(r.host);
    if (r.skipped) return t('{0} skipped (under 1 MiB free)', r.name);
    const back = m?.after?.dbSize !== undefined && m.before.dbSize !== undefined ? ` ${formatBytes(m.before.dbSize)} → ${formatBytes(m.after.dbSize)}` : '';
    return `${t('{0}{1} in {2} s', r.name, back, r.defragSeconds?.toFixed(1) ?? '?')}${r.leadershipTo ? t(' (its leadership handed to {0} first)', r.leadershipTo) : ''}`;
  });
  return parts.join('; ');
}
