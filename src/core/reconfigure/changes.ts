/**
 * What a reconfigure changes: the workspace's ClusterConfiguration against the kubeadm-config ConfigMap's, limited to
 * what kubeadm can apply to a running control plane ("Reconfiguring a kubeadm cluster", kubernetes.io): each
 * component's extraArgs (and extraVolumes) and the API server's certSANs. Any other difference refuses, with what to do
 * instead (a version is an upgrade; the endpoint, the networks or the cluster's name are fixed at init). The ConfigMap's
 * new ClusterConfiguration is its own document with only those sections replaced (every default kubeadm wrote stays).
 */
import { parseDocument } from 'yaml';
import { COMPONENTS, SECTION, documentsByKind, extraArgsOf, extraArgsShape, getIn, parseObject, sameValue, type ControlPlaneComponent } from '../drift/kubeadmConfig';
import { compareWorkspaceCluster, type WorkspaceConfig } from '../drift/threeWay';
import { t } from '../l10n';

export interface ComponentChange {
  component: ControlPlaneComponent;
  /** Flags set or changed: name → value. */
  set: Map<string, string>;
  /** Flags the workspace no longer sets. */
  unset: string[];
  /** The component's extraVolumes differ (the manifest's mounts change). */
  volumes: boolean;
}

export interface Reconfiguration {
  changes: ComponentChange[];
  /** certSANs the API server's certificate must cover after the reconfigure (undefined: unchanged). */
  certSans?: string[];
  /** The kubeadm-config ConfigMap's ClusterConfiguration after the reconfigure. */
  desired: string;
  /** Differences a reconfigure cannot apply, with what to do instead. */
  refusals: string[];
  /** Differences outside the ClusterConfiguration (kubelet, kube-proxy): not applied, named. */
  notApplied: string[];
}

const RECONFIGURABLE = [...COMPONENTS.flatMap((c) => [`${SECTION[c].join('.')}.extraArgs`, `${SECTION[c].join('.')}.extraVolumes`]), 'apiServer.certSANs'];

function instead(field: string): string {
  if (field === 'kubernetesVersion') return t('a version change is an upgrade (kubeadm-workbench upgrade --to VERSION)');
  return t('kubeadm fixes it when the cluster is created; set the workspace back to the cluster\'s value');
}

export function reconfiguration(ws: WorkspaceConfig, clusterConfiguration: string): Reconfiguration {
  const refusals: string[] = [];
  const notApplied: string[] = [];
  for (const f of compareWorkspaceCluster(ws, { clusterConfiguration })) {
    if (f.object !== 'ClusterConfiguration') continue;
    if (!RECONFIGURABLE.some((r) => f.field === r || f.field.startsWith(`${r}.`))) refusals.push(t('{0}: the workspace says {1}, the cluster {2}: {3}', f.field, f.expected, f.actual, instead(f.field)));
  }
  const kinds = documentsByKind(ws.text);
  const mine = kinds.get('ClusterConfiguration');
  const theirs = parseObject(clusterConfiguration);
  const doc = parseDocument(clusterConfiguration);
  const api = String(theirs?.apiVersion ?? 'kubeadm.k8s.io/v1beta4');
  const changes: ComponentChange[] = [];
  let certSans: string[] | undefined;
  if (mine && theirs) {
    for (const c of COMPONENTS) {
      const section = SECTION[c];
      if (getIn(mine, section) === undefined) continue; // the workspace says nothing of this component
      const want = extraArgsOf(getIn(mine, section)) ?? new Map<string, string>();
      const have = extraArgsOf(getIn(theirs, section)) ?? new Map<string, string>();
      const set = new Map([...want].filter(([k, v]) => have.get(k) !== v));
      const unset = [...have.keys()].filter((k) => !want.has(k));
      const wv = getIn(mine, [...section, 'extraVolumes']);
      const volumes = wv !== undefined && !sameValue(wv, getIn(theirs, [...section, 'extraVolumes']));
      if (!set.size && !unset.length && !volumes) continue;
      changes.push({ component: c, set, unset, volumes });
      doc.setIn([...section, 'extraArgs'], doc.createNode(extraArgsShape(want, api)));
      if (volumes) doc.setIn([...section, 'extraVolumes'], doc.createNode(wv));
    }
    const ws0 = getIn(mine, ['apiServer', 'certSANs']);
    const have = (getIn(theirs, ['apiServer', 'certSANs']) as unknown[] | undefined)?.map(String) ?? [];
    if (Array.isArray(ws0)) {
      const want = ws0.map(String);
      if (want.length !== have.length || want.some((s) => !have.includes(s))) {
        certSans = want;
        doc.setIn(['apiServer', 'certSANs'], doc.createNode(want));
      }
    }
  }
  for (const k of ['KubeletConfiguration', 'KubeProxyConfiguration']) {
    if (kinds.has(k)) notApplied.push(t('{0}: a reconfigure of the control plane does not change it (kubelet-config and kube-proxy ConfigMaps are compared by drift)', k));
  }
  return { changes, ...(certSans ? { certSans } : {}), desired: doc.toString({ lineWidth: 0 }), refusals, notApplied };
}

/** `--name=value` as the manifest writes it. */
export function flagWord(name: string, value: string): string {
  return `--${name}=${value}`;
}
