/**
 * What the lab's two timeline tests (the CLI's, timeline.test.ts, and the panel's, ui-timeline.test.ts) share: the
 * seed's sequence from `kubectl run` to Ready with the source each hop must come from on the lab cluster (its API
 * servers write the audit log), the test image, and the worker the image is removed from for a cold run.
 */
import { spawnSync } from 'node:child_process';

export const WORKERS = ['labs-k8s-w01', 'labs-k8s-w02'];
export const IMAGE = '10.3.60.1:5000/kwlab/web:1.0';

/** The seed's sequence: each hop with the source it must come from on this cluster. */
export const SEQUENCE: [step: string, source: string, precision: string][] = [
  ['request-sent', 'client', 'ms'],
  ['request-received', 'audit', 'us'],
  ['stored', 'audit', 'us'],
  ['response-received', 'client', 'ms'],
  // µs from an events.k8s.io event; seconds from the core/v1 one a scheduler writes when the events API was not
  // there at its start (kubeadm starts it beside its API server): the binding's audit time is then the µs one.
  ['scheduled', 'event', 'us|s'],
  ['bound', 'audit', 'us'],
  ['kubelet-sync', 'journal', 'us'],
  ['sandbox-start', 'journal', 'us'],
  ['cni-add', 'journal', 'us'],
  ['sandbox-ready', 'journal', 'us'],
  ['pulling', 'journal', 'us'],
  ['pulled', 'journal', 'us'],
  ['container-created', 'journal', 'us'],
  ['container-started', 'journal', 'us'],
  ['running-observed', 'watch', 'ms'],
  ['ready-observed', 'watch', 'ms'],
];
/** The hops only a cold run has. */
export const PULL = new Set(['pulling', 'pulled']);

export function labSsh(env: Record<string, string>, host: string, command: string): { code: number; out: string } {
  const r = spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', `UserKnownHostsFile=${env.LAB_KNOWN_HOSTS}`, host, command], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

/** A worker the image can be removed from (no container of an earlier test uses it there): the cold run's node. */
export async function coldNode(env: Record<string, string>): Promise<string | undefined> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    for (const w of WORKERS) {
      labSsh(env, w, `crictl rmi ${IMAGE} >/dev/null 2>&1 || true`);
      if (labSsh(env, w, `crictl inspecti ${IMAGE} >/dev/null 2>&1`).code !== 0) return w;
    }
    // Containers of pods deleted a moment ago are still being stopped.
    await new Promise((r) => setTimeout(r, 3000));
  }
  return undefined;
}

export function inSubnet(ip: string, cidr: string): boolean {
  const [net, bits] = cidr.split('/');
  const n = (a: string) => a.split('.').reduce((x, o) => (x << 8) + Number(o), 0) >>> 0;
  const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
  return ((n(ip) & mask) >>> 0) === ((n(net!) & mask) >>> 0);
}
