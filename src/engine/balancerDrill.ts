/**
 * The balancer drills' moving parts beside the failure drill's (engine/drill.ts runs both): the read-only snapshot of
 * the VRRP pair — the balancers as `status` and the Inventory view read them, each one's keepalived.conf (its auth_pass
 * lines removed on the host) and the MAC of its VRRP interface, a node whose ARP entry for the VIP the drill watches —
 * and the pollers that feed the observer: who holds the VIP (every 250 ms), that node's neighbour entry, and the
 * balancers' read itself (the live view's cadence), whose split-brain problem is what the user would see.
 */
import { hostsWithRole, splitEndpoint, type Inventory } from '../core/inventory/types';
import type { VrrpSnapshot } from '../core/drill/balancerPlan';
import { holdsAddress, keepalivedConfCommand, neighbourCommand, parseNeighbour, vipHeldCommand } from '../core/drill/faults';
import type { Observation } from '../core/drill/observer';
import type { DrillPlan } from '../core/drill/plan';
import { describeError } from '../core/live/errors';
import { readBalancers, type RootRunner } from './balancers';
import { t } from '../core/l10n';

/** The pair as it runs now, and the node that watches the VIP's ARP entry. */
export async function snapshotVrrp(run: RootRunner, inv: Inventory): Promise<VrrpSnapshot> {
  const vip = splitEndpoint(inv.cluster.controlPlaneEndpoint)?.host ?? '';
  const model = await readBalancers(run, inv);
  const confs: VrrpSnapshot['confs'] = {};
  await Promise.all(
    model.balancers.map(async (b) => {
      try {
        const iface = b.vrrp?.instance?.interface ?? b.vrrp?.vipInterface ?? inv.hosts.find((h) => h.name === b.host)?.vrrp?.interface ?? 'ens192';
        const r = await run(b.host, keepalivedConfCommand(iface));
        const [text = '', mac = ''] = r.stdout.split('### mac\n');
        confs[b.host] = r.code === 0 ? { text, mac: mac.trim().toLowerCase() || undefined } : { error: `exit ${r.code}: ${r.stderr.trim().slice(0, 200)}` };
      } catch (e) {
        confs[b.host] = { error: describeError(e) };
      }
    }),
  );
  // a node that talks to the API through the VIP (every kubelet does): a worker first, it is not failed by these drills
  let neighbour: VrrpSnapshot['neighbour'];
  for (const h of [...hostsWithRole(inv, 'worker'), ...hostsWithRole(inv, 'control-plane')]) {
    try {
      const r = await run(h.name, neighbourCommand(vip));
      const mac = parseNeighbour(r.stdout);
      if (r.code === 0 && mac) {
        neighbour = { host: h.name, mac };
        break;
      }
      neighbour ??= { host: h.name, error: r.code === 0 ? t('no neighbour entry for the VIP') : `exit ${r.code}` };
    } catch (e) {
      neighbour ??= { host: h.name, error: describeError(e) };
    }
  }
  return { model, confs, neighbour };
}

export type Poll = (name: string, everyMs: number, fn: () => Promise<void>) => void;

/**
 * The balancer drill's pollers. A balancer that does not answer counts as not holding the VIP (a powered-off one holds
 * nothing); the VIP probe gives up after 1.5 s so a dead host does not hide the move behind a long SSH timeout.
 */
export function vrrpPollers(plan: DrillPlan, inv: Inventory, run: RootRunner, feed: (o: Observation) => void, poll: Poll, now: () => number): void {
  const v = plan.vrrp;
  if (!v) return;
  const mid = (a: number) => (a + now()) / 2;
  // One command at a time per host: a powered-off host's command hangs until the SSH timeout, and a new one every
  // 250 ms would pile up channels on a dead connection. While one is pending the host is not answering.
  const pending = new Map<string, Promise<unknown>>();
  const quick: RootRunner = (host, cmd) => {
    if (pending.has(host)) return Promise.reject(new Error(t('{0} has not answered the previous probe', host)));
    const p = run(host, cmd).finally(() => pending.delete(host));
    pending.set(host, p);
    return withTimeout(p, 1500);
  };
  for (const b of v.sides.map((s) => s.host)) {
    poll(`vip@${b}`, v.vipPollMs, async () => {
      const a = now();
      try {
        const r = await quick(b, vipHeldCommand());
        feed({ source: 'vip', t: mid(a), balancer: b, holds: r.code === 0 && holdsAddress(r.stdout, v.vip) });
      } catch (e) {
        // a balancer that does not answer holds nothing anyone can reach
        feed({ source: 'vip', t: mid(a), balancer: b, holds: false });
        throw e;
      }
    });
  }
  if (v.neighbour) {
    const host = v.neighbour;
    poll(`neighbour@${host}`, v.vipPollMs, async () => {
      const a = now();
      const r = await quick(`${host}`, neighbourCommand(v.vip));
      feed({ source: 'neighbour', t: mid(a), host, mac: parseNeighbour(r.stdout) });
    });
  }
  poll('balancers', v.verdictPollMs, async () => {
    // stamped when the read is done: that is when the view (or `status`) could show it
    const m = await readBalancers(run, inv);
    feed({ source: 'vrrp-verdict', t: now(), splitBrain: m.problems.find((p) => p.kind === 'split-brain')?.what });
  });
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(t('no answer within {0} ms', ms))), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
