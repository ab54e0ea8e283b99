/**
 * Scheduled etcd snapshots on the control-plane nodes themselves (what RKE2 does by default and kubeadm
 * does not): a systemd timer per node runs a small script that takes `etcdctl snapshot save` of the local
 * member into /var/backups/kubeadm-workbench/etcd/ (0600, root only) and keeps the newest N. Defaults as
 * RKE2's: every 12 h, keep 5. Installed and removed as plans; their state read back for the tree and for
 * `status` (warn when the newest snapshot is older than two intervals).
 */
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
    title: `etcd snapshots every ${o.intervalSeconds} s, keep ${o.keep}`,
    files: [
      { path: SCRIPT_PATH, content: SNAPSHOT_SCRIPT, mode: 0o700 },
      { path: `/etc/systemd/system/${UNIT}.service`, content: serviceUnit(o.keep), mode: 0o644 },
      { path: `/etc/systemd/system/${UNIT}.timer`, content: timerUnit(o.intervalSeconds), mode: 0o644 },
    ],
    run: sh`systemctl daemon-reload && systemctl enable --now ${`${UNIT}.timer`} && systemctl restart ${`${UNIT}.timer`}`,
    verify: sh`systemctl is-active -q ${`${UNIT}.timer`}`,
    verifyTimeoutMs: 30_000,
  }));
  return { fingerprint, phases: [{ phase: 'backup-schedule', title: 'Install scheduled etcd snapshots', order: 'parallel', steps, warnings: [`snapshots stay on each node in ${SNAPSHOT_DIR} (0600): they hold every Secret; copy them off the nodes too (kubeadm-workbench backup)`] }] };
}

export function buildScheduleRemovePlan(hosts: readonly string[], fingerprint: string): Plan {
  const steps: Step[] = hosts.map((host) => ({
    id: `backup-schedule/${host}/remove`,
    phase: 'backup-schedule',
    host,
    title: 'remove the snapshot timer (snapshots already taken stay)',
    run: sh`systemctl disable --now ${`${UNIT}.timer`} 2>/dev/null || true; rm -f ${`/etc/systemd/system/${UNIT}.timer`} ${`/etc/systemd/system/${UNIT}.service`} ${SCRIPT_PATH}; systemctl daemon-reload`,
  }));
  return { fingerprint, phases: [{ phase: 'backup-schedule', title: 'Remove scheduled etcd snapshots', order: 'parallel', steps, warnings: [] }] };
}

/** Timer state and the snapshots on a node: `active <0|1>`, then `<epoch> <bytes> <name>` per snapshot. */
export function scheduleStatusCommand(): RemoteCommand {
  return sh`printf 'active %s\n' "$(systemctl is-active ${`${UNIT}.timer`} 2>/dev/null || true)"; for f in ${SNAPSHOT_DIR}/etcd-*.db; do [ -f "$f" ] && printf '%s %s %s\n' "$(stat -c %Y "$f")" "$(stat -c %s "$f")" "$(basename "$f")"; done; true`;
}

export interface ScheduleStatus {
  host: string;
  timerActive: boolean;
  snapshots: { name: string; bytes: number; takenAt: number }[];
  /** Seconds since the newest snapshot (undefined: none). */
  newestAgeSeconds?: number;
}

export function parseScheduleStatus(host: string, stdout: string, nowMs: number): ScheduleStatus {
  const lines = stdout.split('\n');
  const timerActive = /^active active$/m.test(stdout);
  const snapshots = lines
    .map((l) => /^(\d+) (\d+) (etcd-[\w-]+\.db)$/.exec(l.trim()))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => ({ takenAt: Number(m[1]) * 1000, bytes: Number(m[2]), name: m[3]! }))
    .sort((a, b) => b.takenAt - a.takenAt);
  return { host, timerActive, snapshots, ...(snapshots.length ? { newestAgeSeconds: Math.max(0, Math.round((nowMs - snapshots[0]!.takenAt) / 1000)) } : {}) };
}

/** What `status` says about a node's schedule: nothing when fine. */
export function scheduleWarning(s: ScheduleStatus, intervalSeconds: number): string | undefined {
  if (!s.timerActive) return `${s.host}: the etcd snapshot timer is not active`;
  if (s.newestAgeSeconds === undefined) return undefined; // installed, first run pending
  if (s.newestAgeSeconds > 2 * intervalSeconds) return `${s.host}: the newest etcd snapshot is ${Math.round(s.newestAgeSeconds / 3600)} h old (more than two intervals)`;
  return undefined;
}
