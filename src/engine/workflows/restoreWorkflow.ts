/**
 * etcd disaster recovery from a backup, for the editor's "Restore from this backup…" and the CLI's `restore`: the snapshot and the cluster
 * checked first (etcd's own checksum, the manifest, etcdutl on every member, whether etcd still has a healthy
 * quorum); anything wrong refuses before a thing stops. A healthy quorum refuses too — a restore throws away every
 * write since the snapshot — unless the user forces it and then types the cluster's name. Then the restore plan
 * (src/core/backup/restorePlan.ts) runs through the plan-run workflow: shown, approved, narrated, resumable.
 */
import { msg, t } from '../../core/l10n';
import { describeError } from '../../core/live/errors';
import { renderPlan } from '../../core/plan/types';
import { sudoUnlessRoot } from '../become';
import { prepareRestore, type RestoreDeps, type RestorePreparation } from '../restore';
import { planRunWorkflow, type PlanRunInput, type PlanRunOutcome } from './planRunWorkflow';
import { ByteProgress, SendProgress } from './byteProgress';
import type { Ui } from './ui';

/** The button that forces a restore over a healthy quorum (its English text; the Ui shows it in the user's language). */
export const RESTORE_ANYWAY = msg('Restore anyway…');

export interface RestoreWorkflowInput {
  deps: Omit<RestoreDeps, 'become' | 'say'>;
  loginUser: (host: string) => string;
  /** The backup's snapshot.db (its manifest.json beside it). */
  snapshot: string;
  run: Omit<PlanRunInput, 'inventory' | 'plan' | 'command' | 'title' | 'planDocument' | 'password' | 'onEvent'>;
  /**
   * Forced by the front-end before asking (CLI --force): a healthy quorum is passed without the "Restore anyway…"
   * question; the cluster's name is still typed unless `confirmed` (CLI --yes, with --force).
   */
  force?: { confirmed: boolean };
  /** How this front-end forces it, said with the refusal (CLI: "pass --force"); the editor offers a button instead. */
  forceHow?: string;
  /** Show the plan after the checks and stop (CLI --plan). */
  planOnly?: boolean;
}

export type RestoreOutcome =
  | { kind: 'failed-to-read' | 'refused'; message: string }
  | { kind: 'not-confirmed' | 'planned' }
  | (PlanRunOutcome & { rtoSeconds?: number; totalSeconds?: number });

export async function restoreWorkflow(ui: Ui, input: RestoreWorkflowInput): Promise<RestoreOutcome> {
  const inv = input.deps.inventory;
  // The checks read with sudo -n; the run asks the password once and the plan's gates read with it.
  let password: string | undefined;
  // One bar for the snapshot going to every member, opened when the first bytes go.
  const sending = new SendProgress(ui, inv.cluster.name);
  const become = (h: string) => sudoUnlessRoot(input.loginUser, password)(h);
  let prep: RestorePreparation;
  try {
    // Forced here only to learn the whole picture: the healthy quorum is judged below, with the user.
    prep = await ui.progress({ title: t('Checking the snapshot and etcd of {0}…', inv.cluster.name), narrate: true }, (progress) => {
      const hashed = new ByteProgress(progress, t('snapshot.db read and hashed'));
      return prepareRestore({ ...input.deps, become, say: (line) => progress(`   ${line}`), onHashProgress: (read, size) => hashed.update(read, size), onSendProgress: (host, sent) => sending.update(host, sent) }, input.snapshot, true);
    });
  } catch (e) {
    const message = t('Restore of {0} not started: {1}', inv.cluster.name, describeError(e));
    await ui.message('error', message);
    return { kind: 'failed-to-read', message };
  }
  if (prep.refusals.length) {
    const message = t('Restore of {0} refused; nothing was done: {1}', inv.cluster.name, prep.refusals.join('; '));
    await ui.message('error', message, { modal: true });
    return { kind: 'refused', message };
  }
  const healthy = (w: string) => /healthy quorum/.test(w);
  await ui.show(`restore-${inv.cluster.name}-found.txt`, [...prep.warnings.filter((w) => !healthy(w)).map((w) => `! ${w}`), t('members: {0}', prep.members.map((m) => t('{0}={1} on {2}', m.name, m.peerURL, m.host)).join(', '))].join('\n'));
  if (prep.quorumHealthy && !input.force) {
    const line = prep.warnings.find(healthy)?.replace(/; forced$/, '') ?? t('etcd still has a healthy quorum');
    const message = `${t('Restore of {0} refused: {1}. Restoring is for a cluster whose etcd is lost.', inv.cluster.name, line)}${input.forceHow ? t(' To restore anyway, {0}.', input.forceHow) : ''}`;
    const anyway = t('Restore anyway…');
    const choice = await ui.message('warning', message, { modal: true, actions: [anyway] });
    if (choice !== anyway) return { kind: 'refused', message };
  }
  if (input.planOnly) {
    await ui.show(`restore-${inv.cluster.name}-plan.txt`, renderPlan(prep.plan));
    return { kind: 'planned' };
  }
  if (prep.quorumHealthy && !input.force?.confirmed) {
    const typed = await ui.input(
      t('Restore {0} while etcd is healthy', inv.cluster.name),
      prep.manifest ? t("Every write since the snapshot (taken {0}) will be lost. Type the cluster's name ({1}) to restore anyway", prep.manifest.takenAt, inv.cluster.name) : t("Every write since the snapshot will be lost. Type the cluster's name ({0}) to restore anyway", inv.cluster.name),
    );
    if (typed?.trim() !== inv.cluster.name) {
      await ui.message('warning', t('Restore of {0} not confirmed; nothing was done.', inv.cluster.name));
      return { kind: 'not-confirmed' };
    }
  }
  let started = 0;
  let stopped = 0;
  let apiBack = 0;
  let rtoSeconds: number | undefined;
  sending.expect(prep.members.length, prep.snapshotSize);
  const outcome = await planRunWorkflow(ui, {
    ...input.run,
    inventory: inv,
    plan: prep.plan,
    command: 'restore',
    title: t('Restore of etcd of {0}', inv.cluster.name),
    planDocument: `restore-${inv.cluster.name}-plan.txt`,
    password: (p) => (password = p),
    onEvent: (e) => {
      if (e.type === 'step-start' && !started) started = Date.now();
      // The outage starts when the API servers stop (the snapshot is sent before, while the cluster runs).
      if (e.type === 'step-start' && e.step.id.endsWith('/stop') && !stopped) stopped = Date.now();
      if (e.type === 'step-end' && e.step.id.endsWith('/apiserver') && e.state === 'done' && ++apiBack === prep.members.length) rtoSeconds = (Date.now() - (stopped || started)) / 1000;
    },
    onDone: (took) => `${t('Restore of etcd of {0} done (took {1})', inv.cluster.name, took)}${rtoSeconds !== undefined ? t('; RTO {0} s from stopping the API servers to the API answering', rtoSeconds.toFixed(1)) : ''}`,
  }).finally(() => sending.end());
  const totalSeconds = started ? (Date.now() - started) / 1000 : undefined;
  return { ...outcome, ...(rtoSeconds !== undefined ? { rtoSeconds } : {}), ...(totalSeconds !== undefined ? { totalSeconds } : {}) };
}
