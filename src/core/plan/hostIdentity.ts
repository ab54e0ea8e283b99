/**
 * What a run saw of each host — machine-id, boot id, SSH host keys, the install marker the prepare phase
 * writes — so that a resumed run notices a host that is no longer the one it worked on (re-imaged,
 * restored from a snapshot, rebuilt with the same name and address) and runs its steps again from the
 * start instead of trusting what the ledger remembers of it.
 */
import { t } from '../l10n';
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { sh, type RemoteCommand } from '../ssh/command';

/** Written once by the prepare phase (a random id); a rebuilt host has none, or another one. */
export const INSTALL_MARKER = '/var/lib/kubeadm-workbench/install-id';

export interface HostIdentity {
  machineId?: string;
  bootId?: string;
  /** SHA256 fingerprints of the host's SSH host keys, sorted (`ED25519 SHA256:...`). */
  hostKeys?: string[];
  installId?: string;
  /** When the run saw it. */
  seenAt: string;
}

/** Prints the identity as `key=value` lines; reads only world-readable files. */
export const IDENTITY_PROBE: RemoteCommand = sh`echo "machine-id=$(cat /etc/machine-id 2>/dev/null)"; echo "boot-id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)"; for f in /etc/ssh/ssh_host_*_key.pub; do test -r "$f" && echo "host-key=$(cut -d' ' -f1,2 "$f")"; done; echo "install-id=$(cat ${INSTALL_MARKER} 2>/dev/null)"`;

/** Writes the install marker when the host has none yet (never replaces one) and prints it. */
export const WRITE_INSTALL_MARKER: RemoteCommand = sh`test -s ${INSTALL_MARKER} || { mkdir -p ${dirname(INSTALL_MARKER)} && cat /proc/sys/kernel/random/uuid > ${INSTALL_MARKER}.tmp && mv -f ${INSTALL_MARKER}.tmp ${INSTALL_MARKER}; }`;

/** The fingerprint `ssh-keygen -l` shows for a public key line (`ssh-ed25519 AAAA...`). */
export function keyFingerprint(line: string): string | undefined {
  const [type, blob] = line.trim().split(/\s+/);
  if (!type || !blob || !/^[A-Za-z0-9+/=]+$/.test(blob)) return undefined;
  const digest = createHash('sha256').update(Buffer.from(blob, 'base64')).digest('base64').replace(/=+$/, '');
  return `${type} SHA256:${digest}`;
}

export function parseIdentity(stdout: string, now = new Date()): HostIdentity {
  const id: HostIdentity = { seenAt: now.toISOString() };
  const keys: string[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^(machine-id|boot-id|host-key|install-id)=(.*)$/.exec(line.trim());
    const value = m?.[2]?.trim();
    if (!m || !value) continue;
    if (m[1] === 'machine-id') id.machineId = value;
    if (m[1] === 'boot-id') id.bootId = value;
    if (m[1] === 'install-id') id.installId = value;
    if (m[1] === 'host-key') {
      const fp = keyFingerprint(value);
      if (fp) keys.push(fp);
    }
  }
  if (keys.length) id.hostKeys = keys.sort();
  return id;
}

export interface HostChange {
  host: string;
  /** Not the same installation: its steps run again from the start. */
  rebuilt: boolean;
  /** Only restarted: runtime state (swap, modules, sysctl) is checked again by the steps' checks anyway. */
  rebooted: boolean;
  /** What differs, in words: `machine-id`, `SSH host key`, `install marker`. */
  reasons: string[];
}

/**
 * How the host now differs from what the run recorded. `markerWritten`: the ledger has this host's
 * install-marker step done, so the host must have a marker even when none was recorded (the run that
 * wrote it was killed before it could note the value).
 */
export function compareIdentity(host: string, recorded: HostIdentity | undefined, now: HostIdentity, markerWritten: boolean): HostChange | undefined {
  if (!recorded && !markerWritten) return undefined;
  const reasons: string[] = [];
  if (recorded?.machineId && now.machineId && recorded.machineId !== now.machineId) reasons.push('machine-id');
  if (recorded?.hostKeys?.length && now.hostKeys?.length && recorded.hostKeys.join(',') !== now.hostKeys.join(',')) reasons.push('SSH host key');
  if (recorded?.installId ? recorded.installId !== now.installId : markerWritten && !now.installId) reasons.push('install marker');
  const rebooted = Boolean(recorded?.bootId && now.bootId && recorded.bootId !== now.bootId);
  if (!reasons.length && !rebooted) return undefined;
  return { host, rebuilt: reasons.length > 0, rebooted, reasons };
}

export function describeChange(change: HostChange): string {
  if (!change.rebuilt) return t('{0} was restarted since this run started: its steps check the host again', change.host);
  const reasons = change.reasons.map(reasonWords);
  return reasons.length > 1
    ? t('{0} was rebuilt since this run started: its steps will run again ({1} and {2} differ)', change.host, reasons.slice(0, -1).join(', '), reasons.at(-1))
    : t('{0} was rebuilt since this run started: its steps will run again ({1} differs)', change.host, reasons[0] ?? '');
}

/** A reason as the user reads it (the recorded reasons stay as they are). */
function reasonWords(reason: string): string {
  return reason === 'SSH host key' ? t('SSH host key') : reason === 'install marker' ? t('install marker') : reason;
}
