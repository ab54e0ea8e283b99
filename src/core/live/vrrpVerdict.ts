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
import { t } from '../l10n';
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
  return [`${i.state}`, t('priority {0}', priorityBreakdown(i)), failing.length ? t('failing: {0}', failing.map((s) => s.name).join(', ')) : undefined, i.preempt === false ? 'nopreempt' : undefined].filter(Boolean).join(' · ');
}

/** The best other balancer that could take the VIP: keepalived running, not FAULT, highest effective priority. */
function bestTaker(others: BalancerLive[]): { b: BalancerLive; i: VrrpInstanceData } | undefined {
  const able = others.flatMap((b) => (b.vrrp?.keepalivedActive && b.vrrp.instance && b.vrrp.instance.state !== 'FAULT' ? [{ b, i: b.vrrp.instance }] : []));
  return able.sort((x, y) => (y.i.effectivePriority ?? 0) - (x.i.effectivePriority ?? 0))[0];
}

/** Why others cannot take the VIP (FAULT, keepalived stopped, not read). */
function whyNoTaker(others: BalancerLive[]): string {
  if (!others.length) return t('there is no other balancer');
  return others
    .map((b) => (!b.vrrp ? t('{0} is not read ({1})', b.host, b.error ?? t('no answer')) : !b.vrrp.keepalivedActive ? t('keepalived is not running on {0}', b.host) : b.vrrp.instance?.state === 'FAULT' ? t('{0} is in FAULT', b.host) : t("{0}'s keepalived state is unknown (no data dump)", b.host)))
    .join('; ');
}

/**
 * The holder's HAProxy is down: does the VIP move? `moving` when keepalived already lowered its priority below the best
 * other balancer's (it moves within that one's master-down interval), else stuck, with the reason.
 */
export function haproxyDownOnHolder(holder: BalancerLive, others: BalancerLive[]): Problem {
  const head = t('HAProxy is not running on balancer {0}, which holds the VIP: API requests through the VIP fail', holder.host);
  const i = holder.vrrp?.instance;
  if (!i) return { severity: 'critical', what: t("{0} (keepalived's state not read: no data dump)", head) };
  const taker = bestTaker(others);
  if (!taker) return { severity: 'critical', what: t('{0}, and no other balancer can take it over: {1}', head, whyNoTaker(others)) };
  const eff = i.effectivePriority ?? i.priority ?? 0;
  const theirs = taker.i.effectivePriority ?? taker.i.priority ?? 0;
  const failing = failingScripts(i);
  if (!i.scripts.length) return { severity: 'critical', what: t('{0}; stuck: keepalived on {1} tracks no script, so nothing lowers its priority {2} and the VIP never moves (black hole)', head, holder.host, eff) };
  if (!failing.length) {
    const sc = i.scripts.map((s) => t('{0} (every {1} s, fall {2})', s.name, s.intervalSeconds ?? '?', s.fall ?? '?')).join(', ');
    return { severity: 'critical', what: t("{0}; keepalived's check {1} still succeeds there, so its priority stays {2} and the VIP does not move{3}", head, sc, eff, i.scripts.every((s) => s.status === 'GOOD') ? t(' — the script does not check HAProxy, or has not run since HAProxy stopped') : '') };
  }
  if (eff >= theirs) {
    const weight = failing.reduce((a, s) => a + Math.min(0, s.weight), 0);
    const needed = weight - (eff - theirs) - 1;
    return { severity: 'critical', what: t("{0}; stuck: its priority {1} is not below {2}'s {3}, so the VIP never moves (black hole) — a weight of {4} or lower would move it", head, priorityBreakdown(i), taker.b.host, theirs, needed) };
  }
  if (taker.i.preempt === false) {
    return { severity: 'critical', what: t("{0}; stuck: its priority fell to {1}, below {2}'s {3}, but {2} runs with nopreempt and does not take the VIP from a live MASTER (black hole)", head, priorityBreakdown(i), taker.b.host, theirs) };
  }
  return { severity: 'critical', what: t("{0}; moving: its priority fell to {1}, below {2}'s {3}, so {2} takes the VIP within its master-down interval ({4})", head, priorityBreakdown(i), taker.b.host, theirs, secs(taker.i.masterDownMs)) };
}

/** Two or more balancers hold the VIP: why, from what their keepalived says. */
export function splitBrainCause(holders: BalancerLive[]): string {
  const notMaster = holders.filter((b) => !b.vrrp?.keepalivedActive || (b.vrrp.instance && b.vrrp.instance.state !== 'MASTER'));
  if (notMaster.length) {
    return notMaster.map((b) => (b.vrrp?.keepalivedActive ? t('{0} holds the VIP address although its keepalived is {1}', b.host, b.vrrp.instance!.state) : t('keepalived is not running on {0} but the VIP is still on its interface (a killed keepalived leaves it there)', b.host))).join('; ');
  }
  const inst = holders.map((b) => ({ b, i: b.vrrp?.instance })).filter((x): x is { b: BalancerLive; i: VrrpInstanceData } => !!x.i);
  if (inst.length < 2) return t('keepalived state not read on every holder (no data dump)');
  const list = (f: (i: VrrpInstanceData) => unknown) => inst.map((x) => `${x.b.host} ${String(f(x.i))}`).join(', ');
  const since = t('both MASTER (since {0})', list((i) => clock(i.lastTransition)));
  if (new Set(inst.map((x) => x.i.vrid)).size > 1) return t("{0}: their virtual_router_id differs ({1}), so each ignores the other's adverts", since, list((i) => i.vrid));
  if (new Set(inst.map((x) => x.i.advertSeconds)).size > 1) return t("{0}: their advert_int differs ({1}), so each drops the other's adverts", since, list((i) => `${i.advertSeconds} s`));
  const auth = inst.filter((x) => (x.i.stats?.authErrors ?? 0) > 0);
  if (auth.length) return t('{0}: {1} — auth_type or auth_pass differs', since, auth.map((x) => t('{0} rejected {1} advert(s) for their authentication', x.b.host, x.i.stats!.authErrors)).join(', '));
  return t("{0}: they do not hear each other's adverts — VRRP (IP protocol 112) is blocked or lost between them", since);
}
