/**
 * The balancer pair judged from the real peer files: which inventory balancer each keepalived.conf is for,
 * which files are this one's peers, and what the two sides' actual values do together — failover (priority
 * plus track_script weights), preemption, split brain and the settings that must agree (virtual_router_id,
 * authentication, VIP, advert_int, unicast peers).
 *
 * Which balancer a keepalived file is for (first match wins; the README explains the rule):
 *  1. a header comment `# kubeadm-workbench: hosts=lb1`, or the generated header `# /etc/keepalived/keepalived.conf on lb1:`;
 *  2. the generated layout's file name `keepalived-lb1.conf`;
 *  3. a directory named after the balancer (`hosts/lb1/keepalived.conf`);
 *  4. `router_id lb1`, then `unicast_src_ip` equal to the balancer's address;
 *  5. the only balancer of the inventory.
 * Peers are the other keepalived*.conf files of the workspace for another balancer, and, for a file whose
 * balancer is unknown, the keepalived*.conf files next to it. A balancer of the inventory with no file is
 * judged from the inventory's vrrp settings, and the message says so.
 */
import type { Finding, Fix, Range, TextEdit } from '../findings';
import { hostsWithRole, type HostSpec, type Inventory } from '../inventory/types';
import { child } from './parse';
import type { KNode, KToken } from './parse';
import type { Instance, Summary } from './summary';
import { kfinding } from './rules';
import { judgeUnicast, unicastSelf } from './unicast';
import { t } from '../l10n';

export interface PeerFile {
  path: string;
  summary: Summary;
  host?: HostSpec;
}

export interface HostMatch {
  host: HostSpec;
  /** What named the balancer: the layout (header, file name, directory) or only the file's contents. */
  how: 'header' | 'file-name' | 'directory' | 'router-id' | 'unicast-src' | 'only-balancer';
}

const HEADER_LINES = 20;

/** Which inventory balancer a keepalived file is for (see the rule at the top of this file). */
export function keepalivedHost(path: string | undefined, text: string, s: Summary, inv: Inventory): HostMatch | undefined {
  const lbs = hostsWithRole(inv, 'loadbalancer');
  const byName = (name: string | undefined) => (name ? lbs.find((h) => h.name === name) : undefined);
  for (const line of text.split('\n', HEADER_LINES)) {
    const header = /^\s*[#!]\s*kubeadm-workbench:.*\bhosts\s*=\s*([\w.-]+)/.exec(line)?.[1] ?? /^\s*[#!]\s*\/etc\/keepalived\/keepalived\.conf on ([\w.-]+):/.exec(line)?.[1];
    const h = byName(header);
    if (h) return { host: h, how: 'header' };
  }
  const parts = (path ?? '').replace(/\\/g, '/').split('/');
  const base = parts[parts.length - 1] ?? '';
  const h = byName(/^keepalived-(.+)\.conf$/i.exec(base)?.[1]);
  if (h) return { host: h, how: 'file-name' };
  const dir = lbs.filter((x) => parts.slice(0, -1).includes(x.name)).sort((a, b) => b.name.length - a.name.length)[0];
  if (dir) return { host: dir, how: 'directory' };
  const rid = byName(s.routerId);
  if (rid) return { host: rid, how: 'router-id' };
  for (const inst of s.instances) {
    const src = child(inst.node, 'unicast_src_ip')?.args[0]?.text;
    const bySrc = src ? lbs.find((x) => x.address === src) : undefined;
    if (bySrc) return { host: bySrc, how: 'unicast-src' };
  }
  return lbs.length === 1 ? { host: lbs[0]!, how: 'only-balancer' } : undefined;
}

export function dirOf(p: string): string {
  const n = p.replace(/\\/g, '/');
  return n.includes('/') ? n.replace(/\/[^/]*$/, '') || '/' : '.';
}

/** Named for its balancer by the workspace layout (header, file name, directory), not only by its contents. */
export const byLayout = (m: HostMatch | undefined): boolean => !!m && (m.how === 'header' || m.how === 'file-name' || m.how === 'directory');
/** Named by where it lies (a header is copied along with the file, a path is not). */
const byPath = (m: HostMatch | undefined) => !!m && (m.how === 'file-name' || m.how === 'directory');

/**
 * Is a sibling keepalived file a peer of this one? Yes anywhere in the workspace when the layout names it for
 * another balancer; no when the paths of both name the same balancer; otherwise when it lies next to this file
 * (a router_id or header is often copied unchanged between balancers, so it does not pair files far apart).
 */
export function isPeerFile(path: string | undefined, me: HostMatch | undefined, sibPath: string, other: HostMatch | undefined): boolean {
  if (me && other && me.host !== other.host && byLayout(other)) return true;
  if (me && other && me.host === other.host && byPath(me) && byPath(other)) return false;
  return path === undefined || dirOf(sibPath) === dirOf(path);
}

// ---------------------------------------------------------------------------------------------- judgement

/** One side of the pair as the arithmetic sees it: from a file, or from the inventory when the file is missing. */
interface Side {
  label: string;
  state?: string;
  priority: number;
  /** Sum of the positive weights of the scripts it tracks (added while they succeed). */
  plus: number;
  inst?: Instance;
  fromInventory?: boolean;
}

const rng = (tok: KToken): Range => ({ start: { line: tok.line, character: tok.start }, end: { line: tok.line, character: tok.end } });
const replace = (tok: KToken, text: string): TextEdit => ({ range: rng(tok), newText: text });
const fix = (title: string, ...edits: TextEdit[]): Fix => ({ title, edits });

function weights(s: Summary, inst: Instance): Array<{ name: string; w: number; node?: KNode }> {
  return inst.tracks.map((tok) => {
    const sc = s.scripts.get(tok.keyword.text);
    return { name: tok.keyword.text, w: sc?.weightValue ?? 0, ...(sc ? { node: sc.weight ?? sc.node } : {}) };
  });
}

function positive(s: Summary, inst: Instance): number {
  return weights(s, inst).reduce((a, x) => a + (x.w > 0 ? x.w : 0), 0);
}

/** The VIP addresses (without prefix) of an instance: with its virtual_router_id, what names a VRRP instance on the wire. */
export const vipAddresses = (i: Instance): string[] => i.vips.map((v) => v.address);

/**
 * The other file's instance that is the same VRRP instance as `inst`: the one that shares a VIP (the same
 * virtual_router_id first), else the one of the same name, else its only instance.
 */
export function matchingInstance(inst: Instance, other: Summary): Instance | undefined {
  const mine = new Set(vipAddresses(inst));
  const sharing = other.instances.filter((i) => vipAddresses(i).some((a) => mine.has(a)));
  return sharing.find((i) => i.vridValue === inst.vridValue) ?? sharing[0] ?? other.instances.find((i) => i.name === inst.name) ?? (other.instances.length === 1 ? other.instances[0] : undefined);
}

/** A keepalived file of the workspace outside this file's config set, parsed, with the balancer it is for. */
export interface DistantFile extends PeerFile {
  text: string;
  match: HostMatch | undefined;
  /** Its config set (core/lint/siblings.ts configRoot). */
  root: string;
}

/**
 * Peers by VRRP instance wherever the files lie (lb1/keepalived.conf and lb2/keepalived.conf, whose router_id was
 * copied): asked only when this file has no peer in its own config set. A file elsewhere is a peer when it shares a
 * VIP with this one (the instance's identity on the L2 segment; a virtual_router_id, authentication or advert_int
 * that differs is then reported as split brain), when it is the only such file in its own set (a set with two is a
 * pair of its own — a generated/ copy is not compared with the live files), and when it is not a copy of this one
 * (the same text, or the layout names both for the same balancer).
 */
export function peersElsewhere(self: { text: string; summary: Summary; match: HostMatch | undefined }, distant: readonly DistantFile[]): PeerFile[] {
  const mine = new Set(self.summary.instances.flatMap(vipAddresses));
  if (!mine.size) return [];
  const shares = (d: DistantFile) => d.summary.instances.some((i) => vipAddresses(i).some((a) => mine.has(a)));
  const candidates = distant.filter(shares);
  const perRoot = new Map<string, number>();
  for (const d of candidates) perRoot.set(d.root, (perRoot.get(d.root) ?? 0) + 1);
  return candidates
    .filter((d) => perRoot.get(d.root) === 1 && d.text !== self.text && !(self.match && d.match && self.match.host === d.match.host && byPath(self.match) && byPath(d.match)))
    .map((d) => ({ path: d.path, summary: d.summary, ...(d.host ? { host: d.host } : {}) }));
}

const tokenText = (n: KNode | undefined) => n?.args[0]?.text;

export interface PairContext {
  summary: Summary;
  peers: PeerFile[];
  inventory?: Inventory;
  inventoryName: string;
  me?: HostSpec;
  /** Whether the workspace layout (header, file name, folder) names `me`, not only the file's contents. */
  meByLayout?: boolean;
  eol?: string;
  /** Wraps a finding with the file of the node it is on (for included fragments). */
  place: (f: Finding, n: KNode) => Finding;
  out: Finding[];
}

/** The other balancers without a file of their own, from the inventory (only when this file's balancer is known or there is no peer file). */
function inventorySides(c: PairContext, plus: number): Side[] {
  if (!c.inventory) return [];
  const covered = new Set(c.peers.map((p) => p.host).filter(Boolean));
  const unknownPeers = c.peers.filter((p) => !p.host).length;
  const rest = hostsWithRole(c.inventory, 'loadbalancer').filter((h) => h !== c.me && !covered.has(h) && h.vrrp);
  if (unknownPeers >= rest.length) return [];
  return rest.map((h) => ({ label: t('{0} (no keepalived file of it in the workspace; priority {1} from {2})', h.name, h.vrrp!.priority, c.inventoryName), state: h.vrrp!.state, priority: h.vrrp!.priority, plus, fromInventory: true }));
}

export function judgePair(c: PairContext): void {
  const s = c.summary;
  for (const inst of s.instances) {
    const name = inst.name || '(unnamed)';
    const n = inst.node;
    const peerInsts = c.peers.map((p) => ({ p, inst: matchingInstance(inst, p.summary) })).filter((x): x is { p: PeerFile; inst: Instance } => !!x.inst);
    agreement(c, inst, name, peerInsts);
    if (c.inventory) judgeUnicast({ inventory: c.inventory, inventoryName: c.inventoryName, me: c.me, meByLayout: !!c.meByLayout, eol: c.eol ?? '\n', place: c.place, out: c.out }, inst, name);
    const mine: Side = { label: t('this balancer'), priority: inst.priorityValue, plus: positive(s, inst), inst, ...(inst.stateValue ? { state: inst.stateValue } : {}) };
    const others: Side[] = [
      ...peerInsts.map(({ p, inst: o }) => ({ label: p.path, priority: o.priorityValue, plus: positive(p.summary, o), inst: o, ...(o.stateValue ? { state: o.stateValue } : {}) })),
      ...inventorySides(c, mine.plus),
    ];
    // one MASTER, distinct priorities (files only: the inventory's own rules check its roles)
    if (peerInsts.length) {
      const masters = peerInsts.filter((x) => x.inst.stateValue === 'MASTER');
      if (inst.stateValue === 'MASTER' && masters.length) {
        c.out.push(c.place(kfinding('keepalived/one-master', t('({0}) is MASTER, and so is {1}; exactly one balancer starts as MASTER.', name, masters.map((m) => m.p.path).join(', ')), rng(inst.state!.args[0] ?? inst.state!.keyword), [fix(t("Set 'state BACKUP'"), replace(inst.state!.args[0] ?? inst.state!.keyword, inst.state!.args[0] ? 'BACKUP' : 'state BACKUP'))]), n));
      } else if (inst.stateValue !== 'MASTER' && masters.length === 0) {
        const tok = inst.state?.args[0];
        c.out.push(c.place(kfinding('keepalived/one-master', t('({0}) no balancer (this one or {1}) is MASTER.', name, peerInsts.map((p) => p.p.path).join(', ')), rng(tok ?? n.keyword), tok && (!c.me || c.me.vrrp?.state !== 'BACKUP') ? [fix(t("Set 'state MASTER'"), replace(tok, 'MASTER'))] : undefined), n));
      }
      const same = peerInsts.filter((x) => x.inst.priorityValue === inst.priorityValue);
      if (same.length) c.out.push(c.place(kfinding('keepalived/distinct-priority', t('({0}) priority {1} equals the priority in {2}.', name, inst.priorityValue, same.map((x) => x.p.path).join(', ')), rng(inst.priority?.args[0] ?? n.keyword)), n));
    }
    failover(c, inst, name, mine, others);
    preemption(c, inst, name, mine, peerInsts);
  }
}

/** Failover: when the holder's tracked script fails, its priority must fall below the best other balancer's. */
function failover(c: PairContext, inst: Instance, name: string, mine: Side, others: Side[]): void {
  const all = [mine, ...others];
  const holder = all.find((x) => x.state === 'MASTER');
  if (!holder || holder.priority >= 255 || all.filter((x) => x.state === 'MASTER').length > 1) return;
  const rest = all.filter((x) => x !== holder);
  if (!rest.length) return;
  const best = rest.reduce((a, b) => (b.priority + b.plus > a.priority + a.plus ? b : a));
  const bestEff = best.priority + best.plus;
  const holderSummary = holder === mine ? c.summary : c.peers.find((p) => p.path === holder.label)?.summary;
  if (!holder.inst || !holderSummary) return;
  for (const sc of weights(holderSummary, holder.inst)) {
    if (sc.w === 0) continue; // weight 0: a failing script puts the instance in FAULT, which releases the VIP
    const failed = holder.priority + holder.plus - (sc.w > 0 ? sc.w : 0) + (sc.w < 0 ? sc.w : 0);
    if (failed < bestEff) continue;
    const bestPriority = `${best.priority}${best.plus ? `+${best.plus}` : ''}`;
    const backupText = best === mine ? t("this BACKUP's {0}", bestPriority) : t("the BACKUP {0}'s {1}", best.label, bestPriority);
    if (holder === mine) {
      const script = c.summary.scripts.get(sc.name);
      const wt = script?.weight?.args[0];
      const needed = -Math.min(253, holder.priority + holder.plus - bestEff + 1);
      const message = sc.w < 0
        ? t('vrrp_script {0} weight {1}: when HAProxy dies the MASTER drops to {2}, not below {3}, so the VIP stays on the dead proxy.', sc.name, sc.w, failed, backupText)
        : t('vrrp_script {0} weight +{1}: when HAProxy dies the MASTER keeps {2}, not below {3}, so the VIP stays on the dead proxy.', sc.name, sc.w, failed, backupText);
      // a positive weight cannot be repaired in one file (the BACKUP adds its own); a negative one can
      c.out.push(c.place(kfinding('keepalived/script-weight', message, rng(wt ?? script?.node.keyword ?? inst.node.keyword), wt && sc.w < 0 ? [fix(t('Set weight {0}', needed), replace(wt, String(needed)))] : undefined), sc.node ?? inst.node));
    } else if (best === mine && inst.priority?.args[0]) {
      // this BACKUP is the one that should take over: say so on its priority line, with the priority that would
      const want = failed - mine.plus + 1;
      const fixes = want < holder.priority + holder.plus - mine.plus && want <= 254 ? [fix(t('Set priority {0}', want), replace(inst.priority.args[0], String(want)))] : undefined;
      c.out.push(c.place(kfinding('keepalived/script-weight', t("({0}) when HAProxy dies on the MASTER ({1}, {2} weight {3}) it keeps {4}, not below this BACKUP's {5}{6}, so the VIP stays on the dead proxy.", name, holder.label, sc.name, sc.w, failed, mine.priority, mine.plus ? `+${mine.plus}` : ''), rng(inst.priority.args[0]), fixes), inst.priority));
    }
  }
}

/** Preemption: nopreempt works only when every balancer starts BACKUP and has it; a BACKUP above the MASTER takes the VIP at once. */
function preemption(c: PairContext, inst: Instance, name: string, mine: Side, peers: Array<{ p: PeerFile; inst: Instance }>): void {
  if (!peers.length) return;
  const nopreempt = child(inst.node, 'nopreempt');
  const without = peers.filter((x) => !child(x.inst.node, 'nopreempt'));
  if (nopreempt && inst.stateValue !== 'MASTER' && without.length) {
    c.out.push(c.place(kfinding('keepalived/preempt', t('({0}) has nopreempt, but {1} does not: the other balancer still preempts, so the VIP moves back anyway.', name, without.map((x) => x.p.path).join(', ')), rng(nopreempt.keyword), [fix(t("Remove 'nopreempt'"), { range: { start: rng(nopreempt.keyword).start, end: rng(nopreempt.args[nopreempt.args.length - 1] ?? nopreempt.keyword).end }, newText: '' })]), nopreempt));
  }
  if (inst.stateValue === 'MASTER' && !nopreempt) {
    const above = peers.filter((x) => x.inst.stateValue !== 'MASTER' && x.inst.priorityValue + positive(c.peers.find((p) => p === x.p)!.summary, x.inst) > mine.priority + mine.plus);
    if (above.length && inst.priority?.args[0]) {
      const top = Math.max(...above.map((x) => x.inst.priorityValue));
      c.out.push(c.place(kfinding('keepalived/preempt', t('({0}) is MASTER with priority {1}, but the BACKUP in {2} has {3}: it preempts the VIP as soon as it hears this one.', name, mine.priority, above.map((x) => x.p.path).join(', '), top), rng(inst.priority.args[0]), top < 254 ? [fix(t('Set priority {0}', top + 1), replace(inst.priority.args[0], String(top + 1)))] : undefined), inst.priority));
    }
  }
}

const vipSet = (i: Instance) => i.vips.map((v) => v.token.text).sort().join(' ');
const unicastPeers = (i: Instance) => (child(i.node, 'unicast_peer')?.children ?? []).map((x) => x.keyword.text);

/** Settings that must be equal on both sides, or each balancer ignores the other and both hold the VIP (split brain). */
function agreement(c: PairContext, inst: Instance, name: string, peers: Array<{ p: PeerFile; inst: Instance }>): void {
  const n = inst.node;
  const invVip = c.inventory ? /^\[?([^\]]*?)\]?:\d+$/.exec(c.inventory.cluster.controlPlaneEndpoint)?.[1] : undefined;
  for (const { p, inst: other } of peers) {
    if (inst.vridValue !== undefined && other.vridValue !== undefined && other.vridValue !== inst.vridValue) {
      c.out.push(c.place(kfinding('keepalived/virtual-router-id', t("({0}) virtual_router_id {1} differs from {2} in {3}: split brain — each balancer ignores the other's adverts, both become MASTER and hold the VIP at once.", name, inst.vridValue, other.vridValue, p.path), rng(inst.vrid!.args[0]!), [fix(t('Set virtual_router_id {0}', other.vridValue), replace(inst.vrid!.args[0]!, String(other.vridValue)))]), inst.vrid!));
    }
    const mine = `${tokenText(inst.authType) ?? ''}/${tokenText(inst.authPass) ?? ''}`;
    const theirs = `${tokenText(other.authType) ?? ''}/${tokenText(other.authPass) ?? ''}`;
    if (mine !== theirs) {
      const where = inst.authPass?.args[0] ?? inst.authType?.args[0] ?? n.keyword;
      const fixes = inst.authPass?.args[0] && other.authPass?.args[0] && tokenText(inst.authType) === tokenText(other.authType) ? [fix(t('Use the same auth_pass as {0}', p.path), replace(inst.authPass.args[0], other.authPass.args[0].text))] : undefined;
      c.out.push(c.place(kfinding('keepalived/authentication', t("({0}) authentication differs from {1}: split brain — the balancers ignore each other's adverts and both hold the VIP.", name, p.path), rng(where), fixes), n));
    }
    if (inst.vips.length && other.vips.length && vipSet(inst) !== vipSet(other)) {
      const tok = inst.vips[0]!.token;
      const clearlyWrong = invVip && other.vips.some((v) => v.address === invVip) && !inst.vips.some((v) => v.address === invVip) && other.vips.length === 1 && inst.vips.length === 1;
      c.out.push(c.place(kfinding('keepalived/pair-agreement', t('({0}) virtual_ipaddress {1} differs from {2} in {3}; after a failover clients lose the address they use.', name, vipSet(inst), vipSet(other), p.path), rng(tok), clearlyWrong ? [fix(t('Use {0}', other.vips[0]!.token.text), replace(tok, other.vips[0]!.token.text))] : undefined), inst.vips[0]!.node));
    }
    const adv = child(n, 'advert_int');
    const a = Number(tokenText(adv) ?? '1');
    const b = Number(tokenText(child(other.node, 'advert_int')) ?? '1');
    if (Number.isFinite(a) && Number.isFinite(b) && a > 0 && b > 0 && a !== b) {
      c.out.push(c.place(kfinding('keepalived/pair-agreement', t('({0}) advert_int {1} differs from {2} in {3}; VRRP drops adverts whose interval differs from its own, so both balancers may take the VIP (split brain).', name, a, b, p.path), rng(adv?.args[0] ?? n.keyword), adv?.args[0] ? [fix(t('Set advert_int {0}', b), replace(adv.args[0], String(b)))] : undefined), adv ?? n));
    }
    const mineUni = unicastPeers(inst);
    const theirUni = unicastPeers(other);
    const uni = child(n, 'unicast_peer');
    if (!!uni !== !!child(other.node, 'unicast_peer')) {
      c.out.push(c.place(kfinding('keepalived/pair-agreement', t('({0}) {1} but {2} {3}: they never hear each other, and both hold the VIP (split brain).', name, uni ? 'sends unicast adverts' : 'sends multicast adverts', p.path, uni ? t('uses multicast') : t('uses unicast_peer')), rng(uni?.keyword ?? n.keyword)), uni ?? n));
    } else if (uni && theirUni.length) {
      const peerAddr = tokenText(child(other.node, 'unicast_src_ip')) ?? p.host?.address;
      // a balancer of the inventory missing from the list is the unicast rule's finding (./unicast.ts)
      const byInventory = !!c.inventory && !!unicastSelf(c.inventory, c.me, inst) && hostsWithRole(c.inventory, 'loadbalancer').some((h) => h.address === peerAddr);
      if (peerAddr && !mineUni.includes(peerAddr) && !byInventory) {
        c.out.push(c.place(kfinding('keepalived/pair-agreement', t("({0}) unicast_peer lacks {1}, the address of {2}'s balancer: it never receives this one's adverts (split brain).", name, peerAddr, p.path), rng(uni.keyword)), uni));
      }
    }
  }
}
