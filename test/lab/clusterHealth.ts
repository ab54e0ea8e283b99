/**
 * What several lab tests need of the cluster they share: a wait until it is healthy again (the test before may have
 * just powered a node back on or started HAProxy again), and a client that polls the API through the VIP while a
 * test disturbs the control plane, counting the requests that failed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request } from 'node:https';
import { join, resolve } from 'node:path';

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
 * Polls `/readyz` through the VIP every 250 ms (2 s timeout each) until stopped: what a client of the cluster sees
 * while a renewal restarts the API servers one by one.
 */
export function pollApi(vip: string): { stop(): Promise<{ polls: number; failures: number }> } {
  let polls = 0;
  let failures = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const ok = await new Promise<boolean>((res) => {
        const req = request({ host: vip, port: 6443, path: '/readyz', rejectUnauthorized: false, timeout: 2000 }, (r) => (r.resume(), res(r.statusCode === 200)));
        req.on('timeout', () => req.destroy());
        req.on('error', () => res(false));
        req.end();
      });
      polls++;
      if (!ok) failures++;
      await sleep(250);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { polls, failures };
    },
  };
}
