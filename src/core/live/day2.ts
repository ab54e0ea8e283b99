/**
 * The day-2 state that joins the cluster's health verdict: scheduled etcd snapshots that stopped (the backup no one
 * noticed was not being taken) here, certificates under the warning threshold in certProblems.ts (apart, so the
 * Backups view does not load the certificate assessment at activation). Read over SSH: `status --ssh` reads them
 * itself, the editor takes them from the Backups view's schedule reads.
 */
import { t } from '../l10n';
import { scheduleProblem, type ScheduleStatus } from '../backup/schedule';
import type { Problem } from './status';

/** A node whose schedule could not be read. */
export interface ScheduleReadError {
  host: string;
  /** The cause in a few plain words, without command text (core/text/failureSummary). */
  error: string;
  /** The whole error, for the log. */
  detail?: string;
}

export type ScheduleReading = ScheduleStatus | ScheduleReadError;

export function isReadError(s: ScheduleReading): s is ScheduleReadError {
  return 'error' in s;
}

/** The scheduled snapshots' problems (see scheduleProblem); a node not read is a warning. */
export function snapshotProblems(readings: readonly ScheduleReading[], fallbackIntervalSeconds: number): Problem[] {
  const out: Problem[] = [];
  for (const s of readings) {
    if (isReadError(s)) out.push({ severity: 'warning', what: t('scheduled etcd snapshots of {0} not read: {1}', s.host, s.error) });
    else {
      const p = scheduleProblem(s, fallbackIntervalSeconds);
      if (p) out.push(p);
    }
  }
  return out;
}
