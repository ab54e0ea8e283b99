/**
 * What the lab's upgrade tests (the CLI's, test/lab/upgrade.test.ts, and the palette's, test/lab/ui-upgrade.test.ts)
 * share: the two minors the lab builds, the admin credentials for the API poller, and the check that the cluster
 * ended at the target — every Node, every control-plane pod, etcd, kube-proxy, CoreDNS, the packages and their holds.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const versions = Object.fromEntries([...readFileSync(join(ROOT, 'lab/versions.env'), 'utf8').matchAll(/^(\w+)=(\S+)/gm)].map((m) => [m[1]!, m[2]!]));

export const NODES = ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03', 'labs-k8s-w01', 'labs-k8s-w02'];
export const ADDRESSES = ['10.3.60.51', '10.3.60.52', '10.3.60.53', '10.3.60.54', '10.3.60.55'];
export const UPGRADE = {
  FROM: versions.PREVIOUS_KUBE_VERSION!, // v1.33.13
  TO: versions.KUBE_VERSION!, // v1.34.12
  TO_PLAIN: versions.KUBE_VERSION!.replace(/^v/, ''),
  ETCD_TAG: `${versions.ETCD_VERSION!.replace(/^v/, '')}-0`,
  COREDNS_TAG: versions.COREDNS_VERSION!,
};

/** The test's own kubectl (the lab's kubeconfig) and ssh (the lab's SSH config). */
export interface UpgradeLab {
  kubectl: (...args: string[]) => string;
  ssh: (host: string, cmd: string) => { status: number | null; stdout: string };
}

export { adminTls } from './httpPoller';

export function etcdctl(lab: UpgradeLab, ...args: string[]): string {
  return lab.kubectl('-n', 'kube-system', 'exec', 'etcd-labs-k8s-m01', '--', 'etcdctl', '--endpoints=https://127.0.0.1:2379', '--cacert=/etc/kubernetes/pki/etcd/ca.crt',
    '--cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt', '--key=/etc/kubernetes/pki/etcd/healthcheck-client.key', ...args);
}

/** Throws with every difference from the target: Nodes, kube-system pods' images, packages and holds on every node. */
export function atTarget(lab: UpgradeLab): void {
  const { TO, ETCD_TAG, COREDNS_TAG } = UPGRADE;
  const problems: string[] = [];
  const nodes = JSON.parse(lab.kubectl('get', 'nodes', '-o', 'json')).items as { metadata: { name: string }; status: { nodeInfo: { kubeletVersion: string }; conditions: { type: string; status: string }[] } }[];
  assert.deepEqual(nodes.map((n) => n.metadata.name).sort(), NODES);
  for (const n of nodes) {
    const ready = n.status.conditions.find((c) => c.type === 'Ready')?.status;
    if (n.status.nodeInfo.kubeletVersion !== TO || ready !== 'True') problems.push(`node ${n.metadata.name}: kubelet ${n.status.nodeInfo.kubeletVersion}, Ready=${ready}`);
  }
  const pods = JSON.parse(lab.kubectl('-n', 'kube-system', 'get', 'pods', '-o', 'json')).items as { metadata: { name: string }; spec: { containers: { image: string }[] }; status: { containerStatuses?: { ready: boolean }[] } }[];
  const want: [RegExp, string, number][] = [[/^kube-apiserver-/, TO, 3], [/^kube-controller-manager-/, TO, 3], [/^kube-scheduler-/, TO, 3], [/^etcd-/, ETCD_TAG, 3], [/^kube-proxy-/, TO, 5], [/^coredns-/, COREDNS_TAG, 2]];
  for (const [re, tag, count] of want) {
    const mine = pods.filter((p) => re.test(p.metadata.name));
    if (mine.length !== count) problems.push(`${count} ${re.source} pods expected, ${mine.length} found`);
    for (const p of mine) {
      const image = p.spec.containers[0]!.image;
      if (!image.endsWith(`:${tag}`) || !p.status.containerStatuses?.every((c) => c.ready)) problems.push(`pod ${p.metadata.name}: ${image}, ready=${p.status.containerStatuses?.map((c) => c.ready).join()}`);
    }
  }
  for (const n of NODES) {
    const r = lab.ssh(n, "kubeadm version -o short; kubelet --version | cut -d' ' -f2; kubectl version --client | sed -n 's/^Client Version: //p'; apt-mark showhold | sort | tr '\\n' ' '");
    const got = r.stdout.trim().split('\n').map((l) => l.trim());
    if (got.join('|') !== `${TO}|${TO}|${TO}|kubeadm kubectl kubelet`) problems.push(`${n}: kubeadm, kubelet, kubectl, holds = ${got.join(' | ')}`);
  }
  if (problems.length) throw new Error(`not at ${TO}:\n  ${problems.join('\n  ')}`);
}

/** The three etcd members, one per control-plane node, every one voting and healthy (throws otherwise). */
export function threeVotingMembers(lab: UpgradeLab): void {
  const members = JSON.parse(etcdctl(lab, 'member', 'list', '-w', 'json').replace(/("ID":\s*)(\d+)/g, '$1"$2"')) as { members: { name: string; isLearner?: boolean }[] };
  assert.deepEqual(members.members.map((m) => m.name).sort(), ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03'], 'three etcd members, one per control-plane node');
  assert.deepEqual(members.members.filter((m) => m.isLearner), [], 'every member votes');
  etcdctl(lab, 'endpoint', 'health', '--cluster');
}
