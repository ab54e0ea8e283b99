/**
 * A balancer drill's plan: the VRRP pair as it runs (each balancer's keepalived.conf read from the host, its data dump
 * for what keepalived actually runs with), the fault — `power-off` (your command), `stop` (keepalived stopped: a
 * graceful release), `haproxy` (HAProxy stopped on the VIP holder: the seed's black hole) or `split-brain` (VRRP
 * blocked between the balancers with nftables) — its undoing, the bounds from the pair's numbers, and the refusals:
 * the other balancer not healthy, the VIP not where the drill needs it, or weights by which it would never move.
 */
import { hostsWithRole, splitEndpoint, type Inventory } from '../inventory/types';
import { child } from '../keepalived/parse';
import { parseKeepalived } from '../keepalived/parse';
import { summarize, type Summary } from '../keepalived/summary';
import type { BalancerLive, BalancersModel } from '../live/balancers';
import { isDown } from './haproxyState';
import type { SudoOptions } from '../ssh/command';
import { asRoot } from './commands';
import { allowedFailures, blackHoleVerdict, masterDown, splitBrainExpectations, splitBrainHealExpectation, vipMoveExpectations, vipReturnExpectation, type VrrpSide } from './balancerExpect';
import type { Expectation } from './expect';
import { healCommand, unitCommand, vrrpBlockCommand } from './faults';
import { powerCommands } from './localCommand';
import { t } from '../l10n';
import type { DrillAction, DrillPlan, DrillRequest, DrillSnapshot } from './plan';

export interface VrrpSnapshot {
  /** The balancers read as `status` and the Inventory view read them (VRRP probe with keepalived's dump, HAProxy). */
  model: BalancersModel;
  /** Per balancer: keepalived.conf without its auth_pass lines, the MAC of its VRRP interface, or why not read. */
  confs: Record<string, { text?: string | undefined; mac?: string | undefined; error?: string | undefined }>;
  /** The node whose neighbour entry for the VIP is watched (gratuitous ARP), and its entry's MAC now. */
  neighbour?: { host: string; mac?: string | undefined; error?: string | undefined } | undefined;
}

export interface VrrpDrillPlan {
  vip: string;
  /** Holds the VIP before the fault. */
  holder: string;
  /** The balancer expected to take the VIP (or, split brain, to become the second MASTER). */
  taker: string;
  sides: VrrpSide[];
  macs: Record<string, string>;
  neighbour: string | undefined;
  vipPollMs: number;
  /** How often the live view's read (the split brain's detection) runs during the drill. */
  verdictPollMs: number;
  allowedFailures: number;
  allowedText: string;
}

/** The live view's cadence (editor/balancerWatch.ts) and the bound the drill holds it to. */
export const DETECT_SECONDS = 5;

const HAPROXY_CHECK = /haproxy|:6443\b/;

/** The vrrp_scripts of the VIP's instance in a keepalived.conf, with keepalived's defaults (interval 1 s, fall 1, rise 1). */
function fileScripts(s: Summary, vip: string): { name: string; command: string; weight: number; interval: number; fall: number; rise: number }[] {
  const inst = s.instances.find((i) => i.vips.some((v) => v.address === vip)) ?? s.instances[0];
  if (!inst) return [];
  const num = (n: ReturnType<typeof child>, d: number) => {
    const v = Number(n?.args[0]?.text);
    return Number.isFinite(v) && v > 0 ? v : d;
  };
  return inst.tracks.flatMap((t) => {
    const sc = s.scripts.get(t.keyword.text);
    if (!sc) return [];
    const own = Number(t.args.find((_, i, a) => a[i - 1]?.text === 'weight')?.text);
    return [{ name: sc.name, command: sc.script?.args.map((a) => a.text).join(' ') ?? '', weight: Number.isFinite(own) ? own : sc.weightValue, interval: num(child(sc.node, 'interval'), 1), fall: num(child(sc.node, 'fall'), 1), rise: num(child(sc.node, 'rise'), 1) }];
  });
}

/** One balancer as the arithmetic sees it: what keepalived runs with (its dump) over what its file says. */
function sideOf(b: BalancerLive, conf: string | undefined, vip: string, warnings: string[]): VrrpSide | undefined {
  const i = b.vrrp?.instance;
  const s = conf ? summarize(parseKeepalived(conf)) : undefined;
  const inst = s?.instances.find((x) => x.vips.some((v) => v.address === vip)) ?? s?.instances[0];
  const file = s ? fileScripts(s, vip) : [];
  if (!i && !inst) return undefined;
  const priority = i?.priority ?? inst?.priorityValue ?? 100;
  const advert = i?.advertSeconds ?? Number(child(inst?.node, 'advert_int')?.args[0]?.text ?? 1);
  const preempt = i?.preempt ?? !child(inst?.node, 'nopreempt');
  const delay = Number(child(inst?.node, 'preempt_delay')?.args[0]?.text ?? 0) || 0;
  if (i && inst && inst.priorityValue !== i.priority) warnings.push(t('{0}: keepalived runs with priority {1} but its keepalived.conf says {2} (not reloaded?): the drill goes by what runs', b.host, i.priority, inst.priorityValue));
  const scripts = (i?.scripts.length ? i.scripts.map((x) => ({ name: x.name, weight: x.weight, intervalSeconds: x.intervalSeconds ?? 1, fall: x.fall ?? 1, rise: x.rise ?? 1 })) : file.map((x) => ({ name: x.name, weight: x.weight, intervalSeconds: x.interval, fall: x.fall, rise: x.rise }))).filter((x) => {
    const f = file.find((y) => y.name === x.name);
    // a script checks HAProxy when its command names it or the API port; unknown without the file: assumed
    return f ? HAPROXY_CHECK.test(f.command) : !conf;
  });
  for (const x of scripts) {
    const f = file.find((y) => y.name === x.name);
    if (f && f.weight !== x.weight) warnings.push(t('{0}: keepalived runs {1} with weight {2} but its keepalived.conf says {3} (not reloaded?): the drill goes by what runs', b.host, x.name, x.weight, f.weight));
  }
  return { host: b.host, priority, effective: i?.effectivePriority ?? priority, advertSeconds: advert, preempt, preemptDelaySeconds: delay, haproxyScripts: scripts };
}

/** Why a balancer is not fit to take the VIP over, or undefined when it is. */
function unhealthy(b: BalancerLive): string | undefined {
  if (!b.vrrp) return t('{0} could not be read: {1}', b.host, b.error ?? t('no answer'));
  if (!b.vrrp.keepalivedActive) return t('keepalived is not running on {0}', b.host);
  if (b.vrrp.instance && b.vrrp.instance.state === 'FAULT') return t('keepalived on {0} is in FAULT', b.host);
  if (!b.vrrp.haproxyActive) return t('HAProxy is not running on {0}', b.host);
  const down = b.servers.filter((s) => s.state && isDown(s.state.status));
  if (down.length) return t('HAProxy on {0} has {1}', b.host, down.map((s) => `${s.server} ${s.state!.status}`).join(', '));
  return undefined;
}

type Empty = (why: string) => DrillPlan;

export function buildBalancerDrillPlan(inv: Inventory, req: DrillRequest, snapshot: DrillSnapshot, empty: Empty, become: (host: string) => SudoOptions | undefined): DrillPlan {
  const refusal = (why: string): DrillPlan => ({ ...empty(why), target: { host: req.host, node: req.host, address: inv.hosts.find((h) => h.name === req.host)?.address ?? '?', role: 'loadbalancer' } });
  if (req.kind === 'partition') return refusal(t("partition cuts a Kubernetes node's network; for a balancer run split-brain (VRRP blocked) or power-off"));
  const v = snapshot.vrrp;
  const host = inv.hosts.find((h) => h.name === req.host)!;
  const lbs = hostsWithRole(inv, 'loadbalancer');
  const vip = splitEndpoint(inv.cluster.controlPlaneEndpoint)?.host ?? '';
  if (lbs.length < 2) return refusal(t('the inventory has one balancer: nothing would take the VIP over (add a second one with a lower priority)'));
  if (!v) return refusal(t('the balancers were not read'));
  const refusals: string[] = [];
  const warnings: string[] = [];
  for (const b of v.model.balancers) if (!b.vrrp) refusals.push(t('{0} could not be read over SSH: {1}', b.host, b.error ?? t('no answer')));
  if (refusals.length) return { ...refusal(refusals[0]!), refusals };
  const holders = v.model.holders;
  if (holders.length !== 1) return refusal(holders.length ? t('the VIP is held by {0} at once (split brain) already: heal that first', holders.join(t(' and '))) : t('no balancer holds the VIP {0} now: a drill starts from a working pair', vip));
  const holder = holders[0]!;
  const byHost = new Map(v.model.balancers.map((b) => [b.host, b]));
  const sides = v.model.balancers.map((b) => sideOf(b, v.confs[b.host]?.text, vip, warnings)).filter((x): x is VrrpSide => !!x);
  for (const [h, c] of Object.entries(v.confs)) if (c.error) warnings.push(t("{0}: keepalived.conf not read ({1}); the numbers come from keepalived's data dump", h, c.error));
  const side = (h: string) => sides.find((x) => x.host === h);
  if (!side(holder) || !side(host.name)) return refusal(t("keepalived's settings on {0} could not be read (no data dump and no keepalived.conf)", side(holder) ? host.name : holder));
  if (req.kind !== 'split-brain' && host.name !== holder) return refusal(t('{0} does not hold the VIP ({1} does): failing it moves nothing — run the drill on {1}', host.name, holder));
  const bad = unhealthy(byHost.get(host.name)!);
  if (bad) refusals.push(t('{0}: a drill starts from a healthy balancer', bad));
  // the one that takes the VIP (or becomes the second MASTER): the best other balancer by what keepalived runs with
  const candidates = sides.filter((x) => x.host !== holder);
  const takerSide = req.kind === 'split-brain' && host.name !== holder ? side(host.name)! : candidates.sort((a, b) => b.effective - a.effective)[0];
  if (!takerSide) return refusal(t('no other balancer runs keepalived'));
  const others = v.model.balancers.filter((b) => b.host !== host.name);
  for (const b of others) {
    const why = unhealthy(b);
    if (why) refusals.push(t('{0}: the other balancer must be healthy to take the VIP over', why));
  }
  const holderSide = side(holder)!;
  if (req.kind === 'haproxy') {
    const verdict = blackHoleVerdict(holderSide, takerSide);
    if (!verdict.moves) refusals.push(t('refused before running: {0}', verdict.why));
  }
  if ((req.kind === 'power-off' || req.kind === 'stop') && takerSide.effective < 1) refusals.push(t('{0} runs at priority {1}', takerSide.host, takerSide.effective));
  if (req.kind === 'split-brain' && snapshot.targetCheck && !snapshot.targetCheck.ok) refusals.push(`${host.name}: ${snapshot.targetCheck.detail}`);

  // ---- the fault and its undoing
  const pollMs = Math.max(250, req.pollMs ?? 1000);
  const slack = 0.5 + 0.5; // the VIP poll (every 250 ms) and an SSH round trip, both ways
  const vipPollMs = 250;
  const macs = Object.fromEntries(Object.entries(v.confs).flatMap(([h, c]) => (c.mac ? [[h, c.mac]] : [])));
  let fault: DrillAction | undefined;
  let restore: DrillAction | undefined;
  let observeSeconds: number;
  const expectations: Expectation[] = [];
  const neighbour = v.neighbour && !v.neighbour.error && v.neighbour.mac ? v.neighbour.host : undefined;
  if (v.neighbour?.error) warnings.push(t("{0}'s neighbour entry for the VIP cannot be read ({1}): the move is seen by the balancers only", v.neighbour.host, v.neighbour.error));
  if (req.kind === 'split-brain') {
    const healAfter = masterDown(takerSide.advertSeconds, takerSide.effective) + DETECT_SECONDS + 120;
    fault = { where: 'ssh', host: host.name, title: t('block VRRP (IP protocol 112) in and out of {0} with nftables (it heals itself after {1} s)', host.name, Math.round(healAfter)), command: asRoot(vrrpBlockCommand(healAfter), become(host.name)) };
    restore = { where: 'ssh', host: host.name, title: t("unblock VRRP on {0} (delete the drill's nftables table)", host.name), command: asRoot(healCommand(), become(host.name)) };
    expectations.push(...splitBrainExpectations(holderSide, takerSide, DETECT_SECONDS, slack));
    observeSeconds = Math.ceil(masterDown(takerSide.advertSeconds, takerSide.effective) + DETECT_SECONDS + 10);
  } else {
    if (req.kind === 'power-off') {
      const { off, on } = powerCommands(req, { host: host.name, address: host.address }, refusals);
      if (off) fault = { where: 'local', title: t('power {0} off', host.name), command: off };
      if (on) restore = { where: 'local', title: t('power {0} on', host.name), command: on };
    } else {
      const unit = req.kind === 'stop' ? 'keepalived' : 'haproxy';
      fault = { where: 'ssh', host: host.name, title: req.kind === 'stop' ? t('stop keepalived on {0} (it releases the VIP)', host.name) : t('stop HAProxy on {0}, which holds the VIP (keepalived keeps running)', host.name), command: asRoot(unitCommand('stop', unit), become(host.name)) };
      restore = { where: 'ssh', host: host.name, title: t('start {0} on {1}', unit === 'keepalived' ? 'keepalived' : 'HAProxy', host.name), command: asRoot(unitCommand('start', unit), become(host.name)) };
    }
    const move = vipMoveExpectations(req.kind, holderSide, takerSide, slack, neighbour);
    expectations.push(...move);
    observeSeconds = Math.ceil((move[0]!.max ?? 10) + slack + 10);
  }
  const moveMax = expectations[0]!.max ?? 0;
  const allowed = allowedFailures(req.kind, moveMax + slack, pollMs / 2000);
  expectations.push({ id: 'api', title: t('the API through the VIP'), phase: 'failure', basis: allowed.text, seed: t('the VIP moves and kubectl keeps working through it: only requests in flight during the move may fail.'), slack: 2 });
  const restoreSeconds = req.kind === 'power-off' ? Math.max(30, req.restoreSeconds ?? 300) : 0;
  let recovery: Expectation;
  if (req.kind === 'split-brain') recovery = splitBrainHealExpectation(holderSide, takerSide, slack);
  else recovery = vipReturnExpectation(req.kind, side(host.name)!, takerSide, restoreSeconds, slack);
  expectations.push(recovery);
  // watching the way back: until the bound, or (nopreempt) long enough to see it stay
  const target = side(host.name)!;
  const stay = masterDown(target.advertSeconds, target.priority) + Math.max(0, ...target.haproxyScripts.map((s) => s.rise * s.intervalSeconds)) + 5;
  const watch = req.kind === 'power-off' ? restoreSeconds : Math.ceil((recovery.max ?? stay) + slack + 5);
  const base = empty('');
  return {
    ...base,
    target: { host: host.name, node: host.name, address: host.address, role: 'loadbalancer' },
    fault,
    restore,
    expectations,
    limits: { observeSeconds, evictionWaitSeconds: 0, restoreSeconds: Math.max(watch, req.kind === 'power-off' ? 30 : 10), pollMs },
    vrrp: { vip, holder, taker: takerSide.host, sides, macs, neighbour, vipPollMs, verdictPollMs: 2000, allowedFailures: allowed.count, allowedText: allowed.text },
    refusals,
    warnings,
  };
}

/** The plan's VRRP lines (the Safety section): who holds the VIP, the numbers, and what the fault does with them. */
export function vrrpPlanLines(p: DrillPlan): string[] {
  const v = p.vrrp;
  if (!v) return [];
  const out = [`- ${p.kind === 'split-brain' ? t('VIP {0} held by {1}; {2} will become MASTER too', v.vip, v.holder, v.taker) : t('VIP {0} held by {1}; {2} takes it over', v.vip, v.holder, v.taker)}`];
  for (const s of v.sides) {
    const effective = s.effective !== s.priority ? t(' (effective {0})', s.effective) : '';
    const checks = s.haproxyScripts.length ? s.haproxyScripts.map((x) => t('{0} weight {1}, interval {2} s, fall {3}, rise {4}', x.name, x.weight, x.intervalSeconds, x.fall, x.rise)).join('; ') : t('none');
    out.push(`- ${t('{0}: priority {1}{2}, advert_int {3} s, Master_Down_Interval {4} s, {5}{6}; HAProxy checks: {7}', s.host, s.priority, effective, s.advertSeconds, Math.round(masterDown(s.advertSeconds, s.effective) * 100) / 100, s.preempt ? 'preempt' : 'nopreempt', s.preemptDelaySeconds ? ` (preempt_delay ${s.preemptDelaySeconds} s)` : '', checks)}`);
  }
  const holder = v.sides.find((s) => s.host === v.holder);
  const taker = v.sides.find((s) => s.host === v.taker);
  if (p.kind === 'haproxy' && holder && taker) out.push(`- ${t('black hole check: {0}', blackHoleVerdict(holder, taker).why)}`);
  if (v.neighbour) out.push(`- ${t("{0}'s ARP entry for the VIP is watched (gratuitous ARP): {1}", v.neighbour, Object.entries(v.macs).map(([h, m]) => `${h} ${m}`).join(', '))}`);
  out.push(`- ${t('API requests through the VIP allowed to fail: {0}', v.allowedText)}`);
  return out;
}

