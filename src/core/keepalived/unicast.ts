/**
 * Unicast VRRP against the inventory: with `unicast_peer` keepalived sends its adverts only to the addresses listed,
 * from `unicast_src_ip`. A peer that is no balancer gets adverts meant for nobody, a balancer missing from the list
 * never hears this one (both hold the VIP: split brain), and a source address that is not this balancer's own cannot
 * be bound: keepalived 2.2.7 logs "bind unicast_src … failed" and puts the instance in FAULT, so it never holds the VIP.
 */
import type { Finding, Fix, Range, TextEdit } from '../findings';
import { hostsWithRole, type HostSpec, type Inventory } from '../inventory/types';
import { child } from './parse';
import type { KNode, KToken } from './parse';
import type { Instance } from './summary';
import { kfinding } from './rules';
import { t } from '../l10n';

const rng = (tok: KToken): Range => ({ start: { line: tok.line, character: tok.start }, end: { line: tok.line, character: tok.end } });
const names = (hs: HostSpec[]): string => hs.map((h) => `${h.name} (${h.address})`).join(', ');

export interface UnicastContext {
  inventory: Inventory;
  inventoryName: string;
  /** The balancer this file is for, when known, and whether its layout (header, file name, folder) says so. */
  me: HostSpec | undefined;
  meByLayout: boolean;
  eol: string;
  place: (f: Finding, n: KNode) => Finding;
  out: Finding[];
}

/** The balancer whose address is `address`, if any. */
function balancerAt(lbs: HostSpec[], address: string | undefined): HostSpec | undefined {
  return address ? lbs.find((h) => h.address === address) : undefined;
}

/**
 * The balancer this instance speaks for: the file's own (by its layout or contents), else the one whose address is
 * its unicast_src_ip. Undefined when neither tells.
 */
export function unicastSelf(inv: Inventory, me: HostSpec | undefined, inst: Instance): HostSpec | undefined {
  return me ?? balancerAt(hostsWithRole(inv, 'loadbalancer'), child(inst.node, 'unicast_src_ip')?.args[0]?.text);
}

export function judgeUnicast(c: UnicastContext, inst: Instance, name: string): void {
  const lbs = hostsWithRole(c.inventory, 'loadbalancer');
  if (!lbs.length) return;
  const srcNode = child(inst.node, 'unicast_src_ip');
  const src = srcNode?.args[0];
  const self = unicastSelf(c.inventory, c.me, inst);
  const push = (message: string, tok: KToken, n: KNode, fixes?: Fix[]) => c.out.push(c.place(kfinding('keepalived/unicast', `(${name}) ${message}`, rng(tok), fixes), n));
  if (src && srcNode) {
    const owner = balancerAt(lbs, src.text);
    const want = c.me?.address;
    const fix = want && want !== src.text ? [{ title: t('Use {0}', want), edits: [{ range: rng(src), newText: want }] }] : undefined;
    if (!owner) push(t("unicast_src_ip {0} is no balancer's address in {1} ({2}): keepalived cannot send from an address the host does not have and puts the instance in FAULT.", src.text, c.inventoryName, names(lbs)), src, srcNode, fix);
    else if (c.me && c.meByLayout && owner !== c.me) push(t("unicast_src_ip {0} is {1}'s address, but this file is {2}'s ({3}): keepalived cannot send from another host's address and puts the instance in FAULT, so {2} never holds the VIP.", src.text, owner.name, c.me.name, c.me.address), src, srcNode, fix);
  }
  const block = child(inst.node, 'unicast_peer');
  if (!block?.children) return;
  const listed = block.children.map((e) => e.keyword);
  const missing = self ? lbs.filter((h) => h !== self && !listed.some((tok) => tok.text === h.address)) : [];
  const strangers = listed.filter((tok) => !balancerAt(lbs, tok.text));
  for (const tok of listed) {
    const owner = balancerAt(lbs, tok.text);
    const node = block.children.find((e) => e.keyword === tok)!;
    // one stranger where one balancer is missing: most likely that balancer's address mistyped
    const swap = strangers.length === 1 && missing.length === 1 ? [{ title: t('Use {0} ({1})', missing[0]!.address, missing[0]!.name), edits: [{ range: rng(tok), newText: missing[0]!.address }] }] : undefined;
    if (!owner) push(t('unicast_peer {0} is no balancer of {1} ({2}): adverts go to a host that does not run this VRRP instance.', tok.text, c.inventoryName, names(lbs)), tok, node, swap);
    else if (self && owner === self) push(t("unicast_peer {0} is this balancer's own address ({1}); list the other balancers.", tok.text, self.name), tok, node, [{ title: t('Remove {0}', tok.text), edits: [{ range: { start: { line: tok.line, character: 0 }, end: { line: tok.line + 1, character: 0 } }, newText: '' }] }]);
  }
  if (!self || !missing.length) return;
  const anchor = block.open ?? block.keyword;
  const first = block.children.find((e) => e.keyword.line !== anchor.line);
  const indent = ' '.repeat(first ? first.keyword.start : block.keyword.start + 4);
  const insert: TextEdit = { range: { start: { line: anchor.line, character: anchor.end }, end: { line: anchor.line, character: anchor.end } }, newText: missing.map((h) => c.eol + indent + h.address).join('') };
  push(
    missing.length === 1
      ? t("unicast_peer lacks {0}, a balancer of {1}: it never hears {2}'s adverts and takes the VIP as well (split brain).", names(missing), c.inventoryName, self.name)
      : t("unicast_peer lacks {0}, balancers of {1}: they never hear {2}'s adverts and take the VIP as well (split brain).", names(missing), c.inventoryName, self.name),
    block.keyword,
    block,
    // the swap above is the fix when one stranger stands where the missing balancer belongs
    strangers.length === 1 && missing.length === 1 ? undefined : [{ title: t('Add {0}', missing.map((h) => h.address).join(', ')), edits: [insert] }],
  );
}
