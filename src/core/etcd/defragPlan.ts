/**
 * etcd maintenance as plans of the plan engine: the rolling defragmentation and the NOSPACE recovery.
 *
 * Rolling defragmentation (etcd's operations guide): one member at a time, the followers first and the leader last.
 * `etcdctl defrag` rewrites the member's database file without its free pages; meanwhile that member serves no reads
 * or writes, and on a stacked-etcd node its API server talks to no other member — so, as the upgrade does around a
 * restart, the node's API server leaves every balancer first (the shared steps of nodes/haproxyGates.ts) and comes back
 * once it answers /readyz itself. A leader being defragmented applies nothing, so every write and quorum read of the
 * whole cluster waits for it (etcd-io/etcd#15477; OpenShift's etcd operator and etcd-defrag move the leader first):
 * before its own defragmentation the leader hands its leadership to the member defragmented just before it, a planned
 * transfer that elects it at once, and is then defragmented as a follower. Each member has a guard before (every member healthy, the quorum kept without it)
 * and a health gate after (the member answers its health check; its size is read again). A member with little to
 * give back (under `DEFRAG_MIN_FREE_BYTES` of free pages) is skipped: that is also what a resumed run finds of the
 * members it did before.
 *
 * NOSPACE recovery (etcd's "space quota" runbook): with the alarm on, every write is refused. Compact the keyspace to
 * the current revision (the history a stopped compaction let pile up), defragment every member (no balancer steps: the
 * cluster takes no writes anyway, and every second counts — Node heartbeats stopped with the alarm), check that every
 * member's file is under its quota, disarm, and prove a write works.
 */
import { t } from '../l10n';
import { etcdctlCommand } from '../drill/commands';
import { hostsWithRole, type HostSpec, type Inventory } from '../inventory/types';
import type { EtcdMember } from '../live/etcd';
import { etcdctlTlsArgs } from '../live/etcdSource';
import { balancersIn, balancersOut, GATE_RERUN } from '../nodes/haproxyGates';
import type { PhaseId, Plan, RunValues, Step } from '../plan/types';
import { ownApiServerReady } from '../upgrade/commands';
import { sh, type RemoteCommand } from '../ssh/command';

/** A member with less free space in its file than this is not worth a defragmentation (and was likely just done). */
export const DEFRAG_MIN_FREE_BYTES = 1024 * 1024;

/** How long one member's defragmentation may take: it rewrites the whole file (minutes for gigabytes). */
const DEFRAG_TIMEOUT_S = 600;

/** The key a NOSPACE recovery writes and deletes to prove writes work again: outside the API server's /registry. */
export const WRITE_CHECK_KEY = '/kubeadm-workbench/write-check';

export interface DefragHooks {
  /** Before a member's defragmentation: refuses (throws) unless every member is healthy and the quorum holds without it. */
  guard(host: string, signal?: AbortSignal): Promise<void>;
  /** After it: the member's size read again and told (before → after). */
  measured(host: string, signal?: AbortSignal): Promise<void>;
}

export interface NospaceHooks extends DefragHooks {
  /** Before the disarm: every member's file is under its quota again (else the alarm would be raised by the next write). */
  belowQuota(signal?: AbortSignal): Promise<void>;
}

/** The members to defragment, in order: the followers (and learners) by name, the leader last; only those on a host. */
export function defragOrder(members: readonly EtcdMember[]): EtcdMember[] {
  const onHost = members.filter((m) => m.host);
  return [...onHost.filter((m) => !m.isLeader).sort((a, b) => a.name.localeCompare(b.name)), ...onHost.filter((m) => m.isLeader)];
}

const statusJson = () => etcdctlCommand([...etcdctlTlsArgs(), 'endpoint', 'status', '-w', 'json']);

/** Exits 0 when this node's member has less than `minBytes` of free pages (dbSize − dbSizeInUse): nothing to give back. */
export function littleToReclaim(minBytes = DEFRAG_MIN_FREE_BYTES): RemoteCommand {
  return sh`s=$(${statusJson()}) || exit 1; size=$(echo "$s" | grep -o '"dbSize": *[0-9]*' | head -n1 | tr -dc 0-9); used=$(echo "$s" | grep -o '"dbSizeInUse": *[0-9]*' | head -n1 | tr -dc 0-9); test -n "$size" && test -n "$used" && test $((size - used)) -lt ${minBytes}`;
}

/** `etcdctl defrag` of this node's member only (its own endpoint), with the time a large file needs. */
export function defragCommand(): RemoteCommand {
  return etcdctlCommand([...etcdctlTlsArgs(), `--command-timeout=${DEFRAG_TIMEOUT_S}s`, 'defrag']);
}

/** Exits 0 when this node's member is not the leader (its status names another member as leader). */
export function notLeader(): RemoteCommand {
  return sh`s=$(${statusJson()}) || exit 1; id=$(echo "$s" | grep -o '"member_id": *[0-9]*' | head -n1 | tr -dc 0-9); leader=$(echo "$s" | grep -o '"leader": *[0-9]*' | head -n1 | tr -dc 0-9); test -n "$id" && test -n "$leader" && test "$id" != "$leader"`;
}

/** `etcdctl move-leader` from this node's member (the leader) to the member with hex id `to`. */
export function moveLeaderCommand(to: string): RemoteCommand {
  if (!/^[0-9a-f]{1,16}$/.test(to)) throw new Error(`not an etcd member id: ${to}`);
  return etcdctlCommand([...etcdctlTlsArgs(), 'move-leader', to]);
}

export function memberHealthy(): RemoteCommand {
  return etcdctlCommand([...etcdctlTlsArgs(), 'endpoint', 'health']);
}

/** The member answers its status (what a NOSPACE recovery asks: `endpoint health` fails on any active alarm). */
export function memberAnswers(): RemoteCommand {
  return sh`${statusJson()} >/dev/null`;
}

/**
 * Compacts the keyspace to the current revision (read from this member's status), physically: the freed pages exist
 * once it returns. A revision already compacted (a repeated step, or the API server's own compaction in between)
 * counts as done.
 */
export function compactToCurrentRevision(): RemoteCommand {
  const compact = etcdctlCommand([...etcdctlTlsArgs(), '--command-timeout=120s', 'compaction', '--physical', sh`"$rev"`]);
  return sh`s=$(${statusJson()}) || exit 1; rev=$(echo "$s" | grep -o '"revision": *[0-9]*' | head -n1 | tr -dc 0-9); test -n "$rev" || { echo 'no revision in the status' >&2; exit 1; }; out=$(${compact} 2>&1) && echo "$out" && echo "compacted to revision $rev" || { echo "$out" | grep -q 'required revision has been compacted' && echo "revision $rev was compacted already"; } || { echo "$out" >&2; exit 1; }`;
}

/** Exits 0 when etcd reports no alarm. */
export function noAlarms(): RemoteCommand {
  return sh`a=$(${etcdctlCommand([...etcdctlTlsArgs(), 'alarm', 'list'])}) && test -z "$(echo "$a" | tr -d '[:space:]')" || { echo "alarms: $a" >&2; exit 1; }`;
}

export function disarmCommand(): RemoteCommand {
  return etcdctlCommand([...etcdctlTlsArgs(), 'alarm', 'disarm']);
}

/** A write and its delete of one key outside the API server's keys: fails while writes are refused. */
export function writeCheckCommand(): RemoteCommand {
  const tls = etcdctlTlsArgs();
  return sh`${etcdctlCommand([...tls, 'put', WRITE_CHECK_KEY, sh`"$(date +%s)"`])} >/dev/null && ${etcdctlCommand([...tls, 'del', WRITE_CHECK_KEY])} >/dev/null && echo 'a write and a delete went through'`;
}

interface MemberStepsInput {
  inventory: Inventory;
  phase: PhaseId;
  member: EtcdMember;
  hooks: DefragHooks;
  /** Take the node's API server out of the balancers around the defragmentation. */
  balancers: boolean;
  /** For the leader: the member its leadership goes to before its defragmentation (one defragmented already). */
  transferee?: EtcdMember;
}

/** One member: guard, (out of the balancers), defrag, healthy and measured, (own /readyz, back in the balancers). */
function memberSteps({ inventory, phase, member, hooks, balancers, transferee }: MemberStepsInput): Step[] {
  const host = inventory.hosts.find((h) => h.name === member.host) as HostSpec;
  const step = (on: string, key: string, rest: Omit<Step, 'id' | 'phase' | 'host'>): Step => ({ id: `${phase}/${on}/${key}`, phase, host: on, ...rest });
  const role = member.isLeader ? t('the leader, last') : member.isLearner ? t('a learner') : t('a follower');
  const behind = balancers && hostsWithRole(inventory, 'loadbalancer').length > 0 && host.roles.includes('control-plane');
  const balancerStep = (b: string, key: string, rest: Omit<Step, 'id' | 'phase' | 'host'>) => step(b, `haproxy-${key}-${host.name}`, rest);
  const steps: Step[] = [
    step(host.name, 'guard', {
      title: t('etcd guard: every member healthy and the quorum kept without {0} ({1})', member.name, role),
      why: t('a member being defragmented serves nothing; the others must carry the cluster meanwhile'),
      planDisplay: t('read every member over SSH; refuse when one is unhealthy or the others alone would have no quorum'),
      rerun: GATE_RERUN,
      action: (_v, signal) => hooks.guard(host.name, signal),
    }),
  ];
  // Whether the member has anything to give back, asked once: its balancer steps are skipped with the defrag when it has
  // not (a node out of the balancers for nothing is a risk for nothing).
  const key = `defrag-needed:${host.name}`;
  const notNeeded = (values: RunValues) => values.get(key) === 'no';
  if (behind) {
    steps.push(step(host.name, 'needed', {
      title: t('does {0} have more than {1} MiB of free pages to give back? (its balancer steps are skipped when not)', member.name, DEFRAG_MIN_FREE_BYTES / 1024 / 1024),
      rerun: GATE_RERUN,
      run: sh`if ${littleToReclaim()}; then echo defrag-needed=no; else echo defrag-needed=yes; fi`,
      capture: (stdout) => ({ [key]: /defrag-needed=no/.test(stdout) ? 'no' : 'yes' }),
    }));
    steps.push(...balancersOut(inventory, host, { step: balancerStep, restart: t('its etcd member is defragmented'), skipWhen: notNeeded }));
  }
  if (transferee) {
    steps.push(step(host.name, 'move-leader', {
      title: t('etcd leadership from {0} to {1} (defragmented already), so that no write waits for this defragmentation', member.name, transferee.name),
      why: t('a leader being defragmented applies nothing, and every write and quorum read of the cluster waits for it; a planned transfer elects the new leader at once, without an election timeout'),
      // Skipped when it is no longer the leader (an election meanwhile, a resumed run) or has nothing to give back.
      check: sh`(${notLeader()}) || (${littleToReclaim()})`,
      run: moveLeaderCommand(transferee.id),
      verify: notLeader(),
      verifyTimeoutMs: 15_000,
    }));
  }
  steps.push(
    step(host.name, 'defrag', {
      title: t('etcdctl defrag of {0} (this member only)', member.name),
      why: t('rewrites the database file without its free pages; they go back to the file system and the quota'),
      // Under NOSPACE every member is defragmented: with writes refused, pages freed by the compaction may still be
      // pending in the file (released by the next write transaction) and would not count as free.
      ...(phase === 'etcd-nospace' ? { rerun: 'under NOSPACE every member is defragmented; doing it again is harmless' } : { check: littleToReclaim() }),
      run: defragCommand(),
      // Under the NOSPACE alarm `endpoint health` fails whatever the member's state: answering is what is asked then.
      verify: phase === 'etcd-nospace' ? memberAnswers() : memberHealthy(),
      verifyTimeoutMs: 60_000,
      timeoutMs: (DEFRAG_TIMEOUT_S + 30) * 1000,
    }),
    step(host.name, 'measured', {
      title: t('{0} healthy, its database size read again', member.name),
      rerun: GATE_RERUN,
      planDisplay: t('read the member\'s status: DB size and in use, before → after'),
      action: (_v, signal) => hooks.measured(host.name, signal),
    }),
  );
  if (behind) {
    steps.push(
      step(host.name, 'own-readyz', {
        title: t('{0}\'s own API server answers /readyz (asked at {1}, not through the VIP)', host.name, host.address),
        rerun: GATE_RERUN,
        skipWhen: notNeeded,
        verify: ownApiServerReady(host.address),
        verifyTimeoutMs: 2 * 60_000,
      }),
      ...balancersIn(inventory, host, { step: balancerStep }),
    );
  }
  return steps;
}

export interface DefragPlanInput {
  inventory: Inventory;
  /** In the order of `defragOrder`. */
  members: readonly EtcdMember[];
  hooks: DefragHooks;
  warnings?: string[];
}

/** Where the leader's leadership goes before its defragmentation: the voting member defragmented last before it. */
export function leaderTransferee(order: readonly EtcdMember[], i: number): EtcdMember | undefined {
  return order[i]?.isLeader ? order.slice(0, i).reverse().find((m) => !m.isLearner && !m.isLeader) : undefined;
}

export function buildDefragPlan(input: DefragPlanInput): Plan {
  const { inventory, members } = input;
  const steps = members.flatMap((member, i) => {
    const transferee = leaderTransferee(members, i);
    return memberSteps({ inventory, phase: 'etcd-defrag', member, hooks: input.hooks, balancers: true, transferee });
  });
  return {
    fingerprint: `etcd-defrag:${inventory.cluster.name}:${members.map((m) => m.host).sort().join(',')}`,
    phases: [{ phase: 'etcd-defrag', title: t('Defragment etcd one member at a time: {0} (the leader last)', members.map((m) => m.name).join(', ')), order: 'serial', steps, warnings: input.warnings ?? [] }],
  };
}

export interface NospacePlanInput extends Omit<DefragPlanInput, 'hooks'> {
  hooks: NospaceHooks;
  /** The control-plane host the cluster-wide steps (compaction, disarm, write check) run on. */
  helper: string;
}

export function buildNospacePlan(input: NospacePlanInput): Plan {
  const { inventory, members, helper } = input;
  const phase = 'etcd-nospace';
  const step = (key: string, rest: Omit<Step, 'id' | 'phase' | 'host'>): Step => ({ id: `${phase}/${helper}/${key}`, phase, host: helper, ...rest });
  const steps: Step[] = [
    step('compact', {
      title: t('compact the keyspace to the current revision (physically)'),
      why: t('the history a stopped compaction let pile up is what usually fills the quota; compaction frees it inside the file'),
      rerun: 'compacting to the current revision again is harmless (an already compacted revision counts as done)',
      run: compactToCurrentRevision(),
      timeoutMs: 150_000,
    }),
    ...members.flatMap((member) => memberSteps({ inventory, phase, member, hooks: input.hooks, balancers: false })),
    step('below-quota', {
      title: "every member's database file is under its quota again",
      why: t('a disarm while a file is still over its quota is undone by the next write'),
      rerun: GATE_RERUN,
      planDisplay: t('read every member: DB size < quota, else stop with what is taking the space'),
      action: (_v, signal) => input.hooks.belowQuota(signal),
    }),
    step('disarm', { title: t('etcdctl alarm disarm'), check: noAlarms(), run: disarmCommand(), verify: noAlarms(), verifyTimeoutMs: 30_000 }),
    step('write-check', {
      title: t('writes work again: put and delete {0}', WRITE_CHECK_KEY),
      rerun: 'it is the proof: one key outside the API server\'s keys written and deleted',
      run: writeCheckCommand(),
      timeoutMs: 30_000,
    }),
  ];
  return {
    fingerprint: `etcd-nospace:${inventory.cluster.name}:${members.map((m) => m.host).sort().join(',')}`,
    phases: [{ phase, title: t('Recover etcd from NOSPACE: compact, defragment {0}, disarm, write', members.map((m) => m.name).join(', ')), order: 'serial', steps, warnings: input.warnings ?? [] }],
  };
}
