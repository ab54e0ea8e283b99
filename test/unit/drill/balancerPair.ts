/**
 * The lab's balancer pair as the drill reads it, without a lab (MASTER 100, BACKUP 90, advert_int 1, chk_haproxy
 * interval 2 weight −20 unless a side says otherwise): the inventory, each side's live read and keepalived.conf — for
 * the plan, observer and report tests (balancerDrill.test.ts) and the runner's restore tests (balancerRestore.test.ts).
 */
import type { Inventory } from '../../../src/core/inventory/types';
import { generateKeepalivedConfigs } from '../../../src/core/generate/keepalived';
import { masterDown } from '../../../src/core/drill/balancerExpect';
import type { DrillSnapshot } from '../../../src/core/drill/plan';
import { buildBalancer, buildBalancers, type VrrpProbe } from '../../../src/core/live/balancers';
import type { VrrpInstanceData } from '../../../src/core/live/keepalivedData';
import { loadInventory } from '../haproxy/helpers';

const base = loadInventory('examples/labs-k8s/inventory.yaml');
export const inv: Inventory = { ...base, hosts: [...base.hosts.map((h) => (h.roles.includes('loadbalancer') ? { ...h, vrrp: { state: 'MASTER' as const, priority: 100, interface: 'ens192' } } : h)), { name: 'labs-k8s-balancer2', address: '10.3.60.56', roles: ['loadbalancer'], vrrp: { state: 'BACKUP', priority: 90, interface: 'ens192' } }] };
export const [LB1, LB2] = ['labs-k8s-balancer', 'labs-k8s-balancer2'];
const confs = generateKeepalivedConfigs(inv, { authPass: 'x' });

export interface Side {
  holds: boolean;
  state?: string;
  effective?: number;
  haproxy?: boolean;
  keepalived?: boolean;
  weight?: number;
  nopreempt?: boolean;
}

export function instance(host: string, s: Side): VrrpInstanceData {
  const priority = host === LB1 ? 100 : 90;
  const weight = s.weight ?? -20;
  return { name: 'VI_K8S_API', state: s.state ?? (s.holds ? 'MASTER' : 'BACKUP'), vrid: 51, interface: 'ens192', priority, effectivePriority: s.effective ?? priority, masterRouter: undefined, masterPriority: undefined, lastTransition: 1_800_000_000, masterDownMs: masterDown(1, s.effective ?? priority) * 1000, advertSeconds: 1, preempt: !s.nopreempt, preemptDelaySeconds: undefined, vips: [{ address: '10.3.60.100', set: s.holds }], scripts: [{ name: 'chk_haproxy', weight, status: 'GOOD', intervalSeconds: 2, fall: 1, rise: 1 }] };
}

export function snapshot(sides: Record<string, Side>, over: Partial<DrillSnapshot> = {}): DrillSnapshot {
  const live = [LB1, LB2].map((h) => {
    const s = sides[h]!;
    const probe: VrrpProbe = { holdsVip: s.holds, vipInterface: s.holds ? 'ens192' : undefined, keepalivedActive: s.keepalived ?? true, keepalivedState: (s.state ?? (s.holds ? 'MASTER' : 'BACKUP')) as never, haproxyActive: s.haproxy ?? true, instance: instance(h, s) };
    return buildBalancer(inv.hosts.find((x) => x.name === h)!, probe, undefined);
  });
  const conf = (h: string) => {
    const s = sides[h]!;
    let text = confs[h]!.replace(/\n\s*auth_pass .*\n/, '\n');
    if (s.weight !== undefined) text = text.replace(/weight -\d+/, `weight ${s.weight}`);
    if (s.nopreempt) text = text.replace('    advert_int 1\n', '    advert_int 1\n    nopreempt\n');
    return { text, mac: h === LB1 ? '0a:00:00:00:00:50' : '0a:00:00:00:00:56' };
  };
  return {
    apiServer: 'https://10.3.60.100:6443', nodes: [], leaderLeases: [], kubeVersion: 'v1.34.12', componentArgs: {}, balancers: [], pods: [], replicaSets: [],
    vrrp: { model: buildBalancers(inv, live, 0), confs: { [LB1]: conf(LB1), [LB2]: conf(LB2) }, neighbour: { host: 'labs-k8s-w01', mac: '0a:00:00:00:00:50' } },
    ...over,
  };
}
export const healthy = () => snapshot({ [LB1]: { holds: true }, [LB2]: { holds: false } });
