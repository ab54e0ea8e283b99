/**
 * Before a control-plane node is drained (and usually rebooted), make sure the cluster survives
 * it: stacked etcd loses its member on that node, so the remaining healthy members must still
 * form a quorum, and every other control-plane node must be healthy (otherwise the maintenance
 * turns one failure into two). Also tell the user which leader leases the node holds, since
 * its scheduler and controller-manager hand over their leadership when it goes away.
 */
import { t } from '../l10n';

export interface ControlPlaneMember {
  nodeName: string;
  nodeReady: boolean;
  /** Whether this node's etcd member answers its health check. */
  etcdHealthy: boolean;
}

export interface HeldLease {
  namespace: string;
  name: string;
  holder: string;
}

export type GuardVerdict = { ok: true; warnings: string[]; heldLeases: HeldLease[] } | { ok: false; reasons: string[]; heldLeases: HeldLease[] };

export function quorumOf(members: number): number {
  return Math.floor(members / 2) + 1;
}

export function checkControlPlaneDrain(target: string, members: ControlPlaneMember[], leases: HeldLease[]): GuardVerdict {
  const heldLeases = leases.filter((l) => holderNode(l.holder) === target);
  const self = members.find((m) => m.nodeName === target);
  if (!self) return { ok: true, warnings: [], heldLeases };

  const reasons: string[] = [];
  const total = members.length;
  const quorum = quorumOf(total);
  const healthyAfter = members.filter((m) => m.nodeName !== target && m.etcdHealthy).length;
  if (healthyAfter < quorum) {
    reasons.push(
      healthyAfter === 1
        ? t('etcd would lose quorum: {0} members need {1}, and only 1 other healthy member would remain while {2} is down.', total, quorum, target)
        : t('etcd would lose quorum: {0} members need {1}, and only {2} other healthy members would remain while {3} is down.', total, quorum, healthyAfter, target),
    );
  }
  for (const other of members) {
    if (other.nodeName === target) continue;
    if (!other.nodeReady) reasons.push(t('control-plane node {0} is NotReady; fix it before taking {1} down.', other.nodeName, target));
    else if (!other.etcdHealthy) reasons.push(t('the etcd member on {0} is unhealthy; fix it before taking {1} down.', other.nodeName, target));
  }
  if (reasons.length) return { ok: false, reasons, heldLeases };
  const warnings: string[] = [];
  const tolerance = healthyAfter - quorum;
  if (tolerance === 0) warnings.push(t('While {0} is down, etcd tolerates no further failure ({1} of {2} members, quorum {3}).', target, healthyAfter, total, quorum));
  return { ok: true, warnings, heldLeases };
}

/** Leader lease holders are `<hostname>_<uuid>`. */
export function holderNode(holderIdentity: string): string {
  const i = holderIdentity.lastIndexOf('_');
  return i > 0 ? holderIdentity.slice(0, i) : holderIdentity;
}
