/**
 * The day-2 reads that join the cluster's health (`status --ssh`, the editor's Backups view): the certificates
 * (the same read-only inspection as `certs`) and each control-plane node's scheduled etcd snapshots, judged into
 * problems by core/live/day2.
 */
import { DEFAULT_SCHEDULE, parseScheduleStatus, scheduleStatusCommand } from '../core/backup/schedule';
import type { CertReport } from '../core/certs/report';
import { asRoot } from '../core/drill/commands';
import { hostsWithRole } from '../core/inventory/types';
import { certificateProblems } from '../core/live/certProblems';
import { snapshotProblems, type ScheduleReading } from '../core/live/day2';
import type { Problem } from '../core/live/status';
import { summarizeFailure } from '../core/text/failureSummary';
import { inspectCertificates, type CertsDeps } from './certs';

export interface Day2Reading {
  certificates: CertReport;
  schedules: ScheduleReading[];
  problems: Problem[];
}

/** Each control-plane node's snapshot timer and snapshots (in parallel; a node not read is an entry with its error). */
export async function readSnapshotSchedules(deps: Pick<CertsDeps, 'inventory' | 'ssh' | 'become' | 'now' | 'signal'>, only?: readonly string[]): Promise<ScheduleReading[]> {
  const hosts = hostsWithRole(deps.inventory, 'control-plane')
    .map((h) => h.name)
    .filter((h) => !only?.length || only.includes(h));
  return Promise.all(
    hosts.map(async (host): Promise<ScheduleReading> => {
      try {
        const r = await deps.ssh.exec(host, asRoot(scheduleStatusCommand(), deps.become(host)), { timeoutMs: 20_000, ...(deps.signal ? { signal: deps.signal } : {}) });
        return parseScheduleStatus(host, r.stdout, (deps.now ?? Date.now)());
      } catch (e) {
        const failure = summarizeFailure(e, host);
        return { host, error: failure.cause, detail: failure.detail };
      }
    }),
  );
}

/** Certificates and snapshot schedules read together; `intervalSeconds` judges timers that do not say their own. */
export async function readDay2(deps: CertsDeps, intervalSeconds = DEFAULT_SCHEDULE.intervalSeconds): Promise<Day2Reading> {
  const [certificates, schedules] = await Promise.all([inspectCertificates(deps), readSnapshotSchedules(deps)]);
  return { certificates, schedules, problems: [...certificateProblems(certificates), ...snapshotProblems(schedules, intervalSeconds)] };
}
