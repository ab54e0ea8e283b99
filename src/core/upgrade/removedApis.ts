/**
 * API versions Kubernetes stops serving, per release, from the upstream "Deprecated API Migration Guide"
 * (kubernetes.io/docs/reference/using-api/deprecation-guide). An object stored through a removed version is
 * still readable through its replacement (the API server converts), but every manifest, chart and client that
 * still sends the old version fails after the upgrade: the preflight names what the cluster still serves and
 * uses of each removal between the current and the target version.
 *
 * The guide lists no removal for 1.33, 1.34, 1.35 or 1.36 (its newest section is v1.32): those releases have no
 * rows, and `removalsFor` says so rather than pretending to know more.
 */
import { compareVersions, type KubeVersion } from './versions';

export interface RemovedApi {
  group: string;
  version: string;
  /** Plural resource name, as discovery lists it. */
  resource: string;
  kind: string;
  /** The minor release that stops serving it ("1.32"). */
  removedIn: string;
  /** The group/version to use instead, and since when it is served. */
  replacement: string;
}

export const DEPRECATION_GUIDE = 'https://kubernetes.io/docs/reference/using-api/deprecation-guide/';

const row = (gv: string, resource: string, kind: string, removedIn: string, replacement: string): RemovedApi => {
  const [group, version] = gv.includes('/') ? (gv.split('/') as [string, string]) : ['', gv];
  return { group, version, resource, kind, removedIn, replacement };
};

/** Newest first. */
export const REMOVED_APIS: readonly RemovedApi[] = [
  row('flowcontrol.apiserver.k8s.io/v1beta3', 'flowschemas', 'FlowSchema', '1.32', 'flowcontrol.apiserver.k8s.io/v1 (since 1.29)'),
  row('flowcontrol.apiserver.k8s.io/v1beta3', 'prioritylevelconfigurations', 'PriorityLevelConfiguration', '1.32', 'flowcontrol.apiserver.k8s.io/v1 (since 1.29)'),
  row('flowcontrol.apiserver.k8s.io/v1beta2', 'flowschemas', 'FlowSchema', '1.29', 'flowcontrol.apiserver.k8s.io/v1 (since 1.29)'),
  row('flowcontrol.apiserver.k8s.io/v1beta2', 'prioritylevelconfigurations', 'PriorityLevelConfiguration', '1.29', 'flowcontrol.apiserver.k8s.io/v1 (since 1.29)'),
  row('storage.k8s.io/v1beta1', 'csistoragecapacities', 'CSIStorageCapacity', '1.27', 'storage.k8s.io/v1 (since 1.24)'),
  row('flowcontrol.apiserver.k8s.io/v1beta1', 'flowschemas', 'FlowSchema', '1.26', 'flowcontrol.apiserver.k8s.io/v1beta3 (since 1.26)'),
  row('flowcontrol.apiserver.k8s.io/v1beta1', 'prioritylevelconfigurations', 'PriorityLevelConfiguration', '1.26', 'flowcontrol.apiserver.k8s.io/v1beta3 (since 1.26)'),
  row('autoscaling/v2beta2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', '1.26', 'autoscaling/v2 (since 1.23)'),
  row('batch/v1beta1', 'cronjobs', 'CronJob', '1.25', 'batch/v1 (since 1.21)'),
  row('discovery.k8s.io/v1beta1', 'endpointslices', 'EndpointSlice', '1.25', 'discovery.k8s.io/v1 (since 1.21)'),
  row('events.k8s.io/v1beta1', 'events', 'Event', '1.25', 'events.k8s.io/v1 (since 1.19)'),
  row('autoscaling/v2beta1', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', '1.25', 'autoscaling/v2 (since 1.23)'),
  row('policy/v1beta1', 'poddisruptionbudgets', 'PodDisruptionBudget', '1.25', 'policy/v1 (since 1.21)'),
  row('policy/v1beta1', 'podsecuritypolicies', 'PodSecurityPolicy', '1.25', 'none: Pod Security Admission (since 1.23)'),
  row('node.k8s.io/v1beta1', 'runtimeclasses', 'RuntimeClass', '1.25', 'node.k8s.io/v1 (since 1.20)'),
];

/** Releases the guide has been read for; a target beyond the last one gets a warning that the table may be behind. */
export const TABLE_COVERS_THROUGH = '1.36';

function minorKey(text: string): KubeVersion {
  const [major, minor] = text.split('.').map(Number) as [number, number];
  return { major, minor, patch: 0 };
}

/** Removals that take effect after `current` up to and including `target` (a patch upgrade removes nothing). */
export function removalsBetween(current: KubeVersion, target: KubeVersion): RemovedApi[] {
  const from = { ...current, patch: 0 };
  const to = { ...target, patch: 0 };
  return REMOVED_APIS.filter((r) => {
    const at = minorKey(r.removedIn);
    return compareVersions(at, from) > 0 && compareVersions(at, to) <= 0;
  });
}

/**
 * A resource version the cluster serves, as the engine reads it: discovery says it is served, the API server's
 * `apiserver_requested_deprecated_apis` metric says a client asked for it since the API server started, and a
 * list through it counts the objects.
 */
export interface ServedResource {
  /** `group/version`, or `v1` for the core group. */
  groupVersion: string;
  resource: string;
  /** Clients sent requests through this version (the deprecated-API metric). */
  requested?: boolean;
  /** Objects of the kind (readable through any served version); undefined when not counted. */
  count?: number;
}

export interface RemovedInUse {
  api: RemovedApi;
  /** Clients still send requests through the removed version: they fail after the upgrade. */
  requested: boolean;
  count: number | undefined;
}

export function gvOf(r: RemovedApi): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/**
 * The removals the cluster still serves and uses: requested by a client, or with objects of the kind. Objects
 * alone are not a failure (the API server converts stored objects to the replacement; the built-in FlowSchemas
 * exist in every cluster), a client still asking for the old version is.
 */
export function removedApisInUse(served: readonly ServedResource[], current: KubeVersion, target: KubeVersion): RemovedInUse[] {
  const out: RemovedInUse[] = [];
  for (const api of removalsBetween(current, target)) {
    const s = served.find((x) => x.groupVersion === gvOf(api) && x.resource === api.resource);
    if (!s) continue;
    const requested = s.requested === true;
    if (!requested && !s.count) continue;
    out.push({ api, requested, count: s.count });
  }
  return out;
}
