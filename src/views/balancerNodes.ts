/**
 * The balancers' live rows for the Inventory view: the VIP holder first (who holds the VIP now, Keepalived's state,
 * HAProxy, backends UP), then per balancer its VRRP side and each backend server's state and last check. Plain data
 * (no VS Code), like the live views' rows.
 */
import { balancerSummary, vipLine, type BalancerLive, type BalancersModel } from '../core/live/balancers';
import { isDown } from '../core/drill/haproxyState';
import { ERR, md, OK, WARN } from './rowLook';
import { t } from '../core/l10n';
import { priorityBreakdown, type VrrpInstanceData } from '../core/live/keepalivedData';
import { vrrpLine } from '../core/live/vrrpVerdict';
import type { LiveNode } from '../editor/treeNodes';

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
    tooltip: md([`**${vipLine(model)}**`, model.problems.length ? model.problems.map((p) => `- ${p.what}`).join('\n') : t('No problem on the balancers.'), t('Read over SSH at {0}; refreshed every 2 s while this view is visible.', new Date(model.fetchedAt).toTimeString().slice(0, 8))]),
    contextValue: 'balancers-vip',
    expanded: critical,
    children: model.balancers.map(balancerNode),
  };
}

function balancerNode(b: BalancerLive): LiveNode {
  const vrrp = b.vrrp;
  const role = vrrp ? (vrrp.holdsVip ? t('holds the VIP on {0}', String(vrrp.vipInterface)) : t('standby')) : t('not read');
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
    tooltip: md([`**${b.host}** \`${b.address}\``, b.error ? t('Not read: {0}', b.error) : '', inst ? vrrpTooltip(inst) : '', b.configuredState ? t('Configured VRRP state: {0} (the priority decides who holds the VIP)', b.configuredState) : '']),
    contextValue: 'balancer-live',
    children: b.servers.map((s) => ({
      id: `balancers:${b.host}:${s.backend}/${s.server}`,
      label: s.server,
      description: `${s.address} · ${s.state ? `${s.state.status}${s.state.check ? ` · check ${s.state.check}` : ''}${s.state.lastChangeSeconds !== undefined ? ` · for ${s.state.lastChangeSeconds}s` : ''}` : t('state unknown')}`,
      icon: !s.state ? 'question' : isDown(s.state.status) ? 'error' : 'pass',
      color: !s.state ? undefined : isDown(s.state.status) ? ERR : OK,
      tooltip: t('backend {0}, server {1} ({2}) as HAProxy on {3} sees it', s.backend, s.server, s.address, b.host),
    })),
  };
}

/** What keepalived's data dump says of the API VIP's instance on this balancer. */
function vrrpTooltip(i: VrrpInstanceData): string {
  const scripts = i.scripts.map((s) => t('- `{0}` weight {1}: {2} (every {3} s, fall {4}, rise {5})', s.name, s.weight, s.status ?? '?', s.intervalSeconds ?? '?', s.fall ?? '?', s.rise ?? '?'));
  return [
    t('VRRP instance `{0}` (virtual_router_id {1}): **{2}**, priority {3}{4}', i.name, i.vrid ?? '?', i.state, priorityBreakdown(i), i.priority !== undefined ? ` (base ${i.priority})` : ''),
    i.masterRouter ? t('Hears the master {0} (priority {1})', i.masterRouter, i.masterPriority ?? '?') : '',
    i.masterDownMs !== undefined ? t('Master-down interval {0} s = 3 × advert_int {1} s + (256 − {2})/256 s{3}', (i.masterDownMs / 1000).toFixed(2), i.advertSeconds ?? '?', i.effectivePriority ?? '?', i.preempt === false ? ' · nopreempt' : '') : '',
    scripts.length ? t('Tracked scripts:\n{0}', scripts.join('\n')) : t('Tracks no script.'),
  ].filter(Boolean).join('\n\n');
}
