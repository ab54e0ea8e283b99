/** Keepalived rule descriptions: id, severity, what, why (from the seed's VRRP reasoning), docs. */
import type { Finding, Fix, Range, Severity } from '../findings';
import { ruleTable, type RuleRow } from '../lint/ruleTable';
import { msg, type Message } from '../l10n';

const DOCS = 'https://keepalived.readthedocs.io/en/latest/configuration_synopsis.html';

function rule<const N extends string>(id: N, severity: Severity, title: Message, why: Message, anchor: string, fixable = false): RuleRow<`keepalived/${N}`> {
  return { id: `keepalived/${id}`, severity, title, why, docs: `${DOCS}#${anchor}`, ...(fixable ? { fixes: ['edit'] as const } : {}) };
}

export const KEEPALIVED = ruleTable([
  rule('syntax', 'error', msg('Quotes are balanced.'), msg('An unmatched quote swallows the rest of the line and keepalived misreads the block (keepalived 2.2.7 even crashes on it).'), 'global-definitions', true),
  rule('braces', 'error', msg("Every '{' has its '}'."), msg("A missing '}' makes keepalived read the following blocks as unknown keywords of the unclosed one, so the VRRP instance or check script silently disappears."), 'global-definitions', true),
  rule('unknown-keyword', 'error', msg('Keywords are ones keepalived 2.2 knows in their block.'), msg('Keepalived skips an unknown keyword (and the block it opens), so a typo silently drops the VIP, a check or the authentication.'), 'vrrp-instance-definitions', true),
  rule('block-expected', 'error', msg('Block keywords open a `{ }` block.'), msg('Keepalived reads addresses, scripts and authentication only from inside their block.'), 'vrrp-instance-definitions', true),
  rule('argument', 'error', msg('Keywords that need a value have one, and named blocks have exactly one name.'), msg('Keepalived stops reading the configuration at a keyword without its value, and drops a vrrp_instance whose name is not one word.'), 'vrrp-instance-definitions'),
  rule('no-instance', 'warning', msg('The file defines a vrrp_instance.'), msg('Without a vrrp_instance keepalived holds no VIP, and the cluster endpoint is unreachable.'), 'vrrp-instance-definitions'),
  rule('state', 'error', msg('`state` is MASTER or BACKUP.'), msg('Keepalived turns an unknown state into BACKUP, so the intended MASTER never takes the VIP at start.'), 'vrrp-instance-definitions', true),
  rule('priority', 'error', msg('`priority` is 1–254 and set explicitly.'), msg('Keepalived rejects priorities outside 1–255, and at 255 (a MASTER without priority) it is the address owner and ignores track_script weights.'), 'vrrp-instance-definitions', true),
  rule('virtual-router-id', 'error', msg('`virtual_router_id` is 1–255 and the same on every balancer (51 in the seed).'), msg('The VRID names the virtual router: balancers with different VRIDs never see each other and both take the VIP.'), 'vrrp-instance-definitions', true),
  rule('authentication', 'error', msg('Authentication is the same on every balancer, PASS or AH, with at most 8 characters.'), msg('Keepalived drops adverts whose authentication differs, so each balancer believes it is alone and both hold the VIP; longer passwords are truncated.'), 'vrrp-instance-definitions', true),
  rule('one-master', 'error', msg('Exactly one balancer starts as MASTER.'), msg('Two MASTERs both claim the VIP at start (split brain) until priorities settle; with none the VIP waits for a timeout.'), 'vrrp-instance-definitions', true),
  rule('distinct-priority', 'error', msg('Balancers have distinct priorities (100 and 90 in the seed).'), msg('With equal priorities the election falls back to comparing IP addresses, which makes the VIP move unpredictably.'), 'vrrp-instance-definitions'),
  rule('vip', 'error', msg('virtual_ipaddress is the host of controlPlaneEndpoint, a valid address with a prefix.'), msg('The VIP is what every kubelet and kubectl connects to; keepalived drops an invalid address and then holds no VIP at all.'), 'vrrp-instance-definitions', true),
  rule('vip-subnet', 'error', msg("The VIP lies in the balancers' subnet."), msg("VRRP moves the VIP with gratuitous ARP inside one L2 segment; an address outside the balancers' subnet is unreachable."), 'vrrp-instance-definitions'),
  rule('interface', 'error', msg("`interface` (and a VIP's `dev`) is the inventory's vrrp.interface."), msg('Keepalived refuses to start on an interface the host does not have, and adverts on the wrong NIC never reach the other balancer.'), 'vrrp-instance-definitions', true),
  rule('track-script', 'error', msg('track_script names a defined vrrp_script.'), msg('Keepalived ignores an unknown tracked script, so the VIP stays on a balancer whose HAProxy is dead (a black hole).'), 'vrrp-script-definitions', true),
  rule('no-track-script', 'warning', msg('The instance tracks HAProxy with a vrrp_script.'), msg('Without a check the VIP stays on a balancer whose HAProxy has died, and all API traffic goes into a black hole.'), 'vrrp-script-definitions', true),
  rule('script-weight', 'error', msg("The check script's weight really moves the VIP."), msg('When HAProxy dies the MASTER priority plus the weight must fall below the best BACKUP priority, or the VIP stays on the dead proxy (100 − 20 = 80 < 90 in the seed).'), 'vrrp-script-definitions', true),
  rule('script-security', 'error', msg('global_defs has `enable_script_security` and `script_user` when scripts run.'), msg('Without them keepalived refuses to run the check script (no keepalived_script user on Debian) and the VIP never moves on failure.'), 'global-definitions', true),
  rule('script-path', 'warning', msg('The check script is an absolute path to a program that exists on the balancer.'), msg('Keepalived disables a track script whose program it cannot find, and with script security it needs absolute paths it can check.'), 'vrrp-script-definitions', true),
  rule('script-values', 'error', msg('vrrp_script interval, timeout, rise, fall and weight are valid numbers.'), msg('Keepalived ignores an invalid value and falls back to defaults that change how fast the VIP moves.'), 'vrrp-script-definitions'),
  rule('advert-int', 'error', msg('`advert_int` is a positive number of seconds.'), msg('The advert interval sets the failover time (3 × advert_int + skew); an invalid one is replaced by the default.'), 'vrrp-instance-definitions'),
  rule('vrrp-strict', 'error', msg('`vrrp_strict` is not combined with authentication or a MASTER below priority 255.'), msg('Under vrrp_strict keepalived ignores authentication and demands that only the address owner starts as MASTER.'), 'global-definitions'),
  rule('pair-agreement', 'error', msg("The VIP, advert_int and unicast peers agree between the balancers' files."), msg('Balancers whose adverts do not match ignore each other, so both take the VIP (split brain); a VIP that differs is lost by clients after a failover.'), 'vrrp-instance-definitions', true),
  rule('unicast', 'error', msg("`unicast_src_ip` is this balancer's address and `unicast_peer` lists exactly the other balancers."), msg('With unicast keepalived sends its adverts only to the listed peers: a balancer missing from the list never hears this one and takes the VIP too (split brain), a peer that is no balancer gets adverts for nothing, and a source that is not an address of this host puts the instance in FAULT (keepalived 2.2.7: "bind unicast_src … failed"), so it never holds the VIP.'), 'vrrp-instance-definitions', true),
  rule('preempt', 'warning', msg('Preemption is consistent: nopreempt on every balancer or none, and the MASTER has the highest priority.'), msg('A BACKUP above the MASTER takes the VIP as soon as it starts, and nopreempt on one balancer only does not stop the other from moving the VIP back.'), 'vrrp-instance-definitions', true),
  rule('inventory-mismatch', 'warning', msg("state and priority match the balancer's vrrp settings in the inventory."), msg('The inventory is the source of truth: generated configs, checks and failover tests assume its state and priority.'), 'vrrp-instance-definitions', true),
]);

/** The declared rules, for hovers, the Diagnostics webview and SARIF. */
export const KEEPALIVED_RULES = KEEPALIVED.rules;

export type KeepalivedRuleId = Parameters<typeof KEEPALIVED.finding>[0];

export function kfinding(rule: KeepalivedRuleId, message: string, range: Range, fixes?: Fix[], severity?: Severity): Finding {
  return KEEPALIVED.finding(rule, message, range, { fixes, severity });
}
