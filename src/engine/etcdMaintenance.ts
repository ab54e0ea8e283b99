/**
 * etcd maintenance over SSH: the members' space read (status with alarms), and the rolling defragmentation and the
 * NOSPACE recovery prepared — refused before anything changes while a member is unhealthy, another run holds a host
 * (an upgrade, a renewal, a restore: the host locks of core/plan/locks.ts), or a member's absence would cost the
 * quorum — with their guards bound to this cluster (src/core/etcd/defragPlan.ts has the plans).
 */
import { join } from 'node:path';
import { checkControlPlaneDrain } from '../core/drain/controlPlaneGuard';
import { buildDefragPlan, buildNospacePlan, defragOrder, type DefragHooks, type NospaceHooks } from '../core/etcd/defragPlan';
import { describeSpace, expectedReclaim, memberSpace, type MemberSpace } from '../core/etcd/space';
import { hostsWithRole, type Inventory } from '../core/inventory/types';
import type { EtcdMember, EtcdModel } from '../core/live/etcd';
import { formatBytes } from '../core/live/format';
import { t } from '../core/l10n';
import { heldLocks } from './state/hostLocks';
import type { Plan } from '../core/plan/types';
import type { SudoOptions } from '../core/ssh/command';
import type { SshTransport } from '../core/ssh/transport';
import { readEtcdOverSsh } from './backup';

export interface EtcdDeps {
  inventory: Inventory;
  ssh: SshTransport;
  become: (host: string) => SudoOptions | undefined;
  /** `.kubeadm-workbench` beside the inventory: its locks/ say which hosts another run holds. */
  stateDir: string;
  say?: (line: string) => void;
}

/** One member's defragmentation, as measured by its gates. */
export interface MemberResult {
  host: string;
  name: string;
  before: MemberSpace;
  after?: MemberSpace;
  /** What the guard saw when it let this member go (the last time, on a resume): the quorum kept by the others. */
  guard?: GuardVerdict;
}

/** The quorum guard's reading before one member's defragmentation. */
export interface GuardVerdict {
  /** Epoch ms of the reading. */
  at: number;
  voting: number;
  /** Healthy voting members other than this one: they carry the cluster while it is defragmented. */
  healthyOthers: number;
  quorum: number;
}

export interface MaintenancePreparation {
  before: EtcdModel;
  /** The members in the plan's order (followers first, the leader last). */
  order: EtcdMember[];
  plan: Plan;
  refusals: string[];
  warnings: string[];
  expected: ReturnType<typeof expectedReclaim>;
  /** Filled by the run's gates, member by member. */
  results: Map<string, MemberResult>;
}

/** Every member as etcd reports it, with `alarm list`. */
export function readEtcdStatus(deps: Pick<EtcdDeps, 'inventory' | 'ssh' | 'become'>): Promise<EtcdModel> {
  return readEtcdOverSsh(deps, true);
}

/**
 * Healthy for a maintenance: answers and has a leader; in a NOSPACE recovery the NOSPACE alarm itself is expected.
 * A member that answers with an alarm has the alarm as its problem (core/live/etcd.ts puts alarms before errors and
 * a missing leader), so the alarms are read, not the problem's words, which are the display language's.
 */
function fit(m: EtcdMember, nospace: boolean): boolean {
  if (m.healthy) return true;
  return nospace && m.reachable && m.alarms.length > 0 && m.alarms.every((a) => a === 'NOSPACE') && m.problemKind === 'alarm';
}

async function refusalsOf(deps: EtcdDeps, model: EtcdModel, nospace: boolean): Promise<string[]> {
  const refusals: string[] = [];
  const unfit = model.members.filter((m) => !fit(m, nospace));
  if (unfit.length) {
    const names = unfit.map((m) => `${m.name} (${m.problem ?? t('unhealthy')})`).join(', ');
    refusals.push(unfit.length > 1 ? t('etcd members {0}: every member must be healthy first — a maintenance takes one more away for a while', names) : t('etcd member {0}: every member must be healthy first — a maintenance takes one more away for a while', names));
  }
  const corrupt = model.members.filter((m) => m.alarms.includes('CORRUPT'));
  if (corrupt.length) refusals.push(t('the CORRUPT alarm is on ({0}): a member\'s data differs from the others\'; it is not disarmed by maintenance — replace that member (kubeadm-workbench replace) or restore from a snapshot', corrupt.map((m) => m.name).join(', ')));
  if (!nospace && model.members.some((m) => m.alarms.includes('NOSPACE'))) refusals.push(t('the NOSPACE alarm is on: every write is refused; recover with `kubeadm-workbench etcd alarms --disarm` (compact, defragment every member, disarm, check a write)'));
  const voting = model.members.filter((m) => !m.isLearner);
  const healthyVoting = voting.filter((m) => fit(m, nospace)).length;
  if (voting.length && healthyVoting - 1 < Math.floor(voting.length / 2) + 1 && voting.length > 1) {
    refusals.push(t('etcd would lose quorum while a member is defragmented: {0} of {1} voting members healthy, quorum {2}', healthyVoting, voting.length, Math.floor(voting.length / 2) + 1));
  }
  const unmapped = model.members.filter((m) => !m.host);
  if (unmapped.length) {
    const names = unmapped.map((m) => m.name).join(', ');
    refusals.push(unmapped.length > 1 ? t('etcd members {0} belong to no inventory host: each member is defragmented over SSH on its own host', names) : t('etcd member {0} belongs to no inventory host: each member is defragmented over SSH on its own host', names));
  }
  const hosts = [...hostsWithRole(deps.inventory, 'control-plane'), ...hostsWithRole(deps.inventory, 'loadbalancer')].map((h) => h.name);
  for (const { host, owner } of await heldLocks(join(deps.stateDir, 'locks'), hosts)) {
    refusals.push(t('{0} is being changed by another run ({1}, pid {2}, since {3}: an upgrade, a renewal, a restore…); wait for it to end', host, owner.runId, owner.pid, owner.since));
  }
  return refusals;
}

function hooksFor(deps: EtcdDeps, nospace: boolean, results: Map<string, MemberResult>): NospaceHooks {
  const say = deps.say ?? (() => undefined);
  const read = () => readEtcdStatus(deps);
  return {
    guard: async (host) => {
      const model = await read();
      const verdict = checkControlPlaneDrain(host, model.members.filter((m) => !m.isLearner).map((m) => ({ nodeName: m.host ?? m.name, nodeReady: true, etcdHealthy: fit(m, nospace) })), []);
      const unfit = model.members.filter((m) => m.host !== host && !fit(m, nospace));
      const reasons = [...(verdict.ok ? [] : verdict.reasons), ...unfit.map((m) => t('etcd member {0} is unhealthy ({1})', m.name, m.problem ?? '?'))];
      if (reasons.length) throw new Error(t('refused by the etcd guard: {0}', [...new Set(reasons)].join(' ')));
      const self = model.members.find((m) => m.host === host);
      if (self && !results.has(host)) results.set(host, { host, name: self.name, before: memberSpace(self) });
      const voting = model.members.filter((m) => !m.isLearner);
      const r = results.get(host);
      if (r) r.guard = { at: Date.now(), voting: voting.length, healthyOthers: voting.filter((m) => m.host !== host && fit(m, nospace)).length, quorum: Math.floor(voting.length / 2) + 1 };
      if (self) say(`${host}: ${self.name} ${self.isLeader ? `${t('(leader)')} ` : ''}${describeSpace(memberSpace(self))}`);
    },
    measured: async (host) => {
      const model = await read();
      const self = model.members.find((m) => m.host === host);
      if (!self || !fit(self, nospace)) throw new Error(t('etcd member on {0} is not healthy after its defragmentation: {1}', host, self?.problem ?? t('not found')));
      const after = memberSpace(self);
      const r = results.get(host);
      if (r) r.after = after;
      say(`${host}: ${self.name} ${r ? `${formatBytes(r.before.dbSize)} → ` : ''}${describeSpace(after)}`);
    },
    belowQuota: async () => {
      const model = await read();
      const over = model.members.filter((m) => m.dbSize !== undefined && m.dbSize >= m.quota);
      if (over.length) {
        const members = over.map((m) => t('{0} {1}, {2} in use', m.name, describeSpace(memberSpace(m)), formatBytes(m.dbSizeInUse))).join('; ');
        throw new Error(t('still at or over the quota after compaction and defragmentation: {0}. The data itself fills the quota: raise --quota-backend-bytes (etcd.local.extraArgs, kubeadm-workbench reconfigure) or delete what fills it, then run this again', members));
      }
      for (const m of model.members) say(`${m.name}: ${describeSpace(memberSpace(m))}`);
    },
  };
}

async function prepare(deps: EtcdDeps, nospace: boolean): Promise<MaintenancePreparation> {
  const before = await readEtcdStatus(deps);
  const refusals = await refusalsOf(deps, before, nospace);
  const order = defragOrder(before.members);
  const expected = expectedReclaim(before);
  const results = new Map<string, MemberResult>();
  const hooks = hooksFor(deps, nospace, results);
  const warnings: string[] = [];
  if (!nospace) {
    warnings.push(t('expected to give back about {0} (free pages now: {1}); a member with less than 1 MiB free is skipped', formatBytes(expected.total), expected.perMember.map((m) => `${m.name} ${formatBytes(m.bytes)}`).join(', ')));
  } else {
    const full = before.members.filter((m) => m.dbSizeInUse !== undefined && m.dbSizeInUse >= 0.9 * m.quota);
    const members = full.map((m) => t('{0} has {1} in use of {2}', m.name, formatBytes(m.dbSizeInUse), formatBytes(m.quota))).join('; ');
    if (full.length) warnings.push(t('{0}: compaction frees only old revisions; if the live data fills the quota the recovery stops before the disarm', members));
  }
  const helper = order.find((m) => m.healthy || fit(m, true))?.host ?? hostsWithRole(deps.inventory, 'control-plane')[0]?.name ?? '';
  const plan = nospace
    ? buildNospacePlan({ inventory: deps.inventory, members: order, hooks, helper, warnings })
    : buildDefragPlan({ inventory: deps.inventory, members: order, hooks: hooks as DefragHooks, warnings });
  return { before, order, plan, refusals, warnings, expected, results };
}

/** The rolling defragmentation, followers first, the leader last; refused while anything is unwell. */
export function prepareDefrag(deps: EtcdDeps): Promise<MaintenancePreparation> {
  return prepare(deps, false);
}

/** The guided NOSPACE recovery: compaction, every member defragmented, the disarm, a write. */
export function prepareNospaceRecovery(deps: EtcdDeps): Promise<MaintenancePreparation> {
  return prepare(deps, true);
}
