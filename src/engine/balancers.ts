/**
 * Reads the balancers over SSH: HAProxy's configuration, admin socket and backend states (the failure drill's
 * probe — the drill snapshots balancers with this same function), and the VRRP side (who holds the VIP,
 * Keepalived's state, whether HAProxy runs). Shared by `kubeadm-workbench status --ssh` and the Inventory view.
 */
import type { Inventory } from '../core/inventory/types';
import { balancerHosts, buildBalancer, buildBalancers, parseVrrpProbe, vrrpProbeCommand, type BalancersModel } from '../core/live/balancers';
import { splitEndpoint } from '../core/inventory/types';
import { describeError } from '../core/live/errors';
import { sh, type RemoteCommand } from '../core/ssh/command';
import type { RemoteExec } from '../core/live/etcdSource';
import { haproxyProbeCommand, haproxyProbeDetectCommand, readFileCommand } from '../core/drill/commands';
import { parseShowStat } from '../core/drill/haproxyState';
import { haproxyCfgInfo } from '../core/drill/params';
import type { BalancerSnapshot } from '../core/drill/plan';

/** Runs a command as root on an inventory host; any exit code is an answer. */
export type RootRunner = (host: string, cmd: RemoteCommand) => Promise<{ code: number; stdout: string; stderr: string }>;

/** HAProxy on one balancer: its config, how its admin socket is reached, and each server's state from `show stat`. */
export async function readHaproxy(run: RootRunner, host: string): Promise<BalancerSnapshot> {
  try {
    const cfgText = await run(host, readFileCommand('/etc/haproxy/haproxy.cfg'));
    if (cfgText.code !== 0) return { host, error: `\`cat /etc/haproxy/haproxy.cfg\` exited ${cfgText.code}: ${cfgText.stderr.trim()}` };
    const cfg = haproxyCfgInfo(cfgText.stdout);
    const socket = cfg.statsSocket ?? '/run/haproxy/admin.sock';
    const det = await run(host, haproxyProbeDetectCommand(socket));
    const [methodLine, clockLine] = det.stdout.trim().split('\n');
    const method = methodLine === 'socat' || methodLine === 'perl' ? methodLine : 'journal';
    const clockEpoch = Number(clockLine) || undefined;
    const out: BalancerSnapshot = { host, cfg, method, clockEpoch };
    if (method !== 'journal') {
      const st = await run(host, haproxyProbeCommand(method, socket, 0));
      if (st.code !== 0) return { host, cfg, error: `HAProxy's admin socket ${socket} did not answer (exit ${st.code}): ${st.stderr.trim()}` };
      out.states = {};
      for (const s of cfg.servers) {
        const state = parseShowStat(st.stdout, s.backend, s.server);
        if (state) out.states[`${s.backend}/${s.server}`] = state;
      }
    }
    return out;
  } catch (e) {
    return { host, error: describeError(e) };
  }
}

/** Every balancer of the inventory, in parallel. */
export async function readBalancers(run: RootRunner, inventory: Inventory, now = Date.now): Promise<BalancersModel> {
  const vip = splitEndpoint(inventory.cluster.controlPlaneEndpoint)?.host ?? '';
  const live = await Promise.all(
    balancerHosts(inventory).map(async (h) => {
      try {
        const [v, haproxy] = await Promise.all([run(h.name, vrrpProbeCommand()), readHaproxy(run, h.name)]);
        if (v.code !== 0 && !v.stdout.trim()) return buildBalancer(h, undefined, haproxy, `exit ${v.code}: ${v.stderr.trim().slice(0, 200)}`);
        return buildBalancer(h, parseVrrpProbe(v.stdout, vip), haproxy);
      } catch (e) {
        return buildBalancer(h, undefined, undefined, describeError(e));
      }
    }),
  );
  return buildBalancers(inventory, live, now());
}

/** A RootRunner over the live views' RemoteExec (`sh -c`), through `sudo -n` when the login user is not root. */
export function rootRunnerOver(remote: RemoteExec, nonRoot: boolean, timeoutMs?: number): RootRunner {
  return async (host, cmd) => {
    const script = nonRoot ? sh`sudo -n sh -c ${cmd.text}`.text : cmd.text;
    const run = remote.exec(host, script);
    if (!timeoutMs) return run;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)));
    try {
      return await Promise.race([run, limit]);
    } finally {
      clearTimeout(timer);
    }
  };
}
