/**
 * The preflight as every operation meets it, before its first question, the same in the editor and on the command
 * line: the checks run (engine/preflight.ts) with a progress; the unknown host keys of every host in scope are
 * reviewed together, once, and the hosts whose keys the user accepted are checked again (the operation's time
 * limits start only after, so none runs while the user decides); a failing check refuses the operation with the
 * table — each cause and its fix — and one message; the user may fix a cause and run the checks again from there.
 */
import { failingHosts, firstCauseLine, mergeHosts, passes, summaryLine, unknownKeys, worst, type PreflightReport, type Tolerance } from '../../core/preflight/model';
import { runPreflight, type PreflightRequest, type PreflightSsh } from '../preflight';
import type { Ui } from './ui';
import { t } from '../../core/l10n';

/** The action on the refusal that runs the checks again (after the user fixed a cause), in the display language. */
const runAgain = (): string => t('Run Preflight Again');
/** Checks run at most this often in one operation; then it ends refused (run the command again once fixed). */
const MAX_ROUNDS = 5;

export interface PreflightStepInput extends PreflightRequest {
  ssh: PreflightSsh;
  /** Hosts and failures the operation can do without (the dead node a removal takes out). */
  tolerate?: Tolerance;
  /** The operation needs one host of the scope, not all (a backup takes its snapshot on one control-plane node). */
  atLeastOne?: boolean;
}

/** Whether the operation may go on: every host passes, or (atLeastOne) one does; the cluster's checks pass. */
export function preflightPasses(report: PreflightReport, input: Pick<PreflightStepInput, 'tolerate' | 'atLeastOne'>): boolean {
  if (!input.atLeastOne) return passes(report, input.tolerate);
  return worst(report.clusterChecks) !== 'fail' && failingHosts(report, input.tolerate).length < report.hosts.length;
}

export type PreflightOutcome = { ok: true; report: PreflightReport } | { ok: false; report: PreflightReport; message: string };

export async function preflightStep(ui: Ui, input: PreflightStepInput): Promise<PreflightOutcome> {
  const { tolerate = {} } = input;
  for (let round = 1; ; round++) {
    const report = await checks(ui, input);
    if (preflightPasses(report, input)) {
      if (input.standalone) await ui.showPreflight(report);
      return { ok: true, report };
    }
    await ui.showPreflight(report, input.standalone ? {} : { refused: input.operation });
    const failing = failingHosts(report, tolerate).length;
    const summary = input.atLeastOne && failing === report.hosts.length ? t('none of its {0} hosts passes the preflight — {1}', report.hosts.length, firstCauseLine(report, tolerate)) : summaryLine(report, tolerate);
    const message = input.standalone
      ? t('Preflight: {0}. The table names each cause and its fix.', summary)
      : failing
        ? t('{0} refused before it asked anything: {1}. The table names each cause and its fix; fix them and run the checks again.', input.operation, summary)
        : t('{0} refused before it asked anything: {1}.', input.operation, summary);
    const again = runAgain();
    const choice = await ui.message('error', message, { actions: round < MAX_ROUNDS ? [again] : [] });
    // Run again: the user fixed something; the same transport, so host keys accepted meanwhile still count.
    if (choice !== again) return { ok: false, report, message };
  }
}

/** The checks, the review of the unknown host keys, and the hosts whose keys were accepted checked again. */
async function checks(ui: Ui, input: PreflightStepInput): Promise<PreflightReport> {
  const { ssh } = input;
  const n = input.hosts.length;
  const withCluster = input.cluster ? t(' and the cluster') : '';
  // on its own, the preflight is the operation: "Checking 7 hosts…", not "… before Run Preflight Checks…"
  const title = input.standalone
    ? n === 1 ? t('Checking 1 host{0}…', withCluster) : t('Checking {0} hosts{1}…', n, withCluster)
    : n === 1 ? t('Checking 1 host{0} before {1}…', withCluster, input.operation) : t('Checking {0} hosts{1} before {2}…', n, withCluster, input.operation);
  let report = await ui.progress({ title }, () => runPreflight(ssh, input));
  const keys = unknownKeys(report);
  if (!keys.length || !ssh.acceptKey) return report;
  const review = await ui.reviewHostKeys(keys);
  if (!review.accepted.length) return report;
  for (const k of review.accepted) {
    if (review.remember && ssh.rememberKey) await ssh.rememberKey(k.alias, k.fingerprint);
    else ssh.acceptKey(k.alias, k.fingerprint);
  }
  const hosts = [...new Set(review.accepted.map((k) => k.host))];
  const again = await ui.progress({ title: hosts.length === 1 ? t('Checking {0} with the accepted host key…', hosts[0]) : t('Checking {0} with the accepted host keys…', hosts.join(', ')) }, () => runPreflight(ssh, { ...input, hosts, cluster: undefined }));
  report = mergeHosts(report, again.hosts, again.ms);
  return report;
}
