/**
 * Certificate renewal as a plan: one control-plane node at a time — the quorum guard, `kubeadm certs renew
 * all`, then its static pods restarted through the container runtime one component at a time with a
 * health gate after each (etcd healthy again before the API server goes; the API server answering /readyz
 * and serving the new certificate before the next node), then the user's kubeconfig refreshed.
 *
 * With balancers, the node's server is put in maintenance on every HAProxy before its etcd restarts (the API server
 * there talks only to its local etcd, so both restarts fail requests), the connections HAProxy still holds to it are
 * closed (clients' keep-alive connections would stay on it otherwise), and it is made ready again once its API server serves
 * the renewed certificate: clients through the VIP are never sent to a restarting node (HAProxy's health check alone
 * notices a stopped server only after its interval and fall count, and lets a few requests fail meanwhile).
 *
 * When the node's etcd member leads, the leadership is handed to another healthy voting member (`etcdctl move-leader`)
 * before that restart and the new leader is seen answering: a leader that just stops leaves the cluster without one
 * until the others' election timeout, and every API server's requests and /readyz wait on etcd meanwhile (through the
 * VIP too); a handed-over leadership costs no election. Before each node's server goes into maintenance, every other
 * control-plane server must be UP on every balancer (the gate the upgrade uses too): the previous node's server back by
 * its health check, not only made ready.
 *
 * Restarting through crictl (not moving manifests): the kubelet brings the same pod back within seconds
 * and the new process reads the renewed files; nothing of the pod spec changes. The leaf certificates are
 * renewed; the CAs are not (kubeadm cannot): a CA near its end is a warning in the plan.
 */
import { t } from '../l10n';
import { etcdctlCommand } from '../drill/commands';
import { HAPROXY_BACKEND } from '../generate/haproxy';
import { serverIs, serverIsOut, setServerState, takeServerOut } from '../nodes/commands';
import { othersUpGate } from '../nodes/haproxyGates';
import type { EtcdMember } from '../live/etcd';
import { etcdctlTlsArgs } from '../live/etcdSource';
import { sh, type RemoteCommand } from '../ssh/command';
import type { Plan, Step } from '../plan/types';

export interface RenewHooks {
  /** Refuses (throws) when taking this node's etcd member and API server down for a moment could cost quorum or the API. */
  guard(host: string, signal?: AbortSignal): Promise<void>;
  /** After the API server restarted: /readyz on the node, and it serves the renewed apiserver.crt. */
  apiServerBack(host: string, signal?: AbortSignal): Promise<void>;
  /**
   * Before the node's etcd restarts, when its member leads: the leadership moved to another healthy voting member
   * (one not in `upcoming`, the nodes renewed after this one, when there is such), returning once that member answers
   * as the leader. Does nothing when the member does not lead (the step's check usually skips it then).
   */
  moveLeader(host: string, upcoming: readonly string[], signal?: AbortSignal): Promise<void>;
  /** After the last node: write the renewed admin.conf into the user's kubeconfig (when asked). */
  refreshKubeconfig?: (host: string, signal?: AbortSignal) => Promise<void>;
}

/** The static pods kubeadm runs on a control-plane node. */
export type ControlPlaneComponent = 'etcd' | 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler';

/** The kubeconfig `kubeadm certs renew all` rewrites for each controller: what a running one must be restarted to read. */
const CONTROLLER_KUBECONFIG = {
  'kube-controller-manager': '/etc/kubernetes/controller-manager.conf',
  'kube-scheduler': '/etc/kubernetes/scheduler.conf',
} as const;

/** The running containers of `component` in `$ids`; a crictl that cannot answer fails the step instead of looking like "none running". */
function runningIds(component: ControlPlaneComponent): RemoteCommand {
  return sh`ids=$(crictl ps -q --name ${`^${component}$`} --state running) || exit 1`;
}

function notRunningNote(component: ControlPlaneComponent): RemoteCommand {
  return sh`echo ${`${component} is not running now: the kubelet starts it from the renewed files`} >&2`;
}

/**
 * Restarts `component` so that it reads the renewed files: its running container is stopped (SIGTERM, SIGKILL after
 * 20 s; crictl's own request deadline must outlast that, its 2 s default does not) and the kubelet starts it again
 * from the same static pod. When none runs at that moment there is nothing to stop.
 *  - kube-apiserver: killed 2 s after it closed its listener. By then its shutdown has done what matters (its address
 *    is off the `kubernetes` Service, lab: gone 1.5 s after SIGTERM) and no new request reaches it; what keeps it alive
 *    afterwards are the connections it never closes (kubernetes/kubernetes#131052), so every SIGTERM ended in the
 *    SIGKILL 20 s later (lab: listener closed after 0.2 s, 65 connections still held, stopped after 20.2 s). A request
 *    still running 2 s after the close is cut; its balancers' server is in maintenance by then, so only the node's own
 *    controllers still talk to it. Only a listener seen before the stop counts as closed: without `ss`, with a pid
 *    that does not listen or an `ss` that fails, it gets the full 20 s.
 *  - kube-controller-manager, kube-scheduler: only a container started before its kubeconfig was renewed. They exit
 *    when their API server restarts (lab: after the API server step, and again after etcd's) and the kubelet starts
 *    them with the renewed files; stopping such a one again only meets the kubelet's crash back-off (lab: 19 s for
 *    both). A start time that cannot be read counts as stale.
 */
export function restartComponentCommand(component: ControlPlaneComponent): RemoteCommand {
  const stop = sh`crictl --timeout 60s stop --timeout 20`;
  if (component === 'kube-apiserver') {
    return sh`{ ${apiServerListener()}; if [ -n "$ids" ]; then ${stop} $ids & stopper=$!; if [ -n "$pat" ]; then ${untilListenerClosed(100)}; if [ -n "$closed" ]; then sleep 2; ! kill -0 $stopper 2>/dev/null || crictl --timeout 60s stop --timeout 0 $ids >/dev/null; fi; fi; wait $stopper; else ${notRunningNote(component)}; fi; }`;
  }
  if (component === 'etcd') {
    return sh`{ ${runningIds(component)}; if [ -n "$ids" ]; then ${stop} $ids; else ${notRunningNote(component)}; fi; }`;
  }
  const kubeconfig = CONTROLLER_KUBECONFIG[component];
  const startedTemplate = '{{.status.startedAt}}';
  const fresh = `${component} started after ${kubeconfig} was renewed (it exited when its API server restarted): it runs with the renewed files`;
  return sh`{ ${runningIds(component)}; stale=; for id in $ids; do started=$(crictl inspect -o go-template --template ${startedTemplate} "$id") || exit 1; s=$(date -d "$started" +%s 2>/dev/null) && m=$(stat -c %Y ${kubeconfig} 2>/dev/null) && [ "$s" -gt "$m" ] || stale="$stale $id"; done; if [ -n "$stale" ]; then ${stop} $stale; elif [ -n "$ids" ]; then echo ${fresh} >&2; else ${notRunningNote(component)}; fi; }`;
}

/**
 * Sets `$ids` (the running API server containers) and `$pat` (their pids as an alternation, when one of them listens and
 * `ss` answers; else empty: then nobody knows when it closes its listener). A crictl that cannot answer exits.
 */
function apiServerListener(): RemoteCommand {
  const pidTemplate = '{{.info.pid}}';
  const listening = sh`out=$(ss -Hltnp) && echo "$out" | grep -qE "pid=($pat),"`;
  return sh`${runningIds('kube-apiserver')}; pat=; if [ -n "$ids" ]; then pids=$(for id in $ids; do crictl inspect -o go-template --template ${pidTemplate} "$id" || exit 1; done) || exit 1; if [ -n "$pids" ] && [ -z "$(echo $pids | tr -d '0-9 ')" ] && command -v ss >/dev/null 2>&1; then pat=$(echo $pids | tr ' ' '|'); ${listening} || pat=; fi; fi`;
}

/** Sets `$closed` once no pid of `$pat` listens any more, asked every 0.1 s `tenths` times at most (an ss that fails ends the wait). */
function untilListenerClosed(tenths: number): RemoteCommand {
  return sh`i=0; closed=; while [ $i -lt ${tenths} ]; do out=$(ss -Hltnp) || break; if ! echo "$out" | grep -qE "pid=($pat),"; then closed=1; break; fi; sleep 0.1; i=$((i+1)); done`;
}

/**
 * Beside a command whose kubelet restarts the API server (kubeadm's manifest phase: the kubelet stops the old container
 * with its 30 s grace period, which an API server with idle keep-alive connections uses up, kubernetes/kubernetes#131052):
 * the old one killed 2 s after it closed its listener, as the renewal's restart does. The node is out of the balancers
 * by then. Nothing is done when it never closes (its manifest did not change): the caller stops this watcher.
 */
export function killApiServerOnceClosed(): RemoteCommand {
  return sh`{ ${apiServerListener()}; if [ -n "$pat" ]; then ${untilListenerClosed(3000)}; if [ -n "$closed" ]; then sleep 2; crictl --timeout 60s stop --timeout 0 $ids >/dev/null 2>&1 && echo 'the stopping kube-apiserver was killed 2 s after it closed its listener' >&2; fi; fi; }`;
}

/** Exits 0 once `component` runs again (a new container: the one stopped is gone). */
export function componentRunningCommand(component: ControlPlaneComponent): RemoteCommand {
  return sh`crictl ps -q --name ${`^${component}$`} --state running | grep -q .`;
}

export function renewAllCommand(): RemoteCommand {
  return sh`kubeadm certs renew all`;
}

/**
 * Exits 0 when this node's etcd member answers and another member leads (the IDs from `endpoint status -w json`,
 * where etcdctl prints them as decimal numbers). A member that does not answer is not taken for a follower: the step
 * then asks the whole cluster.
 */
export function memberFollowsCommand(): RemoteCommand {
  const status = etcdctlCommand([...etcdctlTlsArgs(), 'endpoint', 'status', '-w', 'json']);
  return sh`s=$(${status}) || exit 1; me=$(echo "$s" | grep -o '"member_id": *[0-9]*' | head -n1 | tr -dc 0-9); lead=$(echo "$s" | grep -o '"leader": *[0-9]*' | head -n1 | tr -dc 0-9); test -n "$me" && test -n "$lead" && test "$lead" != 0 && test "$lead" != "$me"`;
}

/**
 * The member to hand the leadership to: a healthy, answering voting member other than `host`'s; preferably one whose
 * node is not renewed later in this run (`upcoming`), else the last in line, so the leadership moves once more at most.
 */
export function chooseNewLeader(members: readonly EtcdMember[], host: string, upcoming: readonly string[]): EtcdMember | undefined {
  const rank = (m: EtcdMember) => {
    const i = upcoming.indexOf(m.host ?? '');
    return i < 0 ? upcoming.length : i;
  };
  return members.filter((m) => m.host !== host && !m.isLearner && m.healthy && m.reachable).sort((a, b) => rank(b) - rank(a))[0];
}

/** `etcdctl move-leader` against this node's own member (the leader's endpoint, which etcdctl requires); IDs in hex. */
export function moveLeaderCommand(targetId: string): RemoteCommand {
  return etcdctlCommand([...etcdctlTlsArgs(), '--command-timeout=15s', 'move-leader', targetId]);
}

/** The balancers in front of the API servers, and each control-plane host's server name in their backend. */
export interface RenewBalancers {
  hosts: readonly string[];
  serverOf(host: string): string;
}

/**
 * A control-plane node's HAProxy server in maintenance (before its restarts) or ready again (after), on every balancer.
 * "Ready" is verified by UP: HAProxy checks a server as it leaves maintenance and reports it DOWN at once when that
 * check fails (HAProxy 2.6 on the lab: a closed port read "DOWN L4CON" right after `state ready`, a serving one "UP
 * L4OK"), so UP is a passed health check, not a state HAProxy assumes; the next node's gate asks for it again.
 */
function balancerSteps(host: string, lb: RenewBalancers | undefined, state: 'maint' | 'ready'): Step[] {
  if (!lb) return [];
  const server = lb.serverOf(host);
  return lb.hosts.map((b): Step => ({
    id: `renew-certs/${host}/haproxy-${state}@${b}`,
    phase: 'renew-certs',
    host: b,
    title: state === 'maint'
      ? t('HAProxy: {0} in maintenance and its open connections closed (no request through the VIP reaches {1}\'s API server while it restarts)', server, host)
      : t('HAProxy: {0} ready again, and UP by its health check', server),
    why: state === 'maint'
      ? t('a client through the VIP must never be sent to an API server that is restarting; maintenance stops new connections, and a client\'s keep-alive connection opened earlier must move too')
      : t('the node serves again through the VIP'),
    ...(state === 'ready' ? { check: serverIs(HAPROXY_BACKEND, server, 'UP') } : {}),
    run: state === 'maint' ? takeServerOut(HAPROXY_BACKEND, server) : setServerState(HAPROXY_BACKEND, server, 'ready'),
    verify: state === 'maint' ? serverIsOut(HAPROXY_BACKEND, server) : serverIs(HAPROXY_BACKEND, server, 'UP'),
    verifyTimeoutMs: state === 'maint' ? 20_000 : 120_000,
    timeoutMs: 30_000,
  }));
}

/** Every balancer: the other control-plane nodes' servers are UP there, before this node's goes into maintenance anywhere. */
function othersUpSteps(host: string, controlPlane: readonly string[], lb: RenewBalancers | undefined): Step[] {
  const others = controlPlane.filter((h) => h !== host);
  if (!lb || !others.length) return [];
  const gate = othersUpGate(host, lb.serverOf(host), others.map((o) => lb.serverOf(o)));
  return lb.hosts.map((b): Step => ({ id: `renew-certs/${host}/haproxy-others-up@${b}`, phase: 'renew-certs', host: b, ...gate }));
}

/** `controlPlane`: every control-plane node behind the balancers (the renewal may cover only some of them). */
export function buildRenewPlan(hosts: readonly string[], hooks: RenewHooks, warnings: string[], fingerprint: string, balancers?: RenewBalancers, controlPlane: readonly string[] = hosts): Plan {
  const steps: Step[] = [];
  for (const [i, host] of hosts.entries()) {
    steps.push(
      {
        id: `renew-certs/${host}/guard`,
        phase: 'renew-certs',
        host,
        title: t('quorum guard: the other etcd members and API servers must be healthy'),
        why: t('each restart takes this etcd member and API server away for seconds; the rest must carry the cluster meanwhile'),
        planDisplay: t('read etcd members and every other API server /readyz; refuse if one more member down would lose quorum'),
        action: (_v, signal) => hooks.guard(host, signal),
      },
      { id: `renew-certs/${host}/renew`, phase: 'renew-certs', host, title: t('kubeadm certs renew all'), why: t('new leaf certificates and kubeconfigs, same keys and CAs'), run: renewAllCommand(), timeoutMs: 120_000 },
      ...othersUpSteps(host, controlPlane, balancers),
      ...balancerSteps(host, balancers, 'maint'),
      {
        id: `renew-certs/${host}/move-leader`,
        phase: 'renew-certs',
        host,
        title: t('etcd: when this member leads, hand the leadership to another healthy voting member and see it answer'),
        why: t('a leader that restarts leaves etcd without one until an election, and every API server\'s requests wait on it meanwhile; a handed-over leadership takes no election'),
        check: memberFollowsCommand(),
        planDisplay: t('when this member leads: etcdctl move-leader <ID of a healthy voting member, one renewed already or else the last in line> against this member, then wait until that member answers as the leader'),
        action: (_v, signal) => hooks.moveLeader(host, hosts.slice(i + 1), signal),
      },
      {
        id: `renew-certs/${host}/etcd`,
        phase: 'renew-certs',
        host,
        title: t('restart etcd, wait until the member is healthy'),
        run: restartComponentCommand('etcd'),
        verify: etcdctlCommand([...etcdctlTlsArgs(), 'endpoint', 'health']),
        verifyTimeoutMs: 180_000,
        timeoutMs: 60_000,
      },
      {
        id: `renew-certs/${host}/apiserver`,
        phase: 'renew-certs',
        host,
        title: t('restart kube-apiserver, wait for /readyz and the renewed served certificate'),
        run: restartComponentCommand('kube-apiserver'),
        planDisplay: t('then: GET https://<node>:6443/readyz until ok; TLS handshake: served certificate = renewed apiserver.crt'),
        action: (_v, signal) => hooks.apiServerBack(host, signal),
        timeoutMs: 60_000,
      },
      ...balancerSteps(host, balancers, 'ready'),
      {
        id: `renew-certs/${host}/controllers`,
        phase: 'renew-certs',
        host,
        title: t('restart kube-controller-manager and kube-scheduler (they read the renewed kubeconfigs)'),
        run: sh`${restartComponentCommand('kube-controller-manager')} && ${restartComponentCommand('kube-scheduler')}`,
        verify: sh`${componentRunningCommand('kube-controller-manager')} && ${componentRunningCommand('kube-scheduler')}`,
        verifyTimeoutMs: 180_000,
        timeoutMs: 60_000,
      },
    );
  }
  if (hooks.refreshKubeconfig && hosts.length) {
    const first = hosts[0]!;
    const refresh = hooks.refreshKubeconfig;
    steps.push({
      id: `renew-certs/${first}/kubeconfig`,
      phase: 'renew-certs',
      host: first,
      title: t('refresh your kubeconfig\'s credentials from the renewed admin.conf'),
      planDisplay: t('read /etc/kubernetes/admin.conf on {0} (secret) and merge it into your kubeconfig (0600)', first),
      action: (_v, signal) => refresh(first, signal),
    });
  }
  return {
    fingerprint,
    phases: [{ phase: 'renew-certs', title: t('Renew certificates on {0}, one node at a time', hosts.join(', ')), order: 'serial', steps, warnings }],
  };
}
