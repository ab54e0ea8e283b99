/**
 * `restore`: checks before anything stops — the snapshot file (etcd's own SHA-256 trailer, the manifest's
 * checksum and cluster), etcdutl on every control-plane host, and the refusal while etcd still has a
 * healthy quorum (a restore throws away every write since the snapshot) unless forced — then the plan of
 * src/core/backup/restorePlan.ts with its gates bound to this cluster.
 */
import { createHash } from 'node:crypto';
import { lookAt, readRegular, readRegularText } from '../adapters/fs/safeFile';
import { dirname, join } from 'node:path';
import { buildRestorePlan, etcdutlPresentCommand, type RestoreMember } from '../core/backup/restorePlan';
import { SnapshotChecksum, type BackupManifest } from '../core/backup/snapshot';
import { asRoot } from '../core/drill/commands';
import { hostsWithRole, splitEndpoint, type Inventory } from '../core/inventory/types';
import type { Plan } from '../core/plan/types';
import type { SudoOptions } from '../core/ssh/command';
import { ANY_EXIT_CODE, type SshTransport } from '../core/ssh/transport';
import { readEtcdOverSsh } from './backup';
import { readyz as readyzOver } from '../adapters/kube/readyz';
import { errorMessage } from '../core/errors';

export interface RestoreDeps {
  inventory: Inventory;
  ssh: SshTransport;
  become: (host: string) => SudoOptions | undefined;
  readyz?: (address: string, port: number) => Promise<boolean>;
  say?: (line: string) => void;
  /** How long the API may take to answer after the restore (default 300 s). */
  apiWaitMs?: number;
  now?: () => Date;
}

export interface RestorePreparation {
  plan: Plan;
  members: RestoreMember[];
  manifest?: BackupManifest;
  /** etcd still had a healthy quorum when we looked. */
  quorumHealthy: boolean;
  refusals: string[];
  warnings: string[];
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(new Error('cancelled'))), { once: true });
  });

/** The members to recreate: the backup's, when they are the inventory's control-plane hosts; else from the inventory (kubeadm names members after their nodes). */
export function restoreMembers(inv: Inventory, manifest: BackupManifest | undefined): RestoreMember[] {
  const cps = hostsWithRole(inv, 'control-plane');
  const fromManifest = cps.map((h) => {
    const m = manifest?.members.find((x) => !x.isLearner && (x.host === h.name || x.peerURLs.some((u) => u.includes(`//${h.address}:`))));
    return m && m.peerURLs[0] ? { host: h.name, name: m.name, peerURL: m.peerURLs[0] } : undefined;
  });
  if (fromManifest.every((m) => m)) return fromManifest as RestoreMember[];
  return cps.map((h) => ({ host: h.name, name: h.name, peerURL: `https://${h.address.includes(':') ? `[${h.address}]` : h.address}:2380` }));
}

export async function prepareRestore(deps: RestoreDeps, snapshotPath: string, force: boolean): Promise<RestorePreparation> {
  const inv = deps.inventory;
  const refusals: string[] = [];
  const warnings: string[] = [];
  // A regular file only (a FIFO would hang here forever), its size checked before reading: etcd's quota tops at 8 GiB.
  const bytes = await readRegular(snapshotPath, { maxBytes: 8 * 1024 ** 3 });
  const sum = new SnapshotChecksum();
  sum.update(bytes);
  const got = sum.digest();
  if (got.trailer !== 'verified') refusals.push(`${snapshotPath}: ${got.trailer === 'mismatch' ? "etcd's SHA-256 trailer does not match: the file is corrupt" : 'no SHA-256 trailer: not a snapshot taken by etcdctl snapshot save'}`);
  let manifest: BackupManifest | undefined;
  const manifestPath = join(dirname(snapshotPath), 'manifest.json');
  if (await lookAt(manifestPath)) {
    manifest = JSON.parse(await readRegularText(manifestPath, { maxBytes: 1024 * 1024, noFollow: true })) as BackupManifest;
    if (manifest.snapshot?.sha256 && manifest.snapshot.sha256 !== got.sha256) refusals.push(`${snapshotPath} is not the snapshot its manifest describes (sha256 differs)`);
    if (manifest.cluster !== inv.cluster.name) refusals.push(`the backup is of cluster "${manifest.cluster}", the inventory is "${inv.cluster.name}"`);
  } else warnings.push(`no manifest.json next to ${snapshotPath}: members are taken from the inventory (name = host name, peer URL https://<address>:2380)`);
  const members = restoreMembers(inv, manifest);
  // A snapshot that cannot be restored is refused before any host is asked anything.
  if (refusals.length) return { plan: { fingerprint: '', phases: [] }, members, ...(manifest ? { manifest } : {}), quorumHealthy: false, refusals, warnings };

  let quorumHealthy = false;
  try {
    const etcd = await readEtcdOverSsh(deps);
    quorumHealthy = etcd.healthyVoting >= etcd.quorum;
    if (quorumHealthy) {
      const line = `etcd still has a healthy quorum (${etcd.quorumLine}): a restore throws away every write since the snapshot${manifest ? ` (taken ${manifest.takenAt})` : ''}`;
      if (force) warnings.push(`${line}; forced`);
      else refusals.push(`${line}. Refused; pass --force to restore anyway`);
    }
  } catch (e) {
    warnings.push(`etcd does not answer (${errorMessage(e).split('\n')[0]}): restoring is what this is for`);
  }
  await Promise.all(
    members.map(async (m) => {
      const r = await deps.ssh.exec(m.host, asRoot(etcdutlPresentCommand(), deps.become(m.host)), { okCodes: [...ANY_EXIT_CODE], timeoutMs: 20_000 }).catch((e: Error) => ({ code: -1, stdout: '', stderr: e.message }));
      if (r.code !== 0) refusals.push(`${m.host}: ${r.stderr.trim().split('\n').pop() || 'no etcdutl on the host or in its etcd image'} (put etcdutl of the cluster's etcd version into /usr/local/bin there)`);
    }),
  );

  const readyz = deps.readyz ?? readyzOver;
  const addressOf = (host: string) => inv.hosts.find((h) => h.name === host)?.address ?? host;
  const ep = splitEndpoint(inv.cluster.controlPlaneEndpoint);
  const say = deps.say ?? (() => undefined);
  const stamp = (deps.now ?? (() => new Date()))().toISOString().replace(/\D/g, '').slice(0, 14);
  const plan = buildRestorePlan(
    { members, snapshotBase64: bytes.toString('base64'), sha256: got.sha256, stamp, fingerprint: createHash('sha256').update(JSON.stringify({ inv, members, sha: got.sha256 })).digest('hex').slice(0, 16) },
    {
      checkMembers: async () => {
        const etcd = await readEtcdOverSsh(deps);
        const problems: string[] = [];
        if (etcd.voting !== members.length) problems.push(`${etcd.voting} voting members, expected ${members.length}`);
        if (!etcd.leaderId) problems.push('no leader');
        if (etcd.healthyVoting !== etcd.voting) problems.push(`${etcd.voting - etcd.healthyVoting} member(s) unhealthy`);
        const names = etcd.members.map((m) => m.name).sort();
        if (JSON.stringify(names) !== JSON.stringify(members.map((m) => m.name).sort())) problems.push(`members ${names.join(', ')}`);
        if (problems.length) throw new Error(`etcd after the restore: ${problems.join('; ')}`);
        say(`etcd: ${etcd.quorumLine}; leader ${etcd.members.find((m) => m.isLeader)?.name}`);
      },
      apiBack: async (host, signal) => {
        const t0 = Date.now();
        const limit = deps.apiWaitMs ?? 300_000;
        const targets: [string, number][] = [[addressOf(host), 6443], ...(ep ? [[ep.host, ep.port] as [string, number]] : [])];
        for (const [a, p] of targets) {
          while (!(await readyz(a, p))) {
            if (Date.now() - t0 > limit) throw new Error(`${a}:${p} did not answer /readyz within ${limit / 1000} s`);
            await sleep(1000, signal);
          }
        }
        say(`${host}: API server ready (and the endpoint) after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      },
    },
  );
  return { plan, members, ...(manifest ? { manifest } : {}), quorumHealthy, refusals, warnings };
}
