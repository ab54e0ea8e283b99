/**
 * Puts the kube-scheduler and kube-controller-manager leader leases on one control-plane node of the lab, so a test
 * that fails or drains that node has leases to watch move (or to see named) every time, not only when the cluster
 * happened to elect it. The other control-plane nodes' scheduler and controller-manager static pods are set aside
 * until the node has taken both leases, then put back, and the test waits until they run again as stand-bys.
 */
import { execFileSync } from 'node:child_process';

export const LEADER_LEASES = ['kube-scheduler', 'kube-controller-manager'] as const;
const CONTROL_PLANES = ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03'];
const MANIFESTS = LEADER_LEASES.map((c) => `/etc/kubernetes/manifests/${c}.yaml`);
const HELD = '/root/kw-held-leader-pods';

export interface LabEnv {
  KUBECONFIG?: string | undefined;
  LAB_SSH_CONFIG?: string | undefined;
  PATH?: string | undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function leaderLeasesOnto(target: string, env: LabEnv): Promise<void> {
  const ssh = (host: string, cmd: string) => execFileSync('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', 'BatchMode=yes', host, cmd], { encoding: 'utf8', timeout: 30_000 });
  const holder = (lease: string): string => {
    try {
      const out = execFileSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, '--request-timeout=10s', '-n', 'kube-system', 'get', 'lease', lease, '-o', 'jsonpath={.spec.holderIdentity}'], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH ?? process.env.PATH! } });
      return out.replace(/_[^_]*$/, '');
    } catch {
      return ''; // the API may be busy for a moment
    }
  };
  const others = CONTROL_PLANES.filter((h) => h !== target);
  const until = async (what: string, timeoutMs: number, ok: () => boolean): Promise<void> => {
    for (const t0 = Date.now(); !ok(); await sleep(1000)) if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
  };
  if (LEADER_LEASES.every((l) => holder(l) === target)) return;
  for (const h of others) ssh(h, `mkdir -p ${HELD} && mv ${MANIFESTS.join(' ')} ${HELD}/`);
  try {
    // A lease expires 15 s after its holder's last renewal; then the target, the only candidate left, takes it.
    await until(`both leader leases on ${target}`, 90_000, () => LEADER_LEASES.every((l) => holder(l) === target));
  } finally {
    for (const h of others) ssh(h, `mv ${LEADER_LEASES.map((c) => `${HELD}/${c}.yaml`).join(' ')} /etc/kubernetes/manifests/`);
  }
  await until(`the scheduler and controller-manager of ${others.join(' and ')} running again`, 120_000, () =>
    others.every((h) => LEADER_LEASES.every((c) => {
      try {
        return ssh(h, `crictl ps --name '^${c}$' --state running -q`).trim() !== '';
      } catch {
        return false;
      }
    })));
}
