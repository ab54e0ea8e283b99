/**
 * What the balancers' VRRP state means, with its cause in plain words, from keepalived's own data dump
 * (./keepalivedData.ts) on each balancer:
 *  - a stuck VIP: the holder's HAProxy is down and the VIP does not move — the check does not fail, its weight does
 *    not take the holder's priority below the best other balancer's (the seed's "black hole"), the other one runs
 *    with nopreempt or cannot take it (FAULT, keepalived stopped); or it is moving, within the master-down interval;
 *  - split brain: two balancers hold the VIP — different virtual_router_id or advert_int, adverts rejected for their
 *    authentication, adverts that do not arrive (VRRP blocked between them), or a VIP left on a host whose
 *    keepalived is not MASTER (killed without removing it).
 */
import type { BalancerLive } from './balancers';
import { failingScripts, priorityBreakdown, type VrrpInstanceData } from './keepalivedData';
import type { Problem } from './status';

const secs = (ms: number | undefined): string => (ms === undefined ? '?' : `${(Math.round(ms / 100) / 10).toFixed(1)} s`);
const clock = (epochSeconds: number | undefined): string => (epochSeconds === undefined ? '' : new Date(epochSeconds * 1000).toISOString().slice(11, 19));

/** `MASTER · priority 80 = 100 − 20 (chk_haproxy failing)` for one balancer; undefined without a data dump. */
export function vrrpLine(b: BalancerLive): string | undefined {
  const i = b.vrrp?.instance;
  if (!i) return undefined;
  const failing = failingScripts(i);
  return [`${i.state}`, `priority ${priorityBreakdown(i)}`, failing.length ? `failing: ${failing.map((s) => s.name).join(', ')}` : undefined, i.preempt === false ? 'nopreempt' : undefined].filter(Boolean).join(' · ');
}

/** The best other balancer that could take the VIP: keepalived running, not FAULT, highest effective priority. */
function bestTaker(others: BalancerLive[]): { b: BalancerLive; i: VrrpInstanceData } | undefined {
  const able = others.flatMap((b) => (b.vrrp?.keepalivedActive && b.vrrp.instance && b.vrrp.instance.state !== 'FAULT' ? [{ b, i: b.vrrp.instance }] : []));
  return able.sort((x, y) => (y.i.effectivePriority ?? 0) - (x.i.effectivePriority ?? 0))[0];
}

/** Why others cannot take the VIP (FAULT, keepalived stopped, not read). */
function whyNoTaker(others: BalancerLive[]): string {
  if (!others.length) return 'there is no other balancer';
  return others
    .map((b) => (!b.vrrp ? `${b.host} is not read (${b.error ?? 'no answer'})` : !b.vrrp.keepalivedActive ? `keepalived is not running on ${b.host}` : b.vrrp.instance?.state === 'FAULT' ? `${b.host} is in FAULT` : `${b.host}'s keepalived state is unknown (no data dump)`))
    .join('; ');
}

/**
 * The holder's HAProxy is down: does the VIP move? `moving` when keepalived already lowered its priority below the best
 * other balancer's (it moves within that one's master-down interval), else stuck, with the reason.
 */
export function haproxyDownOnHolder(holder: BalancerLive, others: BalancerLive[]): Problem {
  const head = `HAProxy is not running on balancer ${holder.host}, which holds the VIP: API requests through the VIP fail`;
  const i = holder.vrrp?.instance;
  if (!i) return { severity: 'critical', what: `${head} (keepalived's state not read: no data dump)` };
  const taker = bestTaker(others);
  if (!taker) return { severity: 'critical', what: `${head}, and no other balancer can take it over: ${whyNoTaker(others)}` };
  const eff = i.effectivePriority ?? i.priority ?? 0;
  const theirs = taker.i.effectivePriority ?? taker.i.priority ?? 0;
  const failing = failingScripts(i);
  if (!i.scripts.length) return { severity: 'critical', what: `${head}; stuck: keepalived on ${holder.host} tracks no script, so nothing lowers its priority ${eff} and the VIP never moves (black hole)` };
  if (!failing.length) {
    const sc = i.scripts.map((s) => `${s.name} (every ${s.intervalSeconds ?? '?'} s, fall ${s.fall ?? '?'})`).join(', ');
    return { severity: 'critical', what: `${head}; keepalived's check ${sc} still succeeds there, so its priority stays ${eff} and the VIP does not move${i.scripts.every((s) => s.status === 'GOOD') ? ' — the script does not check HAProxy, or has not run since HAProxy stopped' : ''}` };
  }
  if (eff >= theirs) {
    const weight = failing.reduce((a, s) => a + Math.min(0, s.weight), 0);
    const needed = weight - (eff - theirs) - 1;
    return { severity: 'critical', what: `${head}; stuck: its priority ${priorityBreakdown(i)} is not below ${taker.b.host}'s ${theirs}, so the VIP never moves (black hole) — a weight of ${needed} or lower would move it` };
  }
  if (taker.i.preempt === false) {
    return { severity: 'critical', what: `${head}; stuck: its priority fell to ${priorityBreakdown(i)}, below ${taker.b.host}'s ${theirs}, but ${taker.b.host} runs with nopreempt and does not take the VIP from a live MASTER (black hole)` };
  }
  return { severity: 'critical', what: `${head}; moving: its priority fell to ${priorityBreakdown(i)}, below ${taker.b.host}'s ${theirs}, so ${taker.b.host} takes the VIP within its master-down interval (${secs(taker.i.masterDownMs)})` };
}

/** Two or more balancers hold the VIP: why, from what their keepalived says. */
export function splitBrainCause(holders: BalancerLive[]): string {
  const notMaster = holders.filter((b) => !b.vrrp?.keepalivedActive || (b.vrrp.instance && b.vrrp.instance.state !== 'MASTER'));
  if (notMaster.length) {
    return notMaster.map((b) => (b.vrrp?.keepalivedActive ? `${b.host} holds the VIP address although its keepalived is ${b.vrrp.instance!.state}` : `keepalived is not running on ${b.host} but the VIP is still on its interface (a killed keepalived leaves it there)`)).join('; ');
  }
  const inst = holders.map((b) => ({ b, i: b.vrrp?.instance })).filter((x): x is { b: BalancerLive; i: VrrpInstanceData } => !!x.i);
  if (inst.length < 2) return 'keepalived state not read on every holder (no data dump)';
  const list = (f: (i: VrrpInstanceData) => unknown) => inst.map((x) => `${x.b.host} ${String(f(x.i))}`).join(', ');
  const since = `both MASTER (since ${list((i) => clock(i.lastTransition))})`;
  if (new Set(inst.map((x) => x.i.vrid)).size > 1) return `${since}: their virtual_router_id differs (${list((i) => i.vrid)}), so each ignores the other's adverts`;
  if (new Set(inst.map((x) => x.i.advertSeconds)).size > 1) return `${since}: their advert_int differs (${list((i) => `${i.advertSeconds} s`)}), so each drops the other's adverts`;
  const auth = inst.filter((x) => (x.i.stats?.authErrors ?? 0) > 0);
  if (auth.length) return `${since}: ${auth.map((x) => `${x.b.host} rejected ${x.i.stats!.authErrors} advert(s) for their authentication`).join(', ')} — auth_type or auth_pass differs`;
  return `${since}: they do not hear each other's adverts — VRRP (IP protocol 112) is blocked or lost between them`;
}
