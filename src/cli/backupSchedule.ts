/**
 * `kubeadm-workbench backup schedule --inventory FILE [--interval 12h] [--keep 5] [--yes]` installs a systemd
 * timer on every control-plane node that snapshots its etcd member into /var/backups/kubeadm-workbench/etcd
 * and keeps the newest N; `--remove` takes the timers away (the snapshots stay); `--status` lists each
 * node's timer and snapshots and exits 1 when a timer is off or the newest snapshot is older than two
 * intervals. Installing and removing are the schedule workflow's (engine/workflows/scheduleWorkflow.ts), the
 * editor's "Schedule etcd Snapshots…" too.
 */
import { DEFAULT_SCHEDULE, parseInterval, scheduleWarning } from '../core/backup/schedule';
import { isReadError } from '../core/live/day2';
import { readSnapshotSchedules } from '../engine/day2Status';
import { scheduleWorkflow } from '../engine/workflows/scheduleWorkflow';
import { UsageError, type FlagSpec } from './args';
import { EXIT_FAILED, EXIT_OK } from './io';
import { hostsWith } from '../core/inventory/types';
import { defineVerb, usageText } from './verb';
import { t } from '../core/l10n';
import { PLAN_VERB_FLAGS } from './verbFlags';

const FLAGS: FlagSpec = { ...PLAN_VERB_FLAGS, interval: 'string', keep: 'string', remove: 'boolean', status: 'boolean' };

const USAGE = (): string =>
  usageText([
    'kubeadm-workbench backup schedule --inventory FILE [--interval 12h] [--keep 5] [--plan] [--yes]',
    '       kubeadm-workbench backup schedule --inventory FILE --remove [--yes]',
    '       kubeadm-workbench backup schedule --inventory FILE --status [--interval 12h] [--json]',
  ]);

export const runBackupSchedule = defineVerb({
  words: 'backup schedule', flags: FLAGS, usage: USAGE, needs: { inventory: 'strict', ssh: {} },
  validate: (f) => {
    let interval = DEFAULT_SCHEDULE.intervalSeconds;
    let keep = DEFAULT_SCHEDULE.keep;
    if (f.interval !== undefined) {
      const s = parseInterval(f.interval as string);
      if (s === undefined || s < 10) throw new UsageError(t('--interval: "{0}" is not an interval of at least 10 s (e.g. 12h, 30m)', String(f.interval)));
      interval = s;
    }
    if (f.keep !== undefined) {
      if (!/^\d{1,4}$/.test(f.keep as string) || Number(f.keep) < 1) throw new UsageError(t('--keep must be a whole number ≥ 1'));
      keep = Number(f.keep);
    }
    if (f.remove && f.status) throw new UsageError(t('--remove and --status do not go together'));
    return { interval, keep };
  },
  run: async ({ inventory, flags, io, options: { interval, keep }, ssh, become, planRun }) => {
    if (flags.status) {
      const all = await readSnapshotSchedules({ inventory, ssh: ssh(), become });
      const warnings = all.map((s) => (isReadError(s) ? `${s.host}: ${s.error}` : scheduleWarning(s, interval))).filter((w): w is string => !!w);
      if (flags.json) io.stdout(JSON.stringify({ nodes: all, warnings }, null, 2) + '\n');
      else {
        for (const s of all) {
          if (isReadError(s)) io.stdout(`${t('{0}: not read', s.host)}\n`);
          else io.stdout(`${s.timerActive ? t('{0}: timer active, {1} snapshot(s)', s.host, s.snapshots.length) : t('{0}: timer off, {1} snapshot(s)', s.host, s.snapshots.length)}${s.newestAgeSeconds !== undefined ? t(', newest {0} s old', s.newestAgeSeconds) : ''}\n`);
        }
        for (const w of warnings) io.stdout(`${t('warning: {0}', w)}\n`);
      }
      return warnings.length ? EXIT_FAILED : EXIT_OK;
    }
    const { ui, run, preflight } = planRun();
    if (!flags.plan && !(await preflight(t('Schedule etcd snapshots'), hostsWith(inventory, 'control-plane')))) return EXIT_FAILED;
    const outcome = await scheduleWorkflow(ui, {
      inventory,
      action: flags.remove ? { kind: 'remove' } : { kind: 'install', schedule: { intervalSeconds: interval, keep } },
      run,
      ...(flags.plan ? { planOnly: true } : {}),
    });
    return outcome.kind === 'planned' || (outcome.kind === 'ran' && outcome.result.ok) ? EXIT_OK : EXIT_FAILED;
  },
});
