/**
 * The drill's timeline: the pollers feed raw observations (what HAProxy, etcd, the API said at time t,
 * in ms since the fault began) and the observer derives the moments that matter — the first poll that
 * saw the server DOWN, the new etcd leader, the lease on another node, NotReady, the evictions, and
 * after the restore the way back. Pure: the same observations give the same timeline, so the report's
 * arithmetic is unit-tested without a cluster.
 */
import { holderNode } from '../drain/controlPlaneGuard';
import { isDown, isUp, type ServerState } from './haproxyState';
import { format, msg, t, type Message, type MessageArg } from '../l10n';

/** One etcd member's own status, as `endpoint status` returns it. */
export interface EtcdPoint {
  member: string;
  leader: string | undefined;
  term: number | undefined;
  index: number | undefined;
  applied: number | undefined;
}

export type Observation =
  | { source: 'api'; t: number; ok: boolean; ms: number; error?: string }
  | { source: 'haproxy'; t: number; balancer: string; state: ServerState }
  | { source: 'etcd'; t: number; via: string; points: EtcdPoint[] }
  | { source: 'lease'; t: number; name: string; holder: string | undefined }
  | { source: 'node'; t: number; ready: string; reason?: string | undefined; taints: string[] }
  | { source: 'pods'; t: number; pods: { key: string; deleting: boolean }[] }
  | { source: 'replicas'; t: number; key: string; ready: number; desired: number }
  /** The target's own kube-apiserver asked /readyz directly (recovery only). */
  | { source: 'apiserver'; t: number; ready: boolean }
  /** Whether a balancer holds the VIP (`ip -o addr`). */
  | { source: 'vip'; t: number; balancer: string; holds: boolean }
  /** The MAC a node's neighbour entry for the VIP points at (undefined: no entry). */
  | { source: 'neighbour'; t: number; host: string; mac: string | undefined }
  /** What the balancers' read (the Inventory view's and `status`'s) says of split brain: its problem, or undefined. */
  | { source: 'vrrp-verdict'; t: number; splitBrain: string | undefined };

export interface ObserverBaseline {
  role: 'control-plane' | 'worker' | 'loadbalancer';
  /** Balancer drills: which balancer failed, which should take the VIP, their MACs, what the recovery waits for. */
  vrrp?: { kind: 'move' | 'split-brain'; target: string; taker: string; macs: Record<string, string>; neighbour: string | undefined; preempt: boolean } | undefined;
  targetNode: string;
  /** Balancers with a checked server for the target. */
  balancers: string[];
  /** Whether the target's own API server answered /readyz from here before the fault (then its return is awaited). */
  apiserverProbed?: boolean;
  etcd?: {
    targetMember: string | undefined;
    leader: string | undefined;
    term: number | undefined;
    /** member id → name, for the narration. */
    names: Record<string, string>;
  };
  leases: { name: string; holder: string | undefined; onTarget: boolean }[];
  /** Keys (`ns/name`) of the target's pods that taint-based eviction can remove. */
  evictable: string[];
  /** ReplicaSets owning them, with their desired replicas. */
  replicaSets: { key: string; desired: number }[];
  waitForEvictions: boolean;
}

export interface DrillEvent {
  id: string;
  /** ms since the fault began. */
  t: number;
  /** What was seen, in English (the text of `drill --json`). */
  detail?: string;
  /** The same as a catalogue message, for the reader's language (detailOf). */
  said?: Said;
}

/** A message of the catalogue with its arguments, translated when it is read. */
export interface Said {
  message: Message;
  args: MessageArg[];
}

const said = (message: Message, ...args: MessageArg[]): Said => ({ message, args });

/** An event's detail in the catalogue's language. */
export function detailOf(e: DrillEvent): string | undefined {
  return e.said ? t(e.said.message, ...e.said.args) : e.detail;
}

export interface ApiSample {
  t: number;
  ok: boolean;
  error?: string | undefined;
}

export interface ObservedTimeline {
  events: Record<string, DrillEvent>;
  restoreAt: number | undefined;
  api: ApiSample[];
  etcd: { termBefore: number | undefined; termAfter: number | undefined; leaderAfter: string | undefined; leaderIndexAtRejoin: number | undefined; targetIndexAtRejoin: number | undefined };
  leaseHolders: Record<string, string | undefined>;
  lastHaproxy: Record<string, ServerState>;
  nodeReadyLast: string | undefined;
  /** Balancer drills: who held the VIP at the last poll. */
  vipHolders: string[];
}

const UNREACHABLE_TAINTS = ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/not-ready:NoExecute'];

export class DrillObserver {
  private readonly events = new Map<string, DrillEvent>();
  private readonly api: ApiSample[] = [];
  private restoreAt: number | undefined;
  private termAfter: number | undefined;
  private leaderAfter: string | undefined;
  private leaderIndexAtRejoin: number | undefined;
  private targetIndexAtRejoin: number | undefined;
  private readonly holders = new Map<string, string | undefined>();
  private readonly lastHaproxy = new Map<string, ServerState>();
  private nodeReadyLast: string | undefined;
  private evictedSeen = false;
  private readonly holds = new Map<string, boolean>();
  private readonly replicaState = new Map<string, boolean>();

  constructor(private readonly base: ObserverBaseline) {
    for (const l of base.leases) this.holders.set(l.name, l.holder);
  }

  private name(member: string | undefined): string {
    return member ? (this.base.etcd?.names[member] ?? member) : '?';
  }

  /** Records an event once; returns its narration line. A detail that is data (a state, a taint, an error) stays as seen. */
  private mark(id: string, at: number, detail?: string | Said): string[] {
    if (this.events.has(id)) return [];
    const event: DrillEvent = { id, t: at };
    if (typeof detail === 'string') event.detail = detail;
    else if (detail) Object.assign(event, { detail: format(detail.message, detail.args), said: detail });
    this.events.set(id, event);
    const shown = detailOf(event);
    return [`${id}${shown ? `: ${shown}` : ''}`];
  }

  /** The restore (power-on / start) began at t. */
  restoreStarted(t: number): void {
    this.restoreAt ??= t;
  }

  private inRecovery(t: number): boolean {
    return this.restoreAt !== undefined && t >= this.restoreAt;
  }

  /** Feeds one observation; returns the events it completed (for the live narration). */
  observe(o: Observation): string[] {
    const out: string[] = [];
    const recovering = this.inRecovery(o.t);
    switch (o.source) {
      case 'api':
        this.api.push({ t: o.t, ok: o.ok, ...(o.error ? { error: o.error } : {}) });
        if (!o.ok && !recovering) out.push(...this.mark('api-first-failure', o.t, o.error));
        break;
      case 'haproxy': {
        this.lastHaproxy.set(o.balancer, o.state);
        const check = o.state.check ? ` (${o.state.check})` : '';
        if (!recovering && isDown(o.state.status)) out.push(...this.mark(`haproxy-down@${o.balancer}`, o.t, `${o.state.status}${check}`));
        if (recovering && isUp(o.state.status)) out.push(...this.mark(`haproxy-up@${o.balancer}`, o.t, `${o.state.status}${check}`));
        break;
      }
      case 'etcd':
        out.push(...this.observeEtcd(o.t, o.points, recovering));
        break;
      case 'lease': {
        this.holders.set(o.name, o.holder);
        const b = this.base.leases.find((l) => l.name === o.name);
        if (!recovering && b?.onTarget && o.holder && holderNode(o.holder) !== this.base.targetNode) out.push(...this.mark(`lease@${o.name}`, o.t, said(msg('now held by {0}'), holderNode(o.holder))));
        break;
      }
      case 'node': {
        this.nodeReadyLast = o.ready;
        if (!recovering && o.ready !== 'True') out.push(...this.mark('node-notready', o.t, `Ready=${o.ready}${o.reason ? ` (${o.reason})` : ''}`));
        const taint = o.taints.find((x) => UNREACHABLE_TAINTS.includes(x));
        if (!recovering && taint) out.push(...this.mark('node-taint', o.t, taint));
        if (recovering && o.ready === 'True') out.push(...this.mark('node-ready', o.t));
        break;
      }
      case 'pods': {
        const present = new Map(o.pods.map((p) => [p.key, p.deleting]));
        const evictable = this.base.evictable;
        const marked = evictable.filter((k) => present.get(k) === true || !present.has(k));
        if (!recovering && marked.length) {
          this.evictedSeen = true;
          out.push(...this.mark('evictions-first', o.t, said(msg('{0}/{1} pods marked for deletion'), marked.length, evictable.length)));
          if (marked.length === evictable.length) out.push(...this.mark('evictions', o.t, said(msg('{0} pods marked for deletion'), evictable.length)));
        }
        // Terminating pods disappear once the returning kubelet confirms their containers are gone.
        if (recovering && this.evictedSeen && evictable.every((k) => !present.has(k))) out.push(...this.mark('pods-cleaned', o.t, said(msg('the evicted pods are deleted'))));
        break;
      }
      case 'apiserver':
        if (recovering && o.ready) out.push(...this.mark('apiserver-ready', o.t, '/readyz ok'));
        break;
      case 'vip':
      case 'neighbour':
      case 'vrrp-verdict':
        out.push(...this.observeVrrp(o, recovering));
        break;
      case 'replicas': {
        if (this.events.has('evictions-first') && !recovering) {
          this.replicaState.set(o.key, o.ready >= o.desired);
          if (this.base.replicaSets.every((r) => this.replicaState.get(r.key))) out.push(...this.mark('replicas', o.t, said(msg('{0} ReplicaSet(s) back to full strength on other nodes'), this.base.replicaSets.length)));
        }
        break;
      }
    }
    return out;
  }

  private observeEtcd(t: number, points: EtcdPoint[], recovering: boolean): string[] {
    const out: string[] = [];
    const e = this.base.etcd;
    if (!e) return out;
    const target = e.targetMember;
    const others = points.filter((p) => p.member !== target);
    // The highest term any member reports: a rejoining member that campaigned alone would raise it.
    for (const p of points) if (p.term !== undefined) this.termAfter = Math.max(this.termAfter ?? 0, p.term);
    for (const p of others) if (p.leader && p.leader !== '0') this.leaderAfter = p.leader;
    if (!recovering) {
      if (others.some((p) => !p.leader || p.leader === '0')) out.push(...this.mark('etcd-no-leader', t, said(msg('a surviving member has no leader (election running)'))));
      if (e.leader && e.leader === target) {
        const elected = others.find((p) => p.leader && p.leader !== '0' && p.leader !== target);
        if (elected) out.push(...this.mark('etcd-leader', t, said(msg('{0} elected, term {1} → {2}'), this.name(elected.leader), e.term ?? '?', elected.term ?? '?')));
      } else if (e.leader && others.some((p) => p.leader && p.leader !== '0' && p.leader !== e.leader)) {
        const p = others.find((x) => x.leader && x.leader !== '0' && x.leader !== e.leader)!;
        out.push(...this.mark('etcd-leader-changed', t, said(msg('leader changed to {0} although {1} was not the failed member'), this.name(p.leader), this.name(e.leader))));
      }
    } else if (target) {
      const mine = points.find((p) => p.member === target);
      if (mine && mine.leader && mine.leader !== '0') {
        if (!this.events.has('etcd-rejoin')) {
          const leader = points.find((p) => p.member === mine.leader);
          this.leaderIndexAtRejoin = leader?.index ?? mine.index;
          this.targetIndexAtRejoin = mine.applied ?? mine.index;
          out.push(...this.mark('etcd-rejoin', t, said(msg('follows {0}, term {1}'), this.name(mine.leader), mine.term ?? '?')));
        }
        const have = mine.applied ?? mine.index;
        if (have !== undefined && this.leaderIndexAtRejoin !== undefined && have >= this.leaderIndexAtRejoin) {
          out.push(...this.mark('etcd-caught-up', t, said(msg("raft index {0} ≥ leader's {1} at rejoin"), have, this.leaderIndexAtRejoin)));
        }
      }
    }
    return out;
  }

  private observeVrrp(o: Extract<Observation, { source: 'vip' | 'neighbour' | 'vrrp-verdict' }>, recovering: boolean): string[] {
    const v = this.base.vrrp;
    if (!v) return [];
    const owner = (mac: string | undefined) => Object.entries(v.macs).find(([, m]) => m === mac)?.[0];
    if (o.source === 'neighbour') {
      // split brain: both hold the VIP, so where the node sends its packets says nothing about a move
      if (v.kind !== 'move') return [];
      const who = owner(o.mac);
      if (!recovering && who && who !== v.target) return this.mark('neighbour-moved', o.t, said(msg("{0} sends the VIP's packets to {1} ({2})"), o.host, who, o.mac));
      if (recovering && v.kind === 'move' && who === v.target) return this.mark('neighbour-back', o.t, said(msg("{0} sends the VIP's packets to {1} again"), o.host, who));
      return [];
    }
    if (o.source === 'vrrp-verdict') return !recovering && o.splitBrain ? this.mark('split-brain-detected', o.t, o.splitBrain) : [];
    this.holds.set(o.balancer, o.holds);
    const holders = [...this.holds].filter(([, h]) => h).map(([b]) => b);
    if (v.kind === 'split-brain') {
      if (!recovering && holders.length > 1) return this.mark('split-brain', o.t, holders.length === 2 ? said(msg('{0} and {1} hold the VIP'), holders[0], holders[1]) : said(msg('{0} hold the VIP'), holders.join(' and ')));
      if (recovering && holders.length === 1) return this.mark('split-brain-healed', o.t, said(msg('only {0} holds the VIP'), holders[0]));
      return [];
    }
    if (!recovering && holders.length === 1 && holders[0] !== v.target) return this.mark('vip-moved', o.t, said(msg('on {0}'), holders[0]));
    if (recovering && holders.length === 1 && holders[0] === v.target) return this.mark('vip-back', o.t, said(msg('on {0} again'), v.target));
    return [];
  }

  has(id: string): boolean {
    return this.events.has(id);
  }

  event(id: string): DrillEvent | undefined {
    return this.events.get(id);
  }

  get restoreTime(): number | undefined {
    return this.restoreAt;
  }

  /** Everything the failure phase waits for has been seen. */
  failureComplete(): boolean {
    const b = this.base;
    if (b.vrrp) return b.vrrp.kind === 'split-brain' ? this.events.has('split-brain') && this.events.has('split-brain-detected') : this.events.has('vip-moved') && (!b.vrrp.neighbour || this.events.has('neighbour-moved'));
    const need: string[] = ['node-notready'];
    if (b.role === 'control-plane') {
      need.push(...b.balancers.map((x) => `haproxy-down@${x}`));
      if (b.etcd?.leader && b.etcd.leader === b.etcd.targetMember) need.push('etcd-leader');
      need.push(...b.leases.filter((l) => l.onTarget).map((l) => `lease@${l.name}`));
    }
    if (b.waitForEvictions && b.evictable.length) {
      need.push('evictions');
      if (b.replicaSets.length) need.push('replicas');
    }
    return need.every((id) => this.events.has(id));
  }

  /** Everything the recovery phase waits for has been seen. */
  recoveryComplete(): boolean {
    const b = this.base;
    // nopreempt: the VIP should stay; only the watch's limit ends it
    if (b.vrrp) return b.vrrp.kind === 'split-brain' ? this.events.has('split-brain-healed') : b.vrrp.preempt && this.events.has('vip-back') && (!b.vrrp.neighbour || this.events.has('neighbour-back'));
    const need: string[] = ['node-ready'];
    if (b.role === 'control-plane') {
      need.push(...b.balancers.map((x) => `haproxy-up@${x}`));
      if (b.apiserverProbed) need.push('apiserver-ready');
      if (b.etcd?.targetMember) need.push('etcd-caught-up');
    }
    if (this.evictedSeen) need.push('pods-cleaned');
    return need.every((id) => this.events.has(id));
  }

  timeline(): ObservedTimeline {
    return {
      events: Object.fromEntries(this.events),
      restoreAt: this.restoreAt,
      api: [...this.api],
      etcd: { termBefore: this.base.etcd?.term, termAfter: this.termAfter, leaderAfter: this.leaderAfter, leaderIndexAtRejoin: this.leaderIndexAtRejoin, targetIndexAtRejoin: this.targetIndexAtRejoin },
      leaseHolders: Object.fromEntries(this.holders),
      lastHaproxy: Object.fromEntries(this.lastHaproxy),
      nodeReadyLast: this.nodeReadyLast,
      vipHolders: [...this.holds].filter(([, h]) => h).map(([b]) => b),
    };
  }
}
