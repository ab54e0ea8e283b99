/**
 * What a balancer drill should measure, from the pair's own settings (keepalived.conf as it runs, checked against its
 * data dump) next to what the seed says. VRRP (RFC 3768, keepalived 2.2.7): a BACKUP takes the VIP when it has heard
 * no advert of at least its own priority for Master_Down_Interval = 3 × advert_int + skew, skew = (256 − priority)/256
 * × advert_int; a MASTER that stops gracefully sends priority 0 and the BACKUP takes over after the skew alone; a
 * vrrp_script failing `fall` times (every `interval` s) adds its negative weight to the holder's priority, and the
 * BACKUP, which ignores adverts below its own priority (preempt), takes the VIP a master-down interval after the last
 * one it accepted. Every bound counts from the fault (failure) or the restore (recovery), in seconds.
 */
import type { Expectation, FaultKind } from './expect';

export interface VrrpSide {
  host: string;
  /** Base priority (the file's `priority`) and the effective one keepalived runs with now. */
  priority: number;
  effective: number;
  advertSeconds: number;
  preempt: boolean;
  preemptDelaySeconds: number;
  /** The scripts that check HAProxy (they fail when it dies), with their weights and cadence. */
  haproxyScripts: { name: string; weight: number; intervalSeconds: number; fall: number; rise: number }[];
}

const round = (x: number): number => Math.round(x * 100) / 100;
const fmt = (x: number): string => `${round(x)} s`;

/** Master_Down_Interval of a balancer at a priority (its effective one). */
export function masterDown(advertSeconds: number, priority: number): number {
  return 3 * advertSeconds + skew(advertSeconds, priority);
}

export function skew(advertSeconds: number, priority: number): number {
  return ((256 - priority) / 256) * advertSeconds;
}

const SEED = 'the BACKUP takes the VIP when it hears no advert for Master_Down_Interval = 3 × advert_int + (256 − priority)/256 s (seed: 3 × 1 + (256 − 90)/256 = 3.65 s)';

/** The holder's priority once HAProxy died: its failing scripts' negative weights added, their positive ones lost. */
export function priorityWithoutHaproxy(holder: VrrpSide): number {
  return holder.effective + holder.haproxyScripts.reduce((a, s) => a + (s.weight < 0 ? s.weight : -s.weight), 0);
}

/** Whether HAProxy dying on the holder moves the VIP to `taker`, and the arithmetic that says so. */
export function blackHoleVerdict(holder: VrrpSide, taker: VrrpSide): { moves: boolean; why: string } {
  if (!holder.haproxyScripts.length) return { moves: false, why: `no vrrp_script tracked by ${holder.host}'s instance checks HAProxy, so its priority stays ${holder.effective} when HAProxy dies and the VIP never moves (black hole)` };
  if (holder.haproxyScripts.some((s) => s.weight === 0)) return { moves: true, why: `a failing check with weight 0 puts ${holder.host} in FAULT, which releases the VIP` };
  const after = priorityWithoutHaproxy(holder);
  // a negative weight counts while the check fails, a positive one only while it passes: both take the priority down
  const weights = holder.haproxyScripts.map((s) => `− ${Math.abs(s.weight)} (${s.name}${s.weight > 0 ? ' no longer adding' : ''})`).join(' ');
  if (after >= taker.effective) {
    const needed = taker.effective - holder.effective - 1 + holder.haproxyScripts.filter((s) => s.weight > 0).reduce((a, s) => a + s.weight, 0);
    return { moves: false, why: `when HAProxy dies ${holder.host}'s priority falls to ${holder.effective} ${weights} = ${after}, not below ${taker.host}'s ${taker.effective}: the VIP would never move (black hole); a weight of ${needed} or lower on ${holder.haproxyScripts.map((s) => s.name).join(', ')} moves it` };
  }
  if (!taker.preempt) return { moves: false, why: `${holder.host}'s priority would fall to ${after} < ${taker.host}'s ${taker.effective}, but ${taker.host} runs with nopreempt: it does not take the VIP from a live MASTER (black hole)` };
  return { moves: true, why: `${holder.effective} ${weights} = ${after} < ${taker.host}'s ${taker.effective}` };
}

/** Time until the holder's HAProxy checks have all failed: the first run within an interval, then fall − 1 more. */
function checksFail(holder: VrrpSide): { min: number; max: number; text: string } {
  const s = holder.haproxyScripts;
  const min = Math.min(...s.map((x) => (x.fall - 1) * x.intervalSeconds));
  const max = Math.max(...s.map((x) => x.fall * x.intervalSeconds));
  return { min, max, text: s.map((x) => `${x.name}: interval ${x.intervalSeconds} s × fall ${x.fall}`).join(', ') };
}

/** The VIP leaves the target for `taker` (failure phase): `vip-moved`, and the node's neighbour entry with it. */
export function vipMoveExpectations(kind: FaultKind, holder: VrrpSide, taker: VrrpSide, slack: number, neighbourHost: string | undefined): Expectation[] {
  const mdi = masterDown(taker.advertSeconds, taker.effective);
  const adv = taker.advertSeconds;
  let min: number;
  let max: number;
  let basis: string;
  if (kind === 'stop') {
    min = 0;
    max = skew(adv, taker.effective);
    basis = `keepalived stops gracefully: it sends an advert of priority 0, and ${taker.host} takes over after its skew (256 − ${taker.effective})/256 × ${adv} s = ${fmt(max)}`;
  } else if (kind === 'haproxy' && holder.haproxyScripts.some((x) => x.weight === 0)) {
    // weight 0: a failing script puts the instance in FAULT, which gives the VIP up with a priority-0 advert
    const c = checksFail(holder);
    min = c.min;
    max = c.max + skew(adv, taker.effective) + adv;
    basis = `the check fails (${c.text}: ${fmt(c.min)}–${fmt(c.max)}); its weight 0 puts ${holder.host} in FAULT, which releases the VIP with a priority-0 advert, and ${taker.host} takes it after its skew (256 − ${taker.effective})/256 × ${adv} s (+ up to one advert interval)`;
  } else if (kind === 'haproxy') {
    const c = checksFail(holder);
    min = Math.max(0, c.min + mdi - adv);
    max = c.max + mdi;
    basis = `the check fails (${c.text}: ${fmt(c.min)}–${fmt(c.max)}), ${holder.host}'s priority drops to ${priorityWithoutHaproxy(holder)} < ${taker.effective}, and ${taker.host}, which ignores adverts below its own priority, takes the VIP Master_Down_Interval 3 × ${adv} + (256 − ${taker.effective})/256 × ${adv} = ${fmt(mdi)} after the last one it accepted: interval × fall + Master_Down_Interval = ${fmt(max)}`;
  } else {
    min = Math.max(0, mdi - adv);
    max = mdi;
    basis = `${holder.host} goes silent; ${taker.host} takes the VIP Master_Down_Interval 3 × ${adv} + (256 − ${taker.effective})/256 × ${adv} = ${fmt(mdi)} after the last advert it heard, which came up to advert_int ${adv} s before the fault`;
  }
  const out: Expectation[] = [{ id: 'vip-moved', title: `the VIP moves to ${taker.host}`, phase: 'failure', min: round(min), max: round(max), basis, seed: SEED, slack }];
  if (neighbourHost) {
    out.push({ id: 'neighbour-moved', title: `${neighbourHost}'s neighbour entry for the VIP points at ${taker.host}`, phase: 'failure', min: round(min), max: round(max + 1), basis: `${taker.host} sends gratuitous ARP as it takes the VIP, which updates ${neighbourHost}'s ARP entry (+ 1 s: the kernel ignores a second update within locktime)`, seed: 'keepalived announces the VIP with gratuitous ARP so the L2 segment sends its packets to the new MASTER.', slack });
  }
  return out;
}

/** After the restore: back to the target (preempt) or stays on the taker (nopreempt). */
export function vipReturnExpectation(kind: FaultKind, target: VrrpSide, taker: VrrpSide, restoreLimit: number, slack: number): Expectation {
  if (!target.preempt) {
    return { id: 'vip-stays', title: `the VIP stays on ${taker.host} (nopreempt)`, phase: 'recovery', basis: `${target.host} runs with nopreempt: it comes back as BACKUP and leaves the VIP where it is`, slack, informational: true };
  }
  const mdi = masterDown(target.advertSeconds, target.priority);
  const delay = target.preemptDelaySeconds;
  if (kind === 'haproxy') {
    const rise = Math.max(...target.haproxyScripts.map((s) => s.rise * s.intervalSeconds));
    return { id: 'vip-back', title: `the VIP returns to ${target.host} (preempt)`, phase: 'recovery', max: round(rise + delay + mdi), basis: `HAProxy runs again; the check passes rise times (${fmt(rise)}), ${target.host}'s priority is ${target.priority} > ${taker.effective} again and it preempts${delay ? ` after preempt_delay ${delay} s` : ''} one Master_Down_Interval (${fmt(mdi)}) after the last advert it accepted`, seed: SEED, slack };
  }
  if (kind === 'stop') {
    return { id: 'vip-back', title: `the VIP returns to ${target.host} (preempt)`, phase: 'recovery', max: round(delay + mdi + 1), basis: `keepalived starts (about a second); with the higher priority ${target.priority} it takes the VIP back at once when it starts as MASTER, else one Master_Down_Interval (${fmt(mdi)}) later${delay ? ` after preempt_delay ${delay} s` : ''}`, seed: SEED, slack };
  }
  return { id: 'vip-back', title: `the VIP returns to ${target.host} (preempt)`, phase: 'recovery', max: restoreLimit, basis: `the host boots and keepalived starts; with the higher priority ${target.priority} it preempts within a Master_Down_Interval (${fmt(mdi)}) of its start; watched for up to ${fmt(restoreLimit)}`, seed: SEED, slack, informational: true };
}

/** Split brain: adverts blocked between the target and the others; the one not holding becomes MASTER too. */
export function splitBrainExpectations(holder: VrrpSide, other: VrrpSide, detectSeconds: number, slack: number): Expectation[] {
  const mdi = masterDown(other.advertSeconds, other.effective);
  return [
    { id: 'split-brain', title: `${other.host} becomes MASTER too: both hold the VIP (split brain)`, phase: 'failure', min: round(Math.max(0, mdi - other.advertSeconds)), max: round(mdi), basis: `${other.host} hears no advert and takes the VIP after Master_Down_Interval 3 × ${other.advertSeconds} + (256 − ${other.effective})/256 × ${other.advertSeconds} = ${fmt(mdi)}, while ${holder.host} keeps it`, seed: SEED, slack },
    {
      id: 'split-brain-detected',
      title: 'the live view and `status` report the split brain, with its cause',
      phase: 'failure',
      min: round(Math.max(0, mdi - other.advertSeconds)),
      max: round(mdi + detectSeconds),
      basis: `the balancers' read (the Inventory view's and \`status\`'s, every ${detectSeconds === 5 ? 'few' : detectSeconds} s) names it within ${detectSeconds} s of the second MASTER`,
      slack,
      after: { event: 'split-brain', min: 0, max: detectSeconds, basis: `counted from the second MASTER seen at {t} s: at most ${detectSeconds} s` },
    },
  ];
}

export function splitBrainHealExpectation(holder: VrrpSide, other: VrrpSide, slack: number): Expectation {
  const higher = holder.effective >= other.effective ? holder : other;
  const lower = higher === holder ? other : holder;
  return { id: 'split-brain-healed', title: `one MASTER again: ${lower.host} steps back`, phase: 'recovery', max: round(higher.advertSeconds), basis: `adverts flow again: ${lower.host} hears ${higher.host}'s priority ${higher.effective} at its next advert (every ${higher.advertSeconds} s) and becomes BACKUP`, slack };
}

/**
 * Requests through the VIP that may fail while it moves: the ones that start once the holder stopped serving and whose
 * SYN retries (the first one 1 s later, within the probe's 2 s timeout) all land before the new holder's gratuitous
 * ARP; and one in flight at the fault. `spacing`: seconds between two requests.
 */
export function allowedFailures(kind: FaultKind, moveMaxSeconds: number, spacingSeconds: number): { count: number; text: string } {
  if (kind === 'split-brain') return { count: 0, text: 'both balancers hold the VIP and run HAProxy: every request is served by one of them' };
  // a refused connection (HAProxy stopped, the address still there) fails at once, a silent host only until its SYN retry lands
  const window = kind === 'haproxy' || kind === 'stop' ? moveMaxSeconds : Math.max(0, moveMaxSeconds - 1);
  const count = Math.ceil(window / spacingSeconds) + 1;
  return {
    count,
    text: `${kind === 'haproxy' ? 'HAProxy refuses at once, so every request until the move fails' : kind === 'stop' ? 'requests until the other balancer answers' : 'requests whose SYN and its retry 1 s later both go to the silent holder'}: at most ⌈${round(window)} s / ${spacingSeconds} s⌉ + 1 in flight = ${count}`,
  };
}
