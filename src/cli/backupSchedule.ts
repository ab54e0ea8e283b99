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
import { hostsWith, terminalPlanRun } from './bringUp';
import { EXIT_FAILED, EXIT_OK, type CliIo } from './io';
import { Prompter } from './secretPrompt';
import { openPlanVerb, parseVerbFlags, PLAN_VERB_FLAGS } from './verbFlags';

const FLAGS: FlagSpec = { ...PLAN_VERB_FLAGS, interval: 'string', keep: 'string', remove: 'boolean', status: 'boolean' };

const USAGE =
  'usage: kubeadm-workbench backup schedule --inventory FILE [--interval 12h] [--keep 5] [--plan] [--yes]\n' +
  '       kubeadm-workbench backup schedule --inventory FILE --remove [--yes]\n' +
  '       kubeadm-workbench backup schedule --inventory FILE --status [--interval 12h] [--json]\n';

export async function runBackupSchedule(argv: string[], io: CliIo, stdin: NodeJS.ReadableStream = process.stdin): Promise<number> {
  let interval = DEFAULT_SCHEDULE.intervalSeconds;
  let keep = DEFAULT_SCHEDULE.keep;
  const flags = parseVerbFlags(argv, FLAGS, USAGE, io, (f) => {
    if (!f.inventory) throw new UsageError('--inventory is required');
    if (f.interval !== undefined) {
      const s = parseInterval(f.interval as string);
      if (s === undefined || s < 10) throw new UsageError(`--interval: "${String(f.interval)}" is not an interval of at least 10 s (e.g. 12h, 30m)`);
      interval = s;
    }
    if (f.keep !== undefined) {
      if (!/^\d{1,4}$/.test(f.keep as string) || Number(f.keep) < 1) throw new UsageError('--keep must be a whole number ≥ 1');
      keep = Number(f.keep);
    }
    if (f.remove && f.status) throw new UsageError('--remove and --status do not go together');
  });
  if (typeof flags === 'number') return flags;
  const session = await openPlanVerb(flags, io);
  if (typeof session === 'number') return session;
  const { inventory, inventoryPath, pool } = session;
  if (flags.status) {
    try {
      const all = await readSnapshotSchedules({ inventory, ssh: pool, become: (h) => session.become(h) });
      const warnings = all.map((s) => (isReadError(s) ? `${s.host}: ${s.error}` : scheduleWarning(s, interval))).filter((w): w is string => !!w);
      if (flags.json) io.stdout(JSON.stringify({ nodes: all, warnings }, null, 2) + '\n');
      else {
        for (const s of all) {
          if (isReadError(s)) io.stdout(`${s.host}: not read\n`);
          else io.stdout(`${s.host}: timer ${s.timerActive ? 'active' : 'off'}, ${s.snapshots.length} snapshot(s)${s.newestAgeSeconds !== undefined ? `, newest ${s.newestAgeSeconds} s old` : ''}\n`);
        }
        for (const w of warnings) io.stdout(`warning: ${w}\n`);
      }
      return warnings.length ? EXIT_FAILED : EXIT_OK;
    } finally {
      await pool.close();
    }
  }
  const prompter = new Prompter(stdin);
  const { ui, run, preflight } = terminalPlanRun({ inventory, inventoryPath, flags, argv }, io, prompter, stdin, pool, 'backup schedule');
  try {
    if (!flags.plan && !(await preflight('Schedule etcd snapshots', hostsWith(inventory, 'control-plane')))) return EXIT_FAILED;
    const outcome = await scheduleWorkflow(ui, {
      inventory,
      action: flags.remove ? { kind: 'remove' } : { kind: 'install', schedule: { intervalSeconds: interval, keep } },
      run,
      ...(flags.plan ? { planOnly: true } : {}),
    });
    return outcome.kind === 'planned' || (outcome.kind === 'ran' && outcome.result.ok) ? EXIT_OK : EXIT_FAILED;
  } finally {
    prompter.close();
    await pool.close();
  }
}
