/**
 * The balancers live: per load-balancer host, whether it holds the VIP now (`ip -o addr`), what Keepalived says
 * of its VRRP state (its last "Entering … STATE" journal line) and whether it runs, whether HAProxy runs, and each
 * backend server's state and check result from HAProxy's admin socket (read by the drill's probe, reused). The
 * problems feed the one verdict: no balancer or two balancers holding the VIP, HAProxy down where the VIP is, a
 * backend server DOWN.
 */
import { t } from '../l10n';
import type { Inventory } from '../inventory/types';
import { hostsWithRole, splitEndpoint } from '../inventory/types';
import { sh, type RemoteCommand } from '../ssh/command';
import { isDown, type ServerState } from '../drill/haproxyState';
import type { BalancerSnapshot } from '../drill/plan';
import type { Problem } from './status';
import { failingScripts, keepalivedDumpCommand, parseKeepalivedDump, splitDump, type VrrpInstanceData } from './keepalivedData';
import { haproxyDownOnHolder, splitBrainCause } from './vrrpVerdict';

export type VrrpState = 'MASTER' | 'BACKUP' | 'FAULT';

export interface VrrpProbe {
  holdsVip: boolean;
  /** The interface the VIP is on, when held. */
  vipInterface: string | undefined;
  keepalivedActive: boolean;
  /** Keepalived's state: from its data dump, else its latest "Entering … STATE" journal line. */
  keepalivedState: VrrpState | undefined;
  haproxyActive: boolean;
  /**
   * The VRRP instance that holds the API's VIP as keepalived's data dump describes it (state, base and effective
   * priority, scripts and their status, master-down timer); undefined when keepalived does not run or wrote no dump.
   */
  instance?: VrrpInstanceData | undefined;
}

/**
 * One SSH command per balancer for the VRRP side: addresses, Keepalived's unit, its last journaled state and its data
 * dump (./keepalivedData.ts), HAProxy's unit.
 */
export function vrrpProbeCommand(): RemoteCommand {
  return sh`ip -o addr show; echo '### keepalived'; systemctl is-active keepalived.service || true; journalctl -u keepalived.service -o cat --no-pager -q -n 500 2>/dev/null | grep -E 'Entering (MASTER|BACKUP|FAULT) STATE' | tail -n 1 || true; ${keepalivedDumpCommand()}; echo '### haproxy'; systemctl is-active haproxy.service || true`;
}

export function parseVrrpProbe(text: string, vip: string): VrrpProbe {
  const [addrPart = '', rest = ''] = text.split('### keepalived\n');
  const [kaAll = '', haPart = ''] = rest.split('### haproxy\n');
  const [kaPart = '', dumpPart = ''] = kaAll.split(/(?=### keepalived-data\n)/);
  let vipInterface: string | undefined;
  for (const line of addrPart.split('\n')) {
    // `2: eth0    inet 10.3.60.100/32 scope global eth0` — also `inet6 fd00::100/128`.
    const m = /^\d+:\s+(\S+?)(?:@\S+)?\s+inet6?\s+([^/\s]+)\//.exec(line);
    if (m && m[2] === vip) vipInterface = m[1];
  }
  const kaLines = kaPart.split('\n').map((l) => l.trim()).filter(Boolean);
  const journaled = /Entering (MASTER|BACKUP|FAULT) STATE/.exec(kaPart)?.[1] as VrrpState | undefined;
  const { data, stats } = splitDump(dumpPart);
  const instances = parseKeepalivedDump(data, stats);
  const instance = instances.find((i) => i.vips.some((v) => v.address === vip)) ?? (instances.length === 1 ? instances[0] : undefined);
  const dumped = instance && ['MASTER', 'BACKUP', 'FAULT'].includes(instance.state) ? (instance.state as VrrpState) : undefined;
  return {
    holdsVip: vipInterface !== undefined,
    vipInterface,
    keepalivedActive: kaLines[0] === 'active',
    keepalivedState: dumped ?? journaled,
    haproxyActive: haPart.trim().split('\n')[0] === 'active',
    ...(instance ? { instance } : {}),
  };
}

export interface BackendServer {
  backend: string;
  server: string;
  address: string;
  state: ServerState | undefined;
}

export interface BalancerLive {
  host: string;
  address: string;
  /** The inventory's configured VRRP role (priority decides, this is only what was planned). */
  configuredState: string | undefined;
  vrrp: VrrpProbe | undefined;
  /** The HAProxy side, from the drill's admin-socket probe. */
  haproxy: BalancerSnapshot | undefined;
  servers: BackendServer[];
  /** Why this balancer could not be read (SSH, permissions). */
  error: string | undefined;
}

export interface BalancersModel {
  vip: string | undefined;
  /** The balancers that hold the VIP now (one when all is well). */
  holders: string[];
  balancers: BalancerLive[];
  problems: Problem[];
  fetchedAt: number;
}

export function buildBalancer(host: { name: string; address: string; vrrp?: { state: string } }, vrrp: VrrpProbe | undefined, haproxy: BalancerSnapshot | undefined, error?: string): BalancerLive {
  const servers: BackendServer[] = (haproxy?.cfg?.servers ?? []).map((s) => ({ backend: s.backend, server: s.server, address: s.address, state: haproxy?.states?.[`${s.backend}/${s.server}`] }));
  return { host: host.name, address: host.address, configuredState: host.vrrp?.state, vrrp, haproxy, servers, error: error ?? (haproxy?.error ? `HAProxy: ${haproxy.error}` : undefined) };
}

export function buildBalancers(inventory: Inventory, balancers: BalancerLive[], fetchedAt: number): BalancersModel {
  const vip = splitEndpoint(inventory.cluster.controlPlaneEndpoint)?.host;
  const holders = balancers.filter((b) => b.vrrp?.holdsVip).map((b) => b.host);
  const problems: Problem[] = [];
  const add = (severity: Problem['severity'], what: string) => problems.push({ severity, what });
  const read = balancers.filter((b) => b.vrrp);
  for (const b of balancers) if (!b.vrrp) add('warning', t('balancer {0} not read: {1}', b.host, b.error ?? t('no answer')));
  if (read.length && !holders.length && read.length === balancers.length) problems.push({ severity: 'critical', what: t('no balancer holds the VIP {0}', vip ?? '').trim(), about: 'vip' });
  if (holders.length > 1) problems.push({ severity: 'critical', what: t('the VIP {0} is held by {1} at once (split brain): {2}', vip ?? '', holders.join(t(' and ')), splitBrainCause(balancers.filter((b) => holders.includes(b.host)))), about: 'vip', kind: 'split-brain' });
  for (const b of read) {
    const holds = holders.includes(b.host);
    const where = holds ? t('holds the VIP') : t('standby');
    if (!b.vrrp!.keepalivedActive) add(holds ? 'critical' : 'warning', t('Keepalived is not running on balancer {0} ({1})', b.host, where));
    else if (!holds && b.vrrp!.instance?.state === 'FAULT') add('warning', t('Keepalived on balancer {0} is in FAULT: it cannot take the VIP over{1}', b.host, failingScripts(b.vrrp!.instance).length ? t(' ({0} failing)', failingScripts(b.vrrp!.instance).map((x) => x.name).join(', ')) : ''));
    if (!b.vrrp!.haproxyActive) {
      if (holds && holders.length === 1) problems.push({ ...haproxyDownOnHolder(b, balancers.filter((x) => x !== b)), about: 'vip' });
      else add(holds ? 'critical' : 'warning', t('HAProxy is not running on balancer {0} ({1})', b.host, where));
    }
    for (const s of b.servers) {
      if (s.state && isDown(s.state.status)) add(holders.includes(b.host) ? 'critical' : 'warning', t('HAProxy on {0}: backend {1} server {2} ({3}) is {4}{5}', b.host, s.backend, s.server, s.address, s.state.status, s.state.check ? ` (${s.state.check})` : ''));
    }
  }
  return { vip, holders, balancers, problems, fetchedAt };
}

/** The inventory's balancers (hosts with the loadbalancer role). */
export function balancerHosts(inventory: Inventory): { name: string; address: string; vrrp?: { state: string } }[] {
  return hostsWithRole(inventory, 'loadbalancer');
}

/** One line for the VIP holder, e.g. `VIP 10.3.60.100 on lb1 (MASTER) · HAProxy up · backends 3/3 UP`. */
export function vipLine(model: BalancersModel): string {
  const vip = model.vip ?? '?';
  if (!model.holders.length) return t('VIP {0}: held by no balancer', vip);
  if (model.holders.length > 1) return t('VIP {0}: held by {1} (split brain)', vip, model.holders.join(t(' and ')));
  const b = model.balancers.find((x) => x.host === model.holders[0])!;
  // ' · ' apart: the Inventory view's VIP row takes the part before the first one as its label
  return `${t('VIP {0} on {1}{2}', vip, b.host, b.vrrp?.keepalivedState ? ` (${b.vrrp.keepalivedState})` : '')} · ${balancerSummary(b)}`;
}

/** `HAProxy up · backends 2/3 UP` for one balancer. */
export function balancerSummary(b: BalancerLive): string {
  if (!b.vrrp) return t('not read: {0}', b.error ?? t('no answer'));
  const up = b.servers.filter((s) => s.state && !isDown(s.state.status)).length;
  const known = b.servers.filter((s) => s.state).length;
  const backends = b.servers.length ? (known ? t('backends {0}/{1} UP', up, b.servers.length) : t('backends unknown (admin socket not readable)')) : t('no backends');
  return `${b.vrrp.haproxyActive ? t('HAProxy up') : t('HAProxy DOWN')} · ${backends}`;
}
