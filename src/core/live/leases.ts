/**
 * Leases model.
 *
 * Node leases (kube-node-lease/<node>): kubelet renews every leaseDurationSeconds/4 (10 s of 40 s).
 *  - healthy: last renew ≤ leaseDurationSeconds/2 ago (at most one renew missed),
 *  - late:    up to leaseDurationSeconds,
 *  - expired: beyond leaseDurationSeconds.
 * The node-lifecycle controller marks the node NotReady (Ready=Unknown) when neither the lease nor the
 * node status was renewed within --node-monitor-grace-period: 50 s by default since Kubernetes 1.32
 * (40 s before; checked in k8s.io/kubernetes v1.34.12 pkg/controller/nodelifecycle/config/v1alpha1/
 * defaults.go), plus up to --node-monitor-period (5 s) until it looks.
 *
 * Leader leases (kube-system/kube-scheduler, kube-system/kube-controller-manager): holderIdentity is
 * `<hostname>_<uuid>`; the hostname is mapped to the inventory host. Identity leases (`apiserver-…`,
 * label apiserver.kubernetes.io/identity=kube-apiserver) carry the host in label kubernetes.io/hostname.
 */
import { t } from '../l10n';
import type { Inventory } from '../inventory/types';
import { hostForNode } from './controlPlane';
import { parseTime, type Lease } from './types';
import { NODE_MONITOR_GRACE_MS } from './leaseTiming';

export { NODE_MONITOR_GRACE_MS, NODE_MONITOR_PERIOD_MS } from './leaseTiming';
export const LEADER_LEASES = ['kube-controller-manager', 'kube-scheduler'] as const;
export const APISERVER_IDENTITY_LABEL = 'apiserver.kubernetes.io/identity';

export type LeaseHealth = 'healthy' | 'late' | 'expired' | 'unknown';

export interface NodeLeaseInfo {
  node: string;
  host: string | undefined;
  holder: string | undefined;
  durationSeconds: number;
  renewTime: number | undefined;
  sinceRenewMs: number | undefined;
  health: LeaseHealth;
  /** ms until the node-lifecycle controller marks the node NotReady (≤ 0: it already may have). */
  notReadyInMs: number | undefined;
}

export interface LeaderLeaseInfo {
  name: string;
  holderIdentity: string | undefined;
  /** The hostname part of holderIdentity. */
  holderHost: string | undefined;
  /** The inventory host it maps to. */
  inventoryHost: string | undefined;
  transitions: number;
  durationSeconds: number;
  sinceRenewMs: number | undefined;
  acquiredAgoMs: number | undefined;
  health: LeaseHealth;
}

export interface IdentityLeaseInfo {
  name: string;
  hostname: string | undefined;
  inventoryHost: string | undefined;
  holderIdentity: string | undefined;
  durationSeconds: number;
  sinceRenewMs: number | undefined;
  health: LeaseHealth;
}

export interface LeasesModel {
  nodes: NodeLeaseInfo[];
  leaders: LeaderLeaseInfo[];
  apiservers: IdentityLeaseInfo[];
}

export interface LeasesInput {
  now: number;
  nodeLeases: Lease[];
  systemLeases: Lease[];
  inventory?: Inventory | undefined;
  graceMs?: number;
}

/** A lease's health in the display language (English: the state's own name). */
export function leaseHealthWord(h: LeaseHealth): string {
  return h === 'healthy' ? t('healthy') : h === 'late' ? t('late') : h === 'expired' ? t('expired') : t('unknown');
}

export function leaseHealth(sinceRenewMs: number | undefined, durationSeconds: number): LeaseHealth {
  if (sinceRenewMs === undefined) return 'unknown';
  const d = durationSeconds * 1000;
  if (sinceRenewMs <= d / 2) return 'healthy';
  if (sinceRenewMs <= d) return 'late';
  return 'expired';
}

function renewOf(l: Lease): number | undefined {
  return parseTime(l.spec?.renewTime) ?? parseTime(l.spec?.acquireTime);
}

/** `k8s-master-1_8f2e…` → `k8s-master-1`. */
export function holderHostname(identity: string | undefined): string | undefined {
  if (!identity) return undefined;
  const i = identity.lastIndexOf('_');
  return i > 0 ? identity.slice(0, i) : identity;
}

export function buildLeases(input: LeasesInput): LeasesModel {
  const { now, inventory } = input;
  const grace = input.graceMs ?? NODE_MONITOR_GRACE_MS;
  const nodes = input.nodeLeases
    .map((l): NodeLeaseInfo => {
      const renew = renewOf(l);
      const since = renew === undefined ? undefined : now - renew;
      const durationSeconds = l.spec?.leaseDurationSeconds ?? 40;
      return {
        node: l.metadata.name,
        host: hostForNode(inventory, l.metadata.name)?.name,
        holder: l.spec?.holderIdentity,
        durationSeconds,
        renewTime: renew,
        sinceRenewMs: since,
        health: leaseHealth(since, durationSeconds),
        notReadyInMs: renew === undefined ? undefined : renew + grace - now,
      };
    })
    .sort((a, b) => a.node.localeCompare(b.node));
  const byName = new Map(input.systemLeases.map((l) => [l.metadata.name, l]));
  const leaders = LEADER_LEASES.flatMap((name): LeaderLeaseInfo[] => {
    const l = byName.get(name);
    if (!l) return [];
    const renew = renewOf(l);
    const since = renew === undefined ? undefined : now - renew;
    const acquired = parseTime(l.spec?.acquireTime);
    const holderHost = holderHostname(l.spec?.holderIdentity);
    const durationSeconds = l.spec?.leaseDurationSeconds ?? 15;
    return [{
      name,
      holderIdentity: l.spec?.holderIdentity,
      holderHost,
      inventoryHost: holderHost ? hostForNode(inventory, holderHost)?.name : undefined,
      transitions: l.spec?.leaseTransitions ?? 0,
      durationSeconds,
      sinceRenewMs: since,
      acquiredAgoMs: acquired === undefined ? undefined : now - acquired,
      health: leaseHealth(since, durationSeconds),
    }];
  });
  const apiservers = input.systemLeases
    .filter((l) => l.metadata.labels?.[APISERVER_IDENTITY_LABEL] === 'kube-apiserver' || (l.metadata.name.startsWith('apiserver-') && !!l.metadata.labels?.[APISERVER_IDENTITY_LABEL]))
    .map((l): IdentityLeaseInfo => {
      const renew = renewOf(l);
      const since = renew === undefined ? undefined : now - renew;
      const hostname = l.metadata.labels?.['kubernetes.io/hostname'];
      const durationSeconds = l.spec?.leaseDurationSeconds ?? 3600;
      return {
        name: l.metadata.name,
        hostname,
        inventoryHost: hostname ? hostForNode(inventory, hostname)?.name : undefined,
        holderIdentity: l.spec?.holderIdentity,
        durationSeconds,
        sinceRenewMs: since,
        // Identity leases last an hour but are renewed every 10 s: judge them by the renew interval.
        health: since === undefined ? 'unknown' : since <= 20_000 ? 'healthy' : since <= durationSeconds * 1000 ? 'late' : 'expired',
      };
    })
    .sort((a, b) => (a.hostname ?? a.name).localeCompare(b.hostname ?? b.name));
  return { nodes, leaders, apiservers };
}
