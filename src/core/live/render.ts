/** Plain-text rendering of the live model for `kubeadm-workbench status` (and its tests). */
import { t } from '../l10n';
import type { ComponentPod } from './controlPlane';
import type { EtcdMember, EtcdModel } from './etcd';
import { formatAge, formatBytes } from './format';
import type { LiveModel } from './snapshot';
import { leaseHealthWord } from './leases';
import type { Verdict } from './status';
import { balancerSummary, vipLine, type BalancersModel } from './balancers';
import { vrrpLine } from './vrrpVerdict';
import { memberSpace, type MemberSpace } from '../etcd/space';

export function describeComponent(c: ComponentPod): string {
  if (!c.present) return `${c.component} · ${t('missing')}`;
  // the pod's phase (Running) and reason (CrashLoopBackOff) are Kubernetes' words, as kubectl shows them
  const parts = [c.component, c.phase, t('ready {0}/{1}', c.readyContainers, c.totalContainers), t('restarts {0}', c.restarts), formatAge(c.ageMs)];
  if (c.reason && !c.ready && !c.stale) parts.push(c.reason);
  if (c.stale) parts.push(t('as last reported (node not Ready)'));
  if (c.mirror) parts.push(c.source === 'file' ? t('static (mirror)') : t('mirror'));
  if (c.mirrorStale) parts.push(t('mirror stale'));
  if (c.drift?.drift) parts.push(t('DRIFT'));
  return parts.join(' · ');
}

/** `12:01:03` (local clock) and how long ago. */
export function clockAndAge(at: number, now: number): string {
  return t('{0} ({1} ago)', new Date(at).toTimeString().slice(0, 8), formatAge(now - at));
}

/**
 * What we know of a member in etcdctl's terms: a reachable one by its role, version, learner flag, raft term, index
 * and applied index; an unreachable one by what an earlier read saw (last role, version) and since when — never by
 * a role it may no longer have.
 */
export function memberFacts(m: EtcdMember, now: number, o: { age?: boolean } = {}): string[] {
  if (!m.reachable) {
    const since = m.unreachableSince === undefined ? undefined : o.age === false ? new Date(m.unreachableSince).toTimeString().slice(0, 8) : clockAndAge(m.unreachableSince, now);
    const parts = [since !== undefined ? t('unreachable since {0}', since) : t('unreachable')];
    if (m.lastSeen) parts.push(t('last seen {0} at {1}', `${roleWord(m.lastSeen.role)}${m.lastSeen.version ? ` v${m.lastSeen.version}` : ''}`, new Date(m.lastSeen.at).toTimeString().slice(0, 8)));
    else parts.push(t('not seen by this session'));
    if (m.isLearner) parts.push(t('learner'));
    return parts;
  }
  return [m.isLeader ? t('leader') : t('follower'), m.isLearner ? t('learner') : t('voter'), `v${m.version ?? '?'}`, t('term {0}', m.raftTerm ?? '?'), t('index {0}', m.raftIndex ?? '?'), t('applied {0}', m.raftAppliedIndex ?? '?')];
}

/** A member's last seen role in the display language. */
export function roleWord(role: string): string {
  return role === 'leader' ? t('leader') : role === 'follower' ? t('follower') : role === 'learner' ? t('learner') : role;
}

/** ` (12% of quota, 9.8 MB free)`: how full the file is (warning at 80 %) and what a defragmentation gives back. */
function quotaShare(s: MemberSpace): string {
  if (s.percentOfQuota === undefined || s.freeBytes === undefined) return '';
  return t(' ({0}% of quota, {1} free)', s.percentOfQuota < 1 ? s.percentOfQuota.toFixed(1) : String(Math.round(s.percentOfQuota)), formatBytes(s.freeBytes));
}

export function describeMember(m: EtcdMember, now = Date.now()): string {
  const parts = [m.name, m.id, ...memberFacts(m, now)];
  if (m.reachable) parts.push(t('db {0} (in use {1}) / quota {2}', formatBytes(m.dbSize), formatBytes(m.dbSizeInUse), formatBytes(m.quota)) + quotaShare(memberSpace(m)));
  if (m.alarms.length) parts.push(t('alarms {0}', m.alarms.join(',')));
  parts.push(m.healthy ? t('healthy') : t('DOWN: {0}', String(m.problem)));
  return parts.join(' · ');
}

export function renderText(model: LiveModel, v: Verdict, header: string, etcdError?: string, balancers?: BalancersModel): string {
  const out: string[] = [header, ''];
  if (model.hosts.length) {
    out.push(t('HOSTS'));
    const w = Math.max(...model.hosts.map((h) => h.host.length));
    for (const h of model.hosts) {
      const node = h.node ? t('node {0} {1}', h.node, h.readiness) : t('no node');
      const etcd = h.etcdMember ? ` · etcd ${h.etcdMember.name}${h.etcdMember.isLeader ? t(' (leader)') : ''}${h.etcdMember.healthy ? '' : ' DOWN'}` : '';
      out.push(`  ${h.host.padEnd(w)} ${h.address.padEnd(15)} ${h.roles.join(',').padEnd(14)} ${node}${h.kubeletVersion ? ` ${h.kubeletVersion}` : ''} · ${t('{0} kube-system pods', h.pods.length)}${etcd}`);
      if (h.leases.length) out.push(`  ${''.padEnd(w)} ${t('leases: {0}', h.leases.join(', '))}`);
    }
    out.push('');
  }
  out.push(t('CONTROL PLANE'));
  for (const n of model.controlPlane.nodes) {
    out.push(`  ${n.name}${n.host && n.host !== n.name ? ` (${n.host})` : ''} · ${n.readiness}${n.readyReason && n.readiness !== 'Ready' ? ` (${n.readyReason})` : ''}${n.taints.length ? t(' · taints {0}', n.taints.join(', ')) : ''}`);
    for (const c of n.components) out.push(`    ${c.podName || c.component}: ${describeComponent(c)}`);
  }
  if (model.controlPlane.addons.length) {
    out.push(`  ${t('add-ons:')}`);
    for (const a of model.controlPlane.addons) out.push(`    ${a.name} (${a.kind} ${a.namespace}) · ${t('ready {0}/{1}', a.ready, a.desired)}${a.healthy ? '' : t(' · NOT READY')}`);
  }
  out.push('', t('LEASES'));
  for (const l of model.leases.nodes) {
    const nr = l.notReadyInMs === undefined ? '' : l.notReadyInMs > 0 ? t(' · NotReady in {0} without renew', formatAge(l.notReadyInMs)) : t(' · past the node-monitor grace period');
    out.push(`  ${t('node {0} renewed {1} ago / {2}s · {3}{4}', l.node.padEnd(20), formatAge(l.sinceRenewMs), l.durationSeconds, leaseHealthWord(l.health), l.health === 'healthy' ? '' : nr)}`);
  }
  for (const l of model.leases.leaders) out.push(`  ${t('leader {0} · {1} ({2}) · transitions {3} · renewed {4} ago · {5}', l.name, l.inventoryHost ?? l.holderHost ?? '?', l.holderIdentity ?? t('no holder'), l.transitions, formatAge(l.sinceRenewMs), leaseHealthWord(l.health))}`);
  for (const l of model.leases.apiservers) out.push(`  ${t('apiserver {0} · {1} · renewed {2} ago · {3}', l.name, l.inventoryHost ?? l.hostname ?? '?', formatAge(l.sinceRenewMs), leaseHealthWord(l.health))}`);
  out.push('', ...renderEtcd(model.etcd, etcdError));
  if (balancers) out.push('', ...renderBalancers(balancers));
  out.push('', t('VERDICT: {0}', v.summary));
  for (const p of v.problems) out.push(`  ${p.severity === 'critical' ? '✗' : '!'} ${p.what}`);
  return out.join('\n') + '\n';
}

export function renderBalancers(b: BalancersModel): string[] {
  const out = [t('BALANCERS'), `  ${vipLine(b)}`];
  for (const lb of b.balancers) {
    const vrrp = lb.vrrp ? `${lb.vrrp.holdsVip ? t('holds the VIP on {0}', String(lb.vrrp.vipInterface)) : t('standby')} · ${lb.vrrp.keepalivedActive ? t('keepalived active') : t('keepalived NOT RUNNING')}${lb.vrrp.keepalivedState ? ` (${lb.vrrp.keepalivedState})` : ''}` : '';
    out.push(`  ${lb.host} ${lb.address} · ${[vrrp, balancerSummary(lb)].filter(Boolean).join(' · ')}`);
    const v = vrrpLine(lb);
    if (v) out.push(`    VRRP ${v}`);
    for (const s of lb.servers) out.push(`    ${s.backend}/${s.server} ${s.address} · ${s.state ? `${s.state.status}${s.state.check ? ` (${s.state.check})` : ''}` : t('state unknown')}`);
  }
  return out;
}

export function renderEtcd(etcd: EtcdModel | undefined, etcdError?: string): string[] {
  const out = [`ETCD${etcd ? t(' (via {0})', etcd.via) : ''}`];
  if (etcd) {
    for (const m of etcd.members) out.push(`  ${describeMember(m, etcd.fetchedAt)}`);
    out.push(`  ${etcd.quorumLine}`);
    for (const p of etcd.problems) out.push(`  ✗ ${p}`);
  } else out.push(`  ${etcdError ? t('not read: {0}', etcdError) : t('not read')}`);
  return out;
}
