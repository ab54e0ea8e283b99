/**
 * The balancers' live rows for the Inventory view: the VIP holder first (who holds the VIP now, Keepalived's state,
 * HAProxy, backends UP), then per balancer its VRRP side and each backend server's state and last check.
 */
import { balancerSummary, vipLine, type BalancerLive, type BalancersModel } from '../core/live/balancers';
import { isDown } from '../core/drill/haproxyState';
import { md } from './liveTree';
import { priorityBreakdown, type VrrpInstanceData } from '../core/live/keepalivedData';
import { vrrpLine } from '../core/live/vrrpVerdict';
import type { LiveNode } from '../editor/treeNodes';

const OK = 'testing.iconPassed';
const WARN = 'list.warningForeground';
const ERR = 'list.errorForeground';

export function vipNode(model: BalancersModel): LiveNode {
  const critical = model.problems.some((p) => p.severity === 'critical');
  const aboutVip = model.problems.find((p) => p.about === 'vip');
  const warning = model.problems.length > 0;
  return {
    id: 'balancers:vip',
    label: vipLine(model).split(' · ')[0]!,
    // the cause when the VIP itself is in trouble (split brain, a stuck VIP, no holder), else the holder's HAProxy and backends
    description: aboutVip ? aboutVip.what : vipLine(model).split(' · ').slice(1).join(' · '),
    icon: critical ? 'error' : warning ? 'warning' : 'broadcast',
    color: critical ? ERR : warning ? WARN : OK,
    tooltip: md([`**${vipLine(model)}**`, model.problems.length ? model.problems.map((p) => `- ${p.what}`).join('\n') : 'No problem on the balancers.', `Read over SSH at ${new Date(model.fetchedAt).toTimeString().slice(0, 8)}; refreshed every 2 s while this view is visible.`]),
    contextValue: 'balancers-vip',
    expanded: critical,
    children: model.balancers.map(balancerNode),
  };
}

function balancerNode(b: BalancerLive): LiveNode {
  const vrrp = b.vrrp;
  const role = vrrp ? (vrrp.holdsVip ? `holds the VIP on ${vrrp.vipInterface}` : 'standby') : 'not read';
  const inst = vrrp?.instance;
  const ka = vrrp ? (vrrp.keepalivedActive ? (inst ? vrrpLine(b) : `keepalived ${vrrp.keepalivedState ?? 'active'}`) : 'keepalived NOT RUNNING') : undefined;
  const down = b.servers.some((s) => s.state && isDown(s.state.status));
  const bad = !vrrp || !vrrp.haproxyActive || !vrrp.keepalivedActive || down;
  return {
    id: `balancers:${b.host}`,
    label: b.host,
    description: [role, ka, balancerSummary(b)].filter(Boolean).join(' · '),
    icon: !vrrp ? 'question' : vrrp.holdsVip ? 'star-full' : 'vm',
    color: bad ? (vrrp?.holdsVip ? ERR : WARN) : undefined,
    tooltip: md([`**${b.host}** \`${b.address}\``, b.error ? `Not read: ${b.error}` : '', inst ? vrrpTooltip(inst) : '', b.configuredState ? `Configured VRRP state: ${b.configuredState} (the priority decides who holds the VIP)` : '']),
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

/** What keepalived's data dump says of the API VIP's instance on this balancer. */
function vrrpTooltip(i: VrrpInstanceData): string {
  const scripts = i.scripts.map((s) => `- \`${s.name}\` weight ${s.weight}: ${s.status ?? '?'} (every ${s.intervalSeconds ?? '?'} s, fall ${s.fall ?? '?'}, rise ${s.rise ?? '?'})`);
  return [
    `VRRP instance \`${i.name}\` (virtual_router_id ${i.vrid ?? '?'}): **${i.state}**, priority ${priorityBreakdown(i)}${i.priority !== undefined ? ` (base ${i.priority})` : ''}`,
    i.masterRouter ? `Hears the master ${i.masterRouter} (priority ${i.masterPriority ?? '?'})` : '',
    i.masterDownMs !== undefined ? `Master-down interval ${(i.masterDownMs / 1000).toFixed(2)} s = 3 × advert_int ${i.advertSeconds ?? '?'} s + (256 − ${i.effectivePriority ?? '?'})/256 s${i.preempt === false ? ' · nopreempt' : ''}` : '',
    scripts.length ? `Tracked scripts:\n${scripts.join('\n')}` : 'Tracks no script.',
  ].filter(Boolean).join('\n\n');
}
