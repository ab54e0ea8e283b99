/**
 * Certificate renewal, written once for the editor's "Renew Certificates…" and the CLI's `certs renew`: the
 * certificates read (their state before, narrated), a renewal refused in one message, the plan (one control-plane
 * node at a time, quorum guard and health gates) run through the plan-run workflow — whose sudo password the
 * gates' own reads use too — and how long each node took from its guard to its controllers back.
 */
import { HAPROXY_BACKEND, haproxyServerNames } from '../../core/generate/haproxy';
import { t } from '../../core/l10n';
import { HAPROXY_SOCKET } from '../../core/nodes/commands';
import { summarize } from '../../core/certs/report';
import { describeError } from '../../core/live/errors';
import { renderPlan } from '../../core/plan/types';
import { sudoUnlessRoot } from '../become';
import { prepareRenew, type RenewDeps } from '../renew';
import { planRunWorkflow, type PlanRunInput, type PlanRunOutcome } from './planRunWorkflow';
import type { Ui } from './ui';

export interface RenewWorkflowInput {
  deps: Omit<RenewDeps, 'become' | 'say'>;
  loginUser: (host: string) => string;
  /** Only these control-plane hosts (none: all). */
  hosts: readonly string[];
  /** Show the plan and stop (CLI --plan). */
  planOnly?: boolean;
  /** How this front-end runs a plan: its state folder, parallelism, --fresh, the words for resuming. */
  run: Omit<PlanRunInput, 'inventory' | 'plan' | 'command' | 'title' | 'planDocument' | 'password' | 'onEvent'>;
}

export type RenewOutcome =
  | { kind: 'failed-to-read' | 'refused'; message: string }
  | { kind: 'planned' }
  | (PlanRunOutcome & { perNode: { host: string; seconds?: number }[] });

export async function renewWorkflow(ui: Ui, input: RenewWorkflowInput): Promise<RenewOutcome> {
  const inv = input.deps.inventory;
  // The reads use sudo -n until the run has asked the password, then it (the gates run inside the plan).
  let password: string | undefined;
  const become = (h: string) => sudoUnlessRoot(input.loginUser, password)(h);
  let prep;
  try {
    prep = await ui.progress({ title: t('Reading the certificates of {0}…', inv.cluster.name), narrate: true }, async (progress) => {
      const p = await prepareRenew({ ...input.deps, become, say: (line) => progress(`   ${line}`) }, input.hosts);
      const s = summarize(p.before);
      progress(t('before: {0} certificate(s) on {1}; the soonest expires in {2} day(s)', s.certificates, p.hosts.join(', '), s.minDaysLeft ?? '—'));
      return p;
    });
  } catch (e) {
    const message = t('Certificate renewal: cannot read the certificates: {0}', describeError(e));
    await ui.message('error', message);
    return { kind: 'failed-to-read', message };
  }
  if (prep.refusals.length) {
    const message = t('Certificate renewal refused; nothing was done: {0}', prep.refusals.join(' '));
    await ui.message('error', message);
    return { kind: 'refused', message };
  }
  if (input.planOnly) {
    await ui.show('certs-renew-plan.txt', renderPlan(prep.plan));
    return { kind: 'planned' };
  }
  // Per node: from its guard to its controllers back (what `renew per node` measures).
  const perNode: Record<string, { startedAt: number; seconds?: number }> = {};
  // Servers put in HAProxy maintenance and not made ready again: what a failed or cancelled run leaves out of the VIP.
  const inMaint = new Map<string, { balancer: string; server: string }>();
  // The server by the node its step is about (the step's id names it; its title is in the user's language).
  const servers = new Map(haproxyServerNames(inv).map((s) => [s.host, s.server]));
  const outcome = await planRunWorkflow(ui, {
    ...input.run,
    inventory: inv, plan: prep.plan, command: 'certs-renew', title: t('Certificate renewal of {0}', inv.cluster.name), planDocument: 'certs-renew-plan.txt',
    password: (p) => (password = p),
    onEvent: (e) => {
      if (e.type === 'step-start' && e.step.id.endsWith('/guard')) perNode[e.step.host] = { startedAt: Date.now() };
      if (e.type === 'step-end' && e.step.id.endsWith('/controllers') && e.state === 'done' && perNode[e.step.host]) perNode[e.step.host]!.seconds = (Date.now() - perNode[e.step.host]!.startedAt) / 1000;
      // A maint step done now or in the run this one resumes (skipped); its ready step done or found UP (skipped).
      const lb = e.type === 'step-end' && (e.state === 'done' || e.state === 'skipped') ? /\/haproxy-(maint|ready)@(.+)$/.exec(e.step.id) : null;
      if (lb && e.type === 'step-end') {
        const key = e.step.id.replace(/haproxy-(maint|ready)@/, '');
        const node = /^renew-certs\/([^/]+)\//.exec(e.step.id)?.[1] ?? e.step.about ?? e.step.host;
        if (lb[1] === 'maint') inMaint.set(key, { balancer: lb[2]!, server: servers.get(node) ?? node });
        else inMaint.delete(key);
      }
    },
  });
  if (outcome.kind === 'ran' && !outcome.result.ok && inMaint.size) {
    await ui.message('warning', [
      t('Still in HAProxy maintenance, out of the VIP: {0}.', [...inMaint.values()].map((m) => `${m.balancer}: ${m.server}`).join('; ')),
      t('Run the renewal again to resume (its next steps put them back), or on each balancer:'),
      `echo 'set server ${HAPROXY_BACKEND}/<server> state ready' | socat stdio unix-connect:${HAPROXY_SOCKET}`,
    ].join(' '));
  }
  return { ...outcome, perNode: Object.entries(perNode).map(([host, t]) => ({ host, ...(t.seconds !== undefined ? { seconds: t.seconds } : {}) })) };
}
