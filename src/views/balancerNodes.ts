/**
 * The balancers' live rows for the Inventory view: the VIP holder first (who holds the VIP now, Keepalived's state,
 * HAProxy, backends UP), then per balancer its VRRP side and each backend server's state and last check.
 */
import { balancerSummary, vipLine, type BalancerLive, type BalancersModel } from '../core/live/balancers';
import { isDown } from '../core/drill/haproxyState';
import { md } from './liveTree';
import type { LiveNode } from '../editor/treeNodes';

const OK = 'testing.iconPassed';
const WARN = 'list.warningForeground';
const ERR = 'list.errorForeground';

export function vipNode(model: BalancersModel): LiveNode {
  const critical = model.problems.some((p) => p.severity === 'critical');
  const warning = model.problems.length > 0;
  return {
    id: 'balancers:vip',
    label: vipLine(model).split(' · ')[0]!,
    description: vipLine(model).split(' · ').slice(1).join(' · '),
    icon: critical ? 'error' : warning ? 'warning' : 'broadcast',
    color: critical ? ERR : warning ? WARN : OK,
    tooltip: md([`**${vipLine(model)}**`, model.problems.length ? model.problems.map((p) => `- ${p.what}`).join('\n') : 'No problem on the balancers.', `Read over SSH at ${new Date(model.fetchedAt).toTimeString().slice(0, 8)}; refreshed every 5 s while this view is visible.`]),
    contextValue: 'balancers-vip',
    expanded: critical,
    children: model.balancers.map(balancerNode),
  };
}

function balancerNode(b: BalancerLive): LiveNode {
  const vrrp = b.vrrp;
  const role = vrrp ? (vrrp.holdsVip ? `holds the VIP on ${vrrp.vipInterface}` : 'standby') : 'not read';
  const ka = vrrp ? `keepalived ${vrrp.keepalivedActive ? (vrrp.keepalivedState ?? 'active') : 'NOT RUNNING'}` : undefined;
  const down = b.servers.some((s) => s.state && isDown(s.state.status));
  const bad = !vrrp || !vrrp.haproxyActive || !vrrp.keepalivedActive || down;
  return {
    id: `balancers:${b.host}`,
    label: b.host,
    description: [role, ka, balancerSummary(b)].filter(Boolean).join(' · '),
    icon: !vrrp ? 'question' : vrrp.holdsVip ? 'star-full' : 'vm',
    color: bad ? (vrrp?.holdsVip ? ERR : WARN) : undefined,
    tooltip: md([`**${b.host}** \`${b.address}\``, b.error ? `Not read: ${b.error}` : '', b.configuredState ? `Configured VRRP state: ${b.configuredState} (the priority decides who holds the VIP)` : '']),
    contextValue: 'balancer-live',
    children: b.servers.map((s) => ({
      id: `balancers:${b.host}:${s.backend}/${s.server}`,
      label: s.server,
      description: `${s.address} · ${s.state ? `${s.state.status}${s.state.check ? ` · check ${s.state.check}` : ''}${s.state.lastChangeSeconds !== undefined ? ` · for ${s.state.lastChangeSeconds}s` : ''}` : 'state unknown'}`,
      icon: !s.state ? 'question' : isDown(s.state.status) ? 'error' : 'pass',
      color: !s.state ? undefined : isDown(s.state.status) ? ERR : OK,
      tooltip: `backend ${s.backend}, server ${s.server} (${s.address}) as HAProxy on ${b.host} sees it`,
    })),
  };
}
