/**
 * Scheduled etcd snapshots on the control-plane nodes themselves (what RKE2 does by default and kubeadm
 * does not): a systemd timer per node runs a small script that takes `etcdctl snapshot save` of the local
 * member into /var/backups/kubeadm-workbench/etcd/ (0600, root only) and keeps the newest N. Defaults as
 * RKE2's: every 12 h, keep 5. Installed and removed as plans; their state read back for the tree and for
 * `status` (warn when the newest snapshot is older than two intervals).
 */
import { t } from '../l10n';
import { sh, type RemoteCommand } from '../ssh/command';
import type { Plan, Step } from '../plan/types';

export const SNAPSHOT_DIR = '/var/backups/kubeadm-workbench/etcd';
const SCRIPT_PATH = '/usr/local/lib/kubeadm-workbench/etcd-snapshot.sh';
const UNIT = 'kubeadm-workbench-etcd-snapshot';

export interface ScheduleOptions {
  intervalSeconds: number;
  keep: number;
}

export const DEFAULT_SCHEDULE: ScheduleOptions = { intervalSeconds: 12 * 3600, keep: 5 };

/** `12h`, `30m`, `45s`, `1h30m` → seconds (whole units only). */
export function parseInterval(text: string): number | undefined {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text.trim());
  if (!m || !text.trim() || (!m[1] && !m[2] && !m[3])) return undefined;
  const s = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  return s > 0 ? s : undefined;
}

/** The node-side script: constant text, the retention count its only argument (checked to be a number). */
export const SNAPSHOT_SCRIPT = `#!/bin/sh
# Written by kubeadm-workbench: a snapshot of this node's etcd member; keeps the newest $1.
set -eu
keep=$1
case "$keep" in ''|*[!0-9]*) echo "keep must be a number" >&2; exit 2 ;; esac
umask 077
out=${SNAPSHOT_DIR}
mkdir -p "$out"
d=$(sed -n 's/^[[:space:]]*- --data-dir=//p' /etc/kubernetes/manifests/etcd.yaml 2>/dev/null | head -n1)
[ -n "$d" ] || d=/var/lib/etcd
stamp=$(date -u +%Y%m%dT%H%M%SZ)
tmp="$d/kw-scheduled-$stamp.db"
tls="--endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt --key=/etc/kubernetes/pki/etcd/healthcheck-client.key --dial-timeout=5s --command-timeout=600s"
if command -v etcdctl >/dev/null 2>&1; then ETCDCTL_API=3 etcdctl $tls snapshot save "$tmp"
else c=$(crictl ps -q --name '^etcd$' --state running | head -n1); [ -n "$c" ] || { echo "no etcdctl and no running etcd container" >&2; exit 1; }; crictl exec "$c" etcdctl $tls snapshot save "$tmp"; fi
chmod 600 "$tmp"
mv "$tmp" "$out/etcd-$stamp.db"
ls -1t "$out"/etcd-*.db | tail -n +$((keep + 1)) | xargs -r rm -f --
`;

export function serviceUnit(keep: number): string {
  return `[Unit]\nDescription=etcd snapshot of this control-plane node (kubeadm-workbench)\nAfter=kubelet.service\n\n[Service]\nType=oneshot\nExecStart=/bin/sh ${SCRIPT_PATH} ${Math.max(1, Math.floor(keep))}\n`;
}

export function timerUnit(intervalSeconds: number): string {
  const s = Math.max(10, Math.floor(intervalSeconds));
  return `[Unit]\nDescription=etcd snapshots every ${s} s (kubeadm-workbench)\n\n[Timer]\nOnActiveSec=${Math.min(s, 60)}s\nOnUnitActiveSec=${s}s\nAccuracySec=1s\nPersistent=true\n\n[Install]\nWantedBy=timers.target\n`;
}

export function buildScheduleInstallPlan(hosts: readonly string[], o: ScheduleOptions, fingerprint: string): Plan {
  const steps: Step[] = hosts.map((host) => ({
    id: `backup-schedule/${host}/install`,
    phase: 'backup-schedule',
    host,
    title: t('etcd snapshots every {0} s, keep {1}', o.intervalSeconds, o.keep),
    files: [
      { path: SCRIPT_PATH, content: SNAPSHOT_SCRIPT, mode: 0o700 },
      { path: `/etc/systemd/system/${UNIT}.service`, content: serviceUnit(o.keep), mode: 0o644 },
      { path: `/etc/systemd/system/${UNIT}.timer`, content: timerUnit(o.intervalSeconds), mode: 0o644 },
    ],
    run: sh`systemctl daemon-reload && systemctl enable --now ${`${UNIT}.timer`} && systemctl restart ${`${UNIT}.timer`}`,
    verify: sh`systemctl is-active -q ${`${UNIT}.timer`}`,
    verifyTimeoutMs: 30_000,
  }));
  return { fingerprint, phases: [{ phase: 'backup-schedule', title: t('Install scheduled etcd snapshots'), order: 'parallel', steps, warnings: [t('snapshots stay on each node in {0} (0600): they hold every Secret; copy them off the nodes too (kubeadm-workbench backup)', SNAPSHOT_DIR)] }] };
}

export function buildScheduleRemovePlan(hosts: readonly string[], fingerprint: string): Plan {
  const steps: Step[] = hosts.map((host) => ({
    id: `backup-schedule/${host}/remove`,
    phase: 'backup-schedule',
    host,
    title: t('remove the snapshot timer (snapshots already taken stay)'),
    run: sh`systemctl disable --now ${`${UNIT}.timer`} 2>/dev/null || true; rm -f ${`/etc/systemd/system/${UNIT}.timer`} ${`/etc/systemd/system/${UNIT}.service`} ${SCRIPT_PATH}; systemctl daemon-reload`,
  }));
  return { fingerprint, phases: [{ phase: 'backup-schedule', title: t('Remove scheduled etcd snapshots'), order: 'parallel', steps, warnings: [] }] };
}

/**
 * Timer state and the snapshots on a node: `active <state>`, `installed yes|no`, `interval <OnUnitActiveSec>`,
 * `since <epoch the timer became active>`, then `<epoch> <bytes> <name>` per snapshot.
 */
export function scheduleStatusCommand(): RemoteCommand {
  const timer = `${UNIT}.timer`;
  const file = `/etc/systemd/system/${UNIT}.timer`;
  return sh`printf 'active %s\n' "$(systemctl is-active ${timer} 2>/dev/null || true)"; if [ -f ${file} ]; then echo 'installed yes'; else echo 'installed no'; fi; printf 'interval %s\n' "$(sed -n 's/^OnUnitActiveSec=//p' ${file} 2>/dev/null | head -n1)"; t=$(systemctl show -p ActiveEnterTimestamp --value ${timer} 2>/dev/null || true); printf 'since %s\n' "$( [ -n "$t" ] && date -d "$t" +%s 2>/dev/null || true)"; for f in ${SNAPSHOT_DIR}/etcd-*.db; do [ -f "$f" ] && printf '%s %s %s\n' "$(stat -c %Y "$f")" "$(stat -c %s "$f")" "$(basename "$f")"; done; true`;
}

export interface ScheduleStatus {
  host: string;
  timerActive: boolean;
  /** The timer unit file is on the node (undefined: an older reading that did not say). */
  installed?: boolean;
  /** The interval the node's timer was installed with (its OnUnitActiveSec). */
  intervalSeconds?: number;
  /** Seconds since the timer became active (undefined: not active or not told). */
  activeForSeconds?: number;
  snapshots: { name: string; bytes: number; takenAt: number }[];
  /** Seconds since the newest snapshot (undefined: none). */
  newestAgeSeconds?: number;
}

export function parseScheduleStatus(host: string, stdout: string, nowMs: number): ScheduleStatus {
  const lines = stdout.split('\n');
  const timerActive = /^active active$/m.test(stdout);
  const installed = /^installed (yes|no)$/m.exec(stdout)?.[1];
  const interval = /^interval (\d+)s?$/m.exec(stdout)?.[1];
  const since = /^since (\d+)$/m.exec(stdout)?.[1];
  const snapshots = lines
    .map((l) => /^(\d+) (\d+) (etcd-[\w-]+\.db)$/.exec(l.trim()))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => ({ takenAt: Number(m[1]) * 1000, bytes: Number(m[2]), name: m[3]! }))
    .sort((a, b) => b.takenAt - a.takenAt);
  return {
    host,
    timerActive,
    ...(installed ? { installed: installed === 'yes' } : {}),
    ...(interval && Number(interval) > 0 ? { intervalSeconds: Number(interval) } : {}),
    ...(timerActive && since ? { activeForSeconds: Math.max(0, Math.round(nowMs / 1000 - Number(since))) } : {}),
    snapshots,
    ...(snapshots.length ? { newestAgeSeconds: Math.max(0, Math.round((nowMs - snapshots[0]!.takenAt) / 1000)) } : {}),
  };
}

/** `3 h`, `25 min`, `40 s`, `2 d`: an age for a problem line. */
export function ageWords(seconds: number): string {
  if (seconds >= 2 * 86_400) return t('{0} d', Math.round(seconds / 86_400));
  if (seconds >= 2 * 3600) return t('{0} h', Math.round(seconds / 3600));
  if (seconds >= 120) return t('{0} min', Math.round(seconds / 60));
  return t('{0} s', seconds);
}

/** What `backup schedule --status` says about a node's schedule: nothing when fine. */
export function scheduleWarning(s: ScheduleStatus, intervalSeconds: number): string | undefined {
  if (!s.timerActive) return t('{0}: the etcd snapshot timer is not active', s.host);
  return scheduleProblem(s, intervalSeconds)?.what;
}

/**
 * What the cluster's health says about a node's schedule (`status`, the status bar): nothing when no timer was
 * ever installed there (scheduling is the user's choice); critical when it is installed but off, when the newest
 * snapshot is older than two of the node's own intervals, or when an active timer has had time for its first run
 * (it fires a minute after start) and left no snapshot.
 */
export function scheduleProblem(s: ScheduleStatus, fallbackIntervalSeconds: number): { severity: 'critical' | 'warning'; what: string } | undefined {
  const installed = s.installed ?? (s.timerActive || s.snapshots.length > 0);
  if (!installed) return undefined;
  if (!s.timerActive) return { severity: 'critical', what: t('{0}: the etcd snapshot timer is installed but not active', s.host) };
  const interval = s.intervalSeconds ?? fallbackIntervalSeconds;
  if (s.newestAgeSeconds === undefined) {
    const firstRunDue = Math.min(interval, 60) + 300;
    if (s.activeForSeconds === undefined) return { severity: 'warning', what: t('{0}: the etcd snapshot timer is active but no snapshot exists yet', s.host) };
    if (s.activeForSeconds > firstRunDue) return { severity: 'critical', what: t('{0}: the etcd snapshot timer has been active for {1} and no snapshot exists', s.host, ageWords(s.activeForSeconds)) };
    return undefined;
  }
  if (s.newestAgeSeconds > 2 * interval) {
    return { severity: 'critical', what: t('{0}: the newest etcd snapshot is {1} old (more than two intervals of {2})', s.host, ageWords(s.newestAgeSeconds), ageWords(interval)) };
  }
  return undefined;
}
