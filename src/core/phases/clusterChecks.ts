/** The bring-up's closing checks (its verify phase): the inventory's labels, every node Ready, then healthy as `status` judges. */
import { t } from '../l10n';
import type { Inventory } from '../inventory/types';
import { and, sh } from '../ssh/command';
import type { PhasePlan, Step } from '../plan/types';
import { firstControlPlane, GATE, type InitHooks } from './bringUp';
import { KUBECTL } from './interrupted';
import { kubernetesHosts } from '../inventory/types';

/** The seed's closing checks, once every node has joined: every node Ready, CoreDNS running. */
export function clusterChecksPhase(inv: Inventory, hooks: Pick<InitHooks, 'clusterHealthy'> = {}): PhasePlan {
  const first = firstControlPlane(inv);
  const nodes = kubernetesHosts(inv);
  return {
    phase: 'verify',
    title: t('Cluster checks'),
    order: 'serial',
    warnings: [],
    steps: [
      ...nodes.filter((h) => h.labels && Object.keys(h.labels).length).map((h) =>
        verifyStep(first.name, `labels-${h.name}`, {
          title: t('Label {0} ({1})', h.name, Object.keys(h.labels!).join(', ')),
          about: h.name,
          why: t('The inventory\'s labels for this host; kubelet cannot set node-role labels on itself, so they are set through the API.'),
          run: sh`${KUBECTL} label --overwrite ${'node/' + h.name} ${Object.entries(h.labels!).map(([k, v]) => `${k}=${v}`)} --request-timeout=15s`,
        }),
      ),
      verifyStep(first.name, 'ready', {
        title: t('Every node Ready ({0}) and CoreDNS running', nodes.length),
        why: t('Nodes stay NotReady and CoreDNS Pending until the CNI routes the pod network on every node.'),
        rerun: GATE,
        verify: and(sh`${KUBECTL} wait --for=condition=Ready ${nodes.map((h) => 'node/' + h.name)} --timeout=10s`, sh`${KUBECTL} -n kube-system wait --for=condition=Ready pod -l k8s-app=kube-dns --timeout=10s`),
        verifyTimeoutMs: 5 * 60_000,
      }),
      ...(hooks.clusterHealthy
        ? [verifyStep(first.name, 'healthy', {
          title: t('The cluster is healthy as `status` judges it (control-plane pods ready, etcd, leases, nodes)'),
          why: t('Right after the last join a readiness probe or a lease may still be converging: the run ends when the cluster is well, not before (a bounded wait that names what it waits for).'),
          rerun: GATE,
          planDisplay: t('read the cluster as `kubeadm-workbench status` does until it says healthy (3 min at most)'),
          action: (_v, signal) => hooks.clusterHealthy!(signal),
        })]
        : []),
    ],
  };
}

function verifyStep(host: string, key: string, rest: Omit<Step, 'id' | 'phase' | 'host'>): Step {
  return { id: `verify/${host}/${key}`, phase: 'verify', host, ...rest };
}
