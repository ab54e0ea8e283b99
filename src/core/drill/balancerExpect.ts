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
import { t } from '../l10n';

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
const fmt = (x: number): string => t('{0} s', round(x));

/** Master_Down_Interval of a balancer at a priority (its effective one). */
export function masterDown(advertSeconds: number, priority: number): number {
  return 3 * advertSeconds + skew(advertSeconds, priority);
}

export function skew(advertSeconds: number, priority: number): number {
  return ((256 - priority) / 256) * advertSeconds;
}

/** What the seed says (read when a plan is made: the language is set by then). */
const seed = (): string => t('the BACKUP takes the VIP when it hears no advert for Master_Down_Interval = 3 × advert_int + (256 − priority)/256 s (seed: 3 × 1 + (256 − 90)/256 = 3.65 s)');

/** The holder's priority once HAProxy died: its failing scripts' negative weights added, their positive ones lost. */
export function priorityWithoutHaproxy(holder: VrrpSide): number {
  return holder.effective + holder.haproxyScripts.reduce((a, s) => a + (s.weight < 0 ? s.weight : -s.weight), 0);
}

/** Whether HAProxy dying on the holder moves the VIP to `taker`, and the arithmetic that says so. */
export function blackHoleVerdict(holder: VrrpSide, taker: VrrpSide): { moves: boolean; why: string } {
  if (!holder.haproxyScripts.length) return { moves: false, why: t("no vrrp_script tracked by {0}'s instance checks HAProxy, so its priority stays {1} when HAProxy dies and the VIP never moves (black hole)", holder.host, holder.effective) };
  if (holder.haproxyScripts.some((s) => s.weight === 0)) return { moves: true, why: t('a failing check with weight 0 puts {0} in FAULT, which releases the VIP', holder.host) };
  const after = priorityWithoutHaproxy(holder);
  // a negative weight counts while the check fails, a positive one only while it passes: both take the priority down
  const weights = holder.haproxyScripts.map((s) => `− ${Math.abs(s.weight)} (${s.weight > 0 ? t('{0} no longer adding', s.name) : s.name})`).join(' ');
  if (after >= taker.effective) {
    const needed = taker.effective - holder.effective - 1 + holder.haproxyScripts.filter((s) => s.weight > 0).reduce((a, s) => a + s.weight, 0);
    return { moves: false, why: t("when HAProxy dies {0}'s priority falls to {1} {2} = {3}, not below {4}'s {5}: the VIP would never move (black hole); a weight of {6} or lower on {7} moves it", holder.host, holder.effective, weights, after, taker.host, taker.effective, needed, holder.haproxyScripts.map((s) => s.name).join(', ')) };
  }
  if (!taker.preempt) return { moves: false, why: t("{0}'s priority would fall to {1} < {2}'s {3}, but {2} runs with nopreempt: it does not take the VIP from a live MASTER (black hole)", holder.host, after, taker.host, taker.effective) };
  return { moves: true, why: t("{0} {1} = {2} < {3}'s {4}", holder.effective, weights, after, taker.host, taker.effective) };
}

/** Time until the holder's HAProxy checks have all failed: the first run within an interval, then fall − 1 more. */
function checksFail(holder: VrrpSide): { min: number; max: number; text: string } {
  const s = holder.haproxyScripts;
  const min = Math.min(...s.map((x) => (x.fall - 1) * x.intervalSeconds));
  const max = Math.max(...s.map((x) => x.fall * x.intervalSeconds));
  return { min, max, text: s.map((x) => t('{0}: interval {1} s × fall {2}', x.name, x.intervalSeconds, x.fall)).join(', ') };
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
    basis = t('keepalived stops gracefully: it sends an advert of priority 0, and {0} takes over after its skew (256 − {1})/256 × {2} s = {3}', taker.host, taker.effective, adv, fmt(max));
  } else if (kind === 'haproxy' && holder.haproxyScripts.some((x) => x.weight === 0)) {
    // weight 0: a failing script puts the instance in FAULT, which gives the VIP up with a priority-0 advert
    const c = checksFail(holder);
    min = c.min;
    max = c.max + skew(adv, taker.effective) + adv;
    basis = t('the check fails ({0}: {1}–{2}); its weight 0 puts {3} in FAULT, which releases the VIP with a priority-0 advert, and {4} takes it after its skew (256 − {5})/256 × {6} s (+ up to one advert interval)', c.text, fmt(c.min), fmt(c.max), holder.host, taker.host, taker.effective, adv);
  } else if (kind === 'haproxy' && priorityWithoutHaproxy(holder) >= taker.effective) {
    // the refused plan (blackHoleVerdict) still shows what was expected: in words that hold, not "95 < 90"
    const c = checksFail(holder);
    min = Math.max(0, c.min + mdi - adv);
    max = c.max + mdi;
    basis = t("the check fails ({0}: {1}–{2}), but {3}'s priority drops only to {4}, not below {5}'s {6}: {5} never takes the VIP (a black hole, so the drill is refused)", c.text, fmt(c.min), fmt(c.max), holder.host, priorityWithoutHaproxy(holder), taker.host, taker.effective);
  } else if (kind === 'haproxy') {
    const c = checksFail(holder);
    min = Math.max(0, c.min + mdi - adv);
    max = c.max + mdi;
    basis = t("the check fails ({0}: {1}–{2}), {3}'s priority drops to {4} < {5}, and {6}, which ignores adverts below its own priority, takes the VIP Master_Down_Interval 3 × {7} + (256 − {5})/256 × {7} = {8} after the last one it accepted: interval × fall + Master_Down_Interval = {9}", c.text, fmt(c.min), fmt(c.max), holder.host, priorityWithoutHaproxy(holder), taker.effective, taker.host, adv, fmt(mdi), fmt(max));
  } else {
    min = Math.max(0, mdi - adv);
    max = mdi;
    basis = t('{0} goes silent; {1} takes the VIP Master_Down_Interval 3 × {2} + (256 − {3})/256 × {2} = {4} after the last advert it heard, which came up to advert_int {2} s before the fault', holder.host, taker.host, adv, taker.effective, fmt(mdi));
  }
  const out: Expectation[] = [{ id: 'vip-moved', title: t('the VIP moves to {0}', taker.host), phase: 'failure', min: round(min), max: round(max), basis, seed: seed(), slack }];
  if (neighbourHost) {
    out.push({ id: 'neighbour-moved', title: t("{0}'s neighbour entry for the VIP points at {1}", neighbourHost, taker.host), phase: 'failure', min: round(min), max: round(max + 1), basis: t("{0} sends gratuitous ARP as it takes the VIP, which updates {1}'s ARP entry (+ 1 s: the kernel ignores a second update within locktime)", taker.host, neighbourHost), seed: t('keepalived announces the VIP with gratuitous ARP so the L2 segment sends its packets to the new MASTER.'), slack });
  }
  return out;
}

/** After the restore: back to the target (preempt) or stays on the taker (nopreempt). */
export function vipReturnExpectation(kind: FaultKind, target: VrrpSide, taker: VrrpSide, restoreLimit: number, slack: number): Expectation {
  if (!target.preempt) {
    return { id: 'vip-stays', title: t('the VIP stays on {0} (nopreempt)', taker.host), phase: 'recovery', basis: t('{0} runs with nopreempt: it comes back as BACKUP and leaves the VIP where it is', target.host), slack, informational: true };
  }
  const mdi = masterDown(target.advertSeconds, target.priority);
  const delay = target.preemptDelaySeconds;
  if (kind === 'haproxy') {
    const rise = Math.max(...target.haproxyScripts.map((s) => s.rise * s.intervalSeconds));
    return { id: 'vip-back', title: t('the VIP returns to {0} (preempt)', target.host), phase: 'recovery', max: round(rise + delay + mdi), basis: t("HAProxy runs again; the check passes rise times ({0}), {1}'s priority is {2} > {3} again and it preempts{4} one Master_Down_Interval ({5}) after the last advert it accepted", fmt(rise), target.host, target.priority, taker.effective, delay ? t(' after preempt_delay {0} s', delay) : '', fmt(mdi)), seed: seed(), slack };
  }
  if (kind === 'stop') {
    return { id: 'vip-back', title: t('the VIP returns to {0} (preempt)', target.host), phase: 'recovery', max: round(delay + mdi + 1), basis: t('keepalived starts (about a second); with the higher priority {0} it takes the VIP back at once when it starts as MASTER, else one Master_Down_Interval ({1}) later{2}', target.priority, fmt(mdi), delay ? t(' after preempt_delay {0} s', delay) : ''), seed: seed(), slack };
  }
  return { id: 'vip-back', title: t('the VIP returns to {0} (preempt)', target.host), phase: 'recovery', max: restoreLimit, basis: t('the host boots and keepalived starts; with the higher priority {0} it preempts within a Master_Down_Interval ({1}) of its start; watched for up to {2}', target.priority, fmt(mdi), fmt(restoreLimit)), seed: seed(), slack, informational: true };
}

/** Split brain: adverts blocked between the target and the others; the one not holding becomes MASTER too. */
export function splitBrainExpectations(holder: VrrpSide, other: VrrpSide, detectSeconds: number, slack: number): Expectation[] {
  const mdi = masterDown(other.advertSeconds, other.effective);
  return [
    { id: 'split-brain', title: t('{0} becomes MASTER too: both hold the VIP (split brain)', other.host), phase: 'failure', min: round(Math.max(0, mdi - other.advertSeconds)), max: round(mdi), basis: t('{0} hears no advert and takes the VIP after Master_Down_Interval 3 × {1} + (256 − {2})/256 × {1} = {3}, while {4} keeps it', other.host, other.advertSeconds, other.effective, fmt(mdi), holder.host), seed: seed(), slack },
    {
      id: 'split-brain-detected',
      title: t('the live view and `status` report the split brain, with its cause'),
      phase: 'failure',
      min: round(Math.max(0, mdi - other.advertSeconds)),
      max: round(mdi + detectSeconds),
      basis:
        detectSeconds === 5
          ? t("the balancers' read (the Inventory view's and `status`'s, every few s) names it within {0} s of the second MASTER", detectSeconds)
          : t("the balancers' read (the Inventory view's and `status`'s, every {0} s) names it within {0} s of the second MASTER", detectSeconds),
      slack,
      // `{t}`: where the second MASTER was seen, filled by the report
      after: { event: 'split-brain', min: 0, max: detectSeconds, basis: t('counted from the second MASTER seen at {t} s: at most {0} s', detectSeconds) },
    },
  ];
}

export function splitBrainHealExpectation(holder: VrrpSide, other: VrrpSide, slack: number): Expectation {
  const higher = holder.effective >= other.effective ? holder : other;
  const lower = higher === holder ? other : holder;
  return { id: 'split-brain-healed', title: t('one MASTER again: {0} steps back', lower.host), phase: 'recovery', max: round(higher.advertSeconds), basis: t("adverts flow again: {0} hears {1}'s priority {2} at its next advert (every {3} s) and becomes BACKUP", lower.host, higher.host, higher.effective, higher.advertSeconds), slack };
}

/**
 * Requests through the VIP that may fail while it moves: the ones that start once the holder stopped serving and whose
 * SYN retries (the first one 1 s later, within the probe's 2 s timeout) all land before the new holder's gratuitous
 * ARP; and one in flight at the fault. `spacing`: seconds between two requests.
 */
export function allowedFailures(kind: FaultKind, moveMaxSeconds: number, spacingSeconds: number): { count: number; text: string } {
  if (kind === 'split-brain') return { count: 0, text: t('both balancers hold the VIP and run HAProxy: every request is served by one of them') };
  // a refused connection (HAProxy stopped, the address still there) fails at once, a silent host only until its SYN retry lands
  const window = kind === 'haproxy' || kind === 'stop' ? moveMaxSeconds : Math.max(0, moveMaxSeconds - 1);
  const count = Math.ceil(window / spacingSeconds) + 1;
  return {
    count,
    text: t('{0}: at most ⌈{1} s / {2} s⌉ + 1 in flight = {3}', kind === 'haproxy' ? t('HAProxy refuses at once, so every request until the move fails') : kind === 'stop' ? t('requests until the other balancer answers') : t('requests whose SYN and its retry 1 s later both go to the silent holder'), round(window), spacingSeconds, count),
  };
}
