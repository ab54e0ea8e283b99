/**
 * The few Kubernetes object fields the live views read. Objects come from the API as JSON; these
 * shapes name only what the models use, so any server version's extra fields pass through untouched.
 */

export interface OwnerReference {
  kind: string;
  name: string;
  uid?: string;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export interface KObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
}

export interface ContainerStatus {
  name: string;
  ready: boolean;
  restartCount: number;
  state?: {
    running?: { startedAt?: string };
    waiting?: { reason?: string; message?: string };
    terminated?: { reason?: string; exitCode?: number };
  };
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

export interface Pod extends KObject {
  spec?: { nodeName?: string; containers?: Container[]; hostNetwork?: boolean; priorityClassName?: string };
  status?: {
    phase?: string;
    reason?: string;
    conditions?: Condition[];
    containerStatuses?: ContainerStatus[];
    startTime?: string;
    podIP?: string;
  };
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface Node extends KObject {
  spec?: { taints?: Taint[]; unschedulable?: boolean; podCIDR?: string };
  status?: {
    conditions?: Condition[];
    addresses?: { type: string; address: string }[];
    nodeInfo?: { kubeletVersion?: string; containerRuntimeVersion?: string; osImage?: string };
    /** The images the node's runtime holds (kubelet reports up to 50, largest first). */
    images?: { names?: string[]; sizeBytes?: number }[];
  };
}

export interface Lease extends KObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export interface DaemonSet extends KObject {
  status?: { desiredNumberScheduled?: number; numberReady?: number; updatedNumberScheduled?: number; numberAvailable?: number; numberUnavailable?: number };
}

export interface Deployment extends KObject {
  spec?: { replicas?: number };
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number; updatedReplicas?: number };
}

/** A `Status` object as the API returns it for errors, including the `ERROR` watch event's object. */
export interface ApiStatus {
  kind?: 'Status';
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
}

/** `namespace/name` (or `name` for cluster-scoped objects): the key of every store. */
export function objectKey(o: KObject): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
}

export function parseTime(t: string | undefined): number | undefined {
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}
