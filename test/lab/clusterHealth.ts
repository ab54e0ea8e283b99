/**
 * What several lab tests need of the cluster they share: a wait until it is healthy again (the test before may have
 * just powered a node back on or started HAProxy again), and a client that polls the API through the VIP while a
 * test disturbs the control plane, counting the requests that failed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { adminTls, pollHttp, type PollResult } from './httpPoller';

const CLI = join(resolve(__dirname, '../..'), 'dist/cli.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The parts of `lab env` these helpers read. */
export interface LabClusterEnv {
  LAB_INVENTORY?: string | undefined;
  KUBECONFIG?: string | undefined;
  LAB_SSH_CONFIG?: string | undefined;
  LAB_KNOWN_HOSTS?: string | undefined;
  PATH?: string | undefined;
}

/**
 * Waits until `status --ssh` says healthy — what the drill's own preconditions read (every HAProxy backend UP on every
 * balancer, etcd, the Nodes): the test before may have just powered a node back on, and the drill rightly refuses to
 * fail a second node while a backend is still coming back ("DOWN 1/2"); a row comparison would compare a recovery.
 * `home`: the CLI's HOME (a fresh one, so that its known_hosts is not this machine user's).
 */
export async function waitHealthy(env: LabClusterEnv, home: string, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  let last = '';
  for (;;) {
    const r = spawnSync(process.execPath, [CLI, 'status', '--json', '--inventory', env.LAB_INVENTORY!, '--kubeconfig', env.KUBECONFIG!, '--ssh', '--ssh-config', env.LAB_SSH_CONFIG!, '--known-hosts', env.LAB_KNOWN_HOSTS!], {
      encoding: 'utf8', env: { ...process.env, PATH: env.PATH!, HOME: home }, timeout: 60_000,
    });
    try {
      const s = JSON.parse(r.stdout) as { degraded: boolean; problems: { severity: string; what: string }[] };
      // What the drill's refusals read: backends, etcd members, Nodes (a warning elsewhere does not stop it).
      const blocking = s.problems.filter((p) => /HAProxy|DOWN|etcd|NotReady|not Ready/i.test(p.what) && !/certificate|snapshot/i.test(p.what));
      if (!s.degraded && !blocking.length) {
        const seconds = (Date.now() - t0) / 1000;
        console.log(`cluster healthy after ${seconds.toFixed(1)} s`);
        return seconds;
      }
      last = JSON.stringify(s.problems);
    } catch {
      last = `${r.stdout}\n${r.stderr}`;
    }
    if (Date.now() - t0 > timeoutMs) assert.fail(`the cluster is not healthy after ${timeoutMs / 1000} s:\n${last}`);
    await sleep(3000);
  }
}

/**
 * How long a file waits for the cluster it takes over from the file before. That file may leave a control-plane
 * container in the kubelet's crash back-off: a NOSPACE fill, a reconfigure or an upgrade stops etcd or the API server
 * under the controller-manager and the scheduler, which exit when they cannot renew their leader lease, and the
 * kubelet then holds each new start back 10 s, 20 s, … up to MaxContainerBackOff, 300 s (seen on the lab: healthy
 * again 199 s after the maintenance file, and a 240 s wait outlasted once). 300 s, and 60 s for the container to start,
 * become ready and be read by `status`.
 */
export const TAKE_OVER_HEALTHY_MS = 360_000;

/** The request the API pollers make: a GET of an object, authenticated as the cluster's admin, which reaches etcd. */
export const API_PROBE_PATH = '/api/v1/namespaces/default/services/kubernetes';

/**
 * Polls the API through the VIP every 250 ms (2 s timeout each) until stopped, as a real client does: the admin's
 * client certificate from `kubeconfig`, the cluster's CA, a GET that reaches etcd; any answer outside 2xx (a 403 to
 * the admin, a 429, a 503) or a connection error is a failure. What a client of the cluster sees while a test restarts
 * the API servers one by one — an anonymous `/readyz` could not see a client being refused.
 */
export function pollApi(kubeconfig: string, vip = '10.3.60.100'): { stop(): Promise<PollResult> } {
  return pollHttp([`https://${vip}:6443${API_PROBE_PATH}`], { ...adminTls(kubeconfig), expect: /"name":\s*"kubernetes"/ });
}

/**
 * The fewest polls an honest poller makes in `seconds`: one every 250 ms plus the request, which the lab answers in well
 * under a second, or a failure after the 2 s timeout at worst; at least one every 2.25 s, then.
 */
export function minimumPolls(seconds: number): number {
  return Math.floor(seconds / 2.25);
}
