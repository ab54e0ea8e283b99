/**
 * `certs renew`: inspect first (what expires, which CA is near its end), build the plan (src/core/certs/
 * renewPlan.ts) with its gates bound to this cluster — the etcd quorum guard shared with drain and drill,
 * /readyz and a TLS handshake on each node's 6443 from here, admin.conf merged into the user's kubeconfig
 * — and run it through the plan runner (ledger: a failed or killed run resumes; cancel stops the remote
 * command).
 */
import { createHash } from 'node:crypto';
import { readyz } from '../adapters/kube/readyz';
import { checkControlPlaneDrain, type ControlPlaneMember } from '../core/drain/controlPlaneGuard';
import { asRoot } from '../core/drill/commands';
import { t as tr } from '../core/l10n';
import type { CertThresholds } from '../core/certs/assess';
import type { CertReport } from '../core/certs/report';
import { buildRenewPlan, chooseNewLeader, moveLeaderCommand, type RenewBalancers } from '../core/certs/renewPlan';
import { haproxyServerNames } from '../core/generate/haproxy';
import { parseCertificate, type CertFacts } from '../core/certs/x509';
import { hostsWithRole, type Inventory } from '../core/inventory/types';
import type { Plan } from '../core/plan/types';
import { sh, type SudoOptions } from '../core/ssh/command';
import type { SshTransport } from '../core/ssh/transport';
import { readEtcdOverSsh } from './backup';
import { inspectCertificates } from './certs';
import { saveAdminKubeconfig } from './kubeconfig';
import { driftWarnings } from './drift';

export interface RenewDeps {
  inventory: Inventory;
  ssh: SshTransport;
  become: (host: string) => SudoOptions | undefined;
  served: (address: string, port: number) => Promise<CertFacts>;
  /** GET /readyz (anonymous, kubeadm's default RBAC allows it): true on 200. */
  readyz?: (address: string, port: number) => Promise<boolean>;
  thresholds?: CertThresholds;
  /** Merge the renewed admin.conf into this kubeconfig after the last node. */
  kubeconfig?: string;
  say?: (line: string) => void;
  /** How long each API server may take to answer /readyz again (default 180 s). */
  apiWaitMs?: number;
}

export interface RenewPreparation {
  plan: Plan;
  hosts: string[];
  before: CertReport;
  warnings: string[];
  refusals: string[];
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(new Error('cancelled'))), { once: true });
  });

/** The inventory's balancers and each control-plane host's server name there (the generator's), when it has any. */
function balancersOf(inv: Inventory): RenewBalancers | undefined {
  const hosts = hostsWithRole(inv, 'loadbalancer').map((h) => h.name);
  if (!hosts.length) return undefined;
  const servers = new Map(haproxyServerNames(inv).map((s) => [s.host, s.server]));
  return {
    hosts,
    serverOf: (host) => {
      const server = servers.get(host);
      if (!server) throw new Error(tr("{0} has no server in the balancers' HAProxy backend (as the inventory generates it)", host));
      return server;
    },
  };
}

/**
 * When `host`'s etcd member leads: `etcdctl move-leader` to another healthy voting member, then etcd read again until
 * that member answers as the leader (etcd's own move returns once the old leader has stepped down; the restart must
 * not come before a new leader serves). Asks first, so a resumed or repeated run moves nothing twice.
 */
export async function moveLeaderAway(deps: Pick<RenewDeps, 'inventory' | 'ssh' | 'become'> & { leaderWaitMs?: number }, host: string, upcoming: readonly string[], say: (line: string) => void, signal?: AbortSignal): Promise<void> {
  const before = await readEtcdOverSsh(deps);
  const self = before.members.find((m) => m.host === host);
  const leader = before.members.find((m) => m.isLeader);
  if (!self?.isLeader) {
    say(leader ? tr('{0}: its etcd member does not lead ({1} does); nothing to move', host, leader.name) : tr('{0}: its etcd member does not lead (no leader seen); nothing to move', host));
    return;
  }
  const target = chooseNewLeader(before.members, host, upcoming);
  if (!target) throw new Error(tr("{0}'s etcd member leads and no other voting member is healthy to take over; not restarting it ({1})", host, before.quorumLine));
  const t0 = Date.now();
  await deps.ssh.exec(host, asRoot(moveLeaderCommand(target.id), deps.become(host)), { timeoutMs: 30_000, ...(signal ? { signal } : {}) });
  const limit = deps.leaderWaitMs ?? 30_000;
  for (;;) {
    const now = await readEtcdOverSsh(deps).catch(() => undefined);
    const t = now?.members.find((m) => m.id === target.id);
    if (t?.isLeader && t.reachable && t.healthy) break;
    if (Date.now() - t0 > limit) throw new Error(tr('etcd: {0} did not answer as the leader within {1} s after the move from {2}', target.name, limit / 1000, self.name));
    await sleep(500, signal);
  }
  say(tr('{0}: etcd leadership moved from {1} to {2}; it answers as the leader after {3} s', host, self.name, target.name, ((Date.now() - t0) / 1000).toFixed(1)));
}

/**
 * The quorum guard before one control-plane node's etcd member and API server go away for a while (the renewal's and
 * the reconfigure's): etcd read over SSH, every other API server asked /readyz at its address, and the drain guard's
 * arithmetic; throws the refusal.
 */
export function controlPlaneGuard(deps: Pick<RenewDeps, 'inventory' | 'ssh' | 'become'> & { readyz: NonNullable<RenewDeps['readyz']> }, say: (line: string) => void): (host: string) => Promise<void> {
  const addressOf = (host: string) => deps.inventory.hosts.find((h) => h.name === host)?.address ?? host;
  return async (host) => {
    const etcd = await readEtcdOverSsh(deps);
    const members: ControlPlaneMember[] = await Promise.all(
      etcd.members.map(async (m) => ({ nodeName: m.host ?? m.name, etcdHealthy: m.healthy, nodeReady: m.host === host ? true : await deps.readyz(addressOf(m.host ?? m.name), 6443) })),
    );
    const verdict = checkControlPlaneDrain(host, members, []);
    if (!verdict.ok) throw new Error(tr('refused by the quorum guard: {0}', verdict.reasons.join(' ')));
    for (const w of verdict.warnings) say(`${host}: ${w}`);
  };
}

export async function prepareRenew(deps: RenewDeps, only: readonly string[] = []): Promise<RenewPreparation> {
  const inv = deps.inventory;
  const cps = hostsWithRole(inv, 'control-plane').map((h) => h.name);
  const refusals: string[] = [];
  for (const h of only) if (!cps.includes(h)) refusals.push(tr("{0} is not a control-plane host of the inventory: only control-plane nodes carry kubeadm's certificates", h));
  const hosts = only.length ? cps.filter((h) => only.includes(h)) : cps;
  const before = await inspectCertificates({ inventory: inv, ssh: deps.ssh, become: deps.become, served: deps.served, ...(deps.thresholds ? { thresholds: deps.thresholds } : {}) }, hosts);
  const warnings: string[] = [];
  for (const h of before.hosts) {
    if (h.error) refusals.push(tr('{0}: cannot read its certificates: {1}', h.host, h.error));
    for (const e of h.entries) {
      if (e.role === 'ca' && e.expiry && e.expiry !== 'ok') warnings.push(tr('{0}: the CA {1} expires in {2} day(s); kubeadm certs renew does not renew CAs — plan a CA rotation', h.host, e.path, e.daysLeft));
    }
  }
  // The renewal re-issues each certificate with the SANs it has: certSANs the cluster's configuration adds are named.
  const sans = new Map(before.hosts.flatMap((h) => {
    const f = h.entries.find((e) => e.id === 'apiserver')?.facts;
    return f ? [[h.host, [...f.dnsNames, ...f.ipAddresses]] as const] : [];
  }));
  warnings.push(...(await driftWarnings({ inventory: inv, ssh: deps.ssh, become: deps.become }, 'renewal', sans)));
  const readyzOf = deps.readyz ?? readyz;
  const addressOf = (host: string) => inv.hosts.find((h) => h.name === host)?.address ?? host;
  const oldServed = new Map(before.served.filter((c) => c.facts).map((c) => [c.target, c.facts!.fingerprint]));
  const say = deps.say ?? (() => undefined);

  const plan = buildRenewPlan(
    hosts,
    {
      guard: controlPlaneGuard({ ...deps, readyz: readyzOf }, say),
      moveLeader: (host, upcoming, signal) => moveLeaderAway(deps, host, upcoming, say, signal),
      apiServerBack: async (host, signal) => {
        const address = addressOf(host);
        const t0 = Date.now();
        const limit = deps.apiWaitMs ?? 180_000;
        while (!(await readyzOf(address, 6443))) {
          if (Date.now() - t0 > limit) throw new Error(tr('the API server on {0} did not answer /readyz within {1} s', host, limit / 1000));
          await sleep(1000, signal);
        }
        const served = await deps.served(address, 6443);
        const file = await deps.ssh.exec(host, asRoot(sh`cat /etc/kubernetes/pki/apiserver.crt`, deps.become(host)), { timeoutMs: 15_000 });
        const disk = parseCertificate(file.stdout);
        if (served.fingerprint !== disk.fingerprint) throw new Error(tr('{0}:6443 does not serve the renewed apiserver.crt (served until {1}, on disk until {2})', host, served.notAfter, disk.notAfter));
        if (oldServed.get(host) === served.fingerprint) throw new Error(tr('{0}:6443 still serves the certificate it served before the renewal', host));
        say(tr('{0}: API server ready after {1} s, serving the renewed certificate (valid until {2})', host, ((Date.now() - t0) / 1000).toFixed(1), served.notAfter));
      },
      ...(deps.kubeconfig
        ? {
            refreshKubeconfig: async (host: string) => {
              const r = await deps.ssh.exec(host, asRoot(sh`cat /etc/kubernetes/admin.conf`, deps.become(host)), { timeoutMs: 15_000 });
              const context = await saveAdminKubeconfig(deps.kubeconfig!, r.stdout, inv.cluster.name);
              say(tr('your kubeconfig {0} has the renewed admin credentials (context {1})', deps.kubeconfig, context));
            },
          }
        : {}),
    },
    warnings,
    createHash('sha256').update(JSON.stringify({ inv, hosts, kubeconfig: deps.kubeconfig ?? '' })).digest('hex').slice(0, 16),
    balancersOf(inv),
    cps,
  );
  return { plan, hosts, before, warnings, refusals };
}
