/**
 * The Control Plane view's rows, as plain data (no VS Code): per control-plane node (Ready/NotReady, taints, versions,
 * version skew) its etcd, kube-apiserver, kube-controller-manager and kube-scheduler mirror pods — phase, ready,
 * restarts, age, static/mirror marker, stale mirror or manifest drift — then the add-ons (CoreDNS, kube-proxy, the CNI
 * DaemonSet) with desired/ready. The view (controlPlaneView.ts) shows them; unit tests call them.
 */
import type { ComponentPod, ControlPlaneModel, ControlPlaneNode } from '../core/live/controlPlane';
import { describeComponent } from '../core/live/render';
import { formatAge } from '../core/live/format';
import { t } from '../core/l10n';
import { skewNotes } from '../core/upgrade/versions';
import type { LiveNode } from '../editor/treeNodes';
import { ERR, md, MUTED, OK, WARN } from './rowLook';

/** The view's tree (exported for tests). */
export function buildControlPlaneTree(model: ControlPlaneModel): LiveNode[] {
  const notes = skewNotes(model.nodes.map((n) => ({ name: n.name, kubelet: n.kubeletVersion, apiServer: n.apiServerVersion })));
  const roots = model.nodes.map((n) => nodeRow(n, notes.get(n.name)));
  if (model.addons.length) {
    const unhealthy = model.addons.filter((a) => !a.healthy).length;
    roots.push({
      id: 'addons',
      label: t('Add-ons'),
      description: unhealthy ? t('{0} not ready', unhealthy) : t('{0} ready', model.addons.length),
      icon: 'extensions',
      color: unhealthy ? WARN : undefined,
      expanded: true,
      children: model.addons.map((a) => ({
        id: `addon:${a.namespace}/${a.name}`,
        label: a.name,
        description: t('{0} · ready {1}/{2}', a.kind, a.ready, a.desired),
        icon: a.healthy ? 'pass' : 'warning',
        color: a.healthy ? OK : WARN,
        tooltip: md([t('**{0}** ({1} in `{2}`, {3})', a.name, a.kind, a.namespace, a.role === 'cni' ? 'CNI' : a.role === 'dns' ? t('cluster DNS') : t('Service proxy')), t('desired {0}, ready {1}', a.desired, a.ready)]),
        contextValue: 'addon',
      })),
    });
  }
  return roots;
}

/** `skew`: the node's version-skew note (core/upgrade/versions.ts), shown in the row and its tooltip. */
function nodeRow(n: ControlPlaneNode, skew: string | undefined): LiveNode {
  const bad = n.components.filter((c) => !c.present || !c.ready || c.phase !== 'Running').length;
  const ready = n.readiness === 'Ready';
  // On a node that is not Ready the pods' state is the kubelet's last report: said so, never "ready".
  const reported = n.components.filter((c) => c.present && c.readyContainers === c.totalContainers && c.totalContainers > 0).length;
  const pods = ready ? t('{0}/{1} pods ready', n.components.length - bad, n.components.length) : t('pods last reported {0}/{1} ready', reported, n.components.length);
  return {
    id: `cpnode:${n.name}`,
    label: n.name,
    // the readiness (Ready, NotReady) and SchedulingDisabled are kubectl's words, as `kubectl get nodes` shows them
    description: [`${n.readiness}${n.unschedulable ? ',SchedulingDisabled' : ''}`, pods, n.kubeletVersion && `kubelet ${n.kubeletVersion}`, n.apiServerVersion && `apiserver ${n.apiServerVersion}`, skew && t('version skew')].filter(Boolean).join(' · '),
    icon: ready ? (bad || skew ? 'warning' : 'server-process') : 'error',
    color: ready ? (bad || skew ? WARN : undefined) : ERR,
    tooltip: md([
      `**${n.name}**${n.host && n.host !== n.name ? t(' (inventory host {0})', n.host) : ''}`,
      t('Node {0}{1}', n.readiness, n.readyReason ? ` — ${n.readyReason}` : ''),
      n.taints.length ? t('Taints: {0}', n.taints.map((x) => `\`${x}\``).join(', ')) : t('No taints'),
      n.kubeletVersion ? `kubelet ${n.kubeletVersion}` : '',
      n.apiServerVersion ? `kube-apiserver ${n.apiServerVersion}` : '',
      skew ? t('Version skew: {0}', skew) : '',
    ]),
    contextValue: `cpnode-${n.readiness}`,
    expanded: true,
    children: [...n.components.map((c) => componentRow(n.name, c)), ...(n.taints.length ? [{ id: `cpnode:${n.name}:taints`, label: 'taints', description: n.taints.join(', '), icon: 'circle-slash', color: MUTED }] : [])],
  };
}

function componentRow(node: string, c: ComponentPod): LiveNode {
  const healthy = c.present && c.ready && c.phase === 'Running';
  const desc = describeComponent(c).split(' · ').slice(1).join(' · ');
  if (c.stale) {
    return {
      id: `cp:${node}:${c.component}`,
      label: c.component,
      description: desc,
      icon: 'question',
      color: MUTED,
      tooltip: md([t('**{0}**: what the kubelet on {1} last reported — the node is not Ready, so the present state is unknown.', c.podName, node)]),
      contextValue: `cp-component-${c.component}`,
    };
  }
  return {
    id: `cp:${node}:${c.component}`,
    label: c.component,
    description: desc,
    icon: !c.present ? 'circle-slash' : healthy ? (c.drift?.drift || c.mirrorStale ? 'diff' : 'pass') : c.phase === 'Running' ? 'warning' : 'error',
    color: !c.present ? ERR : healthy ? (c.drift?.drift || c.mirrorStale ? WARN : OK) : c.phase === 'Running' ? WARN : ERR,
    tooltip: md([
      c.present ? t('**{0}** — {1}, ready {2}/{3}, restarts {4}, age {5} (as kubectl get pods counts it: since the pod object was created)', c.podName, c.phase, c.readyContainers, c.totalContainers, c.restarts, formatAge(c.ageMs)) : t('**{0}**: no pod on {1}', c.component, node),
      c.reason ? t('Reason: {0}', c.reason) : '',
      c.mirror
        ? t('Static pod from `/etc/kubernetes/manifests/{0}.yaml` (config.source `{1}`); this is its mirror pod.', c.component, c.source ?? '?')
        : c.present ? t('Not a mirror pod: not run by kubelet from a manifest.') : '',
      c.configHash ? `config.hash \`${c.configHash}\`${c.mirrorStale ? t(' — differs from config.mirror: kubelet is replacing the mirror pod') : ''}` : '',
      c.drift ? (c.drift.drift ? t('Manifest on disk differs from the running pod:\n\n{0}', c.drift.differences.map((d) => `- ${d}`).join('\n')) : t('Manifest on disk matches the running pod.')) : '',
    ]),
    contextValue: `cp-component-${c.component}`,
  };
}
